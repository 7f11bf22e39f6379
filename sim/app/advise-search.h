/* advise-search — the candidates `dpscale advise` simulates: DDP's own
 * settings a PyTorch user controls (bucket cap, micro-batch x
 * accumulation at the same global batch, gradient type and compression
 * hook), and the parallel plans (the sharded strategies, tensor x pipeline
 * layouts with checkpointing and fused attention, FSDP's own settings
 * tuned on the best FSDP and HSDP plans, CPU offload where a plan fits no
 * other way), and how a plan is named and written (its name, width, JSON);
 * cli-advise.c and advise-sizes.c report them. */
#pragma once

#include "sim/ddp.h"
#include <json-glib/json-glib.h>

typedef struct {
  double cap_mib;
  int    micro, accum;
  DpsDtype grad;
  DpsCompress compress;
  DpsDdpResult r;
  /* the parallelism (plans): strategy, layout, memory savers */
  DpsStrategy strategy;
  int    tp, pp, vpp;   /* vpp > 1: the interleaved 1F1B schedule over that many chunks a stage */
  gboolean ckpt, flash;
  DpsFusedKernel kernel;   /* with flash: the command line's kernel (--attention) */
  /* FSDP's own settings, tuned on the best sharded plans (refine_sharded):
   * tuned FALSE keeps the command line's (or FSDP's defaults) */
  gboolean tuned;
  int      shard_group;    /* hsdp: GPUs a shard group; 0: one node's */
  DpsFsdpUnit unit;
  DpsPrefetch prefetch;
  gboolean keep;           /* reshard_after_forward=False: each unit kept gathered from forward to backward */
  gboolean no_sync;        /* the micro-steps before the last under no_sync (--accum-no-sync) */
  /* Megatron-Core's settings: sequence parallelism with the
   * tensor-parallel collectives overlapped (every tp > 1 plan), ZeRO-1's
   * gathers overlapped (with it, and on ZeRO-1's best pipeline plan:
   * refine_megatron) */
  gboolean megatron;
} DpsAdviseCandidate;

const char *dps_advise_compress_name (DpsCompress c);
/* One candidate on base's cluster (its result in cd->r); FALSE (error
 * set) when it cannot run. */
gboolean    dps_advise_evaluate (const DpsDdpConfig *base, DpsAdviseCandidate *cd, GError **error);
/* Whether a plan's static state alone exceeds the device (not worth
 * simulating). */
gboolean    dps_advise_too_big (const DpsDdpConfig *base, const DpsAdviseCandidate *cd);
/* DDP's settings that fit at batch, fastest first (a new array of
 * candidates; *tried counts those looked at). */
GArray     *dps_advise_search_settings (const DpsDdpConfig *base, int batch, int *tried);
/* The parallel plans that fit, fastest first (as above). */
GArray     *dps_advise_search_plans (const DpsDdpConfig *base, int batch, int *tried);
/* A plan's name: strategy, layout, memory savers, FSDP's settings and
 * offload where they differ from the defaults (a new string). */
char       *dps_advise_plan_name (const DpsAdviseCandidate *cd);
/* What a plan run as Megatron-Core runs it turns on (its name's "+sp"
 * and "+overlap"): sequence parallelism and the tensor-parallel
 * collectives beside the GEMMs where tp > 1, the gathers of ZeRO-1's
 * parameters layer by layer (--overlap-param-gather). */
void        dps_advise_megatron (const DpsAdviseCandidate *cd, gboolean *sp, gboolean *tp_overlap,
                                 gboolean *param_overlap);
/* w, or cd's plan name's width where wider: a table's plan column. */
int         dps_advise_plan_width (int w, const DpsAdviseCandidate *cd);
/* A row's layout in JSON (keys strategy, tp, pp, vpp, checkpoint,
 * flash_attention, offload; a plan's name, attention, sequence_parallel,
 * tp_comm_overlap, overlap_param_gather too): DDP's own for a row that
 * is no plan. */
void        dps_advise_plan_json (JsonBuilder *b, const DpsAdviseCandidate *cd, gboolean plan);
