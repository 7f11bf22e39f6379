/* model-load.c — models from files: the zoo's key files (sim/models/NAME.model:
 * a generator and its numbers), and by what a file holds the other
 * readers: a per-layer CSV (model-csv.c), a Hugging Face config.json
 * (model-hf.c), a torch.profiler trace (model-trace.c). */
#include "sim/model.h"
#include "sim/model-gen.h"
#include "sim/base/keyfile.h"
#include "sim/base/datadir.h"
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
        || !get_dim (kf, "ffn", arch == DPS_TF_LLAMA, 4 * (gint64) s.hidden, &s.ffn, error)
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
      dps_set_field_error (error, DPS_FIELD_MODEL, DPS_ERROR_INPUT,
                   "no file '%s' and no shipped model of that name (shipped: %s)", q, list);
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
  if (g_str_has_suffix (path, ".json")) {
    /* not read as a key file, whose errors would speak of groups */
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: not a JSON object (a Hugging Face config.json is one, a "
                 "profiler trace too)", path);
    return NULL;
  }
  return keyfile_at_seq (path, data, (gssize) len, seq, error);
}

/* Names of the shipped models, sorted (g_strfreev the result). */
char **
dps_model_list_shipped (void)
{
  return dps_data_list ("sim/models", ".model");
}
