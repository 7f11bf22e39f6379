/* reference-files.c — see reference-files.h. */
#include "reference-files.h"
#include "sim/base/stats.h"

#include <math.h>
#include <string.h>

static gint
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

GPtrArray *
dps_ref_files (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  for (const char *n; (n = g_dir_read_name (d));)
    if (g_str_has_suffix (n, ".ref"))
      g_ptr_array_add (paths, g_build_filename (dir, n, NULL));
  g_ptr_array_sort (paths, by_name);
  return paths;
}

gboolean
dps_ref_meta_line (GHashTable *meta, const char *line)
{
  if (!g_str_has_prefix (line, "#% "))
    return FALSE;
  const char *colon = strchr (line + 3, ':');
  if (colon)
    g_hash_table_replace (meta, g_strstrip (g_strndup (line + 3, colon - line - 3)), g_strstrip (g_strdup (colon + 1)));
  return TRUE;
}

DpsModel *
dps_ref_zoo_model (const char *root, const char *name, int seq)
{
  g_autoptr (GError) e = NULL;
  g_autofree char *path = g_strdup_printf ("%s/sim/models/%s.model", root, name);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_autoptr (GRegex) re = g_regex_new ("^seq = .*$", G_REGEX_MULTILINE, 0, NULL);
  g_autofree char *with = g_strdup_printf ("seq = %d", seq);
  g_autofree char *data = g_regex_replace_literal (re, text, -1, 0, with, 0, NULL);
  DpsModel *m = dps_model_load_keyfile_data (name, data, -1, &e);
  g_assert_no_error (e);
  return m;
}

DpsRefTable *
dps_ref_table_read (const char *path, const char *header, guint n_fields, gsize row_size, DpsRefRowFn row)
{
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  DpsRefTable *t = g_new0 (DpsRefTable, 1);
  t->file = g_path_get_basename (path);
  t->meta = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  t->rows = g_array_new (FALSE, TRUE, row_size);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean body = FALSE;
  g_autofree guint8 *buf = g_malloc0 (row_size);
  for (int i = 0; lines[i]; i++) {
    const char *l = lines[i];
    if (dps_ref_meta_line (t->meta, l))
      continue;
    if (g_str_has_prefix (l, header)) {
      body = TRUE;
      continue;
    }
    if (!body || !l[0] || l[0] == '#')
      continue;
    g_auto (GStrv) f = g_strsplit_set (l, " \t", -1);
    g_assert_cmpuint (g_strv_length (f), ==, n_fields);
    memset (buf, 0, row_size);
    row (f, buf);
    g_array_append_vals (t->rows, buf, 1);
  }
  return t;
}

GPtrArray *
dps_ref_tables (const char *dir, const char *header, guint n_fields, gsize row_size, DpsRefRowFn row)
{
  GPtrArray *all = g_ptr_array_new_with_free_func (dps_ref_table_free);
  g_autoptr (GPtrArray) paths = dps_ref_files (dir);
  for (guint i = 0; i < paths->len; i++)
    g_ptr_array_add (all, dps_ref_table_read (paths->pdata[i], header, n_fields, row_size, row));
  return all;
}

void
dps_ref_table_free (gpointer table)
{
  DpsRefTable *t = table;
  g_free (t->file);
  g_hash_table_unref (t->meta);
  g_array_free (t->rows, TRUE);
  g_free (t);
}

const char *
dps_ref_table_meta (const DpsRefTable *t, const char *key)
{
  const char *v = g_hash_table_lookup (t->meta, key);
  return v ? v : "";
}

char *
dps_ref_topology (const DpsRefTable *t)
{
  /* a file naming its system's shipped topology (first word; a name
   * not shipped fails where the topology is loaded) */
  const char *named = dps_ref_table_meta (t, "topology");
  if (*named)
    return g_strndup (named, strcspn (named, " "));
  const char *gpu = dps_ref_table_meta (t, "gpu");
  return g_strdup (strstr (gpu, "H200")   ? "hgx-h200-roce"
                   : strstr (gpu, "H100") ? "dgx-h100"
                   : strstr (gpu, "V100") ? "dgx1-v100"
                                          : "dgx-a100");
}

double
dps_ref_num (const char *field)
{
  return g_str_equal (field, "-") ? -1 : g_ascii_strtod (field, NULL);
}

double
dps_ref_median_abs (GArray *errs, double *worst)
{
  *worst = 0;
  if (!errs->len)
    return 0;
  g_autofree double *v = g_new (double, errs->len);
  for (guint i = 0; i < errs->len; i++) {
    v[i] = fabs (g_array_index (errs, double, i));
    *worst = MAX (*worst, v[i]);
  }
  dps_sort_doubles (v, errs->len);
  return dps_quantile_sorted (v, errs->len, 0.5);
}

const char *
dps_ref_choice (const char *value, const char *const *choices)
{
  gsize n = strcspn (value, " ");
  for (int i = 0; choices[i]; i++)
    if (strlen (choices[i]) == n && strncmp (value, choices[i], n) == 0)
      return choices[i];
  g_error ("a reference file's choice '%s' is none of its key's (first: %s)", value, choices[0]);
  return NULL;
}
