/* progress.c — see progress.h. */
#include "sim/base/progress.h"

#include <stdio.h>
#include <unistd.h>

static struct {
  char    *prefix;     /* NULL: not begun, nothing is said */
  gint64   start_us, said_us;
  gboolean tty, line_open;
  char    *last_step;
} clock_;

/* Starts the clock of the command named prefix ("calibrate"), which the
 * lines begin with. */
void
dps_progress_begin (const char *prefix)
{
  g_free (clock_.prefix);
  g_free (clock_.last_step);
  clock_.prefix = g_strdup (prefix);
  clock_.last_step = NULL;
  clock_.start_us = g_get_monotonic_time ();
  clock_.said_us = 0;
  clock_.tty = isatty (2);
  clock_.line_open = FALSE;
}

/* Says "PREFIX: STEP: DONE of TOTAL" (total 0: "PREFIX: STEP") once the
 * clock has run DPS_PROGRESS_AFTER_S, then when the step changes or every
 * DPS_PROGRESS_EVERY_S (on a terminal, every half second, over the same
 * line).  Costs a clock read otherwise: callable once a point. */
void
dps_progress (const char *step, guint64 done, guint64 total)
{
  if (!clock_.prefix)
    return;
  gint64 now = g_get_monotonic_time ();
  if (now - clock_.start_us < DPS_PROGRESS_AFTER_S * 1e6)
    return;
  gboolean new_step = g_strcmp0 (step, clock_.last_step) != 0;
  if (!new_step && now - clock_.said_us < (clock_.tty ? 0.5 : DPS_PROGRESS_EVERY_S) * 1e6)
    return;
  if (new_step) {
    g_free (clock_.last_step);
    clock_.last_step = g_strdup (step);
  }
  clock_.said_us = now;
  double s = (now - clock_.start_us) / 1e6;
  if (clock_.tty)
    fputs ("\r\033[K", stderr);
  if (total)
    fprintf (stderr, "%s: %s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " (%.0f s)", clock_.prefix, step, done,
             total, s);
  else
    fprintf (stderr, "%s: %s (%.0f s)", clock_.prefix, step, s);
  fputs (clock_.tty ? "" : "\n", stderr);
  clock_.line_open = clock_.tty;
  fflush (stderr);
}

/* Stops the clock; ends a terminal's line. */
void
dps_progress_end (void)
{
  if (clock_.line_open)
    fputs ("\n", stderr);
  g_clear_pointer (&clock_.prefix, g_free);
  g_clear_pointer (&clock_.last_step, g_free);
  clock_.line_open = FALSE;
}
