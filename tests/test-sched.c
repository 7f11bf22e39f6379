/* Unit tests of the step schedule (sim/sched.c), each against a closed
 * form worked out in its comment. */
#include "sim/sched.h"
#include "sim/base/error.h"

#include <string.h>

#include <math.h>

/* A collective that takes total seconds whatever its size, lat of them
 * its latency phase. */
typedef struct { double lat, total; } Fixed;

static double
fixed_time (const void *data, double bytes, double *lat_s, DpsAlgo *algo, DpsProto *proto)
{
  const Fixed *f = data;
  *lat_s = f->lat;
  return f->total;
}

static int
compute (DpsSched *s, int stream, const char *label, double work_s, const int *deps, int n_deps)
{
  DpsTaskSpec t = { .label = label, .part = DPS_PART_FORWARD, .work_s = work_s, .comm = -1, .deps = deps,
                    .n_deps = n_deps };
  return dps_sched_task_add (s, stream, &t);
}

static int
coll (DpsSched *s, int stream, int comm, const int *deps, int n_deps)
{
  DpsTaskSpec t = { .label = "coll", .comm = comm, .bytes = 1, .deps = deps, .n_deps = n_deps };
  return dps_sched_task_add (s, stream, &t);
}

static DpsSchedRank
rank_of (int role)
{
  return (DpsSchedRank) { .role = role, .weight = 1, .speed = 1, .speed_mean = 1 };
}

static double
run (const DpsSched *s, const DpsSchedRank *ranks, int n, const DpsSchedGroup *groups, int ng,
     const DpsSchedOpts *opts, DpsSchedResult *out)
{
  DpsSchedOpts none = { 0 };
  g_autoptr (GError) e = NULL;
  GRand *rand = g_rand_new_with_seed (1);
  gboolean ok = dps_sched_run (s, ranks, n, groups, ng, opts ? opts : &none, rand, out, &e);
  g_rand_free (rand);
  g_assert_no_error (e);
  g_assert_true (ok);
  return out->step_s;
}

/* One role with a compute stream (c) and a data-parallel stream (k), and
 * one collective (comm) of f's times and a contention both ways. */
typedef struct { DpsSched *s; Fixed f; int comm, role, c, k; } OneRole;

static void
one_role_init (OneRole *o, const char *name, double lat, double total, double contention)
{
  o->s = dps_sched_new ();
  o->f = (Fixed) { lat, total };
  o->comm = dps_sched_comm_add (o->s, &(DpsSchedComm) { name, fixed_time, &o->f, contention, contention, FALSE });
  o->role = dps_sched_role_add (o->s, "r", 0);
  o->c = dps_sched_stream_add (o->s, o->role, "compute", DPS_SCHED_NO_STREAM);
  o->k = dps_sched_stream_add (o->s, o->role, "dp", 0);
}

static void
one_role_clear (OneRole *o)
{
  g_clear_pointer (&o->s, dps_sched_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (OneRole, one_role_clear)

/* o's one rank, in one group of its own: the step (s). */
static double
run_one (const OneRole *o, const DpsSchedOpts *opts, DpsSchedResult *out)
{
  DpsSchedRank r = rank_of (o->role);
  DpsSchedGroup g = { 0 };
  return run (o->s, &r, 1, &g, 1, opts, out);
}

/* Two compute tasks of 1 and 2 s on one stream run one after the other:
 * the step is 3 s. */
static void
test_serialise (void)
{
  g_autoptr (DpsSched) s = dps_sched_new ();
  int role = dps_sched_role_add (s, "r", 0);
  int c = dps_sched_stream_add (s, role, "compute", DPS_SCHED_NO_STREAM);
  compute (s, c, "a", 1, NULL, 0);
  compute (s, c, "b", 2, NULL, 0);
  DpsSchedRank r = rank_of (role);
  DpsSchedResult out;
  g_assert_cmpfloat_with_epsilon (run (s, &r, 1, NULL, 0, NULL, &out), 3.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (out.crit.work_s[DPS_PART_FORWARD], 3.0, 1e-12);
  dps_sched_result_clear (&out);
}

/* Rank 0 computes 1 s, rank 1 computes 2 s (speed 2), then both launch a
 * 0.5 s collective of their group: it starts when the slower launches,
 * at 2 s, and ends at 2.5 s for both. */
static void
test_waits_for_slowest (void)
{
  g_auto (OneRole) o = { 0 };
  one_role_init (&o, "ar", 0, 0.5, 0);
  int a = compute (o.s, o.c, "fwd", 1, NULL, 0);
  coll (o.s, o.k, o.comm, &a, 1);
  DpsSchedRank r[2] = { rank_of (o.role), rank_of (o.role) };
  r[1].speed = r[1].speed_mean = 2;
  DpsSchedGroup g = { 0 };
  DpsSchedResult out;
  g_assert_cmpfloat_with_epsilon (run (o.s, r, 2, &g, 1, NULL, &out), 2.5, 1e-12);
  g_assert_cmpint (out.critical, ==, 1);
  g_assert_cmpfloat (out.comms[o.comm].count, ==, 1);
  g_assert_cmpfloat_with_epsilon (out.comms[o.comm].time_s, 0.5, 1e-12);
  /* the mean rank did 1.5 s of work */
  g_assert_cmpfloat_with_epsilon (out.mean.work_mean_s[DPS_PART_FORWARD], 1.5, 1e-12);
  dps_sched_result_clear (&out);
}

/* A compute task that waits for a collective (an all-gather of the
 * parameters its forward needs) starts at the collective's end: 0.7 s,
 * then 1 s of forward: 1.7 s; the 0.7 s its compute stood idle count as
 * that collective's exposed time. */
static void
test_compute_waits (void)
{
  g_auto (OneRole) o = { 0 };
  one_role_init (&o, "ag", 0.2, 0.7, 0);
  int ag = coll (o.s, o.k, o.comm, NULL, 0);
  compute (o.s, o.c, "fwd", 1, &ag, 1);
  DpsSchedResult out;
  g_assert_cmpfloat_with_epsilon (run_one (&o, NULL, &out), 1.7, 1e-12);
  g_assert_cmpfloat_with_epsilon (out.crit.exposed_s[o.comm], 0.7, 1e-12);
  dps_sched_result_clear (&out);
}

/* Two process groups whose collectives share one resource (a GPU's NICs):
 * each of 0.5 s latency and 1 s of bandwidth alone.  Their latencies run
 * side by side (0.5 s), then each gets half the resource: 2 s more, both
 * end at 2.5 s.  On separate resources both end at 1.5 s. */
static void
test_shared_resource (void)
{
  for (int shared = 0; shared < 2; shared++) {
    g_autoptr (DpsSched) s = dps_sched_new ();
    Fixed f = { 0.5, 1.5 };
    int comm = dps_sched_comm_add (s, &(DpsSchedComm) { "ar", fixed_time, &f, 0, 0, FALSE });
    int role = dps_sched_role_add (s, "r", 0);
    int k0 = dps_sched_stream_add (s, role, "dp-a", 0);
    int k1 = dps_sched_stream_add (s, role, "dp-b", 1);
    coll (s, k0, comm, NULL, 0);
    coll (s, k1, comm, NULL, 0);
    DpsSchedRank r = rank_of (role);
    r.groups[0] = 0;
    r.groups[1] = 1;
    DpsSchedGroup g[2] = { { 1, { 0 } }, { 1, { shared ? 0 : 1 } } };
    DpsSchedResult out;
    g_assert_cmpfloat_with_epsilon (run (s, &r, 1, g, 2, NULL, &out), shared ? 2.5 : 1.5, 1e-12);
    dps_sched_result_clear (&out);
  }
}

/* Overlap as a shared resource: a 1 s compute task and a 0.5 s collective
 * start together, each slowing the other by 20% (contention 0.2 both
 * ways).  The collective runs at 1/1.2: 0.6 s; meanwhile the compute does
 * 0.6/1.2 = 0.5 s of its work, then the other 0.5 s alone: it ends at
 * 1.1 s.  The compute's extension, 0.1 s, is the contention times the
 * collective's own time, as the closed form of DDP's overlap had it. */
static void
test_contention (void)
{
  g_auto (OneRole) o = { 0 };
  one_role_init (&o, "ar", 0, 0.5, 0.2);
  compute (o.s, o.c, "bwd", 1, NULL, 0);
  coll (o.s, o.k, o.comm, NULL, 0);
  DpsSchedResult out;
  g_assert_cmpfloat_with_epsilon (run_one (&o, NULL, &out), 1.1, 1e-12);
  g_assert_cmpfloat_with_epsilon (out.crit.wall_s[DPS_PART_FORWARD] - out.crit.work_s[DPS_PART_FORWARD], 0.1, 1e-12);
  g_assert_cmpfloat_with_epsilon (dps_sched_rank_comm_s (&out.crit), 0.6, 1e-12);
  dps_sched_result_clear (&out);
}

/* A collective (contention 0.2) its stream launches as the compute task
 * it waits for ends, and a compute task waiting for it: a 1 s, the
 * collective [1, 1.5] (nothing computes beside it), b [1.5, 2.5].  The
 * rank still counts as computing in the instant a ends; the collective's
 * contention must not re-time a compute stream that runs nothing (it
 * left a stray end event behind, which ended b's successor early). */
static void
test_collective_after_compute (void)
{
  g_auto (OneRole) o = { 0 };
  one_role_init (&o, "ag", 0, 0.5, 0.2);
  int a = compute (o.s, o.c, "a", 1, NULL, 0);
  int g = coll (o.s, o.k, o.comm, &a, 1);
  compute (o.s, o.c, "b", 1, &g, 1);
  compute (o.s, o.c, "c", 1, NULL, 0);
  DpsSchedResult out;
  g_assert_cmpfloat_with_epsilon (run_one (&o, NULL, &out), 3.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (out.crit.wall_s[DPS_PART_FORWARD], 3.0, 1e-12);
  dps_sched_result_clear (&out);
}

/* Memory as a timeline: 10 bytes static; forward of two layers saves 5
 * each, backward frees them, and a 3-byte buffer lives from the second
 * backward to the end.  Peak 20, reached by forward 1; 13 remain before
 * the last free. */
static void
test_memory_peak (void)
{
  g_autoptr (DpsSched) s = dps_sched_new ();
  int role = dps_sched_role_add (s, "r", 10);
  int c = dps_sched_stream_add (s, role, "compute", DPS_SCHED_NO_STREAM);
  DpsTaskSpec t = { .part = DPS_PART_FORWARD, .work_s = 1, .comm = -1, .alloc_bytes = 5 };
  t.label = "f0";
  dps_sched_task_add (s, c, &t);
  t.label = "f1";
  int f1 = dps_sched_task_add (s, c, &t);
  t = (DpsTaskSpec) { .label = "b1", .part = DPS_PART_BACKWARD, .work_s = 1, .comm = -1, .free_bytes = 5 };
  dps_sched_task_add (s, c, &t);
  t = (DpsTaskSpec) { .label = "b0", .part = DPS_PART_BACKWARD, .work_s = 1, .comm = -1, .alloc_bytes = 3, .free_bytes = 5 };
  dps_sched_task_add (s, c, &t);
  DpsSchedRank r = rank_of (role);
  r.trace = TRUE;
  DpsSchedOpts o = { .trace = TRUE };
  DpsSchedResult out;
  run (s, &r, 1, NULL, 0, &o, &out);
  g_assert_cmpfloat (out.peak_bytes, ==, 20);
  g_assert_cmpint (out.peak.peak_task, ==, f1);
  g_assert_cmpfloat (out.peak.peak_at_s, ==, 1.0);
  g_assert_cmpfloat (out.peak.peak_kind_bytes[DPS_MEM_ACTIVATIONS], ==, 10);
  /* the counter track: 10 at 0, 15, 20, 15, 18, 13 */
  double want[] = { 10, 15, 20, 15, 18, 13 };
  g_assert_cmpuint (out.memory->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < out.memory->len; i++)
    g_assert_cmpfloat (g_array_index (out.memory, DpsSchedMemSample, i).bytes, ==, want[i]);
  g_assert_cmpuint (out.spans->len, ==, 4);
  dps_sched_result_clear (&out);
}

/* Held bytes live only while their task runs: 10 static, a forward saves
 * 5, a backward holding 8 (a loss's gradients) frees the 5.  The peak is
 * 23 as the backward starts (10 + 5 + 8), 13 of it activations; the track
 * returns to 10 when it ends. */
static void
test_memory_hold (void)
{
  g_autoptr (DpsSched) s = dps_sched_new ();
  int role = dps_sched_role_add (s, "r", 10);
  int c = dps_sched_stream_add (s, role, "compute", DPS_SCHED_NO_STREAM);
  DpsTaskSpec t = { .label = "f", .part = DPS_PART_FORWARD, .work_s = 1, .comm = -1, .alloc_bytes = 5 };
  dps_sched_task_add (s, c, &t);
  t = (DpsTaskSpec) { .label = "b", .part = DPS_PART_BACKWARD, .work_s = 1, .comm = -1, .free_bytes = 5,
                      .hold_bytes = 8 };
  int b = dps_sched_task_add (s, c, &t);
  DpsSchedRank r = rank_of (role);
  r.trace = TRUE;
  DpsSchedOpts o = { .trace = TRUE };
  DpsSchedResult out;
  run (s, &r, 1, NULL, 0, &o, &out);
  g_assert_cmpfloat (out.peak_bytes, ==, 23);
  g_assert_cmpint (out.peak.peak_task, ==, b);
  g_assert_cmpfloat (out.peak.peak_kind_bytes[DPS_MEM_ACTIVATIONS], ==, 13);
  GArray *mem = out.memory;
  g_assert_cmpfloat (g_array_index (mem, DpsSchedMemSample, mem->len - 1).bytes, ==, 10);
  dps_sched_result_clear (&out);
}

/* With jitter, the same seed gives the same step and another seed another. */
static void
test_seed (void)
{
  g_autoptr (DpsSched) s = dps_sched_new ();
  int role = dps_sched_role_add (s, "r", 0);
  int c = dps_sched_stream_add (s, role, "compute", DPS_SCHED_NO_STREAM);
  DpsTaskSpec t = { .label = "l", .part = DPS_PART_FORWARD, .work_s = 1, .comm = -1, .flags = DPS_TASK_JITTER };
  for (int i = 0; i < 10; i++)
    dps_sched_task_add (s, c, &t);
  DpsSchedRank r[4] = { rank_of (role), rank_of (role), rank_of (role), rank_of (role) };
  DpsSchedOpts o = { .jitter_cv = 0.1 };
  double steps[3];
  guint32 seeds[3] = { 5, 5, 6 };
  for (int i = 0; i < 3; i++) {
    GRand *rand = g_rand_new_with_seed (seeds[i]);
    DpsSchedResult out;
    g_assert_true (dps_sched_run (s, r, 4, NULL, 0, &o, rand, &out, NULL));
    steps[i] = out.step_s;
    dps_sched_result_clear (&out);
    g_rand_free (rand);
  }
  g_assert_cmpfloat (steps[0], ==, steps[1]);
  g_assert_cmpfloat (steps[0], !=, steps[2]);
  g_assert_cmpfloat (fabs (steps[0] - 10), <, 10 * 0.1 * 3);   /* the slowest of 4, within 3 sd */
}

/* A collective launched from a thread: forward a (1 s) then b (2 s).
 * Ready after a, while b computes, it waits launch_busy_s (5 s) but at
 * the latest until the compute ends (3 s): 3 + 0.5.  Ready after b,
 * with nothing computing, it waits launch_s (0.1 s): 3.1 + 0.5. */
static void
test_launch_delay (void)
{
  for (int busy = 0; busy < 2; busy++) {
    g_auto (OneRole) o = { 0 };
    one_role_init (&o, "ar", 0, 0.5, 0);
    int a = compute (o.s, o.c, "a", 1, NULL, 0);
    int b = compute (o.s, o.c, "b", 2, NULL, 0);
    coll (o.s, o.k, o.comm, busy ? &a : &b, 1);
    DpsSchedOpts opts = { .launch_s = 0.1, .launch_busy_s = 5 };
    DpsSchedResult out;
    g_assert_cmpfloat_with_epsilon (run_one (&o, &opts, &out), busy ? 3.5 : 3.6, 1e-12);
    g_assert_cmpfloat_with_epsilon (dps_sched_rank_comm_s (&out.crit), busy ? 2.5 : 0.6, 1e-12);
    dps_sched_result_clear (&out);
  }
}

/* A collective timed below zero (-1 s, latency -2 s: a correction fitted
 * past its sizes) takes no time: compute of 1 s, the collective at 1 s,
 * compute of 2 s that waits for it; the step is 3 s, and the run neither
 * schedules an event in its past nor stalls. */
static void
test_negative_time (void)
{
  g_auto (OneRole) o = { 0 };
  one_role_init (&o, "ar", -2, -1, 0);
  int a = compute (o.s, o.c, "a", 1, NULL, 0);
  int x = coll (o.s, o.k, o.comm, &a, 1);
  compute (o.s, o.c, "b", 2, &x, 1);
  DpsSchedResult out;
  g_assert_cmpfloat_with_epsilon (run_one (&o, NULL, &out), 3.0, 1e-12);
  dps_sched_result_clear (&out);
}

/* Members whose streams disagree (one never launches the collective) wait
 * forever: the run fails naming the rank and the task. */
static void
test_deadlock (void)
{
  g_autoptr (DpsSched) s = dps_sched_new ();
  Fixed f = { 0, 0.5 };
  int comm = dps_sched_comm_add (s, &(DpsSchedComm) { "ar", fixed_time, &f, 0, 0, FALSE });
  int a = dps_sched_role_add (s, "a", 0), b = dps_sched_role_add (s, "b", 0);
  int ka = dps_sched_stream_add (s, a, "dp", 0);
  dps_sched_stream_add (s, b, "dp", 0);
  coll (s, ka, comm, NULL, 0);
  DpsSchedRank r[2] = { rank_of (a), rank_of (b) };
  DpsSchedGroup g = { 0 };
  DpsSchedOpts o = { 0 };
  DpsSchedResult out;
  g_autoptr (GError) e = NULL;
  g_assert_false (dps_sched_run (s, r, 2, &g, 1, &o, NULL, &out, &e));
  g_assert_error (e, DPS_ERROR, DPS_ERROR_INPUT);
  g_assert_nonnull (strstr (e->message, "rank 0"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sched/serialise", test_serialise);
  g_test_add_func ("/sched/waits-for-slowest", test_waits_for_slowest);
  g_test_add_func ("/sched/compute-waits", test_compute_waits);
  g_test_add_func ("/sched/shared-resource", test_shared_resource);
  g_test_add_func ("/sched/contention", test_contention);
  g_test_add_func ("/sched/collective-after-compute", test_collective_after_compute);
  g_test_add_func ("/sched/memory-peak", test_memory_peak);
  g_test_add_func ("/sched/memory-hold", test_memory_hold);
  g_test_add_func ("/sched/seed", test_seed);
  g_test_add_func ("/sched/launch-delay", test_launch_delay);
  g_test_add_func ("/sched/deadlock", test_deadlock);
  g_test_add_func ("/sched/negative-time", test_negative_time);
  return g_test_run ();
}
