/* mlp.c — a stack of Linear layers (ReLU between, none after the last)
 * trained on a synthetic regression task, forward and backward on a
 * device (dev.h: OpenBLAS or CUDA); one kind of DpsTrainNet (train-net.h).
 *
 * Parameters in definition order (fc0.weight, fc0.bias, fc1.weight, ...);
 * weights are rows x cols (out x in), as nn.Linear stores them. */
#include "real/train-net.h"
#include "sim/base/error.h"

#include <math.h>
#include <string.h>

typedef struct {
  DpsTrainNet  base;
  int    *in, *out;          /* widths per layer */
  gint64 *w_off, *b_off;     /* offsets of each weight and bias in the flat arrays */
  float **acts;              /* activations: acts[0] input, acts[i+1] output of layer i */
  float  *target;            /* batch x out of the last layer */
  float  *dcur, *dnext;      /* gradient of the current layer's output, scratch */
  float  *loss;              /* per-element losses */
  float  *host_x, *host_t, *host_loss;   /* the batch drawn on the host, the losses read back */
} Mlp;

static const DpsTrainNetOps mlp_ops;

static void
mlp_free (DpsTrainNet *base)
{
  Mlp *n = (Mlp *) base;
  DpsDev *dev = base->dev;
  if (n->acts)
    for (int l = 0; l <= base->n_layers; l++)
      dev->free (dev, n->acts[l]);
  g_free (n->acts);
  g_free (n->in);
  g_free (n->out);
  g_free (n->w_off);
  g_free (n->b_off);
  float *bufs[] = { base->params, base->grads, n->target, n->dcur, n->dnext, n->loss };
  for (gsize i = 0; i < G_N_ELEMENTS (bufs); i++)
    dev->free (dev, bufs[i]);
  g_free (n->host_x);
  g_free (n->host_t);
  g_free (n->host_loss);
  g_free (n);
}

/* TRUE when every layer of m is one weight and one bias. */
gboolean
dps_mlp_check (const DpsModel *m, GError **error)
{
  for (int l = 0; l < dps_model_n_layers (m); l++) {
    const DpsLayer *layer = dps_model_layer (m, l);
    if (layer->n_tensors != 2 || dps_model_tensor (m, layer->first_tensor)->rows <= 0) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED,
                   "%s: the CPU runner trains MLPs (layers of one weight and one bias) and GPT-2 "
                   "transformer stacks; layer %s is neither",
                   m->name, layer->name);
      return FALSE;
    }
  }
  return TRUE;
}

/* Builds the network of an "mlp" zoo model with weights drawn from seed:
 * the same seed, the same network on every rank (its parameters in the
 * flat layout padded to pad, dps_train_net_layout). */
DpsTrainNet *
dps_mlp_new (DpsDev *dev, const DpsModel *m, int batch, guint32 seed, int pad, GError **error)
{
  if (!dps_mlp_check (m, error))
    return NULL;
  int L = dps_model_n_layers (m);
  Mlp *n = g_new0 (Mlp, 1);
  DpsTrainNet *base = &n->base;
  dps_train_net_init (base, &mlp_ops, dev, "mlp", L, batch);
  n->in = g_new (int, L);
  n->out = g_new (int, L);
  n->w_off = g_new (gint64, L);
  n->b_off = g_new (gint64, L);
  gint64 *toff = g_new (gint64, dps_model_n_tensors (m));
  gint64 off = dps_train_net_layout (m, pad, toff, NULL);
  int widest = 0;
  for (int l = 0; l < L; l++) {
    int t = dps_model_layer (m, l)->first_tensor;
    const DpsTensor *w = dps_model_tensor (m, t);
    n->out[l] = (int) w->rows;
    n->in[l] = (int) w->cols;
    n->w_off[l] = toff[t];
    n->b_off[l] = toff[t + 1];
    widest = MAX (widest, MAX (n->in[l], n->out[l]));
  }
  g_free (toff);
  base->n_params = off;
  float *init = g_new0 (float, off);
  GRand *r = g_rand_new_with_seed (seed);
  for (int l = 0; l < L; l++)   /* He initialisation: uniform with variance 2 / fan-in; zero biases */
    dps_train_net_uniform (init + n->w_off[l], (gint64) n->in[l] * n->out[l], sqrt (6.0 / n->in[l]), r);
  g_rand_free (r);
  gsize F = sizeof (float), last = (gsize) batch * n->out[L - 1];
  base->params = dev->alloc (dev, F * off);
  base->grads = dev->alloc (dev, F * off);
  n->acts = g_new0 (float *, L + 1);
  n->acts[0] = dev->alloc (dev, F * batch * n->in[0]);
  gboolean ok = base->params && base->grads && n->acts[0];
  for (int l = 0; l < L; l++)
    ok = (n->acts[l + 1] = dev->alloc (dev, F * batch * n->out[l])) && ok;
  n->target = dev->alloc (dev, F * last);
  n->loss = dev->alloc (dev, F * last);
  n->dcur = dev->alloc (dev, F * batch * widest);
  n->dnext = dev->alloc (dev, F * batch * widest);
  n->host_x = g_new0 (float, (gsize) batch * n->in[0]);
  n->host_t = g_new0 (float, last);
  n->host_loss = g_new0 (float, last);
  if (!ok || !n->target || !n->loss || !n->dcur || !n->dnext) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s at batch %d: out of %s memory", m->name, batch, dev->name);
    g_free (init);
    mlp_free (base);
    return NULL;
  }
  dev->upload (dev, base->params, init, F * off);
  g_free (init);
  return base;
}

/* Inputs (batch x in) are samples sample0.. of the data set; targets
 * (batch x out) come from a fixed teacher: target_j = sum over a window of x. */
static void
mlp_batch (DpsTrainNet *base, guint32 seed, gint64 sample0)
{
  Mlp *n = (Mlp *) base;
  int in = n->in[0], out = n->out[base->n_layers - 1];
  for (int s = 0; s < base->batch; s++) {
    gint64 id = sample0 + s;
    float *x = n->host_x + (gsize) s * in;
    for (int i = 0; i < in; i++)
      x[i] = dps_train_net_noise (seed, (guint64) id * in + i);
    for (int j = 0; j < out; j++) {
      float t = 0;
      for (int k = 0; k < 4; k++)
        t += x[(j * 7 + k * 13) % in];
      n->host_t[s * out + j] = 0.5f * t;
    }
  }
  base->dev->upload (base->dev, n->acts[0], n->host_x, sizeof (float) * base->batch * in);
  base->dev->upload (base->dev, n->target, n->host_t, sizeof (float) * base->batch * out);
}

/* acts[l+1] = relu?(acts[l] W^T + b); the last layer is linear. */
static void
mlp_forward_layer (DpsTrainNet *base, int l)
{
  Mlp *n = (Mlp *) base;
  DpsDev *dev = base->dev;
  int B = base->batch, in = n->in[l], out = n->out[l];
  float *y = n->acts[l + 1];
  dev->fill_rows (dev, y, base->params + n->b_off[l], B, out);
  dev->gemm (dev, FALSE, TRUE, B, out, in, 1.0f, n->acts[l], in, base->params + n->w_off[l], in, 1.0f, y, out);
  if (l < base->n_layers - 1)
    dev->relu (dev, y, (long) B * out);
}

/* Mean squared error / 2 of the output against the target, and its
 * gradient with respect to the output into dcur. */
static double
mlp_loss_grad (DpsTrainNet *base)
{
  Mlp *n = (Mlp *) base;
  int B = base->batch, out = n->out[base->n_layers - 1];
  long count = (long) B * out;
  base->dev->mse (base->dev, n->dcur, n->acts[base->n_layers], n->target, n->loss, count, B);
  base->dev->download (base->dev, n->host_loss, n->loss, sizeof (float) * count);
  double loss = 0;
  for (long i = 0; i < count; i++)
    loss += n->host_loss[i];
  return loss / B;
}

/* Backward of layer l: weight and bias gradients, then the gradient of its
 * input into dcur for layer l-1. */
static void
mlp_backward_layer (DpsTrainNet *base, int l)
{
  Mlp *n = (Mlp *) base;
  DpsDev *dev = base->dev;
  int B = base->batch, in = n->in[l], out = n->out[l];
  /* dW = dY^T X (out x in), db = sum over the batch of dY */
  dev->gemm (dev, TRUE, FALSE, out, in, B, 1.0f, n->dcur, out, n->acts[l], in, base->accumulate ? 1.0f : 0.0f,
             base->grads + n->w_off[l], in);
  dev->col_sum (dev, base->grads + n->b_off[l], n->dcur, B, out, base->accumulate);
  if (l == 0)
    return;
  /* dX = dY W (B x in), through the ReLU of layer l-1's output */
  dev->gemm (dev, FALSE, FALSE, B, in, out, 1.0f, n->dcur, out, base->params + n->w_off[l], in, 0.0f, n->dnext, in);
  dev->relu_back (dev, n->dnext, n->acts[l], (long) B * in);
  float *t = n->dcur;
  n->dcur = n->dnext;
  n->dnext = t;
}

static const DpsTrainNetOps mlp_ops = {
  mlp_batch, mlp_forward_layer, mlp_loss_grad, mlp_backward_layer, mlp_free,
};
