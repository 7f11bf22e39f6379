/* pipeline-step — one training step of a pipeline stage of the CPU
 * runner (dpscale run --pp), as Megatron-LM's non-interleaved 1F1B
 * schedule runs it (Narayanan et al., SC21, section 2.2): the replica's
 * batch in M micro-batches; stage s of P first runs min(P - s - 1, M)
 * forwards, then one forward and one backward in turn, then the
 * remaining backwards.  A stage holds consecutive layers: the embeddings
 * and the first blocks on stage 0, the blocks evenly (their remainder to
 * the first stages), the final norm and the head on the last.  Between
 * neighbours each micro-batch's activations go forward and their
 * gradients back (MPI: blocking receives, non-blocking sends from a
 * buffer a micro-batch), and a stage keeps the activations of each
 * micro-batch in flight (dps_gpt2_slots: P - s of them).
 *
 * After the schedule: the token embedding's gradient, which the first
 * stage's embeddings and the last stage's tied head both produce, summed
 * between them (Megatron's embedding group); then each stage's gradients
 * all-reduced over its replicas (data parallelism); then the optimizer on
 * the stage's own layers (and the last stage's copy of the embedding, kept
 * equal to the first's).  Ranks: stage outermost, replicas inside
 * (Megatron's order: rank = replica + replicas x stage). */
#pragma once

#include <mpi.h>
#include "real/worker.h"

typedef struct {
  int      stage, stages, micro;       /* s, P, M */
  int      first, end;                 /* the stage's layers [first, end) */
  gint64   span0, span1;               /* their parameters in the flat arrays */
  gint64   wte0, wte_n;                /* the token embedding (tied to the head) */
  MPI_Comm dp, emb;                    /* the stage's replicas; the embedding group (MPI_COMM_NULL off it) */
  int      prev, next;                 /* neighbouring stages' ranks (-1: none) */
  float  **send;                       /* a buffer per micro-batch for what goes to a neighbour */
  MPI_Request *req;
} DpsPipeStage;

/* The stage of rank in plan (plan->pp stages, plan->micro micro-batches);
 * refuses (dps_worker_fail) a model with fewer blocks than stages. */
void   dps_pipe_stage_init (DpsPipeStage *ps, const DpsWorkerPlan *plan, DpsTrainNet *net, int rank);
void   dps_pipe_stage_clear (DpsPipeStage *ps);

/* Step s on net (its batch a micro-batch's): mine as dps_worker_step_times
 * fills it (forward and backward compute, the waits for neighbours and
 * the reductions, the optimizer, the total, the loss: the last stage's,
 * shared with every rank). */
void   dps_pipe_step (DpsPipeStage *ps, const DpsWorkerOpts *o, const DpsWorkerPlan *plan, DpsWorkerBuffers *bufs,
                      DpsTrainNet *net, int s, double mine[9]);
