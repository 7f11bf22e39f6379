/* Unit tests of the one JSON loader (sim/base/json-load.c) and of the
 * readers that use it (a Hugging Face config.json, a torch.profiler trace,
 * each plain or gzipped, through --model's dispatch): nesting and counts
 * past their bounds are refused with the file, line and column before
 * json-glib's recursive parser sees them (100,000 levels overflowed its
 * stack: SIGSEGV), and what is within them still parses. */
#include "sim/base/json-load.h"
#include "sim/base/error.h"
#include "sim/model.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

#define DEEP 100000

/* open repeated n times, then middle, then close repeated n times */
static char *
nested (const char *before, const char *open, int n, const char *middle, const char *close, const char *after)
{
  GString *s = g_string_new (before);
  for (int i = 0; i < n; i++)
    g_string_append (s, open);
  g_string_append (s, middle);
  for (int i = 0; i < n; i++)
    g_string_append (s, close);
  g_string_append (s, after);
  return g_string_free (s, FALSE);
}

/* text refused by dps_json_load with code and a message holding want */
static void
refused (const char *text, gssize len, int code, const char *want)
{
  g_autoptr (GError) e = NULL;
  JsonParser *p = dps_json_load ("t.json", text, len, "JSON file", &e);
  g_assert_null (p);
  g_assert_error (e, DPS_ERROR, code);
  g_test_message ("%s", e->message);
  g_assert_nonnull (strstr (e->message, want));
  g_assert_null (strchr (e->message, '\n'));
}

static void
parsed (const char *text)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (JsonParser) p = dps_json_load ("t.json", text, -1, "JSON file", &e);
  g_assert_no_error (e);
  g_assert_nonnull (json_parser_get_root (p));
}

/* 100,000 arrays: refused at the 65th '[', line 1 column 65 */
static void
test_deep_array (void)
{
  g_autofree char *t = nested ("", "[", DEEP, "", "]", "");
  refused (t, -1, DPS_ERROR_LIMIT, "t.json:1:65: JSON nested more than 64 deep");
}

/* 100,000 objects: the 65th '{' stands at column 1 + 64 x 5 - 4 */
static void
test_deep_object (void)
{
  g_autofree char *t = nested ("", "{\"a\":", DEEP, "1", "}", "");
  refused (t, -1, DPS_ERROR_LIMIT, "t.json:1:321: JSON nested more than 64 deep");
}

/* on line 3, after two newlines (one of them inside a string) */
static void
test_deep_line (void)
{
  g_autofree char *t = nested ("{\"a\": \"x\\ny\",\n\"b\":\n", "[", DEEP, "", "]", "}");
  refused (t, -1, DPS_ERROR_LIMIT, "t.json:3:64: JSON nested more than 64 deep");
}

/* 64 levels, the bound itself, parse; 65 do not */
static void
test_at_bound (void)
{
  g_autofree char *ok = nested ("", "[", DPS_JSON_MAX_DEPTH, "1", "]", "");
  parsed (ok);
  g_autofree char *over = nested ("", "[", DPS_JSON_MAX_DEPTH + 1, "1", "]", "");
  refused (over, -1, DPS_ERROR_LIMIT, "nested more than 64 deep");
}

/* brackets inside strings (an escaped quote among them) nest nothing */
static void
test_brackets_in_strings (void)
{
  g_autofree char *many = nested ("{\"a\": \"\\\"", "[{", DEEP, "", "", "\"}");
  parsed (many);
}

/* one value over the bound, in an array of numbers: refused whole */
static void
test_wide_values (void)
{
  GString *s = g_string_new ("[");
  for (guint i = 0; i <= DPS_JSON_MAX_VALUES; i++)
    g_string_append (s, i ? ",1" : "1");
  g_string_append (s, "]");
  refused (s->str, (gssize) s->len, DPS_ERROR_LIMIT, "more than 8388608 JSON values");
  g_string_free (s, TRUE);
}

/* one object over the bound (2 bytes each: 2 MiB) */
static void
test_wide_objects (void)
{
  GString *s = g_string_new ("[");
  for (guint i = 0; i <= DPS_JSON_MAX_OBJECTS; i++)
    g_string_append (s, i ? ",{}" : "{}");
  g_string_append (s, "]");
  refused (s->str, (gssize) s->len, DPS_ERROR_LIMIT, "more than 1048576 JSON objects");
  g_string_free (s, TRUE);
}

/* a NUL byte: binary data, said before parsing */
static void
test_nul (void)
{
  refused ("{\"a\":\0}", 7, DPS_ERROR_INPUT, "t.json: binary data (a NUL byte), not a JSON file");
}

/* a parse error names the file (not json-glib's "<data>"), line and column */
static void
test_parse_error (void)
{
  refused ("{\n  \"a\": ]\n}", -1, DPS_ERROR_INPUT, "t.json:2:");
}

/* each reader, each way in: a deep document is refused, never a crash */
typedef struct { const char *name, *before, *after; gboolean gzip; } Reader;

static const Reader readers[] = {
  { "hf-config", "{\"model_type\": \"gpt2\", \"n_layer\": ", "}", FALSE },
  { "hf-config-gz", "{\"model_type\": \"gpt2\", \"n_layer\": ", "}", TRUE },
  /* a deep array beside traceEvents */
  { "trace-beside", "{\"traceEvents\": [], \"x\": ", "}", FALSE },
  { "trace-inside", "{\"traceEvents\": [", "]}", FALSE },
  /* what a 1 KB gzip inflates to */
  { "trace-gz", "{\"traceEvents\": [], \"x\": ", "}", TRUE },
};

static char *
gzip (const char *data, gsize len, gsize *out_len)
{
  g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 9);
  gsize cap = len / 100 + 4096, read = 0, written = 0;
  char *out = g_malloc (cap);
  g_assert_cmpint (g_converter_convert (G_CONVERTER (z), data, len, out, cap, G_CONVERTER_INPUT_AT_END, &read,
                                        &written, NULL), ==, G_CONVERTER_FINISHED);
  *out_len = written;
  return out;
}

static void
test_reader (gconstpointer data)
{
  const Reader *r = data;
  g_autofree char *text = nested (r->before, "[", DEEP, "", "]", r->after);
  g_autofree char *dir = g_dir_make_tmp ("dpscale-json-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, r->gzip ? "m.json.gz" : "m.json", NULL);
  gsize len = strlen (text);
  g_autofree char *gz = r->gzip ? gzip (text, len, &len) : NULL;
  if (r->gzip)
    g_assert_cmpuint (len, <, 1024);
  g_assert_true (g_file_set_contents (path, r->gzip ? gz : text, (gssize) len, NULL));
  g_autoptr (GError) e = NULL;
  DpsModel *m = dps_model_load (path, &e);   /* --model's dispatch, as users reach it */
  g_unlink (path);
  g_rmdir (dir);
  g_assert_null (m);
  g_assert_error (e, DPS_ERROR, DPS_ERROR_LIMIT);
  g_test_message ("%s", e->message);
  g_assert_nonnull (strstr (e->message, "JSON nested more than 64 deep"));
  g_assert_nonnull (strstr (e->message, path));
  /* and the reader itself, from memory */
  g_clear_error (&e);
  m = g_str_has_prefix (r->name, "hf") ? dps_model_load_hf_config_data ("m.json", text, -1, &e)
                                       : dps_model_load_trace_data ("m.json", text, -1, &e);
  g_assert_null (m);
  g_assert_error (e, DPS_ERROR, DPS_ERROR_LIMIT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json-load/deep/array", test_deep_array);
  g_test_add_func ("/json-load/deep/object", test_deep_object);
  g_test_add_func ("/json-load/deep/line", test_deep_line);
  g_test_add_func ("/json-load/deep/at-bound", test_at_bound);
  g_test_add_func ("/json-load/deep/brackets-in-strings", test_brackets_in_strings);
  g_test_add_func ("/json-load/wide/values", test_wide_values);
  g_test_add_func ("/json-load/wide/objects", test_wide_objects);
  g_test_add_func ("/json-load/nul", test_nul);
  g_test_add_func ("/json-load/parse-error", test_parse_error);
  for (gsize i = 0; i < G_N_ELEMENTS (readers); i++) {
    g_autofree char *p = g_strdup_printf ("/json-load/reader/%s", readers[i].name);
    g_test_add_data_func (p, &readers[i], test_reader);
  }
  return g_test_run ();
}
