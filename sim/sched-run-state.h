/* sched-run-state.h — the state of a step program's run, shared by the
 * run (sched-run.c: ranks, compute streams, memory) and its collectives
 * (sched-group.c: a group instance's launch, phases and shares of its
 * resources); nothing else includes it. */
#pragma once

#include "sim/sched-private.h"

enum { ST_WAIT, ST_DELAYED, ST_LAUNCHED, ST_RUNNING, ST_DONE };

typedef struct Run Run;

typedef struct {
  Run       *run;
  int        rank, stream;   /* program stream id */
  int        pc;             /* index of the task at its head */
  int        state;
  int        group;          /* communication: the group instance; -1 compute */
  double     end_last_s;     /* when its last task ended */
  double     ready_s;        /* communication: when its head became ready */
  double     delay_s;        /* ... and how long its launch took */
  gboolean   busy_delay;     /* ST_DELAYED by launch_busy_s: launch when compute falls idle */
  DpsEventId ev;
  /* compute: the running task */
  double     remaining, rate, t_last, start_s, jitter, work_s;
  double     wait_s;         /* compute: since when its head waits for a dependency (< 0: not waiting) */
  int        wait_comm;      /* ... the comm kind of the collective it waits for (-1 another task) */
  int        last_comm;      /* communication: the comm kind of its last task (-1 none yet) */
} StreamState;

typedef struct {
  int     first_stream, n_streams;   /* into Run.streams; the compute stream first (if the role has one) */
  int     compute;                   /* its compute stream's index in Run.streams, or -1 */
  double  sum_c;                     /* contention of the collectives running on it */
  gboolean computing;                /* its compute stream busy, as its collectives count it */
  double  mem_cur, mem_kind[DPS_MEM_KINDS];
  DpsSchedRankStats st;
} RankState;

typedef struct {
  Run       *run;
  int        id;
  int        first_member, n_members;   /* into Run.members: StreamState indices */
  int        launched, n_computing;
  gboolean   running, in_bw;
  int        task;                     /* the template task being run */
  double     remaining, rate, t_last, lat_left, bw_left, start_s;
  double     contention, contention_comm;
  DpsEventId ev;
} GroupState;

struct Run {
  const DpsSched      *s;
  const DpsSchedRank  *ranks;
  const DpsSchedGroup *groups;
  const DpsSchedOpts  *opts;
  int                  n_ranks, n_groups;
  DpsEngine           *e;
  GRand               *rand;
  StreamState         *streams;
  RankState           *rs;
  GroupState          *gs;
  int                 *members;
  int                 *res_running;   /* collectives in their bandwidth phase on each resource */
  int                  n_res;
  GArray             **res_groups;    /* running groups per resource (int) */
  DpsSchedResult      *out;
};

static inline const Task *
task_at (const Run *r, int id)
{
  return &g_array_index (r->s->tasks, Task, id);
}

static inline int
head_task (const Run *r, const StreamState *ss)
{
  GArray *t = g_array_index (r->s->streams, Stream, ss->stream).tasks;
  return ss->pc < (int) t->len ? g_array_index (t, int, ss->pc) : -1;
}

/* sched-run.c */
void sched_mem_change (Run *r, int rank, double delta, int task, DpsMemKind kind);
void sched_span (Run *r, int rank, int task, double start, double end);
void sched_compute_retime (Run *r, StreamState *ss);
/* Starts what can start on rank's streams. */
void sched_advance (Run *r, int rank);

/* sched-group.c */
/* Re-times a running collective at its current contention and, in its
 * bandwidth phase, its share of its busiest resource. */
void sched_group_retime (Run *r, GroupState *g);
/* A member stream launches its head collective; the last member to
 * launch starts it. */
void sched_launch (Run *r, StreamState *ss);
void sched_on_launch_delay (DpsEngine *e, void *data);
