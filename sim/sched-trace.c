/* sched-trace.c — a run of a step schedule as a Chrome trace (see sched.h,
 * dps_sched_write_trace). */
#include "sim/sched.h"
#include "sim/base/file.h"
#include "sim/base/json-util.h"
#include "sim/base/error.h"

#include <string.h>

static const char *const part_names[DPS_PART_COUNT] = {
  [DPS_PART_FORWARD] = "forward", [DPS_PART_BACKWARD] = "backward", [DPS_PART_RECOMPUTE] = "recompute",
  [DPS_PART_COPY] = "copy", [DPS_PART_COPY_OUT] = "copy-out", [DPS_PART_OPTIMIZER] = "optimizer",
  [DPS_PART_COMM] = "communication",
};
G_STATIC_ASSERT (G_N_ELEMENTS (part_names) == DPS_PART_COUNT);

static void
meta (JsonBuilder *b, const char *what, int pid, int tid, const char *name)
{
  json_builder_begin_object (b);
  dps_json_str (b, "ph", "M");
  dps_json_str (b, "name", what);
  dps_json_int (b, "pid", pid);
  dps_json_int (b, "tid", tid);
  json_builder_set_member_name (b, "args");
  json_builder_begin_object (b);
  dps_json_str (b, "name", name);
  json_builder_end_object (b);
  json_builder_end_object (b);
}

/* The position of stream among its role's streams (its thread id). */
static int
stream_tid (const DpsSched *s, int stream)
{
  int role = dps_sched_stream_role (s, stream), tid = 0;
  for (int i = 0; i < stream; i++)
    tid += dps_sched_stream_role (s, i) == role;
  return tid;
}

/* Writes r's traced ranks (r ran with opts.trace) as a Chrome trace that
 * Perfetto and chrome://tracing open: a process per rank ("rank K: ROLE"),
 * a thread per stream, each task by its label (category: its part of the
 * step), and a counter track of the rank's memory in GB; times in us.
 * Errors read "trace file PATH: reason". */
gboolean
dps_sched_write_trace (const DpsSched *s, const DpsSchedResult *r, const DpsSchedRank *ranks, const char *path,
                       GError **error)
{
  g_return_val_if_fail (r->spans != NULL && r->memory != NULL, FALSE);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  dps_json_str (b, "displayTimeUnit", "ms");
  json_builder_set_member_name (b, "traceEvents");
  json_builder_begin_array (b);
  /* names of the ranks drawn and their streams */
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < r->spans->len + r->memory->len; i++) {
    int rank = i < r->spans->len ? g_array_index (r->spans, DpsSchedSpan, i).rank
                                 : g_array_index (r->memory, DpsSchedMemSample, i - r->spans->len).rank;
    if (g_hash_table_contains (seen, GINT_TO_POINTER (rank + 1)))
      continue;
    g_hash_table_add (seen, GINT_TO_POINTER (rank + 1));
    int role = ranks[rank].role;
    g_autofree char *pname = g_strdup_printf ("rank %d: %s", rank, dps_sched_role_name (s, role));
    meta (b, "process_name", rank, 0, pname);
    json_builder_begin_object (b);
    dps_json_str (b, "ph", "M");
    dps_json_str (b, "name", "process_sort_index");
    dps_json_int (b, "pid", rank);
    json_builder_set_member_name (b, "args");
    json_builder_begin_object (b);
    dps_json_int (b, "sort_index", rank);
    json_builder_end_object (b);
    json_builder_end_object (b);
    for (int st = 0; st < dps_sched_n_streams (s); st++)
      if (dps_sched_stream_role (s, st) == role)
        meta (b, "thread_name", rank, stream_tid (s, st), dps_sched_stream_name (s, st));
  }
  for (guint i = 0; i < r->spans->len; i++) {
    const DpsSchedSpan *sp = &g_array_index (r->spans, DpsSchedSpan, i);
    int stream = dps_sched_task_stream (s, sp->task);
    json_builder_begin_object (b);
    dps_json_str (b, "name", dps_sched_task_label (s, sp->task));
    dps_json_str (b, "ph", "X");
    dps_json_int (b, "pid", sp->rank);
    dps_json_int (b, "tid", stream_tid (s, stream));
    dps_json_num (b, "ts", sp->start_s * 1e6);
    dps_json_num (b, "dur", (sp->end_s - sp->start_s) * 1e6);
    dps_json_str (b, "cat", part_names[dps_sched_task_part (s, sp->task)]);
    json_builder_end_object (b);
  }
  for (guint i = 0; i < r->memory->len; i++) {
    const DpsSchedMemSample *m = &g_array_index (r->memory, DpsSchedMemSample, i);
    json_builder_begin_object (b);
    dps_json_str (b, "name", "memory");
    dps_json_str (b, "ph", "C");
    dps_json_int (b, "pid", m->rank);
    dps_json_num (b, "ts", m->at_s * 1e6);
    json_builder_set_member_name (b, "args");
    json_builder_begin_object (b);
    dps_json_num (b, "GB", m->bytes / 1e9);
    json_builder_end_object (b);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autofree char *text = dps_json_builder_to_text (b, FALSE);
  if (dps_write_file (path, "trace file", text, strlen (text), error))
    return TRUE;
  if (error)
    dps_error_set_field (*error, DPS_FIELD_TRACE);   /* "trace file PATH: ..." */
  return FALSE;
}
