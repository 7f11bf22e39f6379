/* sched — a training step as a schedule of tasks on streams, run on the
 * event engine.
 *
 * A *program* says what one rank of each *role* does in a step: its
 * streams (one compute stream; one communication stream per process group,
 * as each NCCL communicator runs its collectives one after another), the
 * tasks on each stream in order, and what each task waits for besides the
 * task before it on its stream (any task of the same role: a collective
 * waiting for the gradients it reduces, a layer's forward waiting for the
 * all-gather of its parameters or the activations a pipeline stage
 * receives).  Ranks alike up to noise run one role: DDP has one, a
 * pipeline one per stage.  A strategy (DDP, sharded, tensor, pipeline) is
 * a builder that emits a program (strategy-*.c); nothing here knows which.
 *
 * A *run* plays the program on ranks: each rank has a role, the number of
 * real ranks it stands for (weight), a speed factor for its compute (a
 * straggler's 1.5, the slowest of many GPUs' spread), an offset at which it
 * starts (OS noise), and, per communication stream, the process group it
 * belongs to.  Identical ranks are one rank of the run, so a step of any
 * size costs what its distinct ranks cost.
 *
 * Tasks:
 *   - compute: work_s seconds at the rank's nominal speed, times its speed
 *     factor (unless DPS_TASK_FIXED: a copy whose bytes do not depend on
 *     the GPU's spread) and, with jitter, a factor max(0.05, N(1, cv)) per
 *     rank and task;
 *   - communication: a collective of `bytes` on the stream's group, timed
 *     by its comm kind (the collective model, coll-cost.h, or a send).  It
 *     starts when every member of the group has launched it (reached it on
 *     its stream with its dependencies done), and ends for all at once.
 *
 * Overlap as shared resources:
 *   - while collectives run on a rank, its compute runs at 1 / (1 + sum of
 *     their contention): NCCL's kernels take SMs and HBM bandwidth;
 *   - while any member of a group computes, the group's collective runs at
 *     1 / (1 + its comm contention);
 *   - a collective is a latency phase, then a bandwidth phase in which it
 *     shares its group's resources (a GPU's NICs, its NVLink) with the
 *     other collectives in their bandwidth phase on them: k of them each
 *     get 1/k (max-min fair on one resource).  Two process groups on the
 *     same NICs slow each other.
 * Rates change only when a task starts or ends; remaining work carries
 * over (a fluid model, as the flow-level network's).
 *
 * A communication stream whose launch is handed to a thread (CPU runners)
 * launches launch_s after its task is ready, or launch_busy_s while the
 * rank computes (at the latest when its compute stream falls idle), unless
 * the stream was busy until then.
 *
 * Memory as a timeline: each role starts at its static bytes (parameters,
 * optimizer state...); a task allocates alloc_bytes when it starts and
 * frees free_bytes when it ends (activations saved in forward, freed in
 * backward; gathered parameters; a collective's buffers), and holds
 * hold_bytes of activations while it runs.  The peak per
 * rank, and the task at which it falls, come from the run.
 *
 * Times in seconds, sizes in bytes.  The same program, ranks and seed give
 * the same result. */
#pragma once

#include <glib.h>
#include "sim/coll-types.h"
#include "sim/engine.h"

/* What a task's time counts as in a step's breakdown. */
typedef enum {
  DPS_PART_FORWARD,
  DPS_PART_BACKWARD,
  DPS_PART_RECOMPUTE,      /* activation checkpointing's forward again */
  DPS_PART_COPY,           /* DDP's bucket copies and hooks within backward */
  DPS_PART_COPY_OUT,       /* ... and after the all-reduce */
  DPS_PART_OPTIMIZER,
  DPS_PART_COMM,           /* a communication task */
  DPS_PART_COUNT
} DpsPart;

#define DPS_TASK_JITTER (1u << 0)   /* a per-rank, per-task factor max(0.05, N(1, jitter_cv)) */
#define DPS_TASK_FIXED  (1u << 1)   /* not scaled by the rank's speed factor */

#define DPS_SCHED_MAX_RES 2          /* resources a group's collectives share at most */
#define DPS_SCHED_MAX_COMMS 8        /* comm kinds a program has at most */

/* What memory a task's bytes are, for the peak's breakdown. */
typedef enum {
  DPS_MEM_ACTIVATIONS,     /* saved in forward for backward (and recomputed) */
  DPS_MEM_BUFFERS,         /* gathered parameters, unsharded gradients, received activations */
  DPS_MEM_KINDS
} DpsMemKind;

typedef struct DpsSched DpsSched;

/* The time of a collective of bytes: total and its latency part (seconds),
 * and the algorithm and protocol chosen (may be NULL). */
typedef double (*DpsCommTimeFn) (const void *data, double bytes, double *lat_s, DpsAlgo *algo, DpsProto *proto);

typedef struct {
  const char   *name;          /* "all-reduce dp", for the report */
  DpsCommTimeFn time;
  const void   *data;          /* borrowed: lives as long as the program */
  double        contention;    /* its kernels' slowdown of compute on each member (0.16: 16%) */
  double        contention_comm;   /* its own slowdown while a member computes */
  gboolean      copy;          /* a memory copy (a host link), not a collective: no algorithm or protocol
                                * counted, no collective's random factor */
} DpsSchedComm;

typedef struct {
  const char *label;           /* for the trace; copied */
  DpsPart     part;
  double      work_s;          /* compute: nominal seconds */
  int         comm;            /* communication: a comm kind (dps_sched_comm_add); -1 compute */
  double      bytes;           /* communication: the collective's size (nccl-tests' convention) */
  guint       flags;           /* DPS_TASK_* */
  double      alloc_bytes;     /* allocated when it starts */
  double      free_bytes;      /* freed when it ends */
  double      hold_bytes;      /* activations held only while it runs (a loss's gradients over the
                                * logits): allocated when it starts, freed when it ends */
  DpsMemKind  alloc_kind, free_kind;   /* what those bytes are */
  const int  *deps;            /* tasks of the same role it waits for, besides its stream's previous */
  int         n_deps;
} DpsTaskSpec;

DpsSched *dps_sched_new (void);
void      dps_sched_free (DpsSched *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsSched, dps_sched_free)
int       dps_sched_role_add (DpsSched *s, const char *name, double static_bytes);
int       dps_sched_stream_add (DpsSched *s, int role, const char *name, int group_slot);
int       dps_sched_comm_add (DpsSched *s, const DpsSchedComm *comm);
int       dps_sched_task_add (DpsSched *s, int stream, const DpsTaskSpec *spec);
int       dps_sched_n_tasks (const DpsSched *s);
int       dps_sched_n_roles (const DpsSched *s);
int       dps_sched_n_streams (const DpsSched *s);
int       dps_sched_stream_last (const DpsSched *s, int stream);
const char *dps_sched_task_label (const DpsSched *s, int task);
int       dps_sched_task_stream (const DpsSched *s, int task);
DpsPart   dps_sched_task_part (const DpsSched *s, int task);
const char *dps_sched_stream_name (const DpsSched *s, int stream);
int       dps_sched_stream_role (const DpsSched *s, int stream);
const char *dps_sched_role_name (const DpsSched *s, int role);
const char *dps_sched_comm_name (const DpsSched *s, int comm);
int       dps_sched_n_comms (const DpsSched *s);

#define DPS_SCHED_NO_STREAM (-1)   /* group_slot of a compute stream */
#define DPS_SCHED_MAX_SLOTS 40     /* process groups a rank belongs to at most (a pipeline stage: tensor,
                                    * data parallel, and 4 point-to-point links per virtual stage) */

/* One rank of a run. */
typedef struct {
  int      role;
  double   weight;           /* real ranks it stands for (> 0) */
  double   speed;            /* compute time factor (1 nominal, 1.5 a slow GPU) */
  double   speed_mean;       /* the mean of the ranks it stands for, for the breakdown (<= speed) */
  double   start_s;          /* when it starts the step (OS noise) */
  int      groups[DPS_SCHED_MAX_SLOTS];   /* process group instance per group slot */
  gboolean trace;            /* record its tasks */
} DpsSchedRank;

/* A process group instance: the resources its collectives share. */
typedef struct {
  int n_res;
  int res[DPS_SCHED_MAX_RES];
} DpsSchedGroup;

typedef struct {
  double jitter_cv;          /* tasks flagged DPS_TASK_JITTER */
  double comm_factor;        /* every collective's time x this (one draw per trial); 0 is 1 */
  double launch_s, launch_busy_s;
  gboolean trace;            /* record the tasks of ranks with .trace */
} DpsSchedOpts;

/* What one rank did (or the weighted mean of all ranks). */
typedef struct {
  double finish_s;                   /* its last task's end */
  double start_s;
  double work_s[DPS_PART_COUNT];     /* compute at its speed (jitter included), no contention */
  double work_mean_s[DPS_PART_COUNT];/* the same at its speed_mean */
  double wall_s[DPS_PART_COUNT];     /* compute wall time, contention included */
  double last_end_s[DPS_PART_COUNT]; /* when its last task of each part ended (0 none) */
  double comm_kind_s[DPS_SCHED_MAX_COMMS];   /* its collectives' durations of each kind, launch delays
                                              * included (all of them: dps_sched_rank_comm_s) */
  double comm_kind_n[DPS_SCHED_MAX_COMMS];   /* the collectives of each kind it took part in */
  double exposed_s[DPS_SCHED_MAX_COMMS];   /* its compute idle waiting for a collective of each kind */
  double peak_bytes;                 /* memory */
  double peak_kind_bytes[DPS_MEM_KINDS];   /* of it, each kind's at the peak (the rest: static) */
  int    peak_task;                  /* the task that brought the peak (-1: the static bytes) */
  double peak_at_s;
} DpsSchedRankStats;

/* A rank's collectives' durations, every kind's. */
static inline double
dps_sched_rank_comm_s (const DpsSchedRankStats *st)
{
  double s = 0;
  for (int c = 0; c < DPS_SCHED_MAX_COMMS; c++)
    s += st->comm_kind_s[c];
  return s;
}

typedef struct { int rank, task; double start_s, end_s; } DpsSchedSpan;
typedef struct { int rank; double at_s, bytes; } DpsSchedMemSample;

typedef struct {
  double  count, time_s;             /* collectives run (each once, not per member) and their time */
  int     algo_count[DPS_ALGO_COUNT], proto_count[DPS_PROTO_COUNT];
} DpsSchedCommStats;

typedef struct {
  double             step_s;         /* the last rank's finish */
  int                critical;       /* that rank */
  DpsSchedRankStats  crit;           /* its stats */
  DpsSchedRankStats  mean;           /* the weighted mean over ranks */
  double             peak_bytes;     /* the largest peak of any rank */
  int                peak_rank;
  DpsSchedRankStats  peak;           /* that rank's stats */
  int                n_comms;
  DpsSchedCommStats *comms;          /* per comm kind */
  guint64            events;         /* the engine's, for benchmarks */
  GArray            *spans;          /* DpsSchedSpan of traced ranks; NULL unless opts.trace */
  GArray            *memory;         /* DpsSchedMemSample of traced ranks, at each change */
} DpsSchedResult;

gboolean dps_sched_run (const DpsSched *s, const DpsSchedRank *ranks, int n_ranks, const DpsSchedGroup *groups,
                        int n_groups, const DpsSchedOpts *opts, GRand *rand, DpsSchedResult *out, GError **error);
void     dps_sched_result_clear (DpsSchedResult *r);

/* The schedule as a Chrome trace: one process per traced rank, one thread
 * per stream, the tasks by label, and a memory counter track. */
gboolean dps_sched_write_trace (const DpsSched *s, const DpsSchedResult *r, const DpsSchedRank *ranks,
                                const char *path, GError **error);
