/* model-load.c — models from files: the zoo's key files (sim/models/NAME.model:
 * a generator and its numbers) and per-layer CSV exported from a profiler
 * (calibrate/torch-layers.py writes one from PyTorch); a Hugging Face
 * config.json goes to model-hf.c.
 *
 * CSV: a header naming the columns, then one row per layer in forward order:
 *   layer,params,forward_ms,backward_ms[,flops][,tensors][,n_tensors][,activation_bytes][,tied_to]
 * (forward_s/backward_s also accepted; columns in any order).  With a name
 * column (dpscale run --time-layers --format csv) the layer's name is there
 * and layer is its index, not read.  Times are for the batch given by a
 * comment line "# batch: N" (default 1) and scale linearly with the batch;
 * flops is per sample and optional.  Comments "# device: WHAT" and
 * "# dtype: float32|float16|bfloat16" (or fp32, tf32, fp16, bf16) say
 * what the times were taken on (kept in the model: device, dtype).
 * A row's parameters are DDP's tensors: tensors lists them in definition
 * order, ';' between, each a shape (768x2304) or an element count, summing
 * to params; n_tensors alone splits params into that many equal tensors;
 * neither: one tensor.  activation_bytes: the bytes the layer keeps for
 * backward over the whole batch, in the file's dtype (2-byte elements when
 * it says none).  tied_to names an earlier layer whose weights this row
 * shares (GPT-2's LM head and token embedding): its params are that
 * layer's, counted there once, at most as many as it has. */
#include "sim/model.h"
#include "sim/model-gen.h"
#include "sim/device.h"
#include "sim/base/keyfile.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

#include <gio/gio.h>
#include <string.h>

static const char *const model_keys[] = { "name", "architecture", "layers", "hidden", "heads", "ffn",
                                          "vocab", "seq", "max_positions", "blocks", "image", "classes",
                                          "config", "widths", "source", "kv_heads", "head_dim",
                                          "tie_embeddings", NULL };
/* mistral and qwen2 are Llama's blocks (qwen2 with q/k/v biases): 6 and 7
 * become DPS_TF_LLAMA */
static const char *const archs[] = { "gpt2", "bert", "llama", "resnet", "vgg", "mlp", "mistral", "qwen2", NULL };

static gboolean
get_ints (const DpsKeyFile *kf, const char *key, gboolean allow_m, GArray **out, GError **error)
{
  g_autofree char *raw = NULL;
  if (!dps_key_file_get_string (kf, "model", key, TRUE, NULL, &raw, error))
    return FALSE;
  g_auto (GStrv) parts = g_strsplit_set (raw, ",;", -1);
  GArray *a = g_array_new (FALSE, FALSE, sizeof (int));
  for (int i = 0; parts[i]; i++) {
    g_strstrip (parts[i]);
    gint64 v;
    if (!parts[i][0])
      continue;
    if (allow_m && g_str_equal (parts[i], "M"))
      v = 0;
    else if (!dps_parse_int (parts[i], &v) || v < 1 || v > 1 << 20) {
      g_autofree char *q = dps_quote (parts[i]);
      dps_key_file_error (kf, "model", key, error, "'%s' is not a whole number from 1 to 1048576%s",
                          q, allow_m ? " (or M for a pool)" : "");
      g_array_free (a, TRUE);
      return FALSE;
    }
    int iv = (int) v;
    g_array_append_val (a, iv);
  }
  if (a->len == 0 || a->len > 4096) {
    dps_key_file_error (kf, "model", key, error, a->len ? "more than 4096 entries" : "empty list");
    g_array_free (a, TRUE);
    return FALSE;
  }
  if (allow_m == FALSE && g_str_equal (key, "blocks"))
    for (guint i = 0; i < a->len; i++)
      if (g_array_index (a, int, i) > 1000 || a->len > 16) {
        dps_key_file_error (kf, "model", key, error, "at most 16 stages of 1000 blocks");
        g_array_free (a, TRUE);
        return FALSE;
      }
  *out = a;
  return TRUE;
}

/* Upper bounds on a model's numbers: far beyond any real model, low enough
 * that a mistyped one cannot make dpscale build billions of layers. */
static gint64
dim_max (const char *key)
{
  static const struct { const char *key; gint64 max; } limits[] = {
    { "layers", 4096 }, { "hidden", 1 << 17 }, { "heads", 4096 }, { "ffn", 1 << 20 }, { "vocab", 1 << 24 },
    { "seq", 1 << 21 }, { "max_positions", 1 << 21 }, { "image", 8192 }, { "classes", 1 << 20 },
    { "kv_heads", 4096 }, { "head_dim", 1 << 14 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (limits); i++)
    if (g_str_equal (key, limits[i].key))
      return limits[i].max;
  return 1 << 20;
}

static gboolean
get_dim (const DpsKeyFile *kf, const char *key, gboolean required, gint64 def, int *out, GError **error)
{
  gint64 v;
  if (!dps_key_file_get_int (kf, "model", key, required, def, 1, dim_max (key), &v, error))
    return FALSE;
  *out = (int) v;
  return TRUE;
}

/* tie_embeddings = true/false; absent: the architecture's default. */
static gboolean
tie_key (const DpsKeyFile *kf, DpsTie *out, GError **error)
{
  gboolean tie;
  if (!dps_key_file_has_key (kf, "model", "tie_embeddings"))
    return TRUE;
  if (!dps_key_file_get_bool (kf, "model", "tie_embeddings", TRUE, FALSE, &tie, error))
    return FALSE;
  *out = tie ? DPS_TIE_YES : DPS_TIE_NO;
  return TRUE;
}

static DpsModel *
from_keyfile (const DpsKeyFile *kf, int seq, GError **error)
{
  g_autofree char *name = NULL;
  int arch;
  if (!dps_key_file_check_groups (kf, (const char *const[]) { "model", NULL }, NULL, error)
      || !dps_key_file_require_group (kf, "model", error)
      || !dps_key_file_check_keys (kf, "model", model_keys, error)
      || !dps_key_file_get_string (kf, "model", "name", TRUE, NULL, &name, error)
      || !dps_key_file_get_choice (kf, "model", "architecture", archs, TRUE, 0, &arch, error))
    return NULL;
  DpsModel *m = NULL;
  gboolean qwen2 = arch == 7;
  if (arch >= 6)
    arch = DPS_TF_LLAMA;
  if (arch <= 2) {
    DpsTransformerShape s = { .kind = (DpsTransformerKind) arch, .qkv_bias = qwen2 };
    if (!get_dim (kf, "layers", TRUE, 0, &s.layers, error) || !get_dim (kf, "hidden", TRUE, 0, &s.hidden, error)
        || !get_dim (kf, "heads", TRUE, 0, &s.heads, error)
        || !get_dim (kf, "ffn", FALSE, 4 * (gint64) s.hidden, &s.ffn, error)
        || !get_dim (kf, "vocab", TRUE, 0, &s.vocab, error) || !get_dim (kf, "seq", TRUE, 0, &s.seq, error)
        || !get_dim (kf, "max_positions", FALSE, s.seq, &s.max_positions, error)
        || !get_dim (kf, "kv_heads", FALSE, s.heads, &s.kv_heads, error)
        || !get_dim (kf, "head_dim", FALSE, s.hidden / MAX (s.heads, 1), &s.head_dim, error)
        || !tie_key (kf, &s.tie, error))
      return NULL;
    for (const char *const *k = (const char *const[]) { "kv_heads", "head_dim", NULL }; *k; k++)
      if (arch != DPS_TF_LLAMA && dps_key_file_has_key (kf, "model", *k)) {
        dps_key_file_error (kf, "model", *k, error, "only for llama, mistral and qwen2");
        return NULL;
      }
    if (s.heads % s.kv_heads) {
      dps_key_file_error (kf, "model", "kv_heads", error, "heads (%d) is not a multiple of kv_heads (%d)", s.heads, s.kv_heads);
      return NULL;
    }
    if (s.hidden % s.heads && !dps_key_file_has_key (kf, "model", "head_dim")) {
      dps_key_file_error (kf, "model", "heads", error, "hidden (%d) is not a multiple of heads (%d)", s.hidden, s.heads);
      return NULL;
    }
    if (seq > 0 && seq > s.max_positions && arch != DPS_TF_LLAMA) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "sequence length: %d is longer than %s's %d learned positions",
                   seq, name, s.max_positions);
      return NULL;
    }
    if (seq > 0)
      s.seq = seq;
    if (s.seq > s.max_positions && arch != DPS_TF_LLAMA) {
      dps_key_file_error (kf, "model", "seq", error, "longer than max_positions (%d)", s.max_positions);
      return NULL;
    }
    m = dps_model_gen_transformer (name, &s);
  } else {
    GArray *list = NULL;
    int image = 224, classes = 1000;
    const char *key = arch == 3 ? "blocks" : arch == 4 ? "config" : "widths";
    if (!get_ints (kf, key, arch == 4, &list, error))
      return NULL;
    if ((arch != 5 && (!get_dim (kf, "image", FALSE, 224, &image, error)
                       || !get_dim (kf, "classes", FALSE, 1000, &classes, error)))
        || (arch == 5 && list->len < 2 && (dps_key_file_error (kf, "model", key, error, "needs at least 2 widths"), TRUE))) {
      g_array_free (list, TRUE);
      return NULL;
    }
    if (arch == 3)
      m = dps_model_gen_resnet (name, (int *) list->data, (int) list->len, image, classes);
    else if (arch == 4)
      m = dps_model_gen_vgg (name, (int *) list->data, (int) list->len, image, classes);
    else
      m = dps_model_gen_mlp (name, (int *) list->data, (int) list->len);
    g_array_free (list, TRUE);
  }
  m->source = g_strdup (dps_key_file_name (kf));
  return m;
}

/* Parses a zoo model key file from memory. */
/* A zoo file's model, at seq tokens a sample where seq > 0. */
static DpsModel *
keyfile_at_seq (const char *name, const char *data, gssize len, int seq, GError **error)
{
  g_autoptr (DpsKeyFile) kf = dps_key_file_load_data (name, data, len, error);
  DpsModel *m = kf ? from_keyfile (kf, seq, error) : NULL;
  if (m && seq > 0 && m->seq_len == 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "sequence length: %s has no tokens", m->name);
    g_clear_pointer (&m, dps_model_free);
  }
  return m;
}

/* A sequence length asked of a model measured at its own: refused. */
static DpsModel *
no_seq (const char *path, const char *why, GError **error)
{
  g_autofree char *q = dps_quote (path);
  g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "sequence length: %s: %s", q, why);
  return NULL;
}

DpsModel *
dps_model_load_keyfile_data (const char *name, const char *data, gssize len, GError **error)
{
  return keyfile_at_seq (name, data, len, 0, error);
}

/* The columns of a per-layer CSV: their indices in a row, -1 when absent. */
typedef struct {
  int    layer, name, params, fwd, bwd, flops, tensors, n_tensors, act, tied;
  int    n;          /* fields a row has */
  double unit;       /* seconds per time unit: 1e-3 for _ms, 1 for _s */
} CsvCols;

static const char *const csv_col_names[] = { "layer", "name", "params", "forward_ms", "backward_ms", "flops",
                                             "tensors", "n_tensors", "activation_bytes", "tied_to", NULL };

/* Reads the header line's fields f[0..n) into c. */
static gboolean
csv_header (CsvCols *c, char **f, int n, const char *file, int ln, GError **error)
{
  *c = (CsvCols) { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, n, 1 };
  int *slot[] = { &c->layer, &c->name, &c->params, &c->fwd, &c->bwd, &c->flops, &c->tensors, &c->n_tensors,
                  &c->act, &c->tied };
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
  int tied = -1;
  if (c->tied >= 0 && f[c->tied][0]) {
    if ((tied = find_layer (m, f[c->tied])) < 0)
      return dps_set_error_at (error, file, ln, "tied_to: no earlier layer '%s'", q = dps_quote (f[c->tied]));
    if (params > dps_model_layer (m, tied)->n_params)
      return dps_set_error_at (error, file, ln, "tied_to: %" G_GINT64_FORMAT " parameters, '%s' has only %" G_GINT64_FORMAT,
                               params, q = dps_quote (f[c->tied]), dps_model_layer (m, tied)->n_params);
  }
  int li = dps_model_add_layer (m, layer, flops, 0, 0);
  DpsLayer *l = &g_array_index (m->layers, DpsLayer, li);
  l->fwd_time_s = fwd * c->unit;
  l->bwd_time_s = bwd * c->unit;
  g_array_append_val (act, a);
  /* a tied row's parameters are the earlier layer's: counted there, once */
  return csv_tensors (m, c, f, params, tied < 0, file, ln, error);
}

/* A "# key: value" comment: batch (anywhere in the comment, as before),
 * device and dtype (the comment's first word). */
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

/* TRUE when the text is JSON: its first byte after white space (and a
 * UTF-8 byte order mark) is '{'.  A key file starts with '[', '#' or a key. */
static gboolean
looks_like_json (const char *data, gsize len)
{
  gsize i = len >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  while (i < len && g_ascii_isspace (data[i]))
    i++;
  return i < len && data[i] == '{';
}

/* The text of gzip data (a trace saved as .json.gz, as
 * tensorboard_trace_handler(use_gzip=True) writes it), at most
 * DPS_FILE_MAX_BYTES of it as for a plain file; *len receives its length.
 * Returns a new string, or NULL with error naming path (corrupt or cut
 * data, or too large once inflated). */
static char *
gunzip (const char *path, const char *data, gsize *len, GError **error)
{
  g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  gsize cap = MAX (*len * 4, 4096), out_n = 0, in_n = 0;
  char *out = g_malloc (cap + 1);
  for (;;) {
    gsize read = 0, written = 0;
    g_autoptr (GError) e = NULL;
    GConverterResult r = g_converter_convert (G_CONVERTER (z), data + in_n, *len - in_n, out + out_n, cap - out_n,
                                              G_CONVERTER_INPUT_AT_END, &read, &written, &e);
    in_n += read;
    out_n += written;
    if (r == G_CONVERTER_FINISHED)
      break;
    if (r == G_CONVERTER_ERROR && !g_error_matches (e, G_IO_ERROR, G_IO_ERROR_NO_SPACE)) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: gzip data that does not inflate (%s): a cut or "
                   "corrupt .gz file", path, e->message);
      g_free (out);
      return NULL;
    }
    if (cap - out_n < cap / 2 || r == G_CONVERTER_ERROR) {
      if (cap > DPS_FILE_MAX_BYTES) {
        g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s: more than the 64 MiB a model file may hold once "
                     "inflated", path);
        g_free (out);
        return NULL;
      }
      cap = MIN (cap * 2, (gsize) DPS_FILE_MAX_BYTES + 1);
      out = g_realloc (out, cap + 1);
    }
  }
  if (out_n > DPS_FILE_MAX_BYTES) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s: more than the 64 MiB a model file may hold once inflated",
                 path);
    g_free (out);
    return NULL;
  }
  out[out_n] = '\0';
  *len = out_n;
  return out;
}

/* Loads --model: a shipped name (sim/models/NAME.model), a .model file, a
 * per-layer .csv file or a Hugging Face config.json (told by its content,
 * whatever its name), any of them gzipped (told by gzip's magic bytes). */
DpsModel *
dps_model_load (const char *name_or_path, GError **error)
{
  return dps_model_load_seq (name_or_path, 0, error);
}

DpsModel *
dps_model_load_seq (const char *name_or_path, int seq, GError **error)
{
  g_autofree char *path = NULL;
  if (g_file_test (name_or_path, G_FILE_TEST_EXISTS) || strchr (name_or_path, '/'))
    path = g_strdup (name_or_path);
  else {
    g_autofree char *file = g_strconcat (name_or_path, ".model", NULL);
    path = dps_data_path ("sim/models", file);
    if (!path) {
      g_auto (GStrv) names = dps_model_list_shipped ();
      g_autofree char *list = g_strjoinv (", ", names), *q = dps_quote (name_or_path);
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                   "model: no file '%s' and no shipped model of that name (shipped: %s)", q, list);
      return NULL;
    }
  }
  if (seq > 0 && g_str_has_suffix (path, ".csv"))
    return no_seq (path, "a per-layer CSV is measured at its own length", error);
  if (g_str_has_suffix (path, ".csv"))
    return dps_model_load_csv (path, error);
  /* the length read, not strlen: a NUL byte marks binary data */
  gsize len = 0;
  g_autofree char *data = dps_read_file (path, "file", &len, error);
  if (!data)
    return NULL;
  if (len >= 2 && (guchar) data[0] == 0x1f && (guchar) data[1] == 0x8b) {
    char *text = gunzip (path, data, &len, error);
    if (!text)
      return NULL;
    g_free (data);
    data = text;
  }
  if (seq > 0 && dps_model_data_is_trace (data, len))
    return no_seq (path, "a trace is measured at its own length", error);
  if (dps_model_data_is_trace (data, len))
    return dps_model_load_trace_data (path, data, (gssize) len, error);
  if (looks_like_json (data, len))
    return dps_model_load_hf_config_data_seq (path, data, (gssize) len, seq, error);
  return keyfile_at_seq (path, data, (gssize) len, seq, error);
}

/* Names of the shipped models, sorted (g_strfreev the result). */
char **
dps_model_list_shipped (void)
{
  return dps_data_list ("sim/models", ".model");
}
