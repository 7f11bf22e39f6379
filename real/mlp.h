/* mlp — a stack of Linear layers (ReLU between, none after the last)
 * trained on a synthetic regression task, forward and backward with
 * OpenBLAS, layer by layer so that gradients become ready as DDP sees them.
 *
 * Parameters live in one flat array in definition order (fc0.weight,
 * fc0.bias, fc1.weight, ...), as model.parameters() lists them; gradients in
 * another of the same layout, so a bucket is a set of tensors whose bytes
 * can be all-reduced in place.  Weights are rows x cols (out x in), as
 * nn.Linear stores them. */
#pragma once

#include "model.h"

typedef struct {
  int     n_layers;
  int    *in, *out;          /* widths per layer */
  gint64 *w_off, *b_off;     /* offsets of each weight and bias in the flat arrays */
  gint64  n_params;
  float  *params, *grads;
  float **acts;              /* activations: acts[0] input, acts[i+1] output of layer i */
  float  *dcur, *dnext;      /* gradient of the current layer's output, scratch */
  int     batch;
  gboolean accumulate;       /* backward adds to grads (gradient accumulation) instead of overwriting */
} DpsMlp;

DpsMlp  *dps_mlp_new (const DpsModel *m, int batch, guint32 seed, GError **error);
void     dps_mlp_free (DpsMlp *n);
void     dps_mlp_batch (const DpsMlp *n, guint32 seed, gint64 sample0, float *x, float *target);
void     dps_mlp_forward_layer (DpsMlp *n, int layer);
double   dps_mlp_loss_grad (DpsMlp *n, const float *target);
void     dps_mlp_backward_layer (DpsMlp *n, int layer);
guint64  dps_mlp_hash (const DpsMlp *n);
gboolean dps_mlp_layer_times (const DpsModel *m, int batch, double min_time_s, double *fwd_s, double *bwd_s);
