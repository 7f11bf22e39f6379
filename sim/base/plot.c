/* plot.c — see plot.h. */
#include "sim/base/plot.h"
#include "sim/base/datadir.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

#include <glib/gstdio.h>
#include <string.h>

/* A gnuplot string literal in single quotes, inside which gnuplot expands
 * nothing (no backquotes, no macros, no escapes); a single quote is
 * doubled.  A control character cannot be carried (a newline would end the
 * command): in a title it becomes a blank, in a path it is refused (NULL). */
static char *
gp_literal (const char *s, gboolean path)
{
  GString *q = g_string_new ("'");
  for (; *s; s++) {
    if ((guchar) *s < 0x20 || *s == 0x7f) {
      if (path) {
        g_string_free (q, TRUE);
        return NULL;
      }
      g_string_append_c (q, ' ');
    } else if (*s == '\'')
      g_string_append (q, "''");
    else
      g_string_append_c (q, *s);
  }
  g_string_append_c (q, '\'');
  return g_string_free (q, FALSE);
}

/* Text (a title, a series' name, any string from a file or a user) as a
 * gnuplot string literal that gnuplot takes as text, never as code: in
 * single quotes, where gnuplot substitutes no backquote, macro or escape;
 * a single quote doubled, a control character (a newline would end the
 * command) a blank.  A new string. */
char *
dps_plot_literal (const char *text)
{
  return gp_literal (text ? text : "", FALSE);
}

/* A path gnuplot reads as a plain file name: a relative one gets "./", so a
 * name such as "<cmd", "|cmd", "-", "+" or "$block" is never a pipe, standard
 * input, a pseudo-file or a data block. */
static char *
gp_path (const char *path, GError **error)
{
  g_autofree char *p = g_path_is_absolute (path) ? g_strdup (path) : g_strconcat ("./", path, NULL);
  char *q = gp_literal (p, TRUE);
  if (!q) {
    g_autofree char *shown = g_strescape (path, NULL);
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: a file name with a control character cannot be given to gnuplot",
                 shown);
  }
  return q;
}

/* What gnuplot said last on stderr, on one line of bounded length: its
 * message ("line 33: No data in plot") without the script's path before
 * it; the lines above (the command, a caret under it) only show where.
 * NULL when it said nothing. */
static char *
last_line (const char *err)
{
  if (!err)
    return NULL;
  g_auto (GStrv) lines = g_strsplit (err, "\n", -1);
  const char *last = NULL;
  for (int i = 0; lines[i]; i++)
    if (g_strstrip (lines[i])[0])
      last = lines[i];
  if (!last)
    return NULL;
  if (last[0] == '"' && strstr (last + 1, "\" "))   /* "/path/script.gp" line 33: ... */
    last = strstr (last + 1, "\" ") + 2;
  return dps_one_line (last, -1, 256);
}

/* TRUE when the picture at path is whole: a PNG ends with its IEND chunk, an
 * SVG with its closing tag (gnuplot exits 0 even when the disk filled up). */
static gboolean
picture_complete (const char *path, gboolean svg)
{
  g_autofree char *data = NULL;
  gsize n = 0;
  if (!g_file_get_contents (path, &data, &n, NULL) || n == 0)
    return FALSE;
  if (svg) {
    while (n > 0 && g_ascii_isspace (data[n - 1]))
      n--;
    return n >= 6 && memcmp (data + n - 6, "</svg>", 6) == 0;
  }
  static const char iend[] = "\0\0\0\0IEND\xae\x42\x60\x82";
  return n >= 20 && memcmp (data, "\x89PNG", 4) == 0 && memcmp (data + n - 12, iend, 12) == 0;
}

/* Runs gnuplot on plots/SCRIPT with datafile, outfile (.png or .svg, told
 * by its extension; any other is refused) and
 * title (and extra_vars, gnuplot assignments made by dpscale itself, may be
 * NULL: any text from a file or a user in them only as dps_plot_literal
 * strings).  Every user's text reaches gnuplot as a single-quoted string,
 * never as code.  The picture is written to a
 * temporary file beside outfile, checked whole, and renamed, so it is whole
 * or absent; outfile must be a regular file or a new path.  Errors: gnuplot
 * missing (naming the Debian package), the script missing, a path that
 * cannot be carried, gnuplot failing, a cut picture (a full disk). */
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
  DpsOutputKind kind;
  if (!dps_output_kind (outfile, NULL, &kind, error))
    return FALSE;
  if (kind == DPS_OUTPUT_STREAM) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s: not a regular file; pictures are written only to files",
                 outfile);
    return FALSE;
  }
  g_autofree char *base = g_path_get_basename (outfile);
  const char *ext = strrchr (base, '.');
  if (!ext || !(g_str_equal (ext, ".png") || g_str_equal (ext, ".svg"))) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: a picture is written as .png or .svg, not %s", outfile,
                 ext ? ext : "without an extension");
    return FALSE;
  }
  gboolean svg = g_str_equal (ext, ".svg");
  g_autofree char *qd = gp_path (datafile, error);
  if (!qd)
    return FALSE;
  g_autofree char *out_checked = gp_path (outfile, error);
  if (!out_checked)
    return FALSE;
  g_autofree char *tmp = dps_temp_beside (outfile, svg ? ".svg" : ".png", error);
  if (!tmp)
    return FALSE;
  g_autofree char *qo = gp_path (tmp, NULL), *qt = dps_plot_literal (title);
  g_autofree char *vars = g_strdup_printf ("datafile=%s; outfile=%s; title=%s%s%s", qd, qo, qt,
                                           extra_vars ? "; " : "", extra_vars ? extra_vars : "");
  const char *argv[] = { gnuplot, "-e", vars, path, NULL };
  g_autofree char *err = NULL;
  int status = 0;
  g_autoptr (GError) local = NULL;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, &local)
      || !g_spawn_check_wait_status (status, NULL)) {
    g_unlink (tmp);
    g_autofree char *why = last_line (err);
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "gnuplot failed on %s: %s", script,
                 local ? local->message : why ? why : "unknown error");
    return FALSE;
  }
  if (!picture_complete (tmp, svg)) {
    g_unlink (tmp);
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s: the picture gnuplot wrote is cut short (a full disk?)",
                 outfile);
    return FALSE;
  }
  return dps_replace_with (tmp, outfile, error);
}
