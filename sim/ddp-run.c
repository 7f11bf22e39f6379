/* ddp-run.c — runs a configuration's step (see ddp.h): its program built
 * by its strategy (ddp.c, ddp-shard.c), trials of ranks drawn with their
 * stragglers, and the breakdown, memory and totals read from the runs. */
#include "sim/ddp-program.h"
#include "sim/base/error.h"
#include "sim/base/stats.h"
#include "sim/base/progress.h"

#include <math.h>
#include <string.h>

/* The ranks of one trial: every replica when anything is random (each its
 * own draws), else one rank for the normal replicas and one for the slow
 * ones, each timed as the slowest of the GPUs it stands for.  *n receives
 * their number; the array is new.  Their groups: one data-parallel (or
 * shard) group of all; for HSDP, replica r's shard group r / G and its
 * replicate group the ranks r mod G (ranks standing for many: one of
 * each). */
static DpsSchedRank *
trial_ranks (const DpsDdpConfig *c, const DpsDdpProgram *p, int replicas, GRand *rand, int *n)
{
  gboolean random = c->jitter_cv > 0 || c->os_noise_s > 0 || c->compute_cv > 0;
  int n_slow = MIN (c->slow_replicas, replicas);
  int distinct = random ? replicas : (n_slow > 0 && n_slow < replicas ? 2 : 1);
  DpsSchedRank *ranks = g_new0 (DpsSchedRank, distinct);
  for (int d = 0; d < distinct; d++) {
    /* random: replica d; otherwise rank 0 stands for the normal replicas
     * (the first is number n_slow) and rank 1 for the slow ones */
    int r = random ? d : (d == 0 && n_slow < replicas ? n_slow : 0);
    double weight = random ? 1 : (r >= n_slow ? replicas - n_slow : n_slow);
    double f = r < n_slow ? c->slow_factor : 1;
    if (c->compute_cv > 0)
      f *= dps_normal_factor (rand, c->compute_cv, 0.2);
    /* the GPUs' spread: a random factor per replica, or the slowest of the
     * rank's GPUs (its timeline, which the buckets wait for) against their
     * mean */
    double f_mean = f;
    if (c->gpu_spread_cv > 0 && random)
      f_mean = f *= dps_normal_factor (rand, c->gpu_spread_cv, 0.2);
    else if (c->gpu_spread_cv > 0)
      f *= 1 + c->gpu_spread_cv * dps_expected_max_normal (weight);
    double t0 = c->os_noise_s > 0 ? -c->os_noise_s * log (g_rand_double_range (rand, 1e-12, 1)) : 0;
    ranks[d] = (DpsSchedRank) { .role = 0, .weight = weight, .speed = f, .speed_mean = f_mean, .start_s = t0,
                                .trace = r < c->trace_replicas };
    ranks[d].groups[DPS_SHARD_GROUP_SLOT] = 0;
    if (p->hsdp) {
      int G = p->shards, n_shard = random ? replicas / G : 1;
      ranks[d].groups[DPS_SHARD_GROUP_SLOT] = random ? d / G : 0;
      ranks[d].groups[DPS_REPLICATE_GROUP_SLOT] = n_shard + (random ? d % G : 0);
    }
  }
  *n = distinct;
  return ranks;
}

typedef struct {
  double step, compute, straggler, exposed, comm_total, contention;
  double exposed_by_comm[DPS_SCHED_MAX_COMMS];
} TrialOut;

static const DpsPart compute_parts[] = { DPS_PART_FORWARD, DPS_PART_BACKWARD, DPS_PART_RECOMPUTE, DPS_PART_COPY };

/* One trial on sched: its ranks drawn from rand; the breakdown in out.
 * With trace, the run's spans and memory are kept in res (cleared by the
 * caller) and its ranks in *ranks_out. */
static gboolean
trial (const DpsDdpConfig *c, const DpsDdpProgram *p, int replicas, GRand *rand, gboolean trace, TrialOut *out,
       DpsSchedResult *res, DpsSchedRank **ranks_out, int *n_out, GError **error)
{
  DpsSchedOpts opts = { .jitter_cv = c->jitter_cv, .comm_factor = 1, .launch_s = c->launch_s,
                        .launch_busy_s = c->launch_busy_s, .trace = trace };
  if (c->comm_cv > 0)
    opts.comm_factor = dps_normal_factor (rand, c->comm_cv, 0.2);
  int n, n_groups = 1;
  DpsSchedRank *ranks = trial_ranks (c, p, p->pipeline ? p->dp : replicas, rand, &n);
  DpsSchedGroup *groups;
  if (p->pipeline) {
    DpsSchedRank *classes = ranks;
    ranks = dps_ddp_parallel_place (p, classes, n, &n, &groups, &n_groups);
    g_free (classes);
  } else {
    /* each group on resources of its own: one group's collectives run one
     * after another; HSDP's shard groups (NVLink) and replicate groups (the
     * GPUs' NICs) use different ones */
    for (int k = 0; k < n; k++)
      for (int slot = 0; slot < (p->hsdp ? 2 : 1); slot++)
        n_groups = MAX (n_groups, ranks[k].groups[slot] + 1);
    /* offload: each rank's link to host memory, a group (and resource) of its own each way */
    for (int k = 0; p->offload != DPS_OFFLOAD_NONE && k < n; k++)
      for (int way = 0; way < 2; way++)
        ranks[k].groups[DPS_HOST_LINK_SLOT + way] = n_groups++;
    groups = g_new0 (DpsSchedGroup, n_groups);
    for (int g = 0; g < n_groups; g++)
      groups[g] = (DpsSchedGroup) { 1, { g } };
  }
  gboolean ok = dps_sched_run (p->sched, ranks, n, groups, n_groups, &opts, rand, res, error);
  g_free (groups);
  if (!ok) {
    g_free (ranks);
    return FALSE;
  }
  /* the breakdown (ddp.h): the mean replica's compute, what the slowest
   * takes beyond it, the contention the critical rank's compute met, and
   * that rank's wait for the all-reduces */
  const DpsSchedRankStats *crit = &res->crit, *mean = &res->mean;
  double work_mean = mean->start_s, work_crit = crit->start_s, wall_crit = 0;
  for (gsize i = 0; i < G_N_ELEMENTS (compute_parts); i++) {
    work_mean += mean->work_mean_s[compute_parts[i]];
    work_crit += crit->work_s[compute_parts[i]];
    wall_crit += crit->wall_s[compute_parts[i]];
  }
  double extension = wall_crit - (work_crit - crit->start_s);
  double after = crit->wall_s[DPS_PART_COPY_OUT] + crit->wall_s[DPS_PART_OPTIMIZER];
  if (p->pipeline) {
    /* stages differ in their work: the critical one's, at its GPUs' mean */
    work_mean = crit->start_s;
    for (gsize i = 0; i < G_N_ELEMENTS (compute_parts); i++)
      work_mean += crit->work_mean_s[compute_parts[i]];
  }
  out->step = res->step_s;
  out->compute = work_mean + extension;
  out->straggler = work_crit - work_mean;
  out->contention = extension;
  out->exposed = MAX (0, res->step_s - work_crit - extension - after);
  out->comm_total = dps_sched_rank_comm_s (crit);
  for (int k = 0; k < DPS_SCHED_MAX_COMMS; k++)
    out->exposed_by_comm[k] = crit->exposed_s[k];
  if (ranks_out) {
    *ranks_out = ranks;
    *n_out = n;
  } else
    g_free (ranks);
  return TRUE;
}

/* Trials between the random-number states kept for redrawing the trace. */
#define TRACE_MARK 64

/* The batch per replica of c (from its global batch where one is given),
 * or FALSE with the quantity that is impossible. */
static gboolean
ddp_batch (const DpsDdpConfig *c, double *batch_out, GError **error)
{
  int N = c->n_gpus;
  if (c->bucket_cap_bytes <= 0 || !isfinite (c->bucket_cap_bytes)) {
    dps_set_field_error (error, DPS_FIELD_BUCKET_CAP, DPS_ERROR_INPUT, "must be more than 0");
    return FALSE;
  }
  if (c->first_bucket_bytes < 0) {
    dps_set_field_error (error, DPS_FIELD_FIRST_BUCKET, DPS_ERROR_INPUT, "must be 0 or more");
    return FALSE;
  }
  const DpsTopoSpec *spec = dps_topo_spec (c->topo);
  if (c->compute.fp8 && spec->gpu.fp8_flops <= 0) {
    dps_set_field_error (error, DPS_FIELD_PRECISION, DPS_ERROR_INPUT, "fp8: the %s has no FP8 tensor cores",
                         spec->gpu.model);
    return FALSE;
  }
  int replicas = N / MAX (1, c->tp * c->pp);
  if (c->slow_replicas > replicas) {
    dps_set_field_error (error, DPS_FIELD_SLOW_REPLICAS, DPS_ERROR_INPUT, "%d of only %d replica%s", c->slow_replicas,
                         replicas, replicas == 1 ? "" : "s");
    return FALSE;
  }
  if (c->grad_accum < 1 || c->trials < 1 || c->powersgd_rank < 1) {
    dps_set_field_error (error, c->grad_accum < 1 ? DPS_FIELD_GRAD_ACCUM : c->trials < 1 ? DPS_FIELD_TRIALS
                                                                                : DPS_FIELD_POWERSGD_RANK,
                         DPS_ERROR_INPUT, "must be at least 1");
    return FALSE;
  }
  double batch = c->batch;
  /* the global batch splits over the data-parallel replicas (tp x pp GPUs
   * each) and their micro-steps */
  int steps = dps_ddp_micro_steps (c);
  double micro = replicas * (double) steps;
  if (c->global_batch > 0) {
    if (c->global_batch < micro) {
      dps_set_field_error (error, DPS_FIELD_GLOBAL_BATCH, DPS_ERROR_INPUT,
                   "%g samples cannot be split over %d replicas x %d micro-steps",
                   c->global_batch, replicas, steps);
      return FALSE;
    }
    batch = c->global_batch / micro;
    if (batch != floor (batch)) {
      /* rounding either way would run another global batch than asked */
      dps_set_field_error (error, DPS_FIELD_GLOBAL_BATCH, DPS_ERROR_INPUT,
                   "%g samples do not split evenly over %d replica%s x %d micro-step%s "
                   "(%g or %g would)", c->global_batch, replicas, replicas == 1 ? "" : "s", steps,
                   steps == 1 ? "" : "s", floor (batch) * micro, ceil (batch) * micro);
      return FALSE;
    }
  }
  if (!(batch >= 1)) {
    dps_set_field_error (error, DPS_FIELD_BATCH, DPS_ERROR_INPUT, "must be at least 1");
    return FALSE;
  }
  *batch_out = batch;
  return TRUE;
}

/* What follows from the mean step: the input pipeline's bound, efficiency,
 * throughput, memory, cost and time to target. */
static void
ddp_totals (const DpsDdpConfig *c, double batch, double single, DpsDdpResult *out)
{
  int N = c->n_gpus;
  const DpsModel *m = c->model;
  const DpsDeviceSpec *dev = &dps_topo_spec (c->topo)->gpu;
  /* the input pipeline: each node's loader must supply its GPUs' samples */
  if (c->loader_samples_per_s > 0) {
    int per_node = MIN (N, dps_topo_gpus_per_node (c->topo));
    double t_load = per_node * batch * c->grad_accum / c->loader_samples_per_s;
    if (t_load > out->step_mean_s) {
      out->loader_bound_s = t_load - out->step_mean_s;
      out->step_mean_s = t_load;
      out->step_p5_s = MAX (out->step_p5_s, t_load);
      out->step_p95_s = MAX (out->step_p95_s, t_load);
    }
  }
  out->single_step_s = single;
  out->efficiency = single / out->step_mean_s;
  out->samples_per_s = out->global_batch / out->step_mean_s;
  out->tokens_per_s = out->samples_per_s * m->seq_len;
  /* offloaded state: each of a host's GPUs keeps its shards in the host's memory */
  const DpsTopoSpec *ts = dps_topo_spec (c->topo);
  out->host_fits = ts->host_mem_bytes <= 0
                   || out->memory.host * dps_topo_spec_host_gpus (ts, N) <= ts->host_mem_bytes;
  out->memory.context = dps_memory_context_bytes (dps_topo_spec_gpu_arch (ts));
  out->fits = dps_memory_device_bytes (&out->memory) <= dev->memory_bytes && out->host_fits;
  out->cost_per_step = N * c->price_per_gpu_hour * out->step_mean_s / 3600;
  out->cost_per_msample = out->cost_per_step / out->global_batch * 1e6;
  if (c->critical_batch > 0 && c->steps_to_target > 0) {
    out->steps_to_target = c->steps_to_target * (1 + c->critical_batch / out->global_batch);
    out->time_to_target_s = out->steps_to_target * out->step_mean_s;
    out->cost_to_target = out->steps_to_target * out->cost_per_step;
  }
}

/* Simulates c->trials steps; fills out (clear it with dps_ddp_result_clear).
 * Fails on impossible settings: no GPUs, a bucket cap of 0, a global batch
 * smaller than the replica count, a topology that cannot hold the GPUs; the
 * message starts with the quantity refused ("bucket cap: ..."), which the
 * command line turns into its flag. */
gboolean
dps_ddp_simulate (const DpsDdpConfig *c, DpsDdpResult *out, GError **error)
{
  memset (out, 0, sizeof *out);
  int N = c->n_gpus;
  double batch, micro = N * (double) c->grad_accum;
  if (!ddp_batch (c, &batch, error))
    return FALSE;
  /* fused attention times attention as one kernel; the device's
   * contention unless one is given */
  DpsDdpConfig resolved = *c;
  resolved.compute.flash_attention = c->flash_attention;
  resolved.compute.fused_kernel = c->attention_kernel;
  if (resolved.contention < 0)
    resolved.contention = dps_ddp_default_contention (&resolved, batch);
  c = &resolved;
  DpsDdpInputs in;
  dps_ddp_inputs_init (c, batch, &in);
  double single = in.optimizer_s;
  for (int l = 0; l < in.n_layers; l++)
    single += c->grad_accum * (in.fwd_s[l] + in.bwd_s[l] + in.recompute_s[l]);
  DpsDdpProgram prog;
  gboolean sharded = c->strategy != DPS_STRATEGY_DDP && c->strategy != DPS_STRATEGY_ZERO1;
  gboolean parallel = c->tp > 1 || c->pp > 1;
  if (!dps_offload_applies (c->offload, c->strategy) || (c->offload != DPS_OFFLOAD_NONE && parallel)) {
    dps_ddp_inputs_clear (&in);
    if (c->offload == DPS_OFFLOAD_PARAMS && sharded && !parallel)
      return dps_set_field_error (error, DPS_FIELD_OFFLOAD, DPS_ERROR_INPUT, "the parameters are offloaded as "
                                  "shards (fsdp, hsdp), not with %s", dps_strategy_name (c->strategy));
    return dps_set_field_error (error, DPS_FIELD_OFFLOAD, DPS_ERROR_INPUT, "with zero2, fsdp or hsdp (FSDP's "
                                "CPUOffload, DeepSpeed's ZeRO-Offload), without --tp or --pp; not %s%s",
                                dps_strategy_name (c->strategy), parallel ? " with --tp or --pp" : "");
  }
  gboolean ok = parallel ? dps_ddp_program_parallel (c, &in, &prog, error)
                : sharded ? dps_ddp_program_shards (c, &in, &prog, error)
                : dps_ddp_program_replicas (c, &in, out, &prog, error);
  if (!ok) {
    dps_ddp_program_clear (&prog);
    dps_ddp_inputs_clear (&in);
    return FALSE;
  }
  const DpsSched *sched = prog.sched;
  int n_comms = dps_sched_n_comms (sched);

  GRand *rand = g_rand_new_with_seed ((guint32) (c->seed ^ (c->seed >> 32)));
  int T = c->trials;
  double *steps = g_new (double, T);
  gboolean want_trace = c->trace_replicas > 0;
  GPtrArray *marks = want_trace && T > 1 ? g_ptr_array_new_with_free_func ((GDestroyNotify) g_rand_free) : NULL;
  TrialOut sum = { 0 };
  double peak = 0;
  gint64 t0_us = g_get_monotonic_time ();
  for (int t = 0; t < T && ok; t++) {
    TrialOut o;
    DpsSchedResult res;
    if (t == 1 && !c->long_ok) {
      /* the work, from the first trial: refused past a minute unless asked */
      double one = (g_get_monotonic_time () - t0_us) * 1e-6, all = one * T;
      if (all > DPS_DDP_WORK_LIMIT_S) {
        dps_set_field_error (error, DPS_FIELD_TRIALS, DPS_ERROR_LIMIT,
                     "%d trials of %d GPUs would take about %.0f s (one took %.2f s): fewer, or --yes to run them",
                     T, N, all, one);
        ok = FALSE;
        break;
      }
    }
    if (T > 1)
      dps_progress ("trials", (guint64) t, (guint64) T);
    if (marks && t % TRACE_MARK == 0)
      g_ptr_array_add (marks, g_rand_copy (rand));
    gboolean keep = want_trace && t == 0;
    ok = trial (c, &prog, N, rand, keep, &o, &res, keep ? &out->trace_ranks : NULL, &out->trace_n_ranks, error);
    if (!ok)
      break;
    steps[t] = o.step;
    sum.step += o.step;
    sum.compute += o.compute;
    sum.straggler += o.straggler;
    sum.exposed += o.exposed;
    sum.comm_total += o.comm_total;
    sum.contention += o.contention;
    /* per comm kind, the critical rank's (the one the breakdown is of,
     * not every stage's groups summed): the last trial's counts, the mean
     * times; the algorithms over all the step's collectives */
    memset (out->algo_count, 0, sizeof out->algo_count);
    memset (out->proto_count, 0, sizeof out->proto_count);
    for (int k = 0; k < n_comms; k++) {
      DpsDdpCommStats *cs = &out->comms[k];
      const DpsSchedCommStats *rk = &res.comms[k];
      cs->count = res.crit.comm_kind_n[k];
      cs->time_s += res.crit.comm_kind_s[k] / T;
      cs->exposed_s += o.exposed_by_comm[k] / T;
      for (int a = 0; a < DPS_ALGO_COUNT; a++)
        out->algo_count[a] += rk->algo_count[a];
      for (int q = 0; q < DPS_PROTO_COUNT; q++)
        out->proto_count[q] += rk->proto_count[q];
    }
    if (res.peak_bytes > peak || t == 0) {
      peak = res.peak_bytes;
      g_strlcpy (out->peak_task, res.peak.peak_task >= 0 ? dps_sched_task_label (sched, res.peak.peak_task)
                                                        : "the step's start", sizeof out->peak_task);
      out->peak_at_s = res.peak.peak_at_s;
      out->memory.activations = res.peak.peak_kind_bytes[DPS_MEM_ACTIVATIONS];
      out->memory.gathered = res.peak.peak_kind_bytes[DPS_MEM_BUFFERS];
    }
    if (keep)
      out->trace_run = res;
    else
      dps_sched_result_clear (&res);
  }
  if (ok && marks) {
    /* the trace shows the trial closest to the mean, redrawn from the
     * random state kept before it */
    double mean = sum.step / T;
    int k = 0;
    for (int t = 1; t < T; t++)
      if (fabs (steps[t] - mean) < fabs (steps[k] - mean))
        k = t;
    if (k > 0) {
      dps_sched_result_clear (&out->trace_run);
      g_clear_pointer (&out->trace_ranks, g_free);
      GRand *r2 = g_rand_copy (g_ptr_array_index (marks, k / TRACE_MARK));
      for (int t = k / TRACE_MARK * TRACE_MARK; t <= k && ok; t++) {
        TrialOut o;
        DpsSchedResult res;
        gboolean keep = t == k;
        ok = trial (c, &prog, N, r2, keep, &o, &res, keep ? &out->trace_ranks : NULL, &out->trace_n_ranks, error);
        if (ok && keep)
          out->trace_run = res;
        else if (ok)
          dps_sched_result_clear (&res);
      }
      g_rand_free (r2);
    }
  }
  if (marks)
    g_ptr_array_unref (marks);
  if (ok) {
    dps_sort_doubles (steps, (gsize) T);
    out->strategy = c->strategy;
    out->offload = c->offload;
    out->shards = prog.shards;
    out->n_comms = n_comms;
    for (int k = 0; k < n_comms; k++)
      g_strlcpy (out->comms[k].name, dps_sched_comm_name (sched, k), sizeof out->comms[k].name);
    out->replicas = N;
    out->n_buckets = prog.n_buckets;
    out->n_units = prog.n_units;
    out->tp = MAX (1, prog.tp);
    out->pp = MAX (1, prog.pp);
    out->vpp = MAX (1, prog.vpp);
    out->dp = prog.pipeline ? prog.dp : N;
    out->micro_batches = prog.pipeline ? prog.micro_batches : c->grad_accum;
    out->comm_bytes = prog.comm_bytes;
    out->batch_per_replica = batch;
    out->global_batch = batch * (prog.pipeline ? (double) prog.micro_batches * prog.dp : micro);
    if (prog.pipeline) {
      /* one GPU running the whole model over the step's micro-batches */
      single = in.optimizer_s;
      for (int l = 0; l < in.n_layers; l++)
        single += prog.micro_batches * (in.fwd_s[l] + in.bwd_s[l] + in.recompute_s[l]);
    }
    out->step_mean_s = sum.step / T;
    out->step_p5_s = dps_quantile_sorted (steps, (gsize) T, 0.05);
    out->step_p95_s = dps_quantile_sorted (steps, (gsize) T, 0.95);
    out->compute_s = sum.compute / T;
    out->straggler_s = sum.straggler / T;
    out->exposed_comm_s = sum.exposed / T;
    out->comm_total_s = sum.comm_total / T;
    out->contention = c->contention;
    out->contention_s = sum.contention / T;
    out->optimizer_s = prog.optimizer_s;
    /* the critical rank's collectives (comms[], summing to comm_total_s)
     * and what of each the compute waited for: a pipeline's receive is
     * waited for through the bubble too, longer than it runs, and only
     * its own time counts */
    if (n_comms > 1) {
      double all = 0, shown = 0;
      for (int k = 0; k < n_comms; k++) {
        all += out->comms[k].time_s;
        shown += MIN (out->comms[k].exposed_s, out->comms[k].time_s);
      }
      out->overlap = all > 0 ? 1 - shown / all : 1;
    } else
      out->overlap = out->comm_total_s > 0 ? 1 - out->exposed_comm_s / out->comm_total_s : 1;
    out->memory.params = prog.fixed.params;
    out->memory.grads = prog.grads_late ? 0 : prog.fixed.grads;   /* else in the schedule's buffers */
    out->memory.buckets = prog.fixed.buckets;
    out->memory.optimizer = prog.fixed.optimizer;
    out->memory.host = prog.fixed.host;
    out->memory.total = peak;
    ddp_totals (c, batch, single, out);
    out->efficiency /= (double) out->tp * out->pp;   /* per GPU against one GPU */
  }
  if (ok && want_trace)
    out->sched = g_steal_pointer (&prog.sched);
  dps_ddp_program_clear (&prog);
  dps_ddp_inputs_clear (&in);
  g_free (steps);
  g_rand_free (rand);
  if (!ok)
    dps_ddp_result_clear (out);
  return ok;
}

void
dps_ddp_result_clear (DpsDdpResult *r)
{
  dps_sched_result_clear (&r->trace_run);
  g_clear_pointer (&r->trace_ranks, g_free);
  g_clear_pointer (&r->sched, dps_sched_free);
}
