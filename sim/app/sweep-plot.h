/* sweep-plot — the sweep plot: a sweep (or prediction) CSV regrouped into
 * one series per topology, and per bucket cap, batch, accumulation or model
 * where the file varies them, so that each is its own line with its own
 * legend entry (plots/sweep.gp). */
#pragma once

#include <glib.h>

gboolean dps_sweep_plot (const char *csv_path, const char *prefix, const char *title, GString *wrote,
                         GError **error);
