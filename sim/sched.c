/* sched.c — building a step program; see sched.h for the model. */
#include "sim/sched-private.h"

DpsSched *
dps_sched_new (void)
{
  DpsSched *s = g_new0 (DpsSched, 1);
  s->roles = g_array_new (FALSE, FALSE, sizeof (Role));
  s->streams = g_array_new (FALSE, FALSE, sizeof (Stream));
  s->tasks = g_array_new (FALSE, FALSE, sizeof (Task));
  s->deps = g_array_new (FALSE, FALSE, sizeof (int));
  s->comms = g_array_new (FALSE, FALSE, sizeof (DpsSchedComm));
  s->strings = g_string_chunk_new (4096);
  return s;
}

void
dps_sched_free (DpsSched *s)
{
  if (!s)
    return;
  for (guint i = 0; i < s->roles->len; i++) {
    g_free (g_array_index (s->roles, Role, i).name);
    g_array_free (g_array_index (s->roles, Role, i).streams, TRUE);
  }
  for (guint i = 0; i < s->streams->len; i++) {
    g_free (g_array_index (s->streams, Stream, i).name);
    g_array_free (g_array_index (s->streams, Stream, i).tasks, TRUE);
  }
  g_array_free (s->roles, TRUE);
  g_array_free (s->streams, TRUE);
  g_array_free (s->tasks, TRUE);
  g_array_free (s->deps, TRUE);
  g_array_free (s->comms, TRUE);
  g_string_chunk_free (s->strings);
  g_free (s);
}

/* A role whose ranks start the step holding static_bytes; returns its id. */
int
dps_sched_role_add (DpsSched *s, const char *name, double static_bytes)
{
  Role r = { g_strdup (name), static_bytes, g_array_new (FALSE, FALSE, sizeof (int)) };
  g_array_append_val (s->roles, r);
  return (int) s->roles->len - 1;
}

/* A stream of role: a compute stream (group_slot DPS_SCHED_NO_STREAM, one
 * a role) or a communication stream running the collectives of the group
 * in the rank's group_slot.  Returns its id. */
int
dps_sched_stream_add (DpsSched *s, int role, const char *name, int group_slot)
{
  g_return_val_if_fail (role >= 0 && role < (int) s->roles->len, -1);
  g_return_val_if_fail (group_slot >= DPS_SCHED_NO_STREAM && group_slot < DPS_SCHED_MAX_SLOTS, -1);
  Stream st = { g_strdup (name), role, group_slot, g_array_new (FALSE, FALSE, sizeof (int)) };
  g_array_append_val (s->streams, st);
  int id = (int) s->streams->len - 1;
  g_array_append_val (g_array_index (s->roles, Role, role).streams, id);
  return id;
}

/* A kind of collective (its cost and contention); returns its id. */
int
dps_sched_comm_add (DpsSched *s, const DpsSchedComm *comm)
{
  g_return_val_if_fail (comm->time != NULL, -1);
  g_return_val_if_fail (s->comms->len < DPS_SCHED_MAX_COMMS, -1);
  DpsSchedComm c = *comm;
  c.name = g_string_chunk_insert (s->strings, comm->name ? comm->name : "collective");
  g_array_append_val (s->comms, c);
  return (int) s->comms->len - 1;
}

/* Appends a task to stream; returns its id.  Its dependencies must be
 * tasks of the same role added before it. */
int
dps_sched_task_add (DpsSched *s, int stream, const DpsTaskSpec *spec)
{
  g_return_val_if_fail (stream >= 0 && stream < (int) s->streams->len, -1);
  Stream *st = &g_array_index (s->streams, Stream, stream);
  g_return_val_if_fail ((spec->comm >= 0) == (st->group_slot != DPS_SCHED_NO_STREAM), -1);
  g_return_val_if_fail (spec->comm < (int) s->comms->len, -1);
  Task t = {
    .label = g_string_chunk_insert (s->strings, spec->label ? spec->label : ""),
    .part = spec->comm >= 0 ? DPS_PART_COMM : spec->part,
    .work_s = MAX (0, spec->work_s), .bytes = spec->bytes,
    .alloc_bytes = spec->alloc_bytes, .free_bytes = spec->free_bytes, .hold_bytes = spec->hold_bytes, .alloc_kind = spec->alloc_kind, .free_kind = spec->free_kind,
    .comm = spec->comm, .stream = stream, .index = (int) st->tasks->len, .flags = spec->flags,
    .first_dep = (int) s->deps->len, .n_deps = spec->n_deps,
  };
  int id = (int) s->tasks->len;
  for (int i = 0; i < spec->n_deps; i++) {
    int d = spec->deps[i];
    g_return_val_if_fail (d >= 0 && d < id, -1);
    g_return_val_if_fail (g_array_index (s->streams, Stream, g_array_index (s->tasks, Task, d).stream).role == st->role, -1);
    g_array_append_val (s->deps, d);
  }
  g_array_append_val (s->tasks, t);
  g_array_append_val (st->tasks, id);
  return id;
}

int dps_sched_n_tasks (const DpsSched *s) { return (int) s->tasks->len; }
int dps_sched_n_roles (const DpsSched *s) { return (int) s->roles->len; }
int dps_sched_n_streams (const DpsSched *s) { return (int) s->streams->len; }
int dps_sched_n_comms (const DpsSched *s) { return (int) s->comms->len; }
const char *dps_sched_task_label (const DpsSched *s, int t) { return g_array_index (s->tasks, Task, t).label; }
int dps_sched_task_stream (const DpsSched *s, int t) { return g_array_index (s->tasks, Task, t).stream; }
DpsPart dps_sched_task_part (const DpsSched *s, int t) { return g_array_index (s->tasks, Task, t).part; }
const char *dps_sched_stream_name (const DpsSched *s, int st) { return g_array_index (s->streams, Stream, st).name; }
int dps_sched_stream_role (const DpsSched *s, int st) { return g_array_index (s->streams, Stream, st).role; }
const char *dps_sched_role_name (const DpsSched *s, int r) { return g_array_index (s->roles, Role, r).name; }
const char *dps_sched_comm_name (const DpsSched *s, int c) { return g_array_index (s->comms, DpsSchedComm, c).name; }

/* The last task of stream so far, or -1. */
int
dps_sched_stream_last (const DpsSched *s, int stream)
{
  GArray *t = g_array_index (s->streams, Stream, stream).tasks;
  return t->len ? g_array_index (t, int, t->len - 1) : -1;
}
