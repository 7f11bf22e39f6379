/* model-csv.c — a model from a per-layer CSV exported from a profiler
 * (calibrate/torch-layers.py writes one from PyTorch; dpscale run
 * --time-layers --format csv too).
 *
 * A header naming the columns, then one row per layer in forward order:
 *   layer,params,forward_ms,backward_ms[,flops][,tensors][,n_tensors][,activation_bytes][,tied_to][,kernels]
 *   [,logits]
 * (forward_s/backward_s also accepted; columns in any order).  With a name
 * column (dpscale run --time-layers --format csv) the layer's name is there
 * and layer is its index, not read.  Times are for the batch given by a
 * comment line "# batch: N" (default 1) and scale linearly with the batch;
 * flops is per sample and optional.  Comments "# device: WHAT" and
 * "# dtype: float32|float16|bfloat16" (or fp32, tf32, fp16, bf16) say
 * what the times were taken on (kept in the model: device, dtype);
 * "# input: N tokens ..." that a sample is N tokens (seq_len).
 * A row's parameters are DDP's tensors: tensors lists them in definition
 * order, ';' between, each a shape (768x2304) or an element count, summing
 * to params; n_tensors alone splits params into that many equal tensors;
 * neither: one tensor.  activation_bytes: the bytes the layer keeps for
 * backward over the whole batch, in the file's dtype (2-byte elements when
 * it says none).  tied_to names an earlier layer whose weights this row
 * shares (GPT-2's LM head and token embedding): its params are that
 * layer's, counted there once, at most as many as it has.  logits: per
 * sample, the logits a cross-entropy loss in this layer reads (a language
 * model's head: tokens x vocabulary), whose log-probabilities and
 * gradients the memory timeline holds (memory.h); empty or absent: none.
 *
 * kernels: the layer's forward work as the compute model times it
 * (model.h's DpsKernel), ';' between entries, each
 *   KIND:COUNT:FLOPS:BYTES:WEIGHT_ELEMS:SCORE_BYTES:INV_K[:INV_ROWS]
 * KIND gemm, conv, attention or memory; COUNT kernels launched per
 * forward; FLOPS and BYTES (activations read and written, 2-byte
 * elements) per sample; WEIGHT_ELEMS read once per pass; SCORE_BYTES of
 * BYTES over attention's score matrices; INV_K a GEMM's FLOP-weighted
 * mean of 1 / K, INV_ROWS of 1 / its rows a sample (0 or absent:
 * unknown).  With kernels on its rows a file measured
 * on CPU cores can be timed on a GPU (compute.c).  flops, when given
 * beside kernels, must be their sum. */
#include "sim/model.h"
#include "sim/device.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

#include <math.h>
#include <string.h>

/* The columns of a per-layer CSV: their indices in a row, -1 when absent. */
typedef struct {
  int    layer, name, params, fwd, bwd, flops, tensors, n_tensors, act, tied, kernels, logits;
  int    n;          /* fields a row has */
  double unit;       /* seconds per time unit: 1e-3 for _ms, 1 for _s */
} CsvCols;

static const char *const csv_col_names[] = { "layer", "name", "params", "forward_ms", "backward_ms", "flops",
                                             "tensors", "n_tensors", "activation_bytes", "tied_to", "kernels",
                                             "logits", NULL };

/* Reads the header line's fields f[0..n) into c. */
static gboolean
csv_header (CsvCols *c, char **f, int n, const char *file, int ln, GError **error)
{
  *c = (CsvCols) { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, n, 1 };
  int *slot[] = { &c->layer, &c->name, &c->params, &c->fwd, &c->bwd, &c->flops, &c->tensors, &c->n_tensors,
                  &c->act, &c->tied, &c->kernels, &c->logits };
  for (int j = 0; j < n; j++) {
    int k = 0;
    while (csv_col_names[k] && !g_str_equal (f[j], csv_col_names[k]))
      k++;
    if (g_str_equal (f[j], "forward_s"))
      k = 3;
    else if (g_str_equal (f[j], "backward_s"))
      k = 4;
    if (!csv_col_names[k]) {
      g_autofree char *all = g_strjoinv (", ", (char **) csv_col_names), *q = dps_quote (f[j]);
      return dps_set_error_at (error, file, ln, "unknown column '%s' (expected %s; forward_s, backward_s)", q, all);
    }
    if (*slot[k] >= 0) {
      g_autofree char *q = dps_quote (f[j]);
      return dps_set_error_at (error, file, ln, "column '%s' given twice", q);
    }
    *slot[k] = j;
  }
  if ((c->layer < 0 && c->name < 0) || c->params < 0 || c->fwd < 0 || c->bwd < 0)
    return dps_set_error_at (error, file, ln, "the header needs columns layer (or name), params, forward_ms and backward_ms");
  if (g_str_has_suffix (f[c->fwd], "_ms") != g_str_has_suffix (f[c->bwd], "_ms"))
    return dps_set_error_at (error, file, ln, "forward and backward times must have the same unit");
  c->unit = g_str_has_suffix (f[c->fwd], "_ms") ? 1e-3 : 1;
  return TRUE;
}

/* Parses one entry of a tensors list: a shape "768x3072" (or "64x3x7x7")
 * or an element count "768".  rows = first dimension and cols = the rest
 * for 2 or more dimensions (as PowerSGD views a weight), 0 for a vector. */
static gboolean
tensor_shape (const char *s, gint64 *numel, gint64 *rows, gint64 *cols)
{
  g_auto (GStrv) dims = g_strsplit (s, "x", -1);
  gint64 n = 1;
  int k = 0;
  for (; dims[k]; k++) {
    gint64 d;
    if (!dps_parse_int (dims[k], &d) || d < 1 || d > (G_GINT64_CONSTANT (1) << 44) / n)
      return FALSE;
    n *= d;
  }
  if (k == 0)
    return FALSE;
  gint64 first;
  dps_parse_int (dims[0], &first);
  *numel = n;
  *rows = k >= 2 ? first : 0;
  *cols = k >= 2 ? n / first : 0;
  return TRUE;
}

/* Adds the row's parameter tensors to the last layer (add FALSE: only
 * checks them, for a tied row): the tensors list, else n_tensors equal
 * parts (the first takes the remainder), else one tensor of params. */
static gboolean
csv_tensors (DpsModel *m, const CsvCols *c, char **f, gint64 params, gboolean add, const char *file, int ln,
             GError **error)
{
  const char *layer = f[c->name >= 0 ? c->name : c->layer];
  gint64 count = -1;
  if (c->n_tensors >= 0 && f[c->n_tensors][0]
      && (!dps_parse_int (f[c->n_tensors], &count) || count < 0 || count > MAX (params, 0) || (count == 0) != (params == 0))) {
    g_autofree char *q = dps_quote (f[c->n_tensors]);
    return dps_set_error_at (error, file, ln, "n_tensors: '%s' is not a count of tensors from %d to params (%" G_GINT64_FORMAT ")",
                             q, params > 0, params);
  }
  if (c->tensors >= 0 && f[c->tensors][0]) {
    g_auto (GStrv) list = g_strsplit (f[c->tensors], ";", -1);
    gint64 sum = 0;
    int k = 0;
    for (; list[k]; k++) {
      gint64 numel, rows, cols;
      g_strstrip (list[k]);
      if (!tensor_shape (list[k], &numel, &rows, &cols) || sum + numel > (G_GINT64_CONSTANT (1) << 44)) {
        g_autofree char *q = dps_quote (list[k]);
        return dps_set_error_at (error, file, ln, "tensors: '%s' is not a shape (768x768) or an element count", q);
      }
      sum += numel;
      if (add) {
        g_autofree char *tn = g_strdup_printf ("%s[%d]", layer, k);
        if (rows > 0)
          dps_model_add_tensor (m, tn, rows, cols);
        else
          dps_model_add_vector (m, tn, numel);
      }
    }
    if (sum != params)
      return dps_set_error_at (error, file, ln, "tensors: %" G_GINT64_FORMAT " elements, params says %" G_GINT64_FORMAT, sum, params);
    if (count >= 0 && count != k)
      return dps_set_error_at (error, file, ln, "n_tensors: %" G_GINT64_FORMAT ", the tensors list has %d", count, k);
    return TRUE;
  }
  if (count < 0)
    count = params > 0;
  for (gint64 k = 0; add && k < count; k++) {
    g_autofree char *tn = g_strdup_printf ("%s[%" G_GINT64_FORMAT "]", layer, k);
    dps_model_add_vector (m, count == 1 ? layer : tn, params / count + (k == 0 ? params % count : 0));
  }
  return TRUE;
}

/* Adds the kernels cell s (the top of this file) to the last layer;
 * *flops receives their FLOPs per sample. */
static gboolean
csv_kernels (DpsModel *m, const char *s, double *flops, const char *file, int ln, GError **error)
{
  g_auto (GStrv) list = g_strsplit (s, ";", -1);
  *flops = 0;
  for (int k = 0; list[k]; k++) {
    g_auto (GStrv) v = g_strsplit (g_strstrip (list[k]), ":", -1);
    g_autofree char *q = dps_quote (list[k]);
    guint nf = g_strv_length (v);
    if (nf != 7 && nf != 8)
      return dps_set_error_at (error, file, ln,
                               "kernels: '%s' is not KIND:COUNT:FLOPS:BYTES:WEIGHT_ELEMS:SCORE_BYTES:INV_K[:INV_ROWS]", q);
    int kind = 0;
    while (kind < DPS_KERNEL_KINDS && !g_str_equal (v[0], dps_kernel_kind_name (kind)))
      kind++;
    if (kind == DPS_KERNEL_KINDS)
      return dps_set_error_at (error, file, ln, "kernels: '%s': the kind is not gemm, conv, attention or memory", q);
    gint64 count;
    if (!dps_parse_int (v[1], &count) || count < 1 || count > 1000000)
      return dps_set_error_at (error, file, ln, "kernels: '%s': the count is not a whole number from 1 to 1000000", q);
    double x[6] = { 0 };
    for (int j = 0; j < (int) nf - 2; j++)
      if (!dps_parse_double (v[2 + j], &x[j]) || x[j] < 0 || x[j] > 1e24)
        return dps_set_error_at (error, file, ln, "kernels: '%s': field %d is not a number >= 0", q, 3 + j);
    if (x[3] > x[1] || x[4] > 1 || x[5] > 1)
      return dps_set_error_at (error, file, ln, "kernels: '%s': score bytes past the bytes, or 1 / K or 1 / rows past 1", q);
    dps_model_add_kernel (m, (DpsKernelKind) kind, x[0], x[1], x[2], (int) count);
    dps_model_kernel_set_score_bytes (m, x[3]);
    dps_model_kernel_set_inv_k (m, x[4]);
    dps_model_kernel_set_inv_rows (m, x[5]);
    *flops += x[0];
  }
  return TRUE;
}

/* The layer an earlier row named, or -1. */
static int
find_layer (const DpsModel *m, const char *name)
{
  for (int i = 0; i < dps_model_n_layers (m); i++)
    if (g_str_equal (dps_model_layer (m, i)->name, name))
      return i;
  return -1;
}

/* Parses one layer row; its activation bytes (as written) go to act. */
static gboolean
csv_row (DpsModel *m, const CsvCols *c, char **f, GArray *act, const char *file, int ln, GError **error)
{
  gint64 params;
  double fwd, bwd, flops = 0, a = 0;
  const char *layer = f[c->name >= 0 ? c->name : c->layer];
  const char *fwd_col = c->unit < 1 ? "forward_ms" : "forward_s", *bwd_col = c->unit < 1 ? "backward_ms" : "backward_s";
  if (!layer[0])
    return dps_set_error_at (error, file, ln, "empty layer name");
  g_autofree char *q = NULL;   /* the cell a message quotes */
  if (!dps_parse_int (f[c->params], &params) || params < 0 || params > (G_GINT64_CONSTANT (1) << 44))
    return dps_set_error_at (error, file, ln, "params: '%s' is not a whole number of parameters", q = dps_quote (f[c->params]));
  if (!dps_parse_double (f[c->fwd], &fwd) || fwd < 0 || fwd > 1e6)
    return dps_set_error_at (error, file, ln, "%s: '%s' is not a time >= 0", fwd_col, q = dps_quote (f[c->fwd]));
  if (!dps_parse_double (f[c->bwd], &bwd) || bwd < 0 || bwd > 1e6)
    return dps_set_error_at (error, file, ln, "%s: '%s' is not a time >= 0", bwd_col, q = dps_quote (f[c->bwd]));
  if (c->flops >= 0 && f[c->flops][0] && (!dps_parse_double (f[c->flops], &flops) || flops < 0))
    return dps_set_error_at (error, file, ln, "flops: '%s' is not a number >= 0", q = dps_quote (f[c->flops]));
  if (c->act >= 0 && f[c->act][0] && (!dps_parse_double (f[c->act], &a) || a < 0 || a > 1e18))
    return dps_set_error_at (error, file, ln, "activation_bytes: '%s' is not a number of bytes >= 0",
                             q = dps_quote (f[c->act]));
  double logits = 0;
  if (c->logits >= 0 && f[c->logits][0] && (!dps_parse_double (f[c->logits], &logits) || logits < 0 || logits > 1e15))
    return dps_set_error_at (error, file, ln, "logits: '%s' is not a count of logits >= 0", q = dps_quote (f[c->logits]));
  int tied = -1;
  if (c->tied >= 0 && f[c->tied][0]) {
    if ((tied = find_layer (m, f[c->tied])) < 0)
      return dps_set_error_at (error, file, ln, "tied_to: no earlier layer '%s'", q = dps_quote (f[c->tied]));
    if (params > dps_model_layer (m, tied)->n_params)
      return dps_set_error_at (error, file, ln, "tied_to: %" G_GINT64_FORMAT " parameters, '%s' has only %" G_GINT64_FORMAT,
                               params, q = dps_quote (f[c->tied]), dps_model_layer (m, tied)->n_params);
  }
  int li = dps_model_add_layer (m, layer, flops, 0, 0);
  if (c->kernels >= 0 && f[c->kernels][0]) {
    double sum;
    if (!csv_kernels (m, f[c->kernels], &sum, file, ln, error))
      return FALSE;
    if (c->flops >= 0 && f[c->flops][0] && fabs (sum - flops) > 1e-9 * MAX (sum, flops))
      return dps_set_error_at (error, file, ln, "flops: %.17g, the kernels sum to %.17g", flops, sum);
    g_array_index (m->layers, DpsLayer, li).fwd_flops = sum;
  }
  DpsLayer *l = &g_array_index (m->layers, DpsLayer, li);
  l->fwd_time_s = fwd * c->unit;
  l->bwd_time_s = bwd * c->unit;
  l->logits = logits;
  g_array_append_val (act, a);
  /* a tied row's parameters are the earlier layer's: counted there, once */
  return csv_tensors (m, c, f, params, tied < 0, file, ln, error);
}

/* A "# key: value" comment: batch (anywhere in the comment, as before),
 * device and dtype (the comment's first word), and the optimizer's step
 * that calibrate/torch-layers.py measured ("# step_ms: ... optimizer
 * MS"). */
static gboolean
csv_comment (DpsModel *m, const char *l, const char *file, int ln, GError **error)
{
  const char *b = strstr (l, "batch:"), *t = l + 1;
  if (b) {
    gint64 v;
    if (!dps_parse_int (b + 6, &v) || v < 1 || v > 1 << 24)
      return dps_set_error_at (error, file, ln, "'# batch: N' needs a whole number from 1");
    m->time_batch = (int) v;
  }
  while (g_ascii_isspace (*t))
    t++;
  if (g_str_has_prefix (t, "device:")) {
    g_free (m->device);
    m->device = g_strstrip (g_strdup (t + 7));
    if (!m->device[0])
      return dps_set_error_at (error, file, ln, "'# device:' names no device");
  } else if (g_str_has_prefix (t, "step_ms:") && strstr (t, "optimizer ")) {
    double v;
    g_autofree char *num = g_strndup (strstr (t, "optimizer ") + 10, strcspn (strstr (t, "optimizer ") + 10, ";, "));
    if (!dps_parse_double (num, &v) || v < 0 || v > 1e7)
      return dps_set_error_at (error, file, ln, "'# step_ms: ... optimizer MS': '%s' is not a time in ms", num);
    m->optimizer_s = v * 1e-3;
  } else if (g_str_has_prefix (t, "input:") && strstr (t, " tokens")) {
    /* calibrate/torch-layers.py's "# input: N tokens a sample; ...": a
     * token model, for tokens per second */
    gint64 v;
    g_autofree char *num = g_strndup (t + 6, (gsize) (strstr (t, " tokens") - (t + 6)));
    if (!dps_parse_int (g_strstrip (num), &v) || v < 1 || v > 1 << 24)
      return dps_set_error_at (error, file, ln, "'# input: N tokens': '%s' is not a whole number from 1", num);
    m->seq_len = (int) v;
  } else if (g_str_has_prefix (t, "dtype:")) {
    g_autofree char *v = g_strstrip (g_strdup (t + 6));
    const char *s = g_str_has_prefix (v, "torch.") ? v + 6 : v;
    static const char *const torch_names[][2] = { { "float32", "fp32" }, { "float", "fp32" }, { "float16", "fp16" },
                                                  { "half", "fp16" }, { "bfloat16", "bf16" } };
    for (gsize i = 0; i < G_N_ELEMENTS (torch_names); i++)
      if (g_str_equal (s, torch_names[i][0]))
        s = torch_names[i][1];
    DpsDtype d;
    if (!dps_dtype_parse (s, &d))
      return dps_set_error_at (error, file, ln, "'# dtype: %s' is not float32, float16 or bfloat16 (fp32, tf32, fp16, bf16)", v);
    g_free (m->dtype);
    m->dtype = g_strdup (dps_dtype_name (d));
  }
  return TRUE;
}

/* Parses a per-layer CSV from memory (see the top of this file). */
DpsModel *
dps_model_load_csv_data (const char *name, const char *data, gssize len, GError **error)
{
  if (len < 0)
    len = (gssize) strlen (data);
  if (memchr (data, 0, (gsize) len)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: binary data (a NUL byte), not a CSV file", name);
    return NULL;
  }
  g_autofree char *text = g_strndup (data, (gsize) len);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (DpsModel) m = dps_model_new (name);
  g_autoptr (GArray) act = g_array_new (FALSE, FALSE, sizeof (double));
  m->source = g_strdup (name);
  CsvCols cols;
  gboolean header = FALSE;
  for (int i = 0; lines[i]; i++) {
    int ln = i + 1;
    /* layer names reach traces (JSON) and plots: text, as the topology and
     * model readers require */
    if (!g_utf8_validate (lines[i], -1, NULL)) {
      dps_set_error_at (error, name, ln, "not UTF-8 text");
      return NULL;
    }
    char *l = g_strstrip (lines[i]);
    if (!l[0])
      continue;
    if (l[0] == '#') {
      if (!csv_comment (m, l, name, ln, error))
        return NULL;
      continue;
    }
    g_auto (GStrv) f = g_strsplit (l, ",", -1);
    int n = (int) g_strv_length (f);
    for (int j = 0; j < n; j++)
      g_strstrip (f[j]);
    if (!header) {
      if (!csv_header (&cols, f, n, name, ln, error))
        return NULL;
      header = TRUE;
      continue;
    }
    if (n != cols.n)
      return dps_set_error_at (error, name, ln, "%d fields, the header has %d", n, cols.n), NULL;
    if (!csv_row (m, &cols, f, act, name, ln, error))
      return NULL;
    if (m->layers->len > 100000)
      return dps_set_error_at (error, name, ln, "more than 100000 layers"), NULL;
  }
  if (!header || m->layers->len == 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: no %s (expected a header line and one row per layer)",
                 name, header ? "layer rows" : "header");
    return NULL;
  }
  if (m->n_params == 0) {
    /* nothing to all-reduce: every rate and efficiency would divide by zero */
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: params: every layer has 0 parameters (nothing to train)", name);
    return NULL;
  }
  /* activation bytes as written (the whole batch, in the file's dtype)
   * become the model's: per sample, in 2-byte elements */
  DpsDtype d = DPS_DTYPE_FP16;
  if (m->dtype)
    dps_dtype_parse (m->dtype, &d);
  for (guint i = 0; i < act->len; i++)
    g_array_index (m->layers, DpsLayer, i).act_bytes
        = g_array_index (act, double, i) / m->time_batch * 2 / dps_dtype_bytes (d);
  return g_steal_pointer (&m);
}

DpsModel *
dps_model_load_csv (const char *path, GError **error)
{
  gsize len = 0;
  g_autofree char *data = dps_read_file (path, "file", &len, error);
  return data ? dps_model_load_csv_data (path, data, (gssize) len, error) : NULL;
}
