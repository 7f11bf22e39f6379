/* reference-files.c — see reference-files.h. */
#include "reference-files.h"

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
