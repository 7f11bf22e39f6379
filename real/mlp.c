/* mlp.c — see mlp.h. */
#include "mlp.h"
#include "error.h"
#include "stats.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

/* Builds the network of an "mlp" zoo model (layers of one weight and one
 * bias each) with weights drawn from seed: the same seed, the same network
 * on every rank. */
DpsMlp *
dps_mlp_new (const DpsModel *m, int batch, guint32 seed, GError **error)
{
  int L = dps_model_n_layers (m);
  for (int l = 0; l < L; l++) {
    const DpsLayer *layer = dps_model_layer (m, l);
    if (layer->n_tensors != 2 || dps_model_tensor (m, layer->first_tensor)->rows <= 0) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED,
                   "%s: the CPU runner trains MLPs (layers of one weight and one bias); layer %s is not one",
                   m->name, layer->name);
      return NULL;
    }
  }
  DpsMlp *n = g_new0 (DpsMlp, 1);
  n->n_layers = L;
  n->batch = batch;
  n->in = g_new (int, L);
  n->out = g_new (int, L);
  n->w_off = g_new (gint64, L);
  n->b_off = g_new (gint64, L);
  gint64 off = 0;
  int widest = 0;
  for (int l = 0; l < L; l++) {
    const DpsTensor *w = dps_model_tensor (m, dps_model_layer (m, l)->first_tensor);
    n->out[l] = (int) w->rows;
    n->in[l] = (int) w->cols;
    n->w_off[l] = off;
    off += w->numel;
    n->b_off[l] = off;
    off += w->rows;
    widest = MAX (widest, MAX (n->in[l], n->out[l]));
  }
  n->n_params = off;
  n->params = g_new (float, off);
  n->grads = g_new0 (float, off);
  GRand *r = g_rand_new_with_seed (seed);
  for (int l = 0; l < L; l++) {
    double scale = sqrt (2.0 / n->in[l]);   /* He initialisation */
    for (gint64 i = 0; i < (gint64) n->in[l] * n->out[l]; i++)
      n->params[n->w_off[l] + i] = (float) (g_rand_double_range (r, -1, 1) * scale * sqrt (3.0));
    memset (n->params + n->b_off[l], 0, sizeof (float) * n->out[l]);
  }
  g_rand_free (r);
  n->acts = g_new (float *, L + 1);
  n->acts[0] = g_new0 (float, (gsize) batch * n->in[0]);
  for (int l = 0; l < L; l++)
    n->acts[l + 1] = g_new0 (float, (gsize) batch * n->out[l]);
  n->dcur = g_new0 (float, (gsize) batch * widest);
  n->dnext = g_new0 (float, (gsize) batch * widest);
  return n;
}

void
dps_mlp_free (DpsMlp *n)
{
  if (!n)
    return;
  for (int l = 0; l <= n->n_layers; l++)
    g_free (n->acts[l]);
  g_free (n->acts);
  g_free (n->in);
  g_free (n->out);
  g_free (n->w_off);
  g_free (n->b_off);
  g_free (n->params);
  g_free (n->grads);
  g_free (n->dcur);
  g_free (n->dnext);
  g_free (n);
}

/* A deterministic hash in [-1, 1) of (seed, index): samples are the same
 * whichever rank draws them, so N shards of a batch are the batch. */
static float
noise (guint32 seed, guint64 i)
{
  guint64 x = (i + 1) * 0x9E3779B97F4A7C15ull ^ ((guint64) seed << 32);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 33;
  return (float) ((double) (x >> 11) / (double) (1ull << 53) * 2 - 1);
}

/* Fills x (batch x in) with samples sample0.. of the data set and target
 * (batch x out) with a fixed teacher: target_j = sum over a window of x. */
void
dps_mlp_batch (const DpsMlp *n, guint32 seed, gint64 sample0, float *x, float *target)
{
  int in = n->in[0], out = n->out[n->n_layers - 1];
  for (int s = 0; s < n->batch; s++) {
    gint64 id = sample0 + s;
    for (int i = 0; i < in; i++)
      x[s * in + i] = noise (seed, (guint64) id * in + i);
    for (int j = 0; j < out; j++) {
      float t = 0;
      for (int k = 0; k < 4; k++)
        t += x[s * in + (j * 7 + k * 13) % in];
      target[s * out + j] = 0.5f * t;
    }
  }
}

/* acts[l+1] = relu?(acts[l] W^T + b); the last layer is linear. */
void
dps_mlp_forward_layer (DpsMlp *n, int l)
{
  int B = n->batch, in = n->in[l], out = n->out[l];
  float *y = n->acts[l + 1];
  for (int s = 0; s < B; s++)
    memcpy (y + (gsize) s * out, n->params + n->b_off[l], sizeof (float) * out);
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, B, out, in, 1.0f, n->acts[l], in,
               n->params + n->w_off[l], in, 1.0f, y, out);
  if (l < n->n_layers - 1)
    for (gsize i = 0; i < (gsize) B * out; i++)
      y[i] = y[i] > 0 ? y[i] : 0;
}

/* Mean squared error / 2 of the output against target, and its gradient
 * with respect to the output into dcur (divided by the batch, so that the
 * gradients of N shards averaged equal the whole batch's). */
double
dps_mlp_loss_grad (DpsMlp *n, const float *target)
{
  int B = n->batch, out = n->out[n->n_layers - 1];
  const float *y = n->acts[n->n_layers];
  double loss = 0;
  for (gsize i = 0; i < (gsize) B * out; i++) {
    double d = y[i] - target[i];
    loss += 0.5 * d * d;
    n->dcur[i] = (float) (d / B);
  }
  return loss / B;
}

/* Backward of layer l: weight and bias gradients into grads (overwritten,
 * or added to them when accumulating),
 * then the gradient of its input into dcur for layer l-1. */
void
dps_mlp_backward_layer (DpsMlp *n, int l)
{
  int B = n->batch, in = n->in[l], out = n->out[l];
  /* dW = dY^T X (out x in), db = sum over the batch of dY */
  cblas_sgemm (CblasRowMajor, CblasTrans, CblasNoTrans, out, in, B, 1.0f, n->dcur, out, n->acts[l], in,
               n->accumulate ? 1.0f : 0.0f, n->grads + n->w_off[l], in);
  float *db = n->grads + n->b_off[l];
  if (!n->accumulate)
    memset (db, 0, sizeof (float) * out);
  for (int s = 0; s < B; s++)
    for (int j = 0; j < out; j++)
      db[j] += n->dcur[(gsize) s * out + j];
  if (l == 0)
    return;
  /* dX = dY W (B x in), through the ReLU of layer l-1's output */
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, B, in, out, 1.0f, n->dcur, out, n->params + n->w_off[l],
               in, 0.0f, n->dnext, in);
  const float *x = n->acts[l];
  for (gsize i = 0; i < (gsize) B * in; i++)
    n->dnext[i] = x[i] > 0 ? n->dnext[i] : 0;
  float *t = n->dcur;
  n->dcur = n->dnext;
  n->dnext = t;
}

/* FNV-1a over the parameters' bytes: equal hashes, identical replicas. */
guint64
dps_mlp_hash (const DpsMlp *n)
{
  guint64 h = 1469598103934665603ull;
  const unsigned char *p = (const unsigned char *) n->params;
  for (gsize i = 0; i < (gsize) n->n_params * sizeof (float); i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

/* Times an MLP's layers as the runner computes them: the median of
 * repeated forward and backward passes, layer by layer, on one thread.
 * FALSE (nothing measured) when the model is not an MLP. */
gboolean
dps_mlp_layer_times (const DpsModel *m, int batch, double min_time_s, double *fwd_s, double *bwd_s)
{
  openblas_set_num_threads (1);
  DpsMlp *net = dps_mlp_new (m, batch, 1, NULL);
  if (!net)
    return FALSE;
  int L = net->n_layers, reps = 0;
  float *target = g_new (float, (gsize) batch * net->out[L - 1]);
  GArray *f = g_array_new (FALSE, FALSE, sizeof (double)), *b = g_array_new (FALSE, FALSE, sizeof (double));
  double spent = 0;
  while ((spent < min_time_s || reps < 5) && reps < 200) {
    dps_mlp_batch (net, 1, (gint64) reps * batch, net->acts[0], target);
    for (int l = 0; l < L; l++) {
      gint64 t0 = g_get_monotonic_time ();
      dps_mlp_forward_layer (net, l);
      double dt = (g_get_monotonic_time () - t0) / 1e6;
      g_array_append_val (f, dt);
      spent += dt;
    }
    dps_mlp_loss_grad (net, target);
    for (int l = L - 1; l >= 0; l--) {
      gint64 t0 = g_get_monotonic_time ();
      dps_mlp_backward_layer (net, l);
      double dt = (g_get_monotonic_time () - t0) / 1e6;
      g_array_insert_val (b, b->len, dt);
      spent += dt;
    }
    reps++;
  }
  for (int l = 0; l < L; l++) {
    GArray *fl = g_array_new (FALSE, FALSE, sizeof (double)), *bl = g_array_new (FALSE, FALSE, sizeof (double));
    for (int r = 0; r < reps; r++) {
      g_array_append_val (fl, g_array_index (f, double, r * L + l));
      g_array_append_val (bl, g_array_index (b, double, r * L + (L - 1 - l)));
    }
    dps_sort_doubles ((double *) fl->data, fl->len);
    dps_sort_doubles ((double *) bl->data, bl->len);
    fwd_s[l] = g_array_index (fl, double, reps / 2);
    bwd_s[l] = g_array_index (bl, double, reps / 2);
    g_array_free (fl, TRUE);
    g_array_free (bl, TRUE);
  }
  g_array_free (f, TRUE);
  g_array_free (b, TRUE);
  g_free (target);
  dps_mlp_free (net);
  return TRUE;
}

