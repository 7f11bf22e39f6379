/* strategy-pipeline.c — tensor and pipeline parallelism's step as a
 * schedule (strategy.h), with data parallelism over the rest.
 *
 * One role a pipeline stage.  Its streams: compute; the tensor-parallel
 * group's (its all-reduces, or sequence parallelism's reduce-scatters and
 * all-gathers); the data-parallel group's; and, for each virtual stage
 * (chunk) it holds, the point-to-point links to the chunks before and
 * after it: activations in and out, their gradients in and out, each its
 * own group of two so that a link's transfers pair up in micro-batch
 * order.  The stage runs its forwards and backwards in the order of
 * Megatron-LM's schedules (megatron/core/pipeline_parallel/schedules.py):
 *   GPipe: every micro-batch's forward, then every backward, the last
 *       first;
 *   1F1B: min(pp - stage - 1, M) forwards, then one forward and one
 *       backward in turn, then the backwards left;
 *   interleaved: forward k on chunk (k mod (pp vpp)) / pp, micro-batch
 *       (k / (pp vpp)) pp + k mod pp (backward k on the chunks in
 *       reverse); (pp - stage - 1) 2 + (vpp - 1) pp forwards of warm-up
 *       (all of them when M = pp), then 1F1B.
 * A chunk's forward receives its input from the chunk before (stage - 1,
 * or the last stage's chunk - 1: its receives are posted ahead, so a
 * transfer runs as soon as its sender sends), runs its layers, each transformer
 * block's in two halves each followed by a tensor-parallel collective
 * the next waits for, and sends its output on; the next compute waits
 * until that send is received (Megatron's blocking p2p; the interleaved
 * schedule's steady state batches a forward's send with the backward
 * after it).  Backward runs
 * the same in reverse, recomputing checkpointed layers first; after a
 * layer's last backward its gradients are all-reduced over the
 * data-parallel group (with no_overlap: all of them after the stage's
 * last backward), and the optimizer follows the last. */
#include "sim/strategy.h"

#include <string.h>

typedef struct { gboolean fwd; int chunk, micro; } Op;

gboolean
dps_pipe_chunk_has_prev (int pp, int vpp, int stage, int chunk)
{
  return stage > 0 || chunk > 0;
}

gboolean
dps_pipe_chunk_has_next (int pp, int vpp, int stage, int chunk)
{
  return stage < pp - 1 || chunk < vpp - 1;
}

/* The forwards and backwards of stage in its schedule's order: fills ops
 * (2 M vpp of them). */
static void
schedule_ops (const DpsPipeStep *in, int stage, Op *ops)
{
  int pp = in->pp, M = in->n_micro, V = in->schedule == DPS_PIPE_INTERLEAVED ? in->vpp : 1, n = 0;
  int total = M * V;
  if (in->schedule == DPS_PIPE_GPIPE) {
    for (int m = 0; m < M; m++)
      ops[n++] = (Op) { TRUE, 0, m };
    for (int m = M - 1; m >= 0; m--)
      ops[n++] = (Op) { FALSE, 0, m };
    return;
  }
  int warmup;
  if (in->schedule == DPS_PIPE_1F1B)
    warmup = MIN (pp - stage - 1, M);
  else
    warmup = M == pp ? total : MIN ((pp - stage - 1) * 2 + (V - 1) * pp, total);
#define FWD(k) ((Op) { TRUE, ((k) % (pp * V)) / pp, ((k) / (pp * V)) * pp + (k) % pp })
#define BWD(k) ((Op) { FALSE, V - 1 - ((k) % (pp * V)) / pp, ((k) / (pp * V)) * pp + (k) % pp })
  for (int k = 0; k < warmup; k++)
    ops[n++] = FWD (k);
  for (int i = 0; i < total - warmup; i++) {
    ops[n++] = FWD (warmup + i);
    ops[n++] = BWD (i);
  }
  for (int i = total - warmup; i < total; i++)
    ops[n++] = BWD (i);
#undef FWD
#undef BWD
}

typedef struct {
  DpsSched          *s;
  const DpsPipeStep *in;
  int                cs, ts, ds;            /* compute, tensor, data-parallel streams */
  int                p2p[DPS_PIPE_MAX_VPP][4];
  int                tp_ar, tp_rs, tp_ag, p2p_comm, dp_ar, dp_rs;
  int                pending_send[2];       /* sends the next compute waits for */
  int                tp_running;            /* tp_comm_overlap: the collective beside the last piece */
  int                last_compute;
  char               label[160];
} Stage;

static int
comm_task (Stage *st, int stream, int comm, double bytes, double alloc, const int *deps, int n_deps)
{
  int d[6], n = 0;
  for (int i = 0; i < n_deps; i++)
    if (deps[i] >= 0)
      d[n++] = deps[i];
  DpsTaskSpec t = { .label = st->label, .comm = comm, .bytes = bytes, .alloc_bytes = alloc,
                    .alloc_kind = DPS_MEM_ACTIVATIONS, .deps = d, .n_deps = n };
  return dps_sched_task_add (st->s, stream, &t);
}

/* Layer l's gradients reduced over the data-parallel group once *dep
 * has run: reduce-scattered where its parameters are sharded (ZeRO-1),
 * else all-reduced. */
static void
reduce_grads (Stage *st, int l, gboolean sharded, const int *dep)
{
  gboolean scatter = sharded && st->in->param_bytes[l] > 0;
  g_snprintf (st->label, sizeof st->label, "%s gradients %s", scatter ? "reduce-scatter" : "all-reduce",
              dps_model_layer (st->in->model, l)->name);
  comm_task (st, st->ds, scatter ? st->dp_rs : st->dp_ar, st->in->grad_bytes[l], 0, dep, 1);
}

/* A compute piece of layer l waiting for deps (any may be -1), holding
 * hold bytes of activations while it runs; returns its id. */
static int
piece (Stage *st, DpsPart part, double work_s, double alloc, double free, double hold, DpsMemKind free_kind,
       const int *deps, int n_deps)
{
  int d[6], n = 0;
  for (int i = 0; i < n_deps; i++)
    if (deps[i] >= 0)
      d[n++] = deps[i];
  DpsTaskSpec t = { .label = st->label, .part = part, .work_s = work_s, .comm = -1, .flags = DPS_TASK_JITTER,
                    .alloc_bytes = alloc, .free_bytes = free, .hold_bytes = hold, .alloc_kind = DPS_MEM_ACTIVATIONS,
                    .free_kind = free_kind, .deps = d, .n_deps = n };
  st->last_compute = dps_sched_task_add (st->s, st->cs, &t);
  return st->last_compute;
}

/* What a stage received from its neighbour (task recv), whole: where each
 * rank of the sending group sent a slice (DpsPipeStep.p2p_full_bytes), the
 * slices all-gathered over the tensor-parallel group, holding the whole
 * tensor; returns the task to wait for. */
static int
gather_received (Stage *st, const char *what, int micro, int recv)
{
  const DpsPipeStep *in = st->in;
  if (in->p2p_full_bytes <= in->p2p_bytes)
    return recv;
  g_snprintf (st->label, sizeof st->label, "all-gather received %s (micro-batch %d)", what, micro);
  return comm_task (st, st->ts, st->tp_ag, in->p2p_full_bytes, in->p2p_full_bytes - in->p2p_bytes, &recv, 1);
}

/* The tensor-parallel collectives of a piece, waiting for deps (the
 * piece, or with tp_comm_overlap what the piece waits for): an
 * all-reduce, or with sequence parallelism a reduce-scatter then an
 * all-gather; returns the last. */
static int
tp_collective (Stage *st, int l, const int *deps, int n_deps)
{
  const DpsPipeStep *in = st->in;
  if (!in->sequence_parallel)
    return comm_task (st, st->ts, st->tp_ar, in->tp_bytes[l], 0, deps, n_deps);
  int rs = comm_task (st, st->ts, st->tp_rs, in->tp_bytes[l], 0, deps, n_deps);
  return comm_task (st, st->ts, st->tp_ag, in->tp_bytes[l], 0, &rs, 1);
}

/* Layer l's pass (forward or backward) in pieces split by its tensor-
 * parallel collectives; the first piece waits for first_deps, allocates
 * alloc and the last frees free; each backward piece holds the layer's
 * hold_bytes while it runs.  Returns what the next task must wait
 * for (the last collective, or the last piece). */
static int
layer_pass (Stage *st, int l, gboolean fwd, int m, const int *first_deps, int n_first, double alloc, double free,
            DpsMemKind free_kind)
{
  const DpsPipeStep *in = st->in;
  const char *name = dps_model_layer (in->model, l)->name;
  int pieces = MAX (1, in->tp_per_pass[l]);
  double work = (fwd ? in->fwd_s[l] : in->bwd_s[l]) / pieces;
  int wait = -1;
  for (int p = 0; p < pieces; p++) {
    g_snprintf (st->label, sizeof st->label, "%s %s%s (micro-batch %d)", fwd ? "fwd" : "bwd", name,
                pieces > 1 ? (p == 0 ? " 1/2" : " 2/2") : "", m);
    int deps[6] = { wait, st->tp_running, -1, -1, -1, -1 };
    for (int i = 0; p == 0 && i < n_first && i < 4; i++)
      deps[i + 2] = first_deps[i];
    int t = piece (st, fwd ? DPS_PART_FORWARD : DPS_PART_BACKWARD, work, p == 0 ? alloc : 0,
                   p == pieces - 1 ? free : 0, fwd || !in->hold_bytes ? 0 : in->hold_bytes[l], free_kind, deps, 6);
    wait = t;
    st->tp_running = -1;
    if (in->tp_per_pass[l] > p) {
      g_snprintf (st->label, sizeof st->label, "tensor-parallel %s %s (micro-batch %d)", fwd ? "fwd" : "bwd", name, m);
      /* overlapped, it runs beside the piece (from the piece's inputs on)
       * and the next waits for both; else after it */
      if (in->tp_comm_overlap)
        st->tp_running = tp_collective (st, l, deps, 6);
      else
        wait = tp_collective (st, l, &t, 1);
    }
  }
  return wait;
}

/* The schedule of in (a new program; free with dps_sched_free). */
DpsSched *
dps_strategy_pipeline (const DpsPipeStep *in)
{
  const DpsModel *m = in->model;
  int L = dps_model_n_layers (m), pp = in->pp, M = in->n_micro;
  int V = in->schedule == DPS_PIPE_INTERLEAVED ? in->vpp : 1;
  g_return_val_if_fail (V <= DPS_PIPE_MAX_VPP, NULL);
  DpsSched *s = dps_sched_new ();
  int n_ops = 2 * M * V;
  Op *ops = g_new (Op, n_ops);
  int *last_bwd_micro = g_new (int, V);
  int *bwd_task = g_new (int, MAX (L, 1));
  int tp_ar = dps_sched_comm_add (s, &in->tp_allreduce);
  int tp_rs = dps_sched_comm_add (s, &in->tp_reducescatter);
  int tp_ag = dps_sched_comm_add (s, &in->tp_allgather);
  int p2p = dps_sched_comm_add (s, &in->p2p);
  int dp = dps_sched_comm_add (s, &in->dp_allreduce);
  gboolean sharded = FALSE;
  for (int l = 0; l < L && in->param_bytes; l++)
    sharded |= in->param_bytes[l] > 0;
  int dp_rs = sharded ? dps_sched_comm_add (s, &in->dp_reducescatter) : -1;
  int dp_ag = sharded ? dps_sched_comm_add (s, &in->dp_allgather) : -1;
  int *gather = g_new (int, MAX (L, 1));
  int *loss_input = g_new (int, M * V);
  gboolean seen_fwd[DPS_PIPE_MAX_VPP];
  for (int stage = 0; stage < pp; stage++) {
    char name[64];
    g_snprintf (name, sizeof name, "stage %d", stage);
    Stage st = { .s = s, .in = in, .tp_ar = tp_ar, .tp_rs = tp_rs, .tp_ag = tp_ag, .p2p_comm = p2p, .dp_ar = dp, .dp_rs = dp_rs,
                 .pending_send = { -1, -1 }, .last_compute = -1, .tp_running = -1 };
    int role = dps_sched_role_add (s, name, in->stage_static_bytes[stage]);
    st.cs = dps_sched_stream_add (s, role, "compute", DPS_SCHED_NO_STREAM);
    st.ts = dps_sched_stream_add (s, role, "tensor parallel", DPS_PIPE_TP_SLOT);
    st.ds = dps_sched_stream_add (s, role, "data parallel", DPS_PIPE_DP_SLOT);
    static const char *const links[4] = { "activations in", "activations out", "gradients in", "gradients out" };
    for (int c = 0; c < V; c++)
      for (int k = 0; k < 4; k++) {
        gboolean used = (k == DPS_P2P_ACT_IN || k == DPS_P2P_GRAD_OUT) ? dps_pipe_chunk_has_prev (pp, V, stage, c)
                                                                         : dps_pipe_chunk_has_next (pp, V, stage, c);
        g_snprintf (name, sizeof name, "%s%s", links[k], V > 1 ? (char[]) { ' ', 'c', (char) ('0' + c), 0 } : "");
        st.p2p[c][k] = used ? dps_sched_stream_add (s, role, name, DPS_PIPE_P2P_SLOT (c, k)) : -1;
      }
    schedule_ops (in, stage, ops);
    /* the parameters the optimizer updated (the step before's), gathered
     * in the order the forwards first use them */
    int all_gathered = -1;
    for (int l = 0; l < L; l++)
      gather[l] = -1;
    for (int c = 0; c < V; c++) {
      seen_fwd[c] = FALSE;
      for (int l = 0; l < L; l++) {
        if (!sharded || in->stage_of_layer[l] != stage || in->chunk_of_layer[l] != c || in->param_bytes[l] <= 0)
          continue;
        g_snprintf (st.label, sizeof st.label, "all-gather parameters %s", dps_model_layer (m, l)->name);
        gather[l] = all_gathered = comm_task (&st, st.ds, dp_ag, in->param_bytes[l], 0, NULL, 0);
      }
    }
    for (int c = 0; c < V; c++)
      last_bwd_micro[c] = -1;
    for (int i = 0; i < n_ops; i++)
      if (!ops[i].fwd)
        last_bwd_micro[ops[i].chunk] = ops[i].micro;
    for (int i = 0; i < n_ops; i++) {
      Op op = ops[i];
      int c = op.chunk;
      /* what this op's first compute waits for: the sends before it,
       * except that the interleaved schedule's steady state batches a
       * forward's send with the backward after it (Megatron's
       * send_forward_backward_recv_forward_backward), so that backward
       * goes on while it is in flight */
      gboolean batched = in->schedule == DPS_PIPE_INTERLEAVED && !op.fwd && i > 0 && ops[i - 1].fwd;
      int wait_sends[2] = { batched ? -1 : st.pending_send[0], batched ? -1 : st.pending_send[1] };
      if (!batched)
        st.pending_send[0] = st.pending_send[1] = -1;
      if (op.fwd) {
        int recv = -1;
        if (st.p2p[c][DPS_P2P_ACT_IN] >= 0) {
          g_snprintf (st.label, sizeof st.label, "recv activations (micro-batch %d)", op.micro);
          recv = comm_task (&st, st.p2p[c][DPS_P2P_ACT_IN], p2p, in->p2p_bytes, in->p2p_bytes, NULL, 0);
          recv = gather_received (&st, "activations", op.micro, recv);
        }
        int wait = -1, first = TRUE;
        for (int l = 0; l < L; l++) {
          if (in->stage_of_layer[l] != stage || in->chunk_of_layer[l] != c)
            continue;
          double saved = in->recompute_s[l] > 0 ? in->kept_bytes[l] : in->act_bytes[l];
          int gathered = seen_fwd[c] ? -1 : in->overlap_param_gather ? gather[l] : all_gathered;
          int deps[4] = { first ? recv : wait, first ? wait_sends[0] : -1, first ? wait_sends[1] : -1, gathered };
          wait = layer_pass (&st, l, TRUE, op.micro, deps, 4, saved, 0, DPS_MEM_ACTIVATIONS);
          first = FALSE;
        }
        seen_fwd[c] = TRUE;
        /* the forward's output: its last piece's, or the collective beside
         * it (which ends after the piece's inputs, on the one stream) */
        loss_input[c * M + op.micro] = st.tp_running >= 0 ? st.tp_running : wait;
        if (st.p2p[c][DPS_P2P_ACT_OUT] >= 0) {
          g_snprintf (st.label, sizeof st.label, "send activations (micro-batch %d)", op.micro);
          int sd[2] = { wait, st.tp_running };
          st.pending_send[st.pending_send[0] >= 0] = comm_task (&st, st.p2p[c][DPS_P2P_ACT_OUT], p2p, in->p2p_bytes, 0,
                                                                sd, 2);
        }
        continue;
      }
      /* a backward starts from the gradients received, or where none
       * come (the chunk that computes the loss) from its forward's output */
      int recv = loss_input[c * M + op.micro];
      if (st.p2p[c][DPS_P2P_GRAD_IN] >= 0) {
        g_snprintf (st.label, sizeof st.label, "recv gradients (micro-batch %d)", op.micro);
        recv = comm_task (&st, st.p2p[c][DPS_P2P_GRAD_IN], p2p, in->p2p_bytes, in->p2p_bytes, NULL, 0);
        recv = gather_received (&st, "gradients", op.micro, recv);
      }
      int wait = -1, first = TRUE, chunk_first = -1;
      for (int l = 0; l < L && chunk_first < 0; l++)
        if (in->stage_of_layer[l] == stage && in->chunk_of_layer[l] == c)
          chunk_first = l;
      for (int l = L - 1; l >= 0; l--) {
        if (in->stage_of_layer[l] != stage || in->chunk_of_layer[l] != c)
          continue;
        double freed = in->act_bytes[l];
        int deps[3] = { first ? recv : wait, first ? wait_sends[0] : -1, first ? wait_sends[1] : -1 };
        if (in->recompute_s[l] > 0) {
          g_snprintf (st.label, sizeof st.label, "recompute %s (micro-batch %d)", dps_model_layer (m, l)->name,
                      op.micro);
          wait = piece (&st, DPS_PART_RECOMPUTE, in->recompute_s[l], in->act_bytes[l], 0, 0, DPS_MEM_ACTIVATIONS, deps, 3);
          deps[0] = wait, deps[1] = deps[2] = -1;
          freed += in->kept_bytes[l];
        }
        /* the received gradients are done with after the chunk's last
         * layer, the received activations after its first */
        if (first && st.p2p[c][DPS_P2P_GRAD_IN] >= 0)
          freed += MAX (in->p2p_full_bytes, in->p2p_bytes);
        if (l == chunk_first && st.p2p[c][DPS_P2P_ACT_IN] >= 0)
          freed += MAX (in->p2p_full_bytes, in->p2p_bytes);
        wait = layer_pass (&st, l, FALSE, op.micro, deps, 3, 0, freed, DPS_MEM_ACTIVATIONS);
        bwd_task[l] = st.last_compute;
        first = FALSE;
        if (!in->no_overlap && op.micro == last_bwd_micro[c] && in->grad_bytes[l] > 0)
          reduce_grads (&st, l, sharded, &bwd_task[l]);
      }
      if (st.p2p[c][DPS_P2P_GRAD_OUT] >= 0) {
        g_snprintf (st.label, sizeof st.label, "send gradients (micro-batch %d)", op.micro);
        int sd[2] = { wait, st.tp_running };
        st.pending_send[st.pending_send[0] >= 0] = comm_task (&st, st.p2p[c][DPS_P2P_GRAD_OUT], p2p, in->p2p_bytes, 0,
                                                              sd, 2);
      }
    }
    /* reduced only now, after the stage's whole backward: in the order
     * the backward produced them */
    if (in->no_overlap)
      for (int c = V - 1; c >= 0; c--)
        for (int l = L - 1; l >= 0; l--)
          if (in->stage_of_layer[l] == stage && in->chunk_of_layer[l] == c && in->grad_bytes[l] > 0)
            reduce_grads (&st, l, sharded, &st.last_compute);
    int deps[5] = { dps_sched_stream_last (s, st.ds), st.pending_send[0], st.pending_send[1], st.last_compute,
                    dps_sched_stream_last (s, st.ts) };
    g_snprintf (st.label, sizeof st.label, "optimizer");
    piece (&st, DPS_PART_OPTIMIZER, in->stage_optimizer_s[stage], 0, 0, 0, DPS_MEM_BUFFERS, deps, 5);
  }
  g_free (ops);
  g_free (last_bwd_micro);
  g_free (bwd_task);
  g_free (gather);
  g_free (loss_input);
  return s;
}
