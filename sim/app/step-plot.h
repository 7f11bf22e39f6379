/* step-plot — a predicted step's schedule as a picture (plots/step.gp):
 * the lanes of the ranks drawn and their memory. */
#pragma once

#include "sim/ddp.h"

gboolean dps_step_plot (const DpsDdpResult *r, const char *path, const char *title, double capacity_bytes,
                        GError **error);
