/* step-plot.c — see step-plot.h. */
#include "sim/app/step-plot.h"
#include "sim/base/error.h"
#include "sim/base/file.h"
#include "sim/base/plot.h"

#include <glib/gstdio.h>
#include <unistd.h>

/* The colour of a task's part in plots/step.gp. */
static int
kind_of (DpsPart part)
{
  switch (part) {
  case DPS_PART_FORWARD: return 0;
  case DPS_PART_BACKWARD: return 1;
  case DPS_PART_RECOMPUTE: return 2;
  case DPS_PART_COPY: case DPS_PART_COPY_OUT: return 3;
  case DPS_PART_OPTIMIZER: return 4;
  default: return 5;
  }
}

/* Draws r's traced run (r simulated with trace_replicas > 0) to path
 * (.png or .svg), at most 4 ranks: a lane per stream of each, rank 0's
 * memory below.  The lanes' labels are the program's stream names (no
 * user text); title reaches gnuplot as a quoted string; capacity_bytes
 * (0: none) the device's memory, drawn as a line. */
gboolean
dps_step_plot (const DpsDdpResult *r, const char *path, const char *title, double capacity_bytes, GError **error)
{
  g_return_val_if_fail (r->sched != NULL, FALSE);
  const DpsSched *s = r->sched;
  int n_streams = dps_sched_n_streams (s), n_ranks = MIN (r->trace_n_ranks, 4);
  /* lane of (rank, stream), top down: rank 0's streams first */
  g_autofree int *lane = g_new (int, MAX (1, n_ranks * n_streams));
  int n_lanes = 0;
  for (int k = n_ranks - 1; k >= 0; k--)
    for (int st = n_streams - 1; st >= 0; st--)
      lane[k * n_streams + st] = dps_sched_stream_role (s, st) == r->trace_ranks[k].role ? n_lanes++ : -1;
  g_autoptr (GString) d = g_string_new ("# dpscale predict --plot: lane,start_ms,end_ms,kind\n");
  for (guint i = 0; i < r->trace_run.spans->len; i++) {
    const DpsSchedSpan *sp = &g_array_index (r->trace_run.spans, DpsSchedSpan, i);
    if (sp->rank >= n_ranks)
      continue;
    int st = dps_sched_task_stream (s, sp->task), y = lane[sp->rank * n_streams + st];
    g_string_append_printf (d, "%d,%.6f,%.6f,%d\n", y, sp->start_s * 1e3, sp->end_s * 1e3,
                            kind_of (dps_sched_task_part (s, sp->task)));
  }
  g_string_append (d, "\n\n# rank,time_ms,GB\n");
  double end_ms = 0, gb = 0;
  for (guint i = 0; i < r->trace_run.spans->len; i++)
    end_ms = MAX (end_ms, g_array_index (r->trace_run.spans, DpsSchedSpan, i).end_s * 1e3);
  for (guint i = 0; i < r->trace_run.memory->len; i++) {
    const DpsSchedMemSample *m = &g_array_index (r->trace_run.memory, DpsSchedMemSample, i);
    if (m->rank == 0) {
      g_string_append_printf (d, "0,%.6f,%.6f\n", m->at_s * 1e3, m->bytes / 1e9);
      gb = m->bytes / 1e9;
    }
  }
  g_string_append_printf (d, "0,%.6f,%.6f\n", end_ms, gb);   /* held to the step's end */
  g_string_append (d, "\n\n# lane,label\n");
  for (int k = 0; k < n_ranks; k++)
    for (int st = 0; st < n_streams; st++)
      if (lane[k * n_streams + st] >= 0)
        g_string_append_printf (d, "%d,rank %d %s\n", lane[k * n_streams + st], k, dps_sched_stream_name (s, st));
  g_autofree char *tmp = NULL;
  int fd = g_file_open_tmp ("dpscale-step-XXXXXX.dat", &tmp, error);
  if (fd < 0)
    return FALSE;
  close (fd);
  gboolean ok = dps_write_file (tmp, "plot data", d->str, d->len, error);
  g_autofree char *vars = capacity_bytes > 0 ? g_strdup_printf ("nlanes=%d; capacity_GB=%.6g", n_lanes, capacity_bytes / 1e9)
                                              : g_strdup_printf ("nlanes=%d", n_lanes);
  ok = ok && dps_plot_render ("step.gp", tmp, path, title, vars, error);
  g_unlink (tmp);
  return ok;
}
