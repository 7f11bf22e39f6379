/* cli-ddp — the options `dpscale predict` and `dpscale sweep` share, and
 * how they become a DDP configuration. */
#pragma once

#include <glib.h>
#include "sim/ddp.h"
#include "sim/app/cli-util.h"
#include "sim/app/ddp-setup.h"

typedef struct {
  char   *model, *topology, *gpus, *batch, *bucket_cap, *grad_accum;
  char   *first_bucket, *grad_dtype, *dtype, *optimizer, *compress, *mode, *algo, *proto;
  char   *strategy, *precision, *fsdp_unit, *backward_prefetch, *pp_schedule, *rank_order, *offload, *attention;
  int     shard_group, limit_all_gathers, tp, pp, vpp, micro_batches, seq_len;
  gboolean no_reshard, accum_no_sync, sequence_parallel, overlap_param_gather, tp_comm_overlap, pp_end_slots;
  char   *format, *output, *trace, *plot, *calibration;
  int     nodes, slow_replicas, trials, seed;
  double  global_batch, contention, jitter, slow_factor, os_noise_ms, loader_rate, critical_batch;
  double  steps_to_target, price, efficiency, gpu_spread;
  gboolean no_overlap, find_unused, grad_as_bucket_view, flash, checkpoint, yes, fp8_all_gather;
  guint   strategies;   /* the strategies the options serve (1 << DpsStrategy each: a sweep's list,
                         * all for advise's search); 0: the one --strategy names */
} DpsDdpOpts;

GOptionEntry *dps_ddp_options (DpsDdpOpts *o, gboolean sweep);
/* --model (default def) at --seq-len's tokens a sample where given. */
DpsModel     *dps_ddp_model_load (DpsDdpOpts *o, const char *def, GError **error);
/* The per-replica batch a command runs m at: --batch where given (a note
 * when m's measured times are at another batch: they are scaled), else
 * the batch m's times were measured at (a per-layer file's '# batch:', a
 * trace's), said in a note, else fallback. */
double        dps_ddp_default_batch (const DpsModel *m, gboolean given, double batch, double fallback);
void          dps_ddp_opts_clear (DpsDdpOpts *o);
gboolean      dps_ddp_opts_apply (DpsDdpOpts *o, DpsDdpConfig *c, GError **error);
/* Tensor or pipeline parallelism (tp or pp above 1, either unset below)
 * takes ddp or zero1 only: FALSE with --strategy's error otherwise. */
gboolean      dps_ddp_check_layout (DpsStrategy k, int tp, int pp, GError **error);

