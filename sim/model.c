/* model.c — see model.h. */
#include "sim/model.h"

static void
layer_clear (gpointer p)
{
  g_free (((DpsLayer *) p)->name);
}

static void
tensor_clear (gpointer p)
{
  g_free (((DpsTensor *) p)->name);
}

/* An empty model; free with dps_model_free. */
DpsModel *
dps_model_new (const char *name)
{
  DpsModel *m = g_new0 (DpsModel, 1);
  m->name = g_strdup (name);
  m->layers = g_array_new (FALSE, TRUE, sizeof (DpsLayer));
  g_array_set_clear_func (m->layers, layer_clear);
  m->tensors = g_array_new (FALSE, TRUE, sizeof (DpsTensor));
  g_array_set_clear_func (m->tensors, tensor_clear);
  m->kernels = g_array_new (FALSE, TRUE, sizeof (DpsKernel));
  m->time_batch = 1;
  return m;
}

void
dps_model_free (DpsModel *m)
{
  if (!m)
    return;
  g_free (m->name);
  g_free (m->source);
  g_free (m->note);
  g_free (m->device);
  g_free (m->dtype);
  if (m->file_times_s)
    g_array_free (m->file_times_s, TRUE);
  g_array_free (m->layers, TRUE);
  g_array_free (m->tensors, TRUE);
  g_array_free (m->kernels, TRUE);
  g_free (m);
}

/* Appends a layer; tensors added next belong to it.  Returns its index. */
int
dps_model_add_layer (DpsModel *m, const char *name, double fwd_flops, double act_bytes, double io_bytes)
{
  DpsLayer l = { g_strdup (name), 0, (int) m->tensors->len, 0, (int) m->kernels->len, 0,
                 fwd_flops, act_bytes, io_bytes, -1, -1, 0, 0, 0 };
  g_array_append_val (m->layers, l);
  return (int) m->layers->len - 1;
}

static void
add (DpsModel *m, const char *name, gint64 numel, gint64 rows, gint64 cols)
{
  g_return_if_fail (m->layers->len > 0);
  int li = (int) m->layers->len - 1;
  DpsTensor t = { g_strdup (name), numel, rows, cols, li };
  g_array_append_val (m->tensors, t);
  DpsLayer *l = &g_array_index (m->layers, DpsLayer, li);
  l->n_params += numel;
  l->n_tensors++;
  m->n_params += numel;
}

/* Appends a rows x cols weight to the last layer. */
void
dps_model_add_tensor (DpsModel *m, const char *name, gint64 rows, gint64 cols)
{
  add (m, name, rows * cols, rows, cols);
}

/* Appends a 1-D parameter (bias, norm weight) to the last layer. */
void
dps_model_add_vector (DpsModel *m, const char *name, gint64 numel)
{
  add (m, name, numel, 0, 0);
}

/* Appends count kernels of one kind to the last layer's work: flops and
 * bytes (2-byte elements) per sample in total over them, weight_elems
 * read once per pass. */
void
dps_model_add_kernel (DpsModel *m, DpsKernelKind kind, double flops, double bytes, double weight_elems, int count)
{
  g_return_if_fail (m->layers->len > 0 && kind < DPS_KERNEL_KINDS && count >= 1);
  DpsKernel k = { .kind = kind, .flops = flops, .bytes = bytes, .weight_elems = weight_elems, .count = count };
  g_array_append_val (m->kernels, k);
  g_array_index (m->layers, DpsLayer, m->layers->len - 1).n_kernels++;
}

/* Marks score_bytes of the last kernel's bytes as attention's score
 * matrices (all of them for a pass over the scores: softmax, its dropout),
 * which fused attention does not move. */
void
dps_model_kernel_set_score_bytes (DpsModel *m, double score_bytes)
{
  g_return_if_fail (m->kernels->len > 0);
  DpsKernel *k = &g_array_index (m->kernels, DpsKernel, m->kernels->len - 1);
  g_return_if_fail (score_bytes >= 0 && score_bytes <= k->bytes * (1 + 1e-12));
  k->score_bytes = score_bytes;
}

/* Gives the last kernel (GEMMs) the FLOP-weighted mean of 1 / K over the
 * GEMMs it stands for, K their reduction length (compute.h). */
void
dps_model_kernel_set_inv_k (DpsModel *m, double inv_k)
{
  g_return_if_fail (m->kernels->len > 0 && inv_k >= 0);
  g_array_index (m->kernels, DpsKernel, m->kernels->len - 1).inv_k = inv_k;
}

/* Gives the last kernel (GEMMs) the FLOP-weighted mean of 1 / R over the
 * GEMMs it stands for, R their rows a sample (compute.h). */
void
dps_model_kernel_set_inv_rows (DpsModel *m, double inv_rows)
{
  g_return_if_fail (m->kernels->len > 0 && inv_rows >= 0 && inv_rows <= 1);
  g_array_index (m->kernels, DpsKernel, m->kernels->len - 1).inv_rows = inv_rows;
}

/* Gives the last kernel (GEMMs) the part of its inv_k that tensor
 * parallelism divides K of (model.h). */
void
dps_model_kernel_set_inv_k_row (DpsModel *m, double inv_k_row)
{
  g_return_if_fail (m->kernels->len > 0);
  DpsKernel *k = &g_array_index (m->kernels, DpsKernel, m->kernels->len - 1);
  g_return_if_fail (inv_k_row >= 0 && inv_k_row <= k->inv_k * (1 + 1e-12));
  k->inv_k_row = inv_k_row;
}

/* Marks the last kernel (a memory-bound pass) as one tensor parallelism
 * splits (model.h). */
void
dps_model_kernel_set_tp_split (DpsModel *m)
{
  g_return_if_fail (m->kernels->len > 0);
  g_array_index (m->kernels, DpsKernel, m->kernels->len - 1).tp_split = TRUE;
}

const DpsKernel *
dps_model_kernel (const DpsModel *m, int i)
{
  return &g_array_index (m->kernels, DpsKernel, i);
}

const char *
dps_kernel_kind_name (DpsKernelKind kind)
{
  static const char *const names[DPS_KERNEL_KINDS] = { "gemm", "conv", "attention", "memory" };
  g_return_val_if_fail (kind < DPS_KERNEL_KINDS, "?");
  return names[kind];
}

int dps_model_n_layers (const DpsModel *m) { return (int) m->layers->len; }
int dps_model_n_tensors (const DpsModel *m) { return (int) m->tensors->len; }

const DpsLayer *
dps_model_layer (const DpsModel *m, int i)
{
  return &g_array_index (m->layers, DpsLayer, i);
}

const DpsTensor *
dps_model_tensor (const DpsModel *m, int i)
{
  return &g_array_index (m->tensors, DpsTensor, i);
}

/* Forward FLOPs of one sample through the whole model. */
double
dps_model_fwd_flops (const DpsModel *m)
{
  double f = 0;
  for (guint i = 0; i < m->layers->len; i++)
    f += g_array_index (m->layers, DpsLayer, i).fwd_flops;
  return f;
}

/* Activation bytes one sample keeps for backward (2-byte elements). */
double
dps_model_act_bytes (const DpsModel *m)
{
  double b = 0;
  for (guint i = 0; i < m->layers->len; i++)
    b += g_array_index (m->layers, DpsLayer, i).act_bytes;
  return b;
}

/* The activations kept for backward, per sample (2-byte elements), as
 * PyTorch users train: flash_attention (SDPA's flash or memory-efficient
 * kernels) keeps no attention score or probability matrices, only their
 * O(s) statistics; checkpoint (torch.utils.checkpoint around every
 * checkpointable block) keeps each such block's input alone, plus the
 * whole activations of the one block being recomputed at a time. */
double
dps_model_kept_act_bytes (const DpsModel *m, gboolean flash_attention, gboolean checkpoint)
{
  double kept = 0, largest = 0;
  for (guint i = 0; i < m->layers->len; i++) {
    const DpsLayer *l = &g_array_index (m->layers, DpsLayer, i);
    double a = l->act_bytes - (flash_attention ? l->attn_act_bytes : 0);
    if (checkpoint && l->input_bytes > 0) {
      kept += l->input_bytes;
      largest = MAX (largest, a);
    } else
      kept += a;
  }
  return kept + largest;
}

/* TRUE when every layer carries measured times (a CSV model). */
gboolean
dps_model_has_times (const DpsModel *m)
{
  for (guint i = 0; i < m->layers->len; i++)
    if (g_array_index (m->layers, DpsLayer, i).fwd_time_s < 0)
      return FALSE;
  return m->layers->len > 0;
}

/* Gives every layer its forward and backward time (seconds, one per layer,
 * in layer order), measured at the given batch. */
void
dps_model_set_times (DpsModel *m, const double *fwd_s, const double *bwd_s, int batch)
{
  for (guint i = 0; i < m->layers->len; i++) {
    DpsLayer *layer = &g_array_index (m->layers, DpsLayer, i);
    layer->fwd_time_s = fwd_s[i];
    layer->bwd_time_s = bwd_s[i];
  }
  m->time_batch = batch;
}
