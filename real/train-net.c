/* train-net.c — see train-net.h. */
#include "real/train-net.h"
#include "sim/base/error.h"
#include "sim/base/stats.h"

#include <cblas.h>
#include <math.h>

/* The transformer when the model has GPT-2's embedding tensor, else the
 * MLP (which names what it needs when the model is neither). */
static gboolean
is_gpt2 (const DpsModel *m)
{
  return dps_model_n_tensors (m) > 0 && g_str_equal (dps_model_tensor (m, 0)->name, "wte.weight");
}

DpsTrainNet *
dps_train_net_new (const DpsModel *m, int batch, guint32 seed, GError **error)
{
  return dps_train_net_new_on (dps_dev_cpu (), m, batch, seed, error);
}

DpsTrainNet *
dps_train_net_new_on (DpsDev *dev, const DpsModel *m, int batch, guint32 seed, GError **error)
{
  return dps_train_net_new_padded (dev, m, batch, seed, 1, error);
}

DpsTrainNet *
dps_train_net_new_padded (DpsDev *dev, const DpsModel *m, int batch, guint32 seed, int pad, GError **error)
{
  g_return_val_if_fail (pad >= 1, NULL);
  if (batch < 1) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "batch %d: must be at least 1", batch);
    return NULL;
  }
  if (is_gpt2 (m))
    return dps_gpt2_new (dev, m, batch, seed, pad, 1, 0, error);
  return dps_mlp_new (dev, m, batch, seed, pad, error);
}

DpsTrainNet *
dps_train_net_new_tp (DpsDev *dev, const DpsModel *m, int batch, guint32 seed, int pad, int tp, int tp_rank,
                      GError **error)
{
  if (tp == 1)
    return dps_train_net_new_padded (dev, m, batch, seed, pad, error);
  if (!is_gpt2 (m)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--tp: %s is not a GPT-2 stack (tensor parallelism splits "
                 "attention and MLP blocks)", m->name);
    return NULL;
  }
  return dps_gpt2_new (dev, m, batch, seed, pad, tp, tp_rank, error);
}

/* A model's tensors belong to the layer they were added after
 * (dps_model_add_tensor), so layer after layer, tensor after tensor, is
 * definition order. */
gint64
dps_train_net_layout (const DpsModel *m, int pad, gint64 *toff, gint64 *loff)
{
  g_return_val_if_fail (pad >= 1, 0);
  gint64 off = 0;
  int L = dps_model_n_layers (m);
  for (int l = 0; l < L; l++) {
    const DpsLayer *ly = dps_model_layer (m, l);
    gint64 start = off;
    if (loff)
      loff[l] = start;
    for (int k = 0; k < ly->n_tensors; k++) {
      if (toff)
        toff[ly->first_tensor + k] = off;
      off += dps_model_tensor (m, ly->first_tensor + k)->numel;
    }
    off = start + (off - start + pad - 1) / pad * pad;
  }
  if (loff)
    loff[L] = off;
  return off;
}

int
dps_train_net_last_reader (const DpsModel *m, int layer)
{
  return layer == 0 && is_gpt2 (m) ? dps_model_n_layers (m) - 1 : layer;
}

gboolean
dps_train_net_check (const DpsModel *m, GError **error)
{
  return is_gpt2 (m) ? dps_gpt2_check (m, error) : dps_mlp_check (m, error);
}

void
dps_train_net_init (DpsTrainNet *n, const DpsTrainNetOps *ops, DpsDev *dev, const char *kind, int n_layers, int batch)
{
  n->ops = ops;
  n->dev = dev;
  n->kind = kind;
  n->n_layers = n_layers;
  n->batch = batch;
  n->tp = 1;
}

void
dps_train_net_free (DpsTrainNet *n)
{
  if (!n)
    return;
  n->dev->free (n->dev, n->m1);
  n->dev->free (n->dev, n->m2);
  n->ops->free (n);
}

gboolean
dps_train_net_update (DpsTrainNet *n, gboolean adam, double lr, double grad_scale, int step, GError **error)
{
  DpsDev *dev = n->dev;
  if (adam && !n->m1) {
    n->m1 = dev->alloc (dev, sizeof (float) * n->n_params);
    n->m2 = dev->alloc (dev, sizeof (float) * n->n_params);
    if (!n->m1 || !n->m2) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "Adam's moments: out of %s memory", dev->name);
      return FALSE;
    }
  }
  dps_train_net_optimize (dev, adam, lr, grad_scale, step, n->params, n->grads, n->m1, n->m2, n->n_params);
  return TRUE;
}

void
dps_train_net_optimize (DpsDev *dev, gboolean adam, double lr, double grad_scale, int step, float *p,
                        const float *g, float *m1, float *m2, gint64 n)
{
  if (n <= 0)
    return;
  if (!adam) {
    dev->axpy (dev, n, (float) (-lr * grad_scale), g, p);
    return;
  }
  float c1 = (float) (lr / (1 - pow (0.9, step))), c2 = (float) (1 / (1 - pow (0.999, step)));
  dev->adam (dev, p, m1, m2, g, n, (float) grad_scale, c1, c2);
}

void
dps_train_net_batch (DpsTrainNet *n, guint32 seed, gint64 sample0)
{
  n->ops->batch (n, seed, sample0);
}

void
dps_train_net_forward_layer (DpsTrainNet *n, int layer)
{
  n->ops->forward_layer (n, layer);
}

void
dps_train_net_backward_layer (DpsTrainNet *n, int layer)
{
  n->ops->backward_layer (n, layer);
}

void
dps_train_net_forward (DpsTrainNet *n)
{
  for (int l = 0; l < n->n_layers; l++)
    n->ops->forward_layer (n, l);
}

double
dps_train_net_loss_grad (DpsTrainNet *n)
{
  return n->ops->loss_grad (n);
}

void
dps_train_net_backward (DpsTrainNet *n)
{
  for (int l = n->n_layers - 1; l >= 0; l--)
    n->ops->backward_layer (n, l);
}

/* SplitMix64 of (seed, index), scaled to [-1, 1). */
float
dps_train_net_noise (guint32 seed, guint64 i)
{
  guint64 x = (i + 1) * 0x9E3779B97F4A7C15ull ^ ((guint64) seed << 32);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 33;
  return (float) ((double) (x >> 11) / (double) (1ull << 53) * 2 - 1);
}

void
dps_train_net_uniform (float *p, gint64 n, double a, GRand *r)
{
  for (gint64 i = 0; i < n; i++)
    p[i] = (float) g_rand_double_range (r, -a, a);
}

/* Parameters, gradients and Adam's two moments (4 copies), plus each
 * kind's activations in float: the MLP's layer outputs, the GPT-2 stack's
 * per block (6 of hidden, 3 of hidden for QKV, 2 of the MLP's width per
 * token, the heads' T x T attention per sample, once more for its
 * gradient) and the logits. */
double
dps_train_net_bytes (const DpsModel *m, int batch)
{
  double acts = 0;
  if (is_gpt2 (m)) {
    const DpsTensor *wte = dps_model_tensor (m, 0);
    double d = (double) wte->cols, T = MAX (m->seq_len, 1), f = 4 * d, blocks = dps_model_n_layers (m) - 2;
    acts = batch * ((blocks + 1) * (double) m->heads * T * T + blocks * T * (9 * d + 2 * f) + T * (wte->rows + 8 * d));
  } else
    for (int t = 0; t < dps_model_n_tensors (m); t++)
      acts += (double) batch * MAX (dps_model_tensor (m, t)->rows, 0) * 3;
  return 4.0 * (4.0 * m->n_params + acts);
}

/* FNV-1a over the parameters' 64-bit words (a bitwise difference
 * anywhere changes it): equal hashes, identical replicas.  On the CPU in
 * place, so that checking every step disturbs the next one as little as
 * possible (a copy per step made the next step's backward 17% slower;
 * reading in place, 5-10%). */
guint64
dps_train_net_hash (const DpsTrainNet *n)
{
  return dps_train_net_hash_floats (n->dev, n->params, n->n_params);
}

guint64
dps_train_net_hash_floats (DpsDev *dev, const float *floats, gint64 n)
{
  gsize bytes = (gsize) MAX (n, 0) * sizeof (float);
  const guint32 *p = (const guint32 *) floats;
  guint32 *copy = NULL;
  if (dev != dps_dev_cpu ()) {
    copy = g_malloc (MAX (bytes, 1));
    dev->download (dev, copy, floats, bytes);
    p = copy;
  }
  guint64 h = 1469598103934665603ull;
  for (gint64 i = 0; i + 1 < n; i += 2) {
    h ^= (guint64) p[i] | (guint64) p[i + 1] << 32;
    h *= 1099511628211ull;
  }
  if (n % 2) {
    h ^= p[n - 1];
    h *= 1099511628211ull;
  }
  g_free (copy);
  return h;
}

static double
median_of (GArray *all, int reps, int stride, int index)
{
  double *v = g_new (double, reps);
  for (int r = 0; r < reps; r++)
    v[r] = g_array_index (all, double, r * stride + index);
  dps_sort_doubles (v, reps);
  double m = v[reps / 2];
  g_free (v);
  return m;
}

/* Times a network's layers as the runner computes them, on its device
 * (marks on the device's clock: CUDA events on a GPU): the median of
 * repeated (at least 11) forward and backward passes, layer by layer, and
 * of its SGD step, each repetition on a fresh batch and after the
 * parameters' hash, as in the runner's steps.  FALSE (nothing measured)
 * when the runner cannot train the model there. */
gboolean
dps_train_net_layer_times_on (DpsDev *dev, const DpsModel *m, int batch, double min_time_s, double *fwd_s,
                              double *bwd_s, double *opt_s, double *cv)
{
  DpsTrainNet *net = dps_train_net_new_on (dev, m, batch, 1, NULL);
  if (!net)
    return FALSE;
  int L = net->n_layers, reps = 0;
  GArray *f = g_array_new (FALSE, FALSE, sizeof (double)), *b = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *o = g_array_new (FALSE, FALSE, sizeof (double));
  double spent = 0;
  while ((spent < min_time_s || reps < 11) && reps < 200) {
    /* marks: 0 before forward, 1 + l after forward layer l, L + 1 after
     * the loss, L + 2 + k after the k-th backward layer (L - 1 - k), 2L + 2
     * after the optimizer */
    dps_train_net_batch (net, 1, (gint64) reps * batch);
    dev->mark (dev, 0);
    for (int l = 0; l < L; l++) {
      dps_train_net_forward_layer (net, l);
      dev->mark (dev, 1 + l);
    }
    dps_train_net_loss_grad (net);
    dev->mark (dev, L + 1);
    for (int l = L - 1; l >= 0; l--) {
      dps_train_net_backward_layer (net, l);
      dev->mark (dev, L + 2 + (L - 1 - l));
    }
    dps_train_net_update (net, FALSE, 1e-9, 1, reps + 1, NULL);
    dev->mark (dev, 2 * L + 2);
    for (int l = 0; l < L; l++) {
      /* the loss belongs to the last layer's forward, as the runner counts it */
      double t = dev->between (dev, l, l + 1 == L ? L + 1 : l + 1);
      g_array_append_val (f, t);
    }
    for (int k = 0; k < L; k++) {
      double t = dev->between (dev, L + 1 + k, L + 2 + k);
      g_array_append_val (b, t);
    }
    double opt_dt = dev->between (dev, 2 * L + 1, 2 * L + 2);
    g_array_append_val (o, opt_dt);
    spent += dev->between (dev, 0, 2 * L + 2);
    /* the runner hashes the parameters after every step (replicas are
     * compared); that pass over memory slows the next step's layers by a
     * few percent on this kind of machine, so they are timed after it too */
    dps_train_net_hash (net);
    reps++;
  }
  if (opt_s)
    *opt_s = median_of (o, reps, 1, 0);
  if (cv) {
    /* robust: the 10-90% spread of a step's total over 2.563 standard
     * deviations of a normal, relative to the median (a page fault or a
     * neighbour's burst in one repetition does not make it) */
    int n = reps - 1;   /* the first repetition warms up (pages, caches) */
    double *tot = g_new (double, n);
    for (int r = 0; r < n; r++) {
      tot[r] = g_array_index (o, double, r + 1);
      for (int l = 0; l < L; l++)
        tot[r] += g_array_index (f, double, (r + 1) * L + l) + g_array_index (b, double, (r + 1) * L + l);
    }
    dps_sort_doubles (tot, n);
    double med = dps_quantile_sorted (tot, n, 0.5);
    *cv = med > 0 ? (dps_quantile_sorted (tot, n, 0.9) - dps_quantile_sorted (tot, n, 0.1)) / 2.563 / med : 0;
    g_free (tot);
  }
  g_array_free (o, TRUE);
  for (int l = 0; l < L; l++) {
    fwd_s[l] = median_of (f, reps, L, l);
    bwd_s[l] = median_of (b, reps, L, L - 1 - l);
  }
  g_array_free (f, TRUE);
  g_array_free (b, TRUE);
  dps_train_net_free (net);
  return TRUE;
}

void
dps_train_net_print_layers (int L, const double *t)
{
  printf ("layers %d", L);
  for (int i = 0; i < 2 * L + 2; i++)
    printf (" %.9g", t[i]);
  printf ("\n");
  fflush (stdout);
}

double *
dps_train_net_parse_layers (const char *line, int *layers, int *n)
{
  if (!g_str_has_prefix (line, "layers "))
    return NULL;
  g_auto (GStrv) tok = g_strsplit (line + 7, " ", -1);
  *layers = (int) g_ascii_strtoll (tok[0], NULL, 10);
  *n = (int) g_strv_length (tok) - 1;
  double *t = g_new (double, MAX (*n, 1));
  for (int i = 0; i < *n; i++)
    t[i] = g_ascii_strtod (tok[1 + i], NULL);
  return t;
}

gboolean
dps_train_net_layer_times (const DpsModel *m, int batch, double min_time_s, double *fwd_s, double *bwd_s,
                           double *opt_s, double *cv)
{
  openblas_set_num_threads (1);
  return dps_train_net_layer_times_on (dps_dev_cpu (), m, batch, min_time_s, fwd_s, bwd_s, opt_s, cv);
}
