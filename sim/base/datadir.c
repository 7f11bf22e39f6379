/* datadir.c — see datadir.h. */
#include "sim/base/datadir.h"
#include "dps-config.h"

#include <string.h>

/* Returns the first existing path of subdir/file among: $DPSCALE_DATADIR,
 * the source tree this binary was built from, the installed data dir.
 * NULL when none exists.  A new string. */
char *
dps_data_path (const char *subdir, const char *file)
{
  const char *roots[] = { g_getenv ("DPSCALE_DATADIR"), DPS_SOURCE_DIR, DPS_DATADIR };
  for (gsize i = 0; i < G_N_ELEMENTS (roots); i++) {
    if (!roots[i] || !roots[i][0])
      continue;
    char *p = g_build_filename (roots[i], subdir, file, NULL);
    if (g_file_test (p, G_FILE_TEST_EXISTS))
      return p;
    g_free (p);
  }
  return NULL;
}

static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

/* The names (suffix removed, sorted) of the files ending in suffix in the
 * first data folder that has subdir (see dps_data_path); g_strfreev it. */
char **
dps_data_list (const char *subdir, const char *suffix)
{
  GPtrArray *names = g_ptr_array_new ();
  g_autofree char *dir_path = dps_data_path (subdir, "");
  GDir *dir = dir_path ? g_dir_open (dir_path, 0, NULL) : NULL;
  const char *f;
  while (dir && (f = g_dir_read_name (dir)))
    if (g_str_has_suffix (f, suffix))
      g_ptr_array_add (names, g_strndup (f, strlen (f) - strlen (suffix)));
  if (dir)
    g_dir_close (dir);
  g_ptr_array_sort (names, cmp_str);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}
