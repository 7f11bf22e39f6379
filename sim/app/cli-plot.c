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
#include <stdio.h>
#include <string.h>

static const struct { const char *header_start, *script, *what; } kinds[] = {
  { "model,topology,gpus,", "sweep.gp", "a sweep or prediction" },
  { "replicas,meas_median_s,", "validation.gp", "a validation" },
  { "ranks,nodes,size_bytes,measured_busbw_GBps,", "calibration.gp", "a calibration" },
  { "source,lane,start_ms,", "timeline.gp", "a step timeline" },
  { "op,gpus,nodes,size_bytes,", "collective.gp", "a collective" },
};

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
  const char *script = NULL, *what = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (g_str_has_prefix (text, kinds[i].header_start)) {
      script = kinds[i].script;
      what = kinds[i].what;
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
