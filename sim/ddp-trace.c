/* ddp-trace.c — a simulated step as a Chrome trace (see ddp.h,
 * dps_ddp_write_trace). */
#include "sim/ddp.h"

/* Writes the traced trial's step (the one closest to the mean) as a Chrome
 * trace (Perfetto and chrome://tracing open it): a process per rank drawn
 * (up to trace_replicas; without randomness one stands for all alike),
 * a thread per stream, the tasks by name, and a memory counter.  Errors
 * read "trace file PATH: reason". */
gboolean
dps_ddp_write_trace (const DpsDdpResult *r, const char *path, GError **error)
{
  g_return_val_if_fail (r->sched != NULL, FALSE);
  return dps_sched_write_trace (r->sched, &r->trace_run, r->trace_ranks, path, error);
}
