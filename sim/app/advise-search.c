/* advise-search.c — see advise-search.h. */
#include "sim/app/advise-search.h"
#include "sim/base/progress.h"
#include "sim/base/json-util.h"

#include <string.h>

typedef DpsAdviseCandidate Candidate;

const char *
dps_advise_compress_name (DpsCompress c)
{
  return c == DPS_COMPRESS_FP16 ? "fp16" : c == DPS_COMPRESS_POWERSGD ? "powersgd:4" : "none";
}

static gint
by_throughput (gconstpointer a, gconstpointer b)
{
  double x = ((const Candidate *) a)->r.samples_per_s, y = ((const Candidate *) b)->r.samples_per_s;
  return (x < y) - (x > y);
}

/* The offload --offload allows a plan: where its strategy (without
 * tensor or pipeline parallelism) can offload it, none elsewhere. */
static DpsOffload
plan_offload (const DpsDdpConfig *base, DpsStrategy s, int tp, int pp)
{
  return tp <= 1 && pp <= 1 && dps_offload_applies (base->offload, s) ? base->offload : DPS_OFFLOAD_NONE;
}

void
dps_advise_megatron (const Candidate *cd, gboolean *sp, gboolean *tp_overlap, gboolean *param_overlap)
{
  *sp = *tp_overlap = cd->megatron && cd->tp > 1;
  *param_overlap = cd->megatron && cd->strategy == DPS_STRATEGY_ZERO1;
}

/* One candidate on base's cluster; FALSE (error set) when it cannot run. */
gboolean
dps_advise_evaluate (const DpsDdpConfig *base, Candidate *cd, GError **error)
{
  DpsDdpConfig c = *base;
  c.bucket_cap_bytes = cd->cap_mib * 1024 * 1024;
  c.batch = cd->micro;
  c.grad_accum = cd->accum;
  c.grad_dtype = cd->grad;
  c.compress = cd->compress;
  c.powersgd_rank = 4;
  c.trace_replicas = 0;
  if (cd->tp > 0) {
    c.strategy = cd->strategy;
    c.tp = cd->tp;
    c.pp = cd->pp;
    c.vpp = MAX (cd->vpp, 1);
    c.pipe_schedule = cd->vpp > 1 ? DPS_PIPE_INTERLEAVED : DPS_PIPE_1F1B;
    c.micro_batches = cd->pp > 1 ? cd->accum : 0;
    c.checkpoint = cd->ckpt;
    c.flash_attention = cd->flash;
  }
  if (cd->megatron)
    dps_advise_megatron (cd, &c.sequence_parallel, &c.tp_comm_overlap, &c.overlap_param_gather);
  if (cd->tuned) {
    c.shard_group = cd->shard_group;
    c.fsdp_unit = cd->unit;
    c.backward_prefetch = cd->prefetch;
    c.reshard_after_forward = !cd->keep;
    c.accum_no_sync = cd->no_sync;
  }
  /* what it runs, tuned or the command line's, for its name */
  cd->shard_group = c.shard_group;
  cd->unit = c.fsdp_unit;
  cd->prefetch = c.backward_prefetch;
  cd->keep = !c.reshard_after_forward;
  cd->no_sync = dps_ddp_no_sync_acts (&c);
  /* offloaded only where the plan does not fit otherwise: offloading
   * costs the copies and a slower optimizer */
  c.offload = DPS_OFFLOAD_NONE;
  DpsOffload off = plan_offload (base, c.strategy, c.tp, c.pp);
  if (!dps_ddp_simulate (&c, &cd->r, error))
    return FALSE;
  if (cd->r.fits || off == DPS_OFFLOAD_NONE)
    return TRUE;
  dps_ddp_result_clear (&cd->r);
  c.offload = off;
  return dps_ddp_simulate (&c, &cd->r, error);
}

/* Every candidate that fits: bucket caps, micro x accumulation splits of
 * batch, gradient types and hooks; *tried counts those looked at. */
GArray *
dps_advise_search_settings (const DpsDdpConfig *base, int batch, int *tried)
{
  static const double caps[] = { 1, 5, 10, 25, 50, 100, 200 };
  static const DpsDtype grads[] = { DPS_DTYPE_FP32, DPS_DTYPE_BF16 };
  static const DpsCompress comps[] = { DPS_COMPRESS_NONE, DPS_COMPRESS_FP16, DPS_COMPRESS_POWERSGD };
  GArray *all = g_array_new (FALSE, TRUE, sizeof (Candidate));
  int total = 0;
  *tried = 0;
  for (int k = 1; k <= batch; k++)
    total += batch % k == 0;
  total *= (int) (G_N_ELEMENTS (caps) * G_N_ELEMENTS (grads) * G_N_ELEMENTS (comps));
  for (int k = 1; k <= batch; k++) {
    if (batch % k)
      continue;
    for (gsize ci = 0; ci < G_N_ELEMENTS (caps); ci++)
      for (gsize gi = 0; gi < G_N_ELEMENTS (grads); gi++)
        for (gsize xi = 0; xi < G_N_ELEMENTS (comps); xi++) {
          /* fp16 compression of bf16 gradients is no compression */
          (*tried)++;
          if (comps[xi] == DPS_COMPRESS_FP16 && grads[gi] != DPS_DTYPE_FP32)
            continue;
          Candidate cd = { .cap_mib = caps[ci], .micro = batch / k, .accum = k, .grad = grads[gi],
                           .compress = comps[xi] };
          g_autoptr (GError) e = NULL;
          if (dps_advise_evaluate (base, &cd, &e) && cd.r.fits)
            g_array_append_val (all, cd);
          else
            dps_ddp_result_clear (&cd.r);
          dps_progress ("DDP's settings", *tried, total);
        }
  }
  g_array_sort (all, by_throughput);
  return all;
}

/* A plan's name: strategy, layout and what it saves memory with. */
char *
dps_advise_plan_name (const Candidate *cd)
{
  GString *n = g_string_new (dps_strategy_name (cd->strategy));
  if (cd->tp > 1 || cd->pp > 1)
    g_string_append_printf (n, " tp%d pp%d", cd->tp, cd->pp);
  if (cd->vpp > 1)
    g_string_append_printf (n, " vpp%d", cd->vpp);
  if (cd->ckpt)
    g_string_append (n, " +ckpt");
  if (cd->flash)
    g_string_append_printf (n, " +%s", dps_attention_name (TRUE, cd->kernel));
  if (cd->megatron)
    g_string_append (n, cd->tp > 1 ? " +sp+overlap" : " +overlap");
  /* FSDP's settings where they differ from its defaults, as simulated
   * (evaluate records them: tuned, or the command line's) */
  gboolean sharded = cd->strategy == DPS_STRATEGY_ZERO2 || dps_strategy_shards_params (cd->strategy);
  if (cd->strategy == DPS_STRATEGY_HSDP && cd->shard_group > 0)
    g_string_append_printf (n, " g%d", cd->shard_group);
  if (sharded && cd->unit != DPS_FSDP_UNIT_BLOCK)
    g_string_append_printf (n, " unit=%s", dps_fsdp_unit_name (cd->unit));
  if (sharded && cd->prefetch != DPS_PREFETCH_PRE)
    g_string_append_printf (n, " prefetch=%s", dps_prefetch_name (cd->prefetch));
  if (dps_strategy_shards_params (cd->strategy) && cd->keep)
    g_string_append (n, " +keep");
  if (cd->no_sync)
    g_string_append (n, " +no-sync");
  /* offloaded to the host's memory and CPUs: the optimizer, or the parameters too */
  if (cd->r.offload != DPS_OFFLOAD_NONE)
    g_string_append (n, cd->r.offload == DPS_OFFLOAD_PARAMS ? " +cpu-params" : " +cpu-opt");
  return g_string_free (n, FALSE);
}

/* Whether a plan's static state alone (parameters, gradients, optimizer:
 * its shards, by the ZeRO accounting) already exceeds the device: not
 * worth simulating. */
gboolean
dps_advise_too_big (const DpsDdpConfig *base, const Candidate *cd)
{
  int N = base->n_gpus, shards = cd->strategy == DPS_STRATEGY_HSDP ? MIN (N, dps_topo_gpus_per_node (base->topo)) : N;
  if (cd->tp > 1 || cd->pp > 1)
    shards = N / (cd->tp * cd->pp);
  DpsMemory m;
  dps_memory_static ((double) base->model->n_params / (cd->tp * cd->pp), base->precision, base->grad_dtype,
                     base->optimizer, TRUE, cd->strategy, shards, &m);
  dps_memory_offload (&m, plan_offload (base, cd->strategy, cd->tp, cd->pp));
  return m.total > dps_topo_spec (base->topo)->gpu.memory_bytes;
}

/* Simulates cd; it joins all if it fits (its result cleared if not).
 * Returns whether it did. */
static gboolean
join_if_fits (const DpsDdpConfig *base, GArray *all, Candidate *cd)
{
  g_autoptr (GError) e = NULL;
  if (dps_advise_evaluate (base, cd, &e) && cd->r.fits) {
    g_array_append_val (all, *cd);
    return TRUE;
  }
  dps_ddp_result_clear (&cd->r);
  return FALSE;
}

/* The parallelism: each strategy (ZeRO, FSDP, HSDP) and, for a
 * transformer, each tensor (inside a node) x pipeline layout with DDP or
 * ZeRO-1 over the rest, each with and without activation checkpointing
 * (and fused attention), at each micro-batch x accumulation split of
 * batch.  With all NULL it counts the plans to simulate; otherwise it
 * simulates them (progress against total), keeps those that fit in all
 * and returns how many it simulated. */
static int
walk_plans (const DpsDdpConfig *base, int batch, GArray *all, int total)
{
  const DpsModel *m = base->model;
  int N = base->n_gpus, k = dps_topo_gpus_per_node (base->topo), blocks = 0, tried = 0;
  for (int l = 0; l < dps_model_n_layers (m); l++)
    blocks += dps_model_layer (m, l)->input_bytes > 0;
  /* fused attention is faster and smaller at once: every plan of a
   * transformer takes it (the defaults' row says whether they have it) */
  int flash = m->heads > 0 || base->flash_attention;
  /* a plan that fits without checkpointing (or offload) is faster than
   * its twin with it (the same work and a forward again): the twin is not
   * simulated */
  g_autoptr (GHashTable) fit_plain = g_hash_table_new (NULL, NULL);
  for (int ckpt = 0; ckpt < (blocks ? 2 : 1); ckpt++)
      for (int tp = 1; tp <= (blocks ? MIN (k, 8) : 1); tp *= 2)
        for (int pp = 1; pp <= (blocks ? MIN (blocks, 64) : 1); pp *= 2) {
          if (N % (tp * pp) != 0)
            continue;
          static const DpsStrategy dp_all[] = { DPS_STRATEGY_DDP, DPS_STRATEGY_ZERO1, DPS_STRATEGY_ZERO2,
                                                DPS_STRATEGY_FSDP, DPS_STRATEGY_HSDP };
          /* DeepSpeed's BF16_Optimizer (memory.h) runs only with ZeRO 0 or 1 */
          int n_dp = tp * pp > 1 || base->precision == DPS_PRECISION_BF16_DEEPSPEED ? 2 : 5;
          /* the same global batch: a replica (tp x pp GPUs) takes tp x pp
           * GPUs' samples, as micro-batches of 1, 2, 4 or 8 */
          int per_replica = batch * tp * pp;
          for (int si = 0; si < n_dp; si++) {
            /* a layout that does not fit at one micro-batch does not at a
             * larger one (its activations in flight only grow): those are
             * not simulated */
            gboolean dead[3] = { FALSE, FALSE, FALSE };
            for (int micro = 1; micro <= MIN (8, per_replica); micro *= 2) {
              if (per_replica % micro)
                continue;
              int kk = per_replica / micro;
              if (tp * pp == 1 && batch % micro)
                continue;
              if (pp > 1 && kk < pp)
                continue;   /* fewer micro-batches than stages: the pipeline mostly idles */
              /* a pipeline's stages as 1 chunk of layers (1F1B) or 2
               * (interleaved, Megatron's virtual stages: a smaller bubble
               * for twice the sends), where the micro-batches fill whole
               * rounds of the stages and the blocks every chunk */
              for (int vpp = 1; vpp <= (pp > 1 ? 2 : 1); vpp++) {
                if (vpp > 1 && (kk % pp || blocks < pp * vpp))
                  continue;
                /* tensor parallelism as Megatron-Core runs it: with
                 * sequence parallelism, which splits what a block's
                 * activations held whole on every GPU of the group, and
                 * its collectives beside the GEMMs (faster and smaller
                 * than without: test-cli) */
                Candidate cd = { .cap_mib = 25, .micro = micro, .accum = kk, .grad = DPS_DTYPE_FP32,
                                 .compress = DPS_COMPRESS_NONE, .strategy = dp_all[si], .tp = tp, .pp = pp,
                                 .vpp = vpp, .ckpt = ckpt, .flash = flash, .kernel = base->attention_kernel,
                                 .megatron = tp > 1 };
                /* the layout, packed: tp, pp <= 64, strategy, micro, vpp */
                gpointer key = GINT_TO_POINTER (((((tp * 128 + pp) * 8 + si) * 16 + micro) * 4 + vpp) + 1);
                if (dps_advise_too_big (base, &cd) || (all && dead[vpp])
                    || (ckpt && g_hash_table_contains (fit_plain, key)))
                  continue;
                tried++;
                if (!all)
                  continue;
                dead[vpp] = !join_if_fits (base, all, &cd);
                if (!ckpt && !dead[vpp] && cd.r.offload == DPS_OFFLOAD_NONE)
                  g_hash_table_add (fit_plain, key);
                dps_progress ("parallel plans", tried, total);
              }
            }
          }
        }
  return tried;
}

/* The fastest plan of all (sorted) of strategy want, with tensor or
 * pipeline parallelism or without, not yet refined; NULL if none. */
static const Candidate *
fastest_plan (const GArray *all, DpsStrategy want, gboolean parallel)
{
  for (guint i = 0; i < all->len; i++) {
    const Candidate *cd = &g_array_index (all, Candidate, i);
    if (cd->strategy == want && (cd->tp > 1 || cd->pp > 1) == parallel && !cd->tuned && !cd->megatron)
      return cd;
  }
  return NULL;
}

/* FSDP's own settings, one at a time from the fastest FSDP and HSDP plans
 * of all (sorted): HSDP's shard group (half a node, 2, 4 ... nodes), the
 * wrapping unit (each layer), backward prefetch (post, none), units kept
 * gathered from forward to backward, and with accumulation no_sync; those
 * that fit join all.  Returns the plans simulated. */
static int
refine_sharded (const DpsDdpConfig *base, GArray *all)
{
  int N = base->n_gpus, k = dps_topo_gpus_per_node (base->topo), tried = 0;
  for (int s = 0; s < 2; s++) {
    DpsStrategy want = s ? DPS_STRATEGY_HSDP : DPS_STRATEGY_FSDP;
    const Candidate *best = fastest_plan (all, want, FALSE);
    if (!best)
      continue;
    Candidate from = *best;
    from.r = (DpsDdpResult) { 0 };
    from.tuned = TRUE;
    from.unit = base->fsdp_unit;
    from.prefetch = base->backward_prefetch;
    from.keep = !base->reshard_after_forward;
    from.no_sync = base->accum_no_sync;
    from.shard_group = want == DPS_STRATEGY_HSDP ? base->shard_group : 0;
    GArray *variants = g_array_new (FALSE, TRUE, sizeof (Candidate));
    for (int g = MAX (1, k / 2); want == DPS_STRATEGY_HSDP && g < N; g *= 2)
      if (N % g == 0 && g != (base->shard_group > 0 ? base->shard_group : k)) {
        Candidate v = from;
        v.shard_group = g;
        g_array_append_val (variants, v);
      }
    Candidate v = from;
    v.unit = from.unit == DPS_FSDP_UNIT_LAYER ? DPS_FSDP_UNIT_BLOCK : DPS_FSDP_UNIT_LAYER;
    g_array_append_val (variants, v);
    for (int pf = 0; pf < 3; pf++)
      if (pf != (int) from.prefetch) {
        v = from;
        v.prefetch = (DpsPrefetch) pf;
        g_array_append_val (variants, v);
      }
    v = from;
    v.keep = !from.keep;
    g_array_append_val (variants, v);
    if (from.accum > 1) {   /* one reduce-scatter a step, the gradients held unsharded */
      v = from;
      v.no_sync = !from.no_sync;
      g_array_append_val (variants, v);
    }
    for (guint i = 0; i < variants->len; i++, tried++)
      join_if_fits (base, all, &g_array_index (variants, Candidate, i));
    g_array_free (variants, TRUE);
  }
  return tried;
}

/* ZeRO-1's fastest pipeline-parallel plan without tensor parallelism
 * (those with it ran as Megatron-Core runs them: walk_plans) again with
 * its parameter gathers before each layer's own forward
 * (--overlap-param-gather); it joins all if it fits.  Returns the plans
 * simulated. */
static int
refine_megatron (const DpsDdpConfig *base, GArray *all)
{
  const Candidate *best = fastest_plan (all, DPS_STRATEGY_ZERO1, TRUE);
  if (!best)
    return 0;
  Candidate v = *best;
  v.r = (DpsDdpResult) { 0 };
  v.megatron = TRUE;
  join_if_fits (base, all, &v);
  return 1;
}

/* The plans of walk_plans that fit, refine_sharded's and
 * refine_megatron's, the fastest first; *tried counts those simulated. */
GArray *
dps_advise_search_plans (const DpsDdpConfig *base, int batch, int *tried)
{
  GArray *all = g_array_new (FALSE, TRUE, sizeof (Candidate));
  *tried = walk_plans (base, batch, all, walk_plans (base, batch, NULL, 0));
  g_array_sort (all, by_throughput);
  *tried += refine_sharded (base, all);
  *tried += refine_megatron (base, all);
  g_array_sort (all, by_throughput);
  return all;
}

/* w, or cd's plan name's width where wider: a table's plan column. */
int
dps_advise_plan_width (int w, const Candidate *cd)
{
  g_autofree char *name = dps_advise_plan_name (cd);
  return MAX (w, (int) strlen (name));
}

/* A row's layout in JSON: strategy, tp, pp, vpp, memory savers and
 * offload (DDP's own settings for a row that is no plan); a plan's name,
 * attention kernel and Megatron-Core's settings too, as predict's flags
 * take them, so that its name's "+sp+overlap" can be run again. */
void
dps_advise_plan_json (JsonBuilder *b, const Candidate *cd, gboolean plan)
{
  dps_json_str (b, "strategy", dps_strategy_name (plan ? cd->strategy : DPS_STRATEGY_DDP));
  dps_json_int (b, "tp", plan ? MAX (1, cd->tp) : 1);
  dps_json_int (b, "pp", plan ? MAX (1, cd->pp) : 1);
  dps_json_int (b, "vpp", plan ? MAX (1, cd->vpp) : 1);
  dps_json_bool (b, "checkpoint", plan && cd->ckpt);
  dps_json_bool (b, "flash_attention", plan && cd->flash);
  dps_json_str (b, "offload", dps_offload_name (cd->r.offload));
  if (!plan)
    return;
  g_autofree char *name = dps_advise_plan_name (cd);
  dps_json_str (b, "plan", name);
  gboolean sp, tpo, pgo;
  dps_advise_megatron (cd, &sp, &tpo, &pgo);
  dps_json_str (b, "attention", dps_attention_name (cd->flash, cd->kernel));
  dps_json_bool (b, "sequence_parallel", sp);
  dps_json_bool (b, "tp_comm_overlap", tpo);
  dps_json_bool (b, "overlap_param_gather", pgo);
}
