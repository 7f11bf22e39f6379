/* strategy-ddp.c — PyTorch DDP's step as a schedule (strategy.h).
 *
 * One role, "replica", with a compute stream and the data-parallel
 * group's communication stream (one NCCL communicator: its all-reduces
 * run one after another, in bucket order, as the Reducer launches them).
 * On the compute stream, for each micro-step: every layer's forward
 * (saving its activations), then in reverse every layer's backward (its
 * recompute first when checkpointed; freeing its activations), followed in
 * the last micro-step by DDP's hook kernels for the layer's gradients.
 * On the communication stream: bucket b's all-reduce waits for the last
 * task of the layer that readies it (or for the whole backward, without
 * overlap), then find_unused_parameters' bitmap.  The copies back and the
 * optimizer follow the last all-reduce on the compute stream. */
#include "sim/strategy.h"

/* Adds a compute task, holding hold bytes of activations while it runs;
 * returns its id. */
static int
compute (DpsSched *s, int stream, const char *label, DpsPart part, double work_s, guint flags, double alloc,
         double free, double hold, const int *deps, int n_deps)
{
  DpsTaskSpec t = { .label = label, .part = part, .work_s = work_s, .comm = -1, .flags = flags,
                    .alloc_bytes = alloc, .free_bytes = free, .hold_bytes = hold, .deps = deps, .n_deps = n_deps };
  return dps_sched_task_add (s, stream, &t);
}

/* The schedule of in (a new program; free with dps_sched_free). */
DpsSched *
dps_strategy_ddp (const DpsDdpStep *in)
{
  const DpsModel *m = in->model;
  int L = dps_model_n_layers (m), K = MAX (1, in->grad_accum);
  DpsSched *s = dps_sched_new ();
  int role = dps_sched_role_add (s, "replica", in->static_bytes);
  int cs = dps_sched_stream_add (s, role, "compute", DPS_SCHED_NO_STREAM);
  int ds = dps_sched_stream_add (s, role, "all-reduce (data parallel)", DPS_DDP_GROUP_SLOT);
  int ar = dps_sched_comm_add (s, &in->allreduce);
  int *ready = g_new (int, MAX (L, 1));   /* the last task of each layer's backward, last micro-step */
  char label[160];
  for (int k = 0; k < K; k++) {
    gboolean last = k == K - 1;
    g_autofree char *micro = K > 1 ? g_strdup_printf (" (micro-step %d)", k + 1) : g_strdup ("");
    for (int l = 0; l < L; l++) {
      double saved = in->recompute_s[l] > 0 ? in->kept_bytes[l] : in->act_bytes[l];
      g_snprintf (label, sizeof label, "fwd %s%s", dps_model_layer (m, l)->name, micro);
      compute (s, cs, label, DPS_PART_FORWARD, in->fwd_s[l], DPS_TASK_JITTER, saved, 0, 0, NULL, 0);
    }
    for (int l = L - 1; l >= 0; l--) {
      const char *name = dps_model_layer (m, l)->name;
      double freed = in->act_bytes[l];
      if (in->recompute_s[l] > 0) {
        g_snprintf (label, sizeof label, "recompute %s%s", name, micro);
        compute (s, cs, label, DPS_PART_RECOMPUTE, in->recompute_s[l], DPS_TASK_JITTER, in->act_bytes[l], 0, 0, NULL, 0);
        freed += in->kept_bytes[l];
      }
      g_snprintf (label, sizeof label, "bwd %s%s", name, micro);
      double hold = in->hold_bytes ? in->hold_bytes[l] : 0;
      ready[l] = compute (s, cs, label, DPS_PART_BACKWARD, in->bwd_s[l], DPS_TASK_JITTER, 0, freed, hold, NULL, 0);
      if (last && in->copy_s[l] > 0) {
        g_snprintf (label, sizeof label, "ddp hooks %s", name);
        ready[l] = compute (s, cs, label, DPS_PART_COPY, in->copy_s[l], DPS_TASK_FIXED, 0, 0, 0, NULL, 0);
      }
    }
  }
  int bwd_end = dps_sched_stream_last (s, cs);
  for (int b = 0; b < in->n_buckets; b++) {
    int dep = in->no_overlap || L == 0 ? bwd_end : ready[in->bucket_layer[b]];
    g_snprintf (label, sizeof label, "all-reduce bucket %d", b);
    DpsTaskSpec t = { .label = label, .comm = ar, .bytes = in->bucket_bytes[b], .deps = &dep, .n_deps = dep >= 0 };
    dps_sched_task_add (s, ds, &t);
  }
  if (in->unused_bitmap_bytes > 0) {
    DpsTaskSpec t = { .label = "all-reduce unused-parameter bitmap", .comm = ar, .bytes = in->unused_bitmap_bytes,
                      .deps = &bwd_end, .n_deps = bwd_end >= 0 };
    dps_sched_task_add (s, ds, &t);
  }
  int comm_end = dps_sched_stream_last (s, ds);
  int after = comm_end >= 0 ? 1 : 0;
  if (in->copy_out_s > 0)
    compute (s, cs, "ddp copy-out", DPS_PART_COPY_OUT, in->copy_out_s, DPS_TASK_FIXED, 0, 0, 0, &comm_end, after);
  int opt = compute (s, cs, in->n_param_gathers > 0 ? "optimizer (shard)" : "optimizer", DPS_PART_OPTIMIZER,
                     in->optimizer_s, DPS_TASK_FIXED, 0, 0, 0, &comm_end, after);
  if (in->n_param_gathers > 0) {
    int ag = dps_sched_comm_add (s, &in->allgather);
    for (int i = 0; i < in->n_param_gathers; i++) {
      g_snprintf (label, sizeof label, "all-gather parameters %d", i);
      DpsTaskSpec t = { .label = label, .comm = ag, .bytes = in->param_gather_bytes[i], .deps = &opt, .n_deps = 1 };
      dps_sched_task_add (s, ds, &t);
    }
  }
  g_free (ready);
  return s;
}
