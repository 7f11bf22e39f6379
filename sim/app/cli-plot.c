/* cli-plot.c — `dpscale plot FILE`: render any CSV dpscale writes with the
 * gnuplot script for its kind (told by its header), to PNG and SVG. */
#include "sim/app/cli.h"
#include "sim/app/cli-util.h"
#include "sim/app/calib-plot.h"
#include "sim/app/sweep-plot.h"
#include "sim/base/plot.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Each kind by its header's start, and its columns of text (the rest are
 * numbers). */
static const struct { const char *header_start, *script, *what, *text; } kinds[] = {
  { "model,topology,gpus,", "sweep.gp", "a sweep or prediction", NULL },
  { "replicas,meas_median_s,", "validation.gp", "a validation", ",inside," },
  { "ranks,nodes,size_bytes,measured_busbw_GBps,", "calibration.gp", "a calibration", ",held_out,op," },
  { "source,lane,start_ms,", "timeline.gp", "a step timeline", ",source,lane,kind," },
  { "op,gpus,nodes,size_bytes,", "collective.gp", "a collective", ",op,algo,proto," },
};

/* The rows gnuplot will read, checked first (gnuplot's own errors name
 * its script's line, not the file's): each as wide as the header; every
 * column but the kind's text ones (",a,b,") a finite number, or empty or
 * nan (not measured: a gap) but for a size;
 * sizes above 0 (a log axis), times and bandwidths not below.  FALSE
 * with FILE:LINE: what. */
static gboolean
check_rows (const char *path, const char *text, const char *text_cols, GError **error)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_auto (GStrv) head = g_strsplit (g_strchomp (lines[0]), ",", -1);
  int width = (int) g_strv_length (head);
  g_autofree gboolean *numeric = g_new0 (gboolean, width);
  for (int c = 0; c < width; c++) {
    g_autofree char *name = g_strdup_printf (",%s,", head[c]);
    numeric[c] = !strstr (text_cols, name);
  }
  for (int i = 1; lines[i]; i++) {
    g_strchomp (lines[i]);   /* a CRLF file's \r */
    if (!lines[i][0])
      continue;
    g_auto (GStrv) f = g_strsplit (lines[i], ",", -1);
    if ((int) g_strv_length (f) != width)
      return dps_set_error_at (error, path, i + 1, "%d fields, the header has %d", (int) g_strv_length (f), width);
    for (int c = 0; c < width; c++) {
      if (!numeric[c] || !f[c][0])
        continue;
      char *end;
      double v = g_ascii_strtod (f[c], &end);
      if (*end)
        return dps_set_error_at (error, path, i + 1, "%s: '%s' is not a number", head[c], f[c]);
      gboolean size = g_str_has_suffix (head[c], "bytes");
      gboolean quantity = g_str_has_suffix (head[c], "_s") || g_str_has_suffix (head[c], "_ms")
                          || g_str_has_suffix (head[c], "_us") || g_str_has_suffix (head[c], "GBps");
      if (isnan (v) && !size)
        continue;   /* not measured (a validation's parts of a PyTorch step): a gap */
      if (!isfinite (v) || (size && v <= 0) || (quantity && v < 0))
        return dps_set_error_at (error, path, i + 1, "%s: %s is not %s", head[c], f[c],
                                 size ? "a size above 0" : quantity ? "a finite value of 0 or more" : "finite");
    }
  }
  return TRUE;
}

int
dps_cmd_plot (int argc, char **argv)
{
  g_autofree char *output = NULL, *title = NULL;
  gboolean breakdown = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Prefix of the pictures (default: FILE without .csv)", "PREFIX" },
    { "title", 0, 0, G_OPTION_ARG_STRING, &title, "Title of the plot", "TEXT" },
    { "breakdown", 0, 0, G_OPTION_ARG_NONE, &breakdown, "For a validation CSV: the step-time breakdown instead", NULL },
    G_OPTION_ENTRY_NULL
  };
  GError *error = NULL;
  if (!dps_cli_parse ("plot",
                      "Writes PREFIX.png and PREFIX.svg with the gnuplot script in plots/ that fits the file.\n\n"
                      "Example: dpscale plot dpscale-validation.csv --breakdown",
                      entries, &argc, &argv, &error))
    return dps_cli_fail ("plot", error);
  if (argc != 2) {
    if (argc < 2)
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "no CSV file given (dpscale plot FILE)");
    else
      g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option: unexpected argument '%s' (dpscale plot takes one CSV file)",
                   argv[2]);
    return dps_cli_fail ("plot", error);
  }
  const char *path = argv[1];
  if (output && !dps_cli_check_prefix ("-o", output, &error))
    return dps_cli_fail ("plot", error);
  g_autofree char *text = dps_read_file (path, "CSV file", NULL, &error);
  if (!text)
    return dps_cli_fail ("plot", error);
  const char *script = NULL, *what = NULL, *text_cols = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (g_str_has_prefix (text, kinds[i].header_start)) {
      script = kinds[i].script;
      what = kinds[i].what;
      text_cols = kinds[i].text;
    }
  if (!script && g_str_has_prefix (text, "file,system,op,ranks,")) {
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "%s: a collective --compare CSV: drawn by collective --compare "
                 "--plot FILE", path);
    return dps_cli_fail ("plot", error);
  }
  if (!script) {
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT,
                 "%s:1: not a CSV dpscale writes (its header is none of sweep, validation, calibration, timeline, collective)",
                 path);
    return dps_cli_fail ("plot", error);
  }
  if (!strchr (text, '\n') || !strchr (strchr (text, '\n') + 1, ',')) {
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "%s: %s CSV without rows", path, what);
    return dps_cli_fail ("plot", error);
  }
  if (text_cols && !check_rows (path, text, text_cols, &error))
    return dps_cli_fail ("plot", error);
  if (breakdown) {
    if (!g_str_equal (script, "validation.gp")) {
      g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--breakdown: only for a validation CSV");
      return dps_cli_fail ("plot", error);
    }
    script = "breakdown.gp";
  }
  g_autofree char *stem = output ? g_strdup (output)
                          : g_str_has_suffix (path, ".csv") ? g_strndup (path, strlen (path) - 4) : g_strdup (path);
  g_autofree char *png = g_strconcat (stem, breakdown && !output ? "-breakdown" : "", ".png", NULL);
  g_autofree char *svg = g_strconcat (stem, breakdown && !output ? "-breakdown" : "", ".svg", NULL);
  g_autofree char *t = title ? g_strdup (title) : g_strdup_printf ("%s (%s)", what, path);
  if (g_str_equal (script, "sweep.gp")) {
    /* one series per topology (and swept variable): through PREFIX.dat */
    g_autoptr (GString) wrote = g_string_new (NULL);
    if (!dps_sweep_plot (path, stem, t, wrote, &error))
      return dps_cli_fail ("plot", error);
    printf ("wrote %s\n", wrote->str + 2);
    return 0;
  }
  g_autofree char *vars = g_str_equal (script, "calibration.gp") ? dps_calib_plot_series (text) : NULL;
  if (!dps_plot_render (script, path, png, t, vars, &error) || !dps_plot_render (script, path, svg, t, vars, &error)) {
    g_unlink (png);   /* the pictures go together: no PNG without its SVG */
    return dps_cli_fail ("plot", error);
  }
  printf ("wrote %s, %s\n", png, svg);
  return 0;
}
