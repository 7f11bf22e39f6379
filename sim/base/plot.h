/* plot — render a result file with one of the gnuplot scripts in plots/. */
#pragma once

#include <glib.h>

char    *dps_plot_literal (const char *text);
gboolean dps_plot_render (const char *script, const char *datafile, const char *outfile,
                          const char *title, const char *extra_vars, GError **error);
