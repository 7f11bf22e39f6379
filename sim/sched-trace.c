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
  json_builder_set_member_name (b, "ph"); json_builder_add_string_value (b, "M");
  json_builder_set_member_name (b, "name"); json_builder_add_string_value (b, what);
  json_builder_set_member_name (b, "pid"); json_builder_add_int_value (b, pid);
  json_builder_set_member_name (b, "tid"); json_builder_add_int_value (b, tid);
  json_builder_set_member_name (b, "args");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name"); json_builder_add_string_value (b, name);
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
  json_builder_set_member_name (b, "displayTimeUnit");
  json_builder_add_string_value (b, "ms");
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
    json_builder_set_member_name (b, "ph"); json_builder_add_string_value (b, "M");
    json_builder_set_member_name (b, "name"); json_builder_add_string_value (b, "process_sort_index");
    json_builder_set_member_name (b, "pid"); json_builder_add_int_value (b, rank);
    json_builder_set_member_name (b, "args");
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "sort_index"); json_builder_add_int_value (b, rank);
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
    json_builder_set_member_name (b, "name"); json_builder_add_string_value (b, dps_sched_task_label (s, sp->task));
    json_builder_set_member_name (b, "ph"); json_builder_add_string_value (b, "X");
    json_builder_set_member_name (b, "pid"); json_builder_add_int_value (b, sp->rank);
    json_builder_set_member_name (b, "tid"); json_builder_add_int_value (b, stream_tid (s, stream));
    json_builder_set_member_name (b, "ts"); json_builder_add_double_value (b, sp->start_s * 1e6);
    json_builder_set_member_name (b, "dur"); json_builder_add_double_value (b, (sp->end_s - sp->start_s) * 1e6);
    json_builder_set_member_name (b, "cat");
    json_builder_add_string_value (b, part_names[dps_sched_task_part (s, sp->task)]);
    json_builder_end_object (b);
  }
  for (guint i = 0; i < r->memory->len; i++) {
    const DpsSchedMemSample *m = &g_array_index (r->memory, DpsSchedMemSample, i);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "name"); json_builder_add_string_value (b, "memory");
    json_builder_set_member_name (b, "ph"); json_builder_add_string_value (b, "C");
    json_builder_set_member_name (b, "pid"); json_builder_add_int_value (b, m->rank);
    json_builder_set_member_name (b, "ts"); json_builder_add_double_value (b, m->at_s * 1e6);
    json_builder_set_member_name (b, "args");
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "GB"); json_builder_add_double_value (b, m->bytes / 1e9);
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
