/* keyfile.c — see keyfile.h. */
#include "sim/base/keyfile.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

#include <string.h>

struct DpsKeyFile {
  char      *name;
  GKeyFile  *kf;
  GHashTable *lines;   /* "group\x1fkey" or "group" -> line (GINT_TO_POINTER) */
  GPtrArray *groups;   /* in file order */
};

static char *
line_key (const char *group, const char *key)
{
  return key ? g_strconcat (group, "\x1f", key, NULL) : g_strdup (group);
}

void
dps_key_file_free (DpsKeyFile *kf)
{
  if (!kf)
    return;
  g_free (kf->name);
  if (kf->kf)
    g_key_file_unref (kf->kf);
  if (kf->lines)
    g_hash_table_unref (kf->lines);
  if (kf->groups)
    g_ptr_array_unref (kf->groups);
  g_free (kf);
}

/* Scans the text line by line: records where each group and key stands and
 * rejects what GKeyFile would accept silently or report without a line. */
static gboolean
scan (DpsKeyFile *kf, const char *data, gsize len, GError **error)
{
  g_autofree char *group = NULL;
  int line = 0;
  const char *p = data, *end = data + len;
  while (p < end) {
    const char *nl = memchr (p, '\n', (gsize) (end - p));
    const char *le = nl ? nl : end;
    g_autofree char *text = g_strndup (p, (gsize) (le - p));
    line++;
    p = nl ? nl + 1 : end;
    if (!g_utf8_validate (text, -1, NULL))
      return dps_set_error_at (error, kf->name, line, "not UTF-8 text");
    g_strstrip (text);
    if (text[0] == 0 || text[0] == '#')
      continue;
    if (text[0] == '[') {
      gsize n = strlen (text);
      if (n < 3 || text[n - 1] != ']')
        return dps_set_error_at (error, kf->name, line, "expected a group header such as [gpu]");
      g_free (group);
      group = g_strndup (text + 1, n - 2);
      if (g_hash_table_contains (kf->lines, group)) {
        g_autofree char *q = dps_quote (group);
        return dps_set_error_at (error, kf->name, line, "group [%s] appears twice (first on line %d)", q,
                                 GPOINTER_TO_INT (g_hash_table_lookup (kf->lines, group)));
      }
      g_hash_table_insert (kf->lines, g_strdup (group), GINT_TO_POINTER (line));
      g_ptr_array_add (kf->groups, g_strdup (group));
      continue;
    }
    char *eq = strchr (text, '=');
    if (!eq)
      return dps_set_error_at (error, kf->name, line, "expected 'key = value', a [group] or a # comment");
    if (!group)
      return dps_set_error_at (error, kf->name, line, "a key before the first [group]");
    *eq = 0;
    g_strstrip (text);
    if (!text[0])
      return dps_set_error_at (error, kf->name, line, "a value with no key before '='");
    g_autofree char *k = line_key (group, text);
    if (g_hash_table_contains (kf->lines, k)) {
      g_autofree char *qg = dps_quote (group), *qk = dps_quote (text);
      return dps_set_error_at (error, kf->name, line, "[%s] %s is set twice (first on line %d)", qg, qk,
                               GPOINTER_TO_INT (g_hash_table_lookup (kf->lines, k)));
    }
    g_hash_table_insert (kf->lines, g_steal_pointer (&k), GINT_TO_POINTER (line));
  }
  return TRUE;
}

/* Parses key-file text; name is used in messages (usually the path).
 * Returns NULL with error set on any syntax error. */
DpsKeyFile *
dps_key_file_load_data (const char *name, const char *data, gssize len, GError **error)
{
  g_return_val_if_fail (name && data, NULL);
  if (len < 0)
    len = (gssize) strlen (data);
  if (memchr (data, 0, (gsize) len)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: binary data (a NUL byte), not a key file", name);
    return NULL;
  }
  g_autoptr (DpsKeyFile) kf = g_new0 (DpsKeyFile, 1);
  kf->name = g_strdup (name);
  kf->lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  kf->groups = g_ptr_array_new_with_free_func (g_free);
  if (!scan (kf, data, (gsize) len, error))
    return NULL;
  kf->kf = g_key_file_new ();
  g_autoptr (GError) local = NULL;
  if (!g_key_file_load_from_data (kf->kf, data, (gsize) len, G_KEY_FILE_NONE, &local)) {
    /* GKeyFile quotes the offending line whole */
    g_autofree char *why = dps_one_line (local->message, -1, 4 * DPS_QUOTE_MAX_BYTES);
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: %s", name, why);
    return NULL;
  }
  return g_steal_pointer (&kf);
}

/* Reads and parses the key file at path. */
DpsKeyFile *
dps_key_file_load (const char *path, GError **error)
{
  gsize len = 0;
  g_autofree char *data = dps_read_file (path, "file", &len, error);
  if (!data)
    return NULL;
  return dps_key_file_load_data (path, data, (gssize) len, error);
}

const char *
dps_key_file_name (const DpsKeyFile *kf)
{
  return kf->name;
}

/* Lends the underlying GKeyFile. */
GKeyFile *
dps_key_file_glib (const DpsKeyFile *kf)
{
  return kf->kf;
}

gboolean
dps_key_file_has_group (const DpsKeyFile *kf, const char *group)
{
  return g_key_file_has_group (kf->kf, group);
}

gboolean
dps_key_file_has_key (const DpsKeyFile *kf, const char *group, const char *key)
{
  return g_key_file_has_key (kf->kf, group, key, NULL);
}

/* Returns the line of group/key (key NULL: of the group header), 0 if absent. */
int
dps_key_file_line (const DpsKeyFile *kf, const char *group, const char *key)
{
  g_autofree char *k = line_key (group, key);
  return GPOINTER_TO_INT (g_hash_table_lookup (kf->lines, k));
}

/* Returns the group names in file order, lent (do not free); n is set. */
char **
dps_key_file_groups (const DpsKeyFile *kf, gsize *n)
{
  *n = kf->groups->len;
  return (char **) kf->groups->pdata;
}

/* Sets error to "FILE:LINE: [group] key: message", the line being the
 * key's (or the group's, or none when neither is in the file). */
void
dps_key_file_error (const DpsKeyFile *kf, const char *group, const char *key,
                    GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_autofree char *msg = dps_one_line (text, -1, DPS_MESSAGE_MAX_BYTES);
  int line = key ? dps_key_file_line (kf, group, key) : 0;
  if (!line && group)
    line = dps_key_file_line (kf, group, NULL);
  g_autofree char *where = line ? g_strdup_printf ("%s:%d", kf->name, line) : g_strdup (kf->name);
  if (group && key)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: [%s] %s: %s", where, group, key, msg);
  else if (group)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: [%s]: %s", where, group, msg);
  else
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: %s", where, msg);
}

gboolean
dps_key_file_require_group (const DpsKeyFile *kf, const char *group, GError **error)
{
  if (dps_key_file_has_group (kf, group))
    return TRUE;
  g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: missing section [%s]", kf->name, group);
  return FALSE;
}

/* Rejects any group that is neither in allowed nor starts with one of
 * prefixes (either list may be NULL). */
gboolean
dps_key_file_check_groups (const DpsKeyFile *kf, const char *const *allowed,
                           const char *const *prefixes, GError **error)
{
  for (guint i = 0; i < kf->groups->len; i++) {
    const char *g = kf->groups->pdata[i];
    gboolean ok = allowed && g_strv_contains (allowed, g);
    for (int j = 0; !ok && prefixes && prefixes[j]; j++)
      ok = g_str_has_prefix (g, prefixes[j]);
    if (!ok) {
      g_autofree char *list = allowed ? g_strjoinv ("], [", (char **) allowed) : g_strdup ("");
      dps_key_file_error (kf, g, NULL, error, "unknown section (expected one of [%s])", list);
      return FALSE;
    }
  }
  return TRUE;
}

/* Rejects any key in group that is not in allowed. */
gboolean
dps_key_file_check_keys (const DpsKeyFile *kf, const char *group,
                         const char *const *allowed, GError **error)
{
  g_auto (GStrv) keys = g_key_file_get_keys (kf->kf, group, NULL, NULL);
  for (int i = 0; keys && keys[i]; i++) {
    if (!g_strv_contains (allowed, keys[i])) {
      g_autofree char *list = g_strjoinv (", ", (char **) allowed);
      dps_key_file_error (kf, group, keys[i], error, "unknown key (expected one of: %s)", list);
      return FALSE;
    }
  }
  return TRUE;
}

static char *
raw_value (const DpsKeyFile *kf, const char *group, const char *key)
{
  return g_key_file_get_value (kf->kf, group, key, NULL);
}

static gboolean
missing (const DpsKeyFile *kf, const char *group, const char *key, GError **error)
{
  if (!dps_key_file_has_group (kf, group))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: missing section [%s] (needed for key %s)",
                 kf->name, group, key);
  else
    dps_key_file_error (kf, group, NULL, error, "missing key %s", key);
  return FALSE;
}

/* Reads a finite number in [min, max].  When the key is absent: an error if
 * required, else *out = def. */
gboolean
dps_key_file_get_double (const DpsKeyFile *kf, const char *group, const char *key,
                         gboolean required, double def, double min, double max,
                         double *out, GError **error)
{
  g_autofree char *v = raw_value (kf, group, key);
  if (!v) {
    if (required)
      return missing (kf, group, key, error);
    *out = def;
    return TRUE;
  }
  double d;
  if (!dps_parse_double (v, &d)) {
    g_autofree char *q = dps_quote (v);
    dps_key_file_error (kf, group, key, error, "expected a number, got '%s'", q);
    return FALSE;
  }
  if (d < min || d > max) {
    dps_key_file_error (kf, group, key, error, "%g is out of range (expected %.15g to %.15g)", d, min, max);
    return FALSE;
  }
  *out = d;
  return TRUE;
}

/* Reads a whole number in [min, max]; absent: as dps_key_file_get_double. */
gboolean
dps_key_file_get_int (const DpsKeyFile *kf, const char *group, const char *key,
                      gboolean required, gint64 def, gint64 min, gint64 max,
                      gint64 *out, GError **error)
{
  g_autofree char *v = raw_value (kf, group, key);
  if (!v) {
    if (required)
      return missing (kf, group, key, error);
    *out = def;
    return TRUE;
  }
  gint64 i;
  if (!dps_parse_int (v, &i)) {
    g_autofree char *q = dps_quote (v);
    dps_key_file_error (kf, group, key, error, "expected a whole number, got '%s'", q);
    return FALSE;
  }
  if (i < min || i > max) {
    dps_key_file_error (kf, group, key, error,
                        "%" G_GINT64_FORMAT " is out of range (expected %" G_GINT64_FORMAT
                        " to %" G_GINT64_FORMAT ")", i, min, max);
    return FALSE;
  }
  *out = i;
  return TRUE;
}

/* Reads true/false. */
gboolean
dps_key_file_get_bool (const DpsKeyFile *kf, const char *group, const char *key,
                       gboolean required, gboolean def, gboolean *out, GError **error)
{
  g_autofree char *v = raw_value (kf, group, key);
  if (!v) {
    if (required)
      return missing (kf, group, key, error);
    *out = def;
    return TRUE;
  }
  g_strstrip (v);
  if (g_str_equal (v, "true"))
    *out = TRUE;
  else if (g_str_equal (v, "false"))
    *out = FALSE;
  else {
    g_autofree char *q = dps_quote (v);
    dps_key_file_error (kf, group, key, error, "expected true or false, got '%s'", q);
    return FALSE;
  }
  return TRUE;
}

/* Reads a string; *out is a new string (g_free it), a copy of def when the
 * key is absent and not required (NULL stays NULL). */
gboolean
dps_key_file_get_string (const DpsKeyFile *kf, const char *group, const char *key,
                         gboolean required, const char *def, char **out, GError **error)
{
  g_autoptr (GError) local = NULL;
  char *v = g_key_file_get_string (kf->kf, group, key, &local);
  if (!v) {
    if (local && local->code != G_KEY_FILE_ERROR_KEY_NOT_FOUND
        && local->code != G_KEY_FILE_ERROR_GROUP_NOT_FOUND) {
      dps_key_file_error (kf, group, key, error, "%s", local->message);
      return FALSE;
    }
    if (required)
      return missing (kf, group, key, error);
    *out = g_strdup (def);
    return TRUE;
  }
  *out = g_strstrip (v);
  return TRUE;
}

/* Reads one of choices (a NULL-terminated list) and stores its index. */
gboolean
dps_key_file_get_choice (const DpsKeyFile *kf, const char *group, const char *key,
                         const char *const *choices, gboolean required, int def,
                         int *out, GError **error)
{
  g_autofree char *v = NULL;
  if (!dps_key_file_get_string (kf, group, key, required, NULL, &v, error))
    return FALSE;
  if (!v) {
    *out = def;
    return TRUE;
  }
  for (int i = 0; choices[i]; i++) {
    if (g_str_equal (v, choices[i])) {
      *out = i;
      return TRUE;
    }
  }
  g_autofree char *list = g_strjoinv (", ", (char **) choices), *q = dps_quote (v);
  dps_key_file_error (kf, group, key, error, "unknown value '%s' (expected one of: %s)", q, list);
  return FALSE;
}

/* See keyfile.h. */
double *
dps_key_file_get_doubles (const DpsKeyFile *kf, const char *g, const char *key, gboolean required, gsize *n,
                          GError **error)
{
  g_autofree char *raw = NULL;
  if (!dps_key_file_get_string (kf, g, key, required, NULL, &raw, error))
    return NULL;
  if (!raw) {
    *n = 0;
    return g_new0 (double, 1);
  }
  g_auto (GStrv) parts = g_strsplit_set (raw, ";,", -1);
  double *v = g_new0 (double, g_strv_length (parts) + 1);
  gsize k = 0;
  for (int i = 0; parts[i]; i++) {
    if (!g_strstrip (parts[i])[0])
      continue;
    if (!dps_parse_double (parts[i], &v[k])) {
      g_autofree char *q = dps_quote (parts[i]);
      dps_key_file_error (kf, g, key, error, "'%s' is not a number", q);
      g_free (v);
      return NULL;
    }
    k++;
  }
  *n = k;
  return v;
}
