/* model-load.c — models from files: the zoo's key files (sim/models/NAME.model:
 * a generator and its numbers) and per-layer CSV exported from a profiler;
 * a Hugging Face config.json goes to model-hf.c.
 *
 * CSV: a header naming the columns, then one row per layer in forward order:
 *   layer,params,forward_ms,backward_ms[,flops]
 * (forward_s/backward_s also accepted).  Times are for the batch given by a
 * comment line "# batch: N" (default 1) and scale linearly with the batch;
 * flops is per sample and optional.  Each row's parameters form one tensor. */
#include "sim/model.h"
#include "sim/model-gen.h"
#include "sim/base/keyfile.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

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
      dps_key_file_error (kf, "model", key, error, "'%s' is not a whole number from 1 to 1048576%s",
                          parts[i], allow_m ? " (or M for a pool)" : "");
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
from_keyfile (const DpsKeyFile *kf, GError **error)
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
DpsModel *
dps_model_load_keyfile_data (const char *name, const char *data, gssize len, GError **error)
{
  g_autoptr (DpsKeyFile) kf = dps_key_file_load_data (name, data, len, error);
  return kf ? from_keyfile (kf, error) : NULL;
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
  m->source = g_strdup (name);
  int col_layer = -1, col_params = -1, col_fwd = -1, col_bwd = -1, col_flops = -1, ncols = 0;
  double unit = 1;
  gboolean header = FALSE;
  for (int i = 0; lines[i]; i++) {
    int ln = i + 1;
    char *l = g_strstrip (lines[i]);
    if (!l[0])
      continue;
    if (l[0] == '#') {
      char *b = strstr (l, "batch:");
      if (b) {
        gint64 v;
        if (!dps_parse_int (b + 6, &v) || v < 1 || v > 1 << 24)
          return dps_set_error_at (error, name, ln, "'# batch: N' needs a whole number from 1"), NULL;
        m->time_batch = (int) v;
      }
      continue;
    }
    g_auto (GStrv) f = g_strsplit (l, ",", -1);
    int n = (int) g_strv_length (f);
    for (int j = 0; j < n; j++)
      g_strstrip (f[j]);
    if (!header) {
      for (int j = 0; j < n; j++) {
        if (g_str_equal (f[j], "layer")) col_layer = j;
        else if (g_str_equal (f[j], "params")) col_params = j;
        else if (g_str_equal (f[j], "forward_ms")) col_fwd = j, unit = 1e-3;
        else if (g_str_equal (f[j], "forward_s")) col_fwd = j;
        else if (g_str_equal (f[j], "backward_ms") || g_str_equal (f[j], "backward_s")) col_bwd = j;
        else if (g_str_equal (f[j], "flops")) col_flops = j;
        else
          return dps_set_error_at (error, name, ln, "unknown column '%s' (expected layer, params, forward_ms, "
                           "backward_ms, flops)", f[j]), NULL;
      }
      if (col_layer < 0 || col_params < 0 || col_fwd < 0 || col_bwd < 0)
        return dps_set_error_at (error, name, ln, "the header needs columns layer, params, forward_ms and backward_ms"), NULL;
      if ((unit == 1e-3) != g_str_has_suffix (f[col_bwd], "_ms"))
        return dps_set_error_at (error, name, ln, "forward and backward times must have the same unit"), NULL;
      header = TRUE;
      ncols = n;
      continue;
    }
    if (n != ncols)
      return dps_set_error_at (error, name, ln, "%d fields, the header has %d", n, ncols), NULL;
    gint64 params;
    double fwd, bwd, flops = 0;
    if (!f[col_layer][0])
      return dps_set_error_at (error, name, ln, "empty layer name"), NULL;
    if (!dps_parse_int (f[col_params], &params) || params < 0 || params > (G_GINT64_CONSTANT (1) << 44))
      return dps_set_error_at (error, name, ln, "params: '%s' is not a whole number of parameters", f[col_params]), NULL;
    if (!dps_parse_double (f[col_fwd], &fwd) || fwd < 0 || fwd > 1e6)
      return dps_set_error_at (error, name, ln, "%s: '%s' is not a time >= 0", unit < 1 ? "forward_ms" : "forward_s",
                       f[col_fwd]), NULL;
    if (!dps_parse_double (f[col_bwd], &bwd) || bwd < 0 || bwd > 1e6)
      return dps_set_error_at (error, name, ln, "%s: '%s' is not a time >= 0", unit < 1 ? "backward_ms" : "backward_s",
                       f[col_bwd]), NULL;
    if (col_flops >= 0 && f[col_flops][0] && (!dps_parse_double (f[col_flops], &flops) || flops < 0))
      return dps_set_error_at (error, name, ln, "flops: '%s' is not a number >= 0", f[col_flops]), NULL;
    int li = dps_model_add_layer (m, f[col_layer], flops, 0, 0);
    DpsLayer *layer = &g_array_index (m->layers, DpsLayer, li);
    layer->fwd_time_s = fwd * unit;
    layer->bwd_time_s = bwd * unit;
    if (params > 0)
      dps_model_add_vector (m, f[col_layer], params);
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

/* Loads --model: a shipped name (sim/models/NAME.model), a .model file, a
 * per-layer .csv file or a Hugging Face config.json (told by its content,
 * whatever its name). */
DpsModel *
dps_model_load (const char *name_or_path, GError **error)
{
  g_autofree char *path = NULL;
  if (g_file_test (name_or_path, G_FILE_TEST_EXISTS) || strchr (name_or_path, '/'))
    path = g_strdup (name_or_path);
  else {
    g_autofree char *file = g_strconcat (name_or_path, ".model", NULL);
    path = dps_data_path ("sim/models", file);
    if (!path) {
      g_auto (GStrv) names = dps_model_list_shipped ();
      g_autofree char *list = g_strjoinv (", ", names);
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                   "--model: no file '%s' and no shipped model of that name (shipped: %s)", name_or_path, list);
      return NULL;
    }
  }
  if (g_str_has_suffix (path, ".csv"))
    return dps_model_load_csv (path, error);
  /* the length read, not strlen: a NUL byte marks binary data */
  gsize len = 0;
  g_autofree char *data = dps_read_file (path, "file", &len, error);
  if (!data)
    return NULL;
  if (dps_model_data_is_trace (data, len))
    return dps_model_load_trace_data (path, data, (gssize) len, error);
  if (looks_like_json (data, len))
    return dps_model_load_hf_config_data (path, data, (gssize) len, error);
  return dps_model_load_keyfile_data (path, data, (gssize) len, error);
}

/* Names of the shipped models, sorted (g_strfreev the result). */
char **
dps_model_list_shipped (void)
{
  return dps_data_list ("sim/models", ".model");
}
