/* sched-private.h — the step program's tables, shared by the program's
 * builder (sched.c), its run (sched-run.c, sched-group.c) and the run's
 * summary (sched-result.c); nothing else includes it. */
#ifndef DPS_SCHED_PRIVATE_H
#define DPS_SCHED_PRIVATE_H

#include "sim/sched.h"

typedef struct {
  char  *name;
  double static_bytes;
  GArray *streams;     /* int: stream ids, the compute stream first if any */
} Role;

typedef struct {
  char  *name;
  int    role;
  int    group_slot;   /* DPS_SCHED_NO_STREAM: compute */
  GArray *tasks;       /* int: task ids in order */
} Stream;

typedef struct {
  const char *label;   /* in the program's string chunk */
  DpsPart part;
  DpsMemKind alloc_kind, free_kind;
  double  work_s, bytes, alloc_bytes, free_bytes, hold_bytes;
  int     comm, stream, index;
  guint   flags;
  int     first_dep, n_deps;
} Task;

struct DpsSched {
  GArray       *roles;     /* Role */
  GArray       *streams;   /* Stream */
  GArray       *tasks;     /* Task */
  GArray       *deps;      /* int */
  GArray       *comms;     /* DpsSchedComm (name in the chunk) */
  GStringChunk *strings;   /* names and labels, each its own copy: a label is rarely repeated, and interning
                             * them (insert_const) cost a quarter of advise's time in hashing */
};

/* sched-result.c: out's step, critical and peak ranks and mean from each
 * rank's stats (the run's, sched-run.c) */
void dps_sched_result_summarise (DpsSchedResult *out, const DpsSchedRankStats *const *st, const DpsSchedRank *ranks,
                                 int n_ranks);

#endif
