/* train-net.c — see train-net.h. */
#include "train-net.h"
#include "error.h"
#include "stats.h"

#include <cblas.h>
#include <time.h>

/* The transformer when the model has GPT-2's embedding tensor, else the
 * MLP (which names what it needs when the model is neither). */
DpsTrainNet *
dps_train_net_new (const DpsModel *m, int batch, guint32 seed, GError **error)
{
  if (batch < 1) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "batch %d: must be at least 1", batch);
    return NULL;
  }
  if (dps_model_n_tensors (m) > 0 && g_str_equal (dps_model_tensor (m, 0)->name, "wte.weight"))
    return dps_gpt2_new (m, batch, seed, error);
  return dps_mlp_new (m, batch, seed, error);
}

void
dps_train_net_free (DpsTrainNet *n)
{
  if (n)
    n->ops->free (n);
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
 * token, the heads' T x T attention per sample) and the logits. */
double
dps_train_net_bytes (const DpsModel *m, int batch)
{
  double acts = 0;
  if (dps_model_n_tensors (m) > 0 && g_str_equal (dps_model_tensor (m, 0)->name, "wte.weight")) {
    const DpsTensor *wte = dps_model_tensor (m, 0);
    double d = (double) wte->cols, T = MAX (m->seq_len, 1), f = 4 * d, blocks = dps_model_n_layers (m) - 2;
    acts = batch * (blocks * (T * (9 * d + 2 * f) + (double) m->heads * T * T) + T * (wte->rows + 8 * d));
  } else
    for (int t = 0; t < dps_model_n_tensors (m); t++)
      acts += (double) batch * MAX (dps_model_tensor (m, t)->rows, 0) * 3;
  return 4.0 * (4.0 * m->n_params + acts);
}

/* FNV-1a over the parameters' bytes: equal hashes, identical replicas. */
guint64
dps_train_net_hash (const DpsTrainNet *n)
{
  guint64 h = 1469598103934665603ull;
  const unsigned char *p = (const unsigned char *) n->params;
  for (gsize i = 0; i < (gsize) n->n_params * sizeof (float); i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
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

/* Times a network's layers as the runner computes them: the median of
 * repeated forward and backward passes, layer by layer, on one thread.
 * FALSE (nothing measured) when the runner cannot train the model. */
gboolean
dps_train_net_layer_times (const DpsModel *m, int batch, double min_time_s, double *fwd_s, double *bwd_s)
{
  openblas_set_num_threads (1);
  DpsTrainNet *net = dps_train_net_new (m, batch, 1, NULL);
  if (!net)
    return FALSE;
  int L = net->n_layers, reps = 0;
  GArray *f = g_array_new (FALSE, FALSE, sizeof (double)), *b = g_array_new (FALSE, FALSE, sizeof (double));
  double spent = 0;
  while ((spent < min_time_s || reps < 5) && reps < 200) {
    dps_train_net_batch (net, 1, (gint64) reps * batch);
    for (int l = 0; l < L; l++) {
      double t0 = now_s ();
      dps_train_net_forward_layer (net, l);
      double dt = now_s () - t0;
      g_array_append_val (f, dt);
      spent += dt;
    }
    double loss0 = now_s ();
    dps_train_net_loss_grad (net);   /* the loss belongs to the last layer's forward, as the runner counts it */
    double loss_s = now_s () - loss0;
    g_array_index (f, double, f->len - 1) += loss_s;
    spent += loss_s;
    for (int l = L - 1; l >= 0; l--) {
      double t0 = now_s ();
      dps_train_net_backward_layer (net, l);
      double dt = now_s () - t0;
      g_array_append_val (b, dt);
      spent += dt;
    }
    reps++;
  }
  for (int l = 0; l < L; l++) {
    fwd_s[l] = median_of (f, reps, L, l);
    bwd_s[l] = median_of (b, reps, L, L - 1 - l);
  }
  g_array_free (f, TRUE);
  g_array_free (b, TRUE);
  dps_train_net_free (net);
  return TRUE;
}
