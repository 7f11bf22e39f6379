/* tensor-parallel.c — see tensor-parallel.h. */
#include "real/tensor-parallel.h"
#include "real/train-net.h"
#include "sim/base/error.h"

#include <string.h>

DpsTpSplit
dps_tp_split_of (const char *name)
{
  if (g_str_has_suffix (name, "attn.c_attn.weight") || g_str_has_suffix (name, "attn.c_attn.bias"))
    return DPS_TP_COLS_QKV;
  if (g_str_has_suffix (name, "mlp.c_fc.weight") || g_str_has_suffix (name, "mlp.c_fc.bias"))
    return DPS_TP_COLS;
  if (g_str_has_suffix (name, "attn.c_proj.weight") || g_str_has_suffix (name, "mlp.c_proj.weight"))
    return DPS_TP_ROWS;
  return DPS_TP_WHOLE;
}

/* A tensor's rows and columns as the slicing sees it: a vector is one row. */
static void
dims (const DpsTensor *t, gint64 *rows, gint64 *cols)
{
  *rows = t->rows > 0 ? t->rows : 1;
  *cols = t->rows > 0 ? t->cols : t->numel;
}

DpsModel *
dps_tp_shard_model (const DpsModel *full, int tp, GError **error)
{
  g_return_val_if_fail (tp >= 1, NULL);
  if (!dps_gpt2_check (full, error))
    return NULL;
  if (full->heads % tp != 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--tp: %d does not divide %s's %d attention heads", tp,
                 full->name, full->heads);
    return NULL;
  }
  g_autofree char *name = g_strdup_printf ("%s (tensor parallel %d)", full->name, tp);
  DpsModel *m = dps_model_new (name);
  m->seq_len = full->seq_len;
  m->heads = full->heads / tp;
  for (int l = 0; l < dps_model_n_layers (full); l++) {
    const DpsLayer *ly = dps_model_layer (full, l);
    dps_model_add_layer (m, ly->name, ly->fwd_flops, ly->act_bytes, ly->io_bytes);
    for (int k = 0; k < ly->n_tensors; k++) {
      const DpsTensor *t = dps_model_tensor (full, ly->first_tensor + k);
      DpsTpSplit s = dps_tp_split_of (t->name);
      gint64 rows, cols;
      dims (t, &rows, &cols);
      gint64 div = s == DPS_TP_COLS_QKV ? 3 * (gint64) tp : s == DPS_TP_WHOLE ? 1 : tp;
      if ((s == DPS_TP_ROWS ? rows : cols) % div != 0) {
        g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--tp: %d does not divide %s's %s", tp, full->name, t->name);
        dps_model_free (m);
        return NULL;
      }
      if (s == DPS_TP_ROWS)
        rows /= tp;
      else if (s != DPS_TP_WHOLE)
        cols /= tp;
      if (t->rows > 0)
        dps_model_add_tensor (m, t->name, rows, cols);
      else
        dps_model_add_vector (m, t->name, cols);
    }
  }
  return m;
}

/* Copies rank r's part between whole (rows x cols) and part: to_part
 * slices, else unslices. */
static void
copy (DpsTpSplit s, float *whole, float *part, gint64 rows, gint64 cols, int tp, int r, gboolean to_part)
{
  if (s == DPS_TP_WHOLE || s == DPS_TP_ROWS) {
    /* whole rows: one contiguous block */
    gint64 n = s == DPS_TP_WHOLE ? rows * cols : rows / tp * cols, at = s == DPS_TP_WHOLE ? 0 : r * n;
    if (to_part)
      memcpy (part, whole + at, sizeof (float) * (gsize) n);
    else
      memcpy (whole + at, part, sizeof (float) * (gsize) n);
    return;
  }
  int groups = s == DPS_TP_COLS_QKV ? 3 : 1;
  gint64 g = cols / groups, w = g / tp;   /* a group's columns, a rank's of them */
  for (gint64 i = 0; i < rows; i++)
    for (int q = 0; q < groups; q++) {
      float *a = whole + i * cols + q * g + r * w, *b = part + i * groups * w + q * w;
      memcpy (to_part ? b : a, to_part ? a : b, sizeof (float) * (gsize) w);
    }
}

void
dps_tp_slice (DpsTpSplit s, const float *whole, gint64 rows, gint64 cols, int tp, int r, float *part)
{
  copy (s, (float *) whole, part, rows, cols, tp, r, TRUE);
}

void
dps_tp_unslice (DpsTpSplit s, const float *part, gint64 rows, gint64 cols, int tp, int r, float *whole)
{
  copy (s, whole, (float *) part, rows, cols, tp, r, FALSE);
}

void
dps_tp_unshard (const DpsModel *full, const DpsModel *shard, int tp, const float *const *parts, float *whole)
{
  int T = dps_model_n_tensors (full);
  g_autofree gint64 *foff = g_new (gint64, MAX (T, 1)), *soff = g_new (gint64, MAX (T, 1));
  dps_train_net_layout (full, 1, foff, NULL);
  dps_train_net_layout (shard, 1, soff, NULL);
  for (int t = 0; t < T; t++) {
    const DpsTensor *x = dps_model_tensor (full, t);
    gint64 rows, cols;
    dims (x, &rows, &cols);
    DpsTpSplit s = dps_tp_split_of (x->name);
    for (int r = 0; r < (s == DPS_TP_WHOLE ? 1 : tp); r++)
      dps_tp_unslice (s, parts[r] + soff[t], rows, cols, tp, r, whole + foff[t]);
  }
}
