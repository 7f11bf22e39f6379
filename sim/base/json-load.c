/* json-load.c — see json-load.h. */
#include "sim/base/json-load.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

#include <string.h>

/* Scans JSON text for its depth and counts, skipping strings (a bracket
 * inside quotes nests nothing).  FALSE with error (DPS_ERROR_LIMIT, naming
 * name, the line and column) at the first level past DPS_JSON_MAX_DEPTH or
 * the first value past the counts' bounds.  Malformed text is left to the
 * parser, which says where. */
static gboolean
check_bounds (const char *name, const char *data, gsize len, GError **error)
{
  guint depth = 0, line = 1;
  gsize line_start = 0;
  guint64 values = 0, objects = 0;
  gboolean in_string = FALSE, value_open = FALSE;
  for (gsize i = 0; i < len; i++) {
    char c = data[i];
    if (in_string) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_string = FALSE;
      else if (c == '\n') {
        line++;
        line_start = i + 1;
      }
      continue;
    }
    switch (c) {
    case '"':
      in_string = TRUE;
      values++;
      value_open = FALSE;
      break;
    case '[':
    case '{':
      values++;
      objects += c == '{';
      value_open = FALSE;
      if (++depth > DPS_JSON_MAX_DEPTH) {
        g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s:%u:%u: JSON nested more than %d deep (arrays and "
                     "objects within each other): not a file dpscale reads", name, line,
                     (guint) (i - line_start + 1), DPS_JSON_MAX_DEPTH);
        return FALSE;
      }
      break;
    case ']':
    case '}':
      depth -= depth > 0;
      value_open = FALSE;
      break;
    case ',':
    case ':':
    case ' ':
    case '\t':
    case '\r':
      value_open = FALSE;
      break;
    case '\n':
      value_open = FALSE;
      line++;
      line_start = i + 1;
      break;
    default:   /* a number, true, false or null: counted at its first byte */
      values += !value_open;
      value_open = TRUE;
      break;
    }
    if (values > DPS_JSON_MAX_VALUES || objects > DPS_JSON_MAX_OBJECTS) {
      gboolean v = values > DPS_JSON_MAX_VALUES;
      g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s:%u: more than %u JSON %s, more than a file dpscale reads "
                   "holds (a 64 MiB trace: about %s)", name, line, v ? DPS_JSON_MAX_VALUES : DPS_JSON_MAX_OBJECTS,
                   v ? "values" : "objects", v ? "4.3 million" : "430 thousand");
      return FALSE;
    }
  }
  return TRUE;
}

/* Parses len bytes of JSON text (len < 0: up to its NUL) from the file
 * name, which holds a what ("JSON trace", "Hugging Face config.json"), for
 * messages.  Refused before json-glib sees it: binary data (a NUL byte),
 * more than DPS_FILE_MAX_BYTES, nesting deeper than DPS_JSON_MAX_DEPTH,
 * more values or objects than DPS_JSON_MAX_VALUES and _OBJECTS.  A parse
 * error reads "NAME:LINE:COLUMN: Parse error: ... (a truncated or malformed
 * WHAT)" on one line of bounded length.  Returns a new parser holding the document (g_object_unref it),
 * or NULL with error set. */
JsonParser *
dps_json_load (const char *name, const char *data, gssize len, const char *what, GError **error)
{
  gsize n = len < 0 ? strlen (data) : (gsize) len;
  if (memchr (data, 0, n)) {
    dps_set_error_at (error, name, 0, "binary data (a NUL byte), not a %s", what);
    return NULL;
  }
  if (n > DPS_FILE_MAX_BYTES) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s: %" G_GSIZE_FORMAT " bytes of JSON, more than the 64 MiB a %s "
                 "may hold", name, n, what);
    return NULL;
  }
  if (!check_bounds (name, data, n, error))
    return NULL;
  JsonParser *parser = json_parser_new ();
  g_autoptr (GError) e = NULL;
  if (!json_parser_load_from_data (parser, data, (gssize) n, &e)) {
    /* json-glib names the text "<data>": the file's name instead */
    const char *msg = e->message;
    if (g_str_has_prefix (msg, "<data>:"))
      msg += strlen ("<data>:");
    g_autofree char *line = dps_one_line (msg, -1, 256);
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s:%s (a truncated or malformed %s)", name, line, what);
    g_object_unref (parser);
    return NULL;
  }
  return parser;
}
