/* Unit tests of the strategies' programs (sim/strategy-fsdp.c), run on the
 * schedule with collectives of fixed times, against timelines worked out
 * by hand in each comment. */
#include "sim/strategy.h"
#include "sim/model-gen.h"

#include <math.h>

/* A collective that takes total seconds whatever its size. */
typedef struct { double total; } Fixed;

static double
fixed_time (const void *data, double bytes, double *lat_s, DpsAlgo *algo, DpsProto *proto)
{
  *lat_s = 0;
  return ((const Fixed *) data)->total;
}

/* A model of 4 layers, each its own unit. */
static DpsModel *
four_layers (void)
{
  static const int widths[] = { 8, 8, 8, 8, 8 };
  DpsModel *m = dps_model_gen_mlp ("m", widths, 5);
  g_assert_cmpint (dps_model_n_layers (m), ==, 4);
  return m;
}

typedef struct {
  DpsModel *m;
  double fwd[4], bwd[4], rec[4], act[4], kept[4], gather[5], reduce[5];
  int unit[4];
  Fixed ag, rs, ar;
  DpsShardStep step;
} Case;

/* Four units of 1 s forward and 2 s backward, gathers and reductions of
 * 0.25 s, 10 bytes of activations a layer, a unit's parameters 1 byte
 * gathered and its gradients 2 bytes unsharded, 5 bytes static; the
 * optimizer 0.5 s; no root. */
static void
case_init (Case *k)
{
  k->m = four_layers ();
  for (int l = 0; l < 4; l++) {
    k->fwd[l] = 1, k->bwd[l] = 2, k->rec[l] = 0, k->act[l] = 10, k->kept[l] = 0;
    k->gather[l] = 1, k->reduce[l] = 2, k->unit[l] = l;
  }
  k->gather[4] = k->reduce[4] = 0;
  k->ag.total = k->rs.total = k->ar.total = 0.25;
  k->step = (DpsShardStep) {
    .model = k->m, .grad_accum = 1, .fwd_s = k->fwd, .bwd_s = k->bwd, .recompute_s = k->rec, .act_bytes = k->act,
    .kept_bytes = k->kept, .optimizer_s = 0.5, .static_bytes = 5, .n_units = 4, .unit_of_layer = k->unit,
    .unit_gather_bytes = k->gather, .unit_reduce_bytes = k->reduce, .reshard_after_forward = TRUE,
    .limit_all_gathers = 2, .backward_prefetch = DPS_PREFETCH_PRE, .shards = 2,
    .allgather = { "all-gather", fixed_time, &k->ag, 0, 0 },
    .reducescatter = { "reduce-scatter", fixed_time, &k->rs, 0, 0 },
    .allreduce = { "all-reduce", fixed_time, &k->ar, 0, 0 },
  };
}

static double
run (const DpsShardStep *step, DpsSchedResult *out)
{
  g_autoptr (DpsSched) s = dps_strategy_fsdp (step);
  DpsSchedRank r = { .role = 0, .weight = 1, .speed = 1, .speed_mean = 1 };
  r.groups[DPS_SHARD_GROUP_SLOT] = 0;
  r.groups[DPS_REPLICATE_GROUP_SLOT] = 1;
  DpsSchedGroup g[2] = { { 1, { 0 } }, { 1, { 1 } } };
  DpsSchedOpts o = { 0 };
  g_autoptr (GError) e = NULL;
  g_assert_true (dps_sched_run (s, &r, 1, g, step->hsdp ? 2 : 1, &o, NULL, out, &e));
  g_assert_no_error (e);
  return out->step_s;
}

/* FULL_SHARD with BACKWARD_PRE and the rate limiter of 2.  Forward: gather
 * 0 [0, 0.25] and 1 [0.25, 0.5]; unit 0 computes [0.25, 1.25], after
 * which gather 2 may go [1.25, 1.5]; then 1 [1.25, 2.25], gather 3
 * [2.25, 2.5], 2 [2.25, 3.25], 3 [3.25, 4.25].  Backward: unit 3 and (PRE)
 * unit 2 gathered again right after [2.5, 3.0]; unit 3 computes [4.25,
 * 6.25], its reduce-scatter [6.25, 6.5], unit 1's gather (held back until
 * unit 3 is done) [6.5, 6.75]; unit 2 [6.25, 8.25], reduce [8.25, 8.5],
 * unit 0's gather [8.5, 8.75]; unit 1 [8.25, 10.25], reduce [10.25,
 * 10.5]; unit 0 [10.25, 12.25], reduce [12.25, 12.5]; the optimizer
 * [12.5, 13].  Exposed: unit 0's first gather and the last reduction,
 * 0.25 s each.  Memory peaks as unit 3's backward starts: 5 static, 40 of
 * activations, units 3 and 2 gathered (2) and unit 3's gradients (2): 49. */
static void
test_full_shard (void)
{
  Case k;
  case_init (&k);
  DpsSchedResult out;
  g_assert_cmpfloat_with_epsilon (run (&k.step, &out), 13.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (out.crit.exposed_s[0], 0.25, 1e-12);   /* all-gather */
  g_assert_cmpfloat_with_epsilon (out.crit.exposed_s[1], 0.25, 1e-12);   /* reduce-scatter */
  g_assert_cmpfloat (out.comms[0].count, ==, 8);
  g_assert_cmpfloat (out.comms[1].count, ==, 4);
  g_assert_cmpfloat (out.peak_bytes, ==, 49);
  g_assert_cmpfloat (out.peak.peak_at_s, ==, 4.25);
  g_assert_cmpfloat (out.peak.peak_kind_bytes[DPS_MEM_ACTIVATIONS], ==, 40);
  g_assert_cmpfloat (out.peak.peak_kind_bytes[DPS_MEM_BUFFERS], ==, 4);
  dps_sched_result_clear (&out);
  dps_model_free (k.m);
}

/* SHARD_GRAD_OP (ZeRO-2): the forward's gathers are kept until each unit's
 * backward ends, none again: the same 13 s here, 4 gathers, and the
 * memory peaks as unit 3's forward starts with all four units gathered
 * and its activations: 5 + 40 + 4 = 49, staying at 49 + 2 (unit 3's
 * gradients) - 0 when its backward starts: 51. */
static void
test_shard_grad_op (void)
{
  Case k;
  case_init (&k);
  k.step.reshard_after_forward = FALSE;
  DpsSchedResult out;
  g_assert_cmpfloat_with_epsilon (run (&k.step, &out), 13.0, 1e-12);
  g_assert_cmpfloat (out.comms[0].count, ==, 4);
  g_assert_cmpfloat (out.peak_bytes, ==, 51);
  g_assert_cmpfloat (out.peak.peak_at_s, ==, 4.25);
  dps_sched_result_clear (&out);
  dps_model_free (k.m);
}

/* Two micro-steps under no_sync (FSDP2's set_requires_gradient_sync(False)
 * before the last).  The first runs as test_full_shard's without its
 * reductions: unit 1's gather no longer waits behind unit 3's
 * reduce-scatter ([6.25, 6.5]), unit 0's [8.25, 8.5], and the second
 * micro-step's gathers of units 0 and 1, which wait for nothing but the
 * stream, follow at once [8.5, 9.0]; each unit's gradients (2 bytes) are
 * kept and its gathered parameters freed.  The second starts at 12.25:
 * units 0-3 forward [12.25, 16.25] (gathers 2 and 3 in time), then as in
 * test_full_shard 12 s later: unit 3 backward [16.25, 18.25], its
 * reduce-scatter [18.25, 18.5] ... unit 0 [22.25, 24.25], its
 * reduce-scatter [24.25, 24.5], the optimizer [24.5, 25].  Without
 * no_sync the first micro-step's reduce-scatters run on the same stream
 * and its last [12.25, 12.5] holds the second's first gather back:
 * 25.5 s.  4 reduce-scatters, not 8; 16 gathers either way.  Memory
 * peaks as unit 3's second backward starts: 5 static, 8 accumulated, 40
 * of activations, units 3 and 2 gathered (2), unit 3's new gradients (2):
 * 57, of which 12 buffers. */
static void
test_no_sync (void)
{
  Case k;
  case_init (&k);
  k.step.grad_accum = 2;
  DpsSchedResult out;
  g_assert_cmpfloat_with_epsilon (run (&k.step, &out), 25.5, 1e-12);
  g_assert_cmpfloat (out.comms[1].count, ==, 8);
  dps_sched_result_clear (&out);
  k.step.accum_no_sync = TRUE;
  g_assert_cmpfloat_with_epsilon (run (&k.step, &out), 25.0, 1e-12);
  g_assert_cmpfloat (out.comms[0].count, ==, 16);
  g_assert_cmpfloat (out.comms[1].count, ==, 4);
  g_assert_cmpfloat (out.peak_bytes, ==, 57);
  g_assert_cmpfloat (out.peak.peak_at_s, ==, 16.25);
  g_assert_cmpfloat (out.peak.peak_kind_bytes[DPS_MEM_BUFFERS], ==, 12);
  dps_sched_result_clear (&out);
  dps_model_free (k.m);
}

/* Gathers slower than compute (1.5 s against 1 s): forward is the
 * gathers' pace.  Gather 0 [0, 1.5], 1 [1.5, 3]; unit 0 [1.5, 2.5];
 * gather 2 [3, 4.5]; unit 1 [3, 4]; gather 3 (after unit 1) [4.5, 6];
 * unit 2 [4.5, 5.5]; unit 3 [6, 7]: the compute waits 1.5 + 3 x 0.5 s. */
static void
test_gathers_bound (void)
{
  Case k;
  case_init (&k);
  k.ag.total = 1.5;
  k.step.reshard_after_forward = FALSE;   /* backward then needs no gather */
  DpsSchedResult out;
  run (&k.step, &out);
  /* backward of 8 s from 7, reductions of 0.25 s behind it, optimizer */
  g_assert_cmpfloat_with_epsilon (out.step_s, 7 + 8 + 0.25 + 0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (out.crit.exposed_s[0], 1.5 + 0.5 + 0.5 + 0.5, 1e-12);
  dps_sched_result_clear (&out);
  dps_model_free (k.m);
}

/* HSDP: each unit's reduced shard all-reduced across the replicate group
 * (0.25 s) after its reduce-scatter; the last one [12.5, 12.75] delays the
 * optimizer: 13.25 s. */
static void
test_hsdp (void)
{
  Case k;
  case_init (&k);
  k.step.hsdp = TRUE;
  DpsSchedResult out;
  g_assert_cmpfloat_with_epsilon (run (&k.step, &out), 13.25, 1e-12);
  g_assert_cmpfloat (out.comms[2].count, ==, 4);
  dps_sched_result_clear (&out);
  dps_model_free (k.m);
}

/* A pipeline of 4 stages, 2 layers each (8 in all), each layer 0.5 s
 * forward and 1 s backward a micro-batch (a stage: 1 and 2 s), 8
 * micro-batches, sends instant, 1 byte of activations a layer.  vpp 2
 * puts layer j on stage j mod 4, chunk j / 4. */
typedef struct {
  DpsModel *m;
  double fwd[8], bwd[8], rec[8], act[8], kept[8], tpb[8], grads[8], stat[4], opt[4];
  int stage[8], chunk[8], tpp[8];
  Fixed zero;
  DpsPipeStep step;
} Pipe;

static void
pipe_init (Pipe *p, DpsPipeSchedule sched, int vpp)
{
  static const int widths[] = { 4, 4, 4, 4, 4, 4, 4, 4, 4 };
  p->m = dps_model_gen_mlp ("m", widths, 9);
  for (int l = 0; l < 8; l++) {
    p->fwd[l] = 0.5, p->bwd[l] = 1, p->rec[l] = 0, p->act[l] = 1, p->kept[l] = 0, p->tpb[l] = 0, p->grads[l] = 0;
    p->tpp[l] = 0;
    p->stage[l] = vpp > 1 ? l % 4 : l / 2;
    p->chunk[l] = vpp > 1 ? l / 4 : 0;
  }
  for (int s = 0; s < 4; s++)
    p->stat[s] = 0, p->opt[s] = 0;
  p->zero.total = 0;
  DpsSchedComm none = { "c", fixed_time, &p->zero, 0, 0, FALSE };
  p->step = (DpsPipeStep) {
    .model = p->m, .pp = 4, .vpp = vpp, .n_micro = 8, .schedule = sched, .fwd_s = p->fwd, .bwd_s = p->bwd,
    .recompute_s = p->rec, .act_bytes = p->act, .kept_bytes = p->kept, .stage_of_layer = p->stage,
    .chunk_of_layer = p->chunk, .tp_bytes = p->tpb, .tp_per_pass = p->tpp, .p2p_bytes = 0, .grad_bytes = p->grads,
    .stage_static_bytes = p->stat, .stage_optimizer_s = p->opt,
    .tp_allreduce = none, .tp_reducescatter = none, .tp_allgather = none, .p2p = none, .dp_allreduce = none,
  };
}

/* Runs p on one rank a stage (links wired as ddp-parallel.c does). */
static double
pipe_run (Pipe *p, DpsSchedResult *out)
{
  g_autoptr (DpsSched) s = dps_strategy_pipeline (&p->step);
  int V = p->step.vpp, pp = 4, ng = pp + pp + pp * V * 2;
  DpsSchedRank r[4];
  DpsSchedGroup *g = g_new0 (DpsSchedGroup, ng);
  for (int i = 0; i < ng; i++)
    g[i] = (DpsSchedGroup) { 1, { i } };
  for (int st = 0; st < pp; st++) {
    r[st] = (DpsSchedRank) { .role = st, .weight = 1, .speed = 1, .speed_mean = 1 };
    r[st].groups[DPS_PIPE_TP_SLOT] = st;
    r[st].groups[DPS_PIPE_DP_SLOT] = pp + st;
  }
  for (int st = 0; st < pp; st++)
    for (int c = 0; c < V; c++)
      if (dps_pipe_chunk_has_next (pp, V, st, c)) {
        int ns = st < pp - 1 ? st + 1 : 0, nc = st < pp - 1 ? c : c + 1, link = 2 * pp + (st * V + c) * 2;
        r[st].groups[DPS_PIPE_P2P_SLOT (c, DPS_P2P_ACT_OUT)] = link;
        r[st].groups[DPS_PIPE_P2P_SLOT (c, DPS_P2P_GRAD_IN)] = link + 1;
        r[ns].groups[DPS_PIPE_P2P_SLOT (nc, DPS_P2P_ACT_IN)] = link;
        r[ns].groups[DPS_PIPE_P2P_SLOT (nc, DPS_P2P_GRAD_OUT)] = link + 1;
      }
  DpsSchedOpts o = { 0 };
  g_autoptr (GError) e = NULL;
  gboolean ok = dps_sched_run (s, r, 4, g, ng, &o, NULL, out, &e);
  g_free (g);
  g_assert_no_error (e);
  g_assert_true (ok);
  return out->step_s;
}

/* 1F1B and GPipe take (M + pp - 1)(t_f + t_b) = 11 x 3 = 33 s: every
 * stage computes 24 s and waits out the bubble, 3 x 3 s.  1F1B holds at
 * most pp micro-batches' activations on the first stage (4 x 2 layers x
 * 1 byte, plus the one a layer's backward is about to free: the peak is
 * 8 bytes); GPipe all 8 (16 bytes). */
static void
test_pipeline_bubble (void)
{
  double want_peak[] = { 16, 8 };
  DpsPipeSchedule kinds[] = { DPS_PIPE_GPIPE, DPS_PIPE_1F1B };
  for (int i = 0; i < 2; i++) {
    Pipe p;
    pipe_init (&p, kinds[i], 1);
    DpsSchedResult out;
    g_assert_cmpfloat_with_epsilon (pipe_run (&p, &out), 33.0, 1e-9);
    g_assert_cmpfloat_with_epsilon (out.mean.work_s[DPS_PART_FORWARD] + out.mean.work_s[DPS_PART_BACKWARD], 24.0, 1e-9);
    g_assert_cmpfloat (out.peak_bytes, ==, want_peak[i]);
    g_assert_cmpint (out.peak_rank, ==, 0);
    dps_sched_result_clear (&out);
    dps_model_free (p.m);
  }
}

/* The tensors a stage receives are its own: a send and a receive pair up
 * in one transfer, and only the receiving rank allocates (1 byte a
 * micro-batch here) until its backward frees it.  1F1B and interleaved
 * 1F1B bound the micro-batches in flight, so each stage's peak is the
 * same over 8 micro-batches as over 32; were a transfer's allocation
 * charged to its sender too, never freed there, a stage's peak would
 * grow by a byte for every micro-batch it sends on. */
static void
test_pipeline_p2p_memory (void)
{
  DpsPipeSchedule kinds[] = { DPS_PIPE_1F1B, DPS_PIPE_INTERLEAVED };
  for (int i = 0; i < 2; i++) {
    double peak[2];
    for (int k = 0; k < 2; k++) {
      Pipe p;
      pipe_init (&p, kinds[i], i ? 2 : 1);
      p.step.p2p_bytes = 1;
      p.step.n_micro = k ? 32 : 8;
      DpsSchedResult out;
      pipe_run (&p, &out);
      peak[k] = out.peak_bytes;
      dps_sched_result_clear (&out);
      dps_model_free (p.m);
    }
    g_assert_cmpfloat (peak[1], ==, peak[0]);
  }
}

/* Interleaved 1F1B over 2 virtual stages: the bubble shrinks by vpp, to
 * (pp - 1)(t_f + t_b) / 2 = 4.5 s: 24 + 4.5 = 28.5 s. */
static void
test_pipeline_interleaved (void)
{
  Pipe p;
  pipe_init (&p, DPS_PIPE_INTERLEAVED, 2);
  DpsSchedResult out;
  g_assert_cmpfloat_with_epsilon (pipe_run (&p, &out), 28.5, 1e-9);
  dps_sched_result_clear (&out);
  dps_model_free (p.m);
}

/* Megatron's distributed optimizer on the pipeline of test_pipeline_bubble
 * under GPipe: each layer's parameters gathered in 1 s over the stage's
 * own data-parallel group before its first forward (no gradients to
 * reduce).  Waiting for all of a stage's gathers, stage 0 starts its first
 * forward at 2 s, and so the whole step: 33 + 2 = 35 s (the later stages'
 * gathers end before their first micro-batch arrives).  Each layer waiting
 * for its own (--overlap-param-gather), stage 0's layer 0 runs 1-1.5 s,
 * its layer 1 waits for its gather to 2 s and ends at 2.5 s instead of
 * 1 s: 33 + 1.5 = 34.5 s. */
static void
test_pipeline_param_gather (void)
{
  const double want[] = { 35.0, 34.5 };
  for (int overlap = 0; overlap < 2; overlap++) {
    Pipe p;
    pipe_init (&p, DPS_PIPE_GPIPE, 1);
    double params[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    Fixed one = { 1 };
    p.step.param_bytes = params;
    p.step.overlap_param_gather = overlap;
    p.step.dp_allgather = (DpsSchedComm) { "all-gather (data parallel)", fixed_time, &one, 0, 0, FALSE };
    p.step.dp_reducescatter = (DpsSchedComm) { "reduce-scatter (data parallel)", fixed_time, &p.zero, 0, 0, FALSE };
    DpsSchedResult out;
    g_assert_cmpfloat_with_epsilon (pipe_run (&p, &out), want[overlap], 1e-9);
    /* the comm kinds in the order strategy-pipeline.c adds them: the
     * data-parallel all-gather last, 8 gathers (2 a stage, each stage its
     * own group) */
    g_assert_cmpint (out.n_comms, ==, 7);
    g_assert_cmpfloat (out.comms[6].count, ==, 8);
    dps_sched_result_clear (&out);
    dps_model_free (p.m);
  }
}

/* The data-parallel all-reduce of each layer's gradients (1 s each) on
 * the 1F1B pipeline of 33 s: beside the backward, stage 0's layer 1
 * reduces while its layer 0 runs the last backward (32-33 s), layer 0's
 * after it: 34 s.  After the whole backward (no_overlap: Megatron-LM's
 * local DDP of 2021, DeepSpeed's pipeline engine) both follow the last
 * backward: 35 s. */
static void
test_pipeline_no_overlap (void)
{
  const double want[] = { 34.0, 35.0 };
  for (int after = 0; after < 2; after++) {
    Pipe p;
    pipe_init (&p, DPS_PIPE_1F1B, 1);
    Fixed one = { 1 };
    for (int l = 0; l < 8; l++)
      p.grads[l] = 1;
    p.step.dp_allreduce = (DpsSchedComm) { "all-reduce (data parallel)", fixed_time, &one, 0, 0, FALSE };
    p.step.no_overlap = after;
    DpsSchedResult out;
    g_assert_cmpfloat_with_epsilon (pipe_run (&p, &out), want[after], 1e-9);
    dps_sched_result_clear (&out);
    dps_model_free (p.m);
  }
}

/* Tensor parallelism on the same GPipe pipeline: each layer in 2 pieces
 * (0.25 s forward, 0.5 s backward each), an all-reduce of 0.25 s after
 * each.  Waited for, a stage's forward takes 4 x 0.5 = 2 s a micro-batch
 * and its backward 2 x (0.5 + 0.25) x 2 = 3 s: (8 + 3) x 5 = 55 s (the
 * last stage's first backward, micro-batch 7's under GPipe, starting from
 * that micro-batch's output: after the all-reduce ending its forward).
 * Overlapped (--tp-comm-overlap), each runs beside its piece, no longer
 * than it: the step is that of no tensor parallelism, 33 s.  At 0.5 s
 * an all-reduce outlasts a forward piece by 0.25 s: a stage's forward
 * takes 4 x 0.5 = 2 s a micro-batch (as waited for), its backward still
 * 2 s: (8 + 3) x 4 = 44 s. */
static void
test_pipeline_tp_overlap (void)
{
  const double want[] = { 55.0, 33.0, 44.0 };
  for (int overlap = 0; overlap < 3; overlap++) {
    Pipe p;
    pipe_init (&p, DPS_PIPE_GPIPE, 1);
    Fixed quarter = { overlap < 2 ? 0.25 : 0.5 };
    for (int l = 0; l < 8; l++)
      p.tpp[l] = 2, p.tpb[l] = 1;
    p.step.tp_allreduce = (DpsSchedComm) { "all-reduce (tensor parallel)", fixed_time, &quarter, 0, 0, FALSE };
    p.step.tp_comm_overlap = overlap > 0;
    DpsSchedResult out;
    g_assert_cmpfloat_with_epsilon (pipe_run (&p, &out), want[overlap], 1e-9);
    dps_sched_result_clear (&out);
    dps_model_free (p.m);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/strategy/fsdp/full-shard", test_full_shard);
  g_test_add_func ("/strategy/fsdp/shard-grad-op", test_shard_grad_op);
  g_test_add_func ("/strategy/fsdp/no-sync", test_no_sync);
  g_test_add_func ("/strategy/fsdp/gathers-bound", test_gathers_bound);
  g_test_add_func ("/strategy/fsdp/hsdp", test_hsdp);
  g_test_add_func ("/strategy/pipeline/bubble", test_pipeline_bubble);
  g_test_add_func ("/strategy/pipeline/interleaved", test_pipeline_interleaved);
  g_test_add_func ("/strategy/pipeline/p2p-memory", test_pipeline_p2p_memory);
  g_test_add_func ("/strategy/pipeline/param-gather", test_pipeline_param_gather);
  g_test_add_func ("/strategy/pipeline/tp-overlap", test_pipeline_tp_overlap);
  g_test_add_func ("/strategy/pipeline/no-overlap", test_pipeline_no_overlap);
  return g_test_run ();
}
