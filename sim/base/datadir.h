/* datadir — where the shipped data (topologies, models, gnuplot scripts)
 * is found: $DPSCALE_DATADIR, then the source tree this binary was built
 * from, then the installed data folder. */
#pragma once

#include <glib.h>

char  *dps_data_path (const char *subdir, const char *file);
char **dps_data_list (const char *subdir, const char *suffix);
