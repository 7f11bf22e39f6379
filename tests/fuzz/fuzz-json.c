/* libFuzzer target: every JSON reader (sim/base/json-load.c and the two
 * that use it: a Hugging Face config.json, a torch.profiler trace, plain
 * or gzipped through --model's dispatch), fed each input as it is, and
 * repeated to 256 KB, so that a few bytes such as "[" or {"a": become
 * JSON nested thousands deep or wide.  Once per process the deep and wide
 * documents users reach are tried through the path: 100,000 arrays or
 * objects (alone, in a config, beside and inside traceEvents, gzipped to
 * under 1 KB) and one value past the count.  Each must be refused with a
 * message naming the bound; a crash, a hang or an acceptance aborts. */
#include "fuzz-files.h"   /* beside this file */
#include "sim/base/error.h"
#include "sim/base/json-load.h"
#include "sim/model.h"

#include <gio/gio.h>

int LLVMFuzzerTestOneInput (const unsigned char *data, size_t size);

#define REPEAT_BYTES (256u << 10)

static gboolean
load_path (const char *path, GError **error)
{
  DpsModel *m = dps_model_load (path, error);
  if (m)
    dps_model_free (m);
  return m != NULL;
}

/* text through every reader from memory; any outcome but a crash is fine */
static void
every_reader (const char *text, gsize len)
{
  GError *e = NULL;
  JsonParser *p = dps_json_load ("fuzz.json", text, (gssize) len, "JSON file", &e);
  if (p)
    g_object_unref (p);
  else if (!e || !e->message[0])
    abort ();   /* a refusal always says why */
  g_clear_error (&e);
  DpsModel *m = dps_model_load_hf_config_data ("fuzz.json", text, (gssize) len, &e);
  if (m)
    dps_model_free (m);
  g_clear_error (&e);
  m = dps_model_load_trace_data ("fuzz.json", text, (gssize) len, &e);
  if (m)
    dps_model_free (m);
  g_clear_error (&e);
}

static char *
nested (const char *before, const char *open, int n, const char *close, const char *after, gsize *len)
{
  GString *s = g_string_new (before);
  for (int i = 0; i < n; i++)
    g_string_append (s, open);
  for (int i = 0; i < n; i++)
    g_string_append (s, close);
  g_string_append (s, after);
  *len = s->len;
  return g_string_free (s, FALSE);
}

/* text written to path (gzipped when gz) must be refused naming want */
static void
refused_at_path (const char *name, const char *text, gsize len, gboolean gz, const char *want)
{
  g_autofree char *path = g_strconcat (fuzz_dir, "/", name, NULL);
  g_autofree char *packed = NULL;
  if (gz) {
    g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 9);
    gsize cap = len / 50 + 4096, read = 0, written = 0;
    packed = g_malloc (cap);
    if (g_converter_convert (G_CONVERTER (z), text, len, packed, cap, G_CONVERTER_INPUT_AT_END, &read, &written, NULL)
        != G_CONVERTER_FINISHED)
      abort ();
    len = written;
  }
  if (!g_file_set_contents (path, gz ? packed : text, (gssize) len, NULL))
    abort ();
  fuzz_refused (load_path, path, want);
  g_unlink (path);
}

/* Once per process: the deep and wide documents, through the path. */
static void
deep_and_wide (void)
{
  static gboolean done;
  if (done)
    return;
  done = TRUE;
  /* want: what the refusal says (a bare array is no config: --model reads
   * it as a key file, which refuses it at its first line) */
  static const struct { const char *name, *before, *open, *close, *after, *want; } deep[] = {
    { "arrays.json", "", "[", "]", "", "arrays.json" },
    /* {"a":{"a":...}}: the last value missing, refused all the same */
    { "objects.json", "", "{\"a\":", "}", "", "JSON nested more than 64 deep" },
    { "config.json", "{\"model_type\": \"llama\", \"x\": ", "[", "]", "}", "JSON nested more than 64 deep" },
    { "beside.json", "{\"traceEvents\": [], \"x\": ", "[", "]", "}", "JSON nested more than 64 deep" },
    { "inside.json", "{\"traceEvents\": [", "[{\"a\":", "}]", "]}", "JSON nested more than 64 deep" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (deep); i++)
    for (int gz = 0; gz < 2; gz++) {
      gsize len;
      g_autofree char *text = nested (deep[i].before, deep[i].open, 100000, deep[i].close, deep[i].after, &len);
      g_autofree char *name = g_strconcat (deep[i].name, gz ? ".gz" : "", NULL);
      refused_at_path (name, text, len, gz, deep[i].want);
      every_reader (text, len);
    }
  GString *wide = g_string_new ("{\"traceEvents\": [");
  for (guint i = 0; i <= DPS_JSON_MAX_VALUES; i++)
    g_string_append (wide, i ? ",0" : "0");
  g_string_append (wide, "]}");
  refused_at_path ("wide.json", wide->str, wide->len, FALSE, "JSON values");
  g_string_free (wide, TRUE);
}

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
  fuzz_special_files (load_path, ".json");
  deep_and_wide ();
  fuzz_through_path (load_path, ".json", data, size);
  every_reader ((const char *) data, size);
  if (size == 0)
    return 0;
  /* the input repeated: a few bytes become deep or wide */
  gsize n = REPEAT_BYTES / size + 1;
  GString *s = g_string_sized_new (n * size);
  for (gsize i = 0; i < n; i++)
    g_string_append_len (s, (const char *) data, (gssize) size);
  every_reader (s->str, s->len);
  g_string_free (s, TRUE);
  return 0;
}
