/* progress — where a long command stands, on stderr, said only once it
 * has run DPS_PROGRESS_AFTER_S seconds: a short command stays silent, a
 * long one (an import of 300,000 rows) is not mistaken for a hang.  One
 * clock a process, started by the command, told by whatever code runs the
 * long steps; on a terminal one line rewritten, elsewhere a line at most
 * every DPS_PROGRESS_EVERY_S seconds. */
#pragma once

#include <glib.h>

#define DPS_PROGRESS_AFTER_S 3.0
#define DPS_PROGRESS_EVERY_S 2.0

void dps_progress_begin (const char *prefix);
void dps_progress (const char *step, guint64 done, guint64 total);
void dps_progress_end (void);
