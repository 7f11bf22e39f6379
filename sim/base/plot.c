/* plot.c — see plot.h. */
#include "sim/base/plot.h"
#include "sim/base/datadir.h"
#include "sim/base/error.h"

#include <glib/gstdio.h>
#include <string.h>

static char *
quote (const char *s)
{
  GString *q = g_string_new ("\"");
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      g_string_append_c (q, '\\');
    g_string_append_c (q, *s);
  }
  g_string_append_c (q, '"');
  return g_string_free (q, FALSE);
}

/* Runs gnuplot on plots/SCRIPT with datafile, outfile (.png or .svg) and
 * title (and extra_vars, gnuplot assignments, may be NULL); the picture is written to a temporary name and renamed, so it is
 * whole or absent.  Errors: gnuplot missing (naming the Debian package), the
 * script missing, gnuplot failing. */
gboolean
dps_plot_render (const char *script, const char *datafile, const char *outfile, const char *title,
                 const char *extra_vars, GError **error)
{
  g_autofree char *gnuplot = g_find_program_in_path ("gnuplot");
  if (!gnuplot) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME,
                 "gnuplot is not installed (Debian: apt-get install gnuplot-nox): cannot write %s", outfile);
    return FALSE;
  }
  g_autofree char *path = dps_data_path ("plots", script);
  if (!path) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "plot script plots/%s not found", script);
    return FALSE;
  }
  const char *ext = strrchr (outfile, '.');
  g_autofree char *tmp = g_strdup_printf ("%s.tmp%s", outfile, ext ? ext : "");
  g_autofree char *qd = quote (datafile), *qo = quote (tmp), *qt = quote (title);
  g_autofree char *vars = g_strdup_printf ("datafile=%s; outfile=%s; title=%s%s%s", qd, qo, qt,
                                           extra_vars ? "; " : "", extra_vars ? extra_vars : "");
  const char *argv[] = { gnuplot, "-e", vars, path, NULL };
  g_autofree char *err = NULL;
  int status = 0;
  g_autoptr (GError) local = NULL;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, &local)
      || !g_spawn_check_wait_status (status, NULL)) {
    g_unlink (tmp);
    g_autofree char *first = err ? g_strdup (g_strstrip (err)) : NULL;
    if (first && strchr (first, '\n'))
      *strrchr (first, '\n') = 0;
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "gnuplot failed on %s: %s", script,
                 local ? local->message : first && *first ? first : "unknown error");
    return FALSE;
  }
  if (g_rename (tmp, outfile) != 0) {
    g_unlink (tmp);
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s: cannot write the plot", outfile);
    return FALSE;
  }
  return TRUE;
}
