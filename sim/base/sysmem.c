/* sysmem.c — see sysmem.h. */
#include "sim/base/sysmem.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A whole number of bytes from a cgroup file (first word); FALSE when the
 * file is missing, says "max" or is not a number. */
static gboolean
read_bytes (const char *dir, const char *name, double *out)
{
  g_autofree char *path = g_build_filename (dir, name, NULL), *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  char *end = NULL;
  guint64 v = g_ascii_strtoull (text, &end, 10);
  if (end == text || (*end && !g_ascii_isspace (*end)))
    return FALSE;
  *out = (double) v;
  return TRUE;
}

/* The value of key in a memory.stat file (0 when absent). */
static double
stat_value (const char *dir, const char *key)
{
  g_autofree char *path = g_build_filename (dir, "memory.stat", NULL), *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gsize n = strlen (key);
  for (int i = 0; lines[i]; i++)
    if (strncmp (lines[i], key, n) == 0 && lines[i][n] == ' ')
      return g_ascii_strtod (lines[i] + n + 1, NULL);
  return 0;
}

/* The least room over base/path and its parents up to base (limit_file,
 * usage_file, inactive_key at each); G_MAXDOUBLE where none is limited.
 * v1's "no limit" is a number near 2^63: taken as none past 2^60. */
static double
least_room (const char *base, const char *path, const char *limit_file, const char *usage_file,
            const char *inactive_key)
{
  double least = G_MAXDOUBLE;
  g_autofree char *rel = g_strdup (path);
  g_autofree char *first = g_build_filename (base, rel, NULL);
  if (!g_file_test (first, G_FILE_TEST_IS_DIR))
    rel[0] = 0;   /* not under this mount: its root is the group */
  for (;;) {
    g_autofree char *dir = g_build_filename (base, rel, NULL);
    double limit, usage;
    if (read_bytes (dir, limit_file, &limit) && limit < 1152921504606846976.0 && read_bytes (dir, usage_file, &usage))
      least = MIN (least, MAX (0, limit - usage + stat_value (dir, inactive_key)));
    char *slash = strrchr (rel, '/');
    if (!rel[0] || !slash)
      break;
    *slash = 0;
  }
  return least;
}

double
dps_mem_cgroup_room (const char *sysfs_root, const char *proc_cgroup)
{
  if (!proc_cgroup)
    return G_MAXDOUBLE;
  g_auto (GStrv) lines = g_strsplit (proc_cgroup, "\n", -1);
  double room = G_MAXDOUBLE;
  for (int i = 0; lines[i]; i++) {
    g_auto (GStrv) f = g_strsplit (lines[i], ":", 3);
    if (g_strv_length (f) != 3 || f[2][0] != '/')
      continue;
    if (g_str_equal (f[0], "0") && !f[1][0]) {
      g_autofree char *probe = g_build_filename (sysfs_root, "cgroup.controllers", NULL);
      if (g_file_test (probe, G_FILE_TEST_EXISTS))
        room = MIN (room, least_room (sysfs_root, f[2], "memory.max", "memory.current", "inactive_file"));
    } else {
      g_auto (GStrv) ctl = g_strsplit (f[1], ",", -1);
      if (g_strv_contains ((const char *const *) ctl, "memory")) {
        g_autofree char *base = g_build_filename (sysfs_root, "memory", NULL);
        room = MIN (room, least_room (base, f[2], "memory.limit_in_bytes", "memory.usage_in_bytes",
                                      "total_inactive_file"));
      }
    }
  }
  return room;
}

gboolean
dps_mem_fits (double need_bytes, double *avail)
{
  double a = dps_mem_available ();
  if (avail)
    *avail = a;
  return need_bytes <= DPS_MEM_USABLE_SHARE * a;
}

double
dps_mem_available (void)
{
  double free_b = (double) sysconf (_SC_AVPHYS_PAGES) * sysconf (_SC_PAGESIZE);
  g_autofree char *text = NULL;
  if (!g_file_get_contents ("/proc/self/cgroup", &text, NULL, NULL))
    return free_b;
  return MIN (free_b, dps_mem_cgroup_room ("/sys/fs/cgroup", text));
}
