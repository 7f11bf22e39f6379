/* pipeline-step.c — see pipeline-step.h. */
#include "real/pipeline-step.h"

#include <string.h>

void
dps_pipe_stage_init (DpsPipeStage *ps, const DpsWorkerPlan *plan, DpsTrainNet *net, int rank)
{
  const DpsModel *m = plan->model;
  int L = dps_model_n_layers (m), blocks = L - 2, P = plan->pp, s = plan->stage;
  if (blocks < P)
    dps_worker_fail ("--pp: more stages than the model's blocks");
  memset (ps, 0, sizeof *ps);
  ps->stage = s;
  ps->stages = P;
  ps->micro = plan->micro;
  /* blocks b of stage s: [s B / P, (s + 1) B / P) (layers 1 + b) */
  ps->first = s == 0 ? 0 : 1 + (int) ((gint64) s * blocks / P);
  ps->end = s == P - 1 ? L : 1 + (int) ((gint64) (s + 1) * blocks / P);
  g_autofree gint64 *toff = g_new (gint64, dps_model_n_tensors (m)), *loff = g_new (gint64, L + 1);
  dps_train_net_layout (m, 1, toff, loff);
  ps->span0 = loff[ps->first];
  ps->span1 = loff[ps->end];
  ps->wte0 = toff[0];
  ps->wte_n = dps_model_tensor (m, 0)->numel;
  int dp = plan->dp;
  ps->prev = s > 0 ? rank - dp : -1;
  ps->next = s < P - 1 ? rank + dp : -1;
  MPI_Comm_split (MPI_COMM_WORLD, s, rank, &ps->dp);
  gboolean emb = s == 0 || s == P - 1;
  MPI_Comm_split (MPI_COMM_WORLD, emb ? plan->dp_rank : MPI_UNDEFINED, rank, &ps->emb);
  gsize floats = (gsize) net->batch * (gsize) m->seq_len * (gsize) dps_model_tensor (m, 0)->cols;
  ps->send = g_new0 (float *, ps->micro);
  for (int j = 0; j < ps->micro; j++)
    ps->send[j] = g_new (float, floats);
  ps->req = g_new (MPI_Request, ps->micro);
}

void
dps_pipe_stage_clear (DpsPipeStage *ps)
{
  for (int j = 0; ps->send && j < ps->micro; j++)
    g_free (ps->send[j]);
  g_free (ps->send);
  g_free (ps->req);
  if (ps->dp != MPI_COMM_NULL)
    MPI_Comm_free (&ps->dp);
  if (ps->emb != MPI_COMM_NULL)
    MPI_Comm_free (&ps->emb);
  memset (ps, 0, sizeof *ps);
}

/* Micro-batch j's forward on the stage (its activations in slot j mod the
 * slots), timed: compute into *fwd, waiting for the previous stage into
 * *wait; the last stage's loss added to *loss. */
static void
forward (DpsPipeStage *ps, const DpsWorkerOpts *o, const DpsWorkerPlan *plan, DpsTrainNet *net, int s, int j,
         double *fwd, double *wait, double *loss)
{
  int K = MIN (ps->stages - ps->stage, ps->micro);
  gsize floats = (gsize) net->batch * (gsize) plan->model->seq_len * (gsize) dps_model_tensor (plan->model, 0)->cols;
  dps_gpt2_use_slot (net, j % K);
  double t = dps_worker_now ();
  /* the micro-batch's samples, the replica's j-th slice of its batch */
  dps_train_net_batch (net, (guint32) o->seed,
                       ((gint64) s * plan->dp + plan->dp_rank) * o->batch + (gint64) j * net->batch);
  if (ps->prev >= 0) {
    double w = dps_worker_now ();
    MPI_Recv (dps_gpt2_input (net, ps->first), (int) floats, MPI_FLOAT, ps->prev, j, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    *wait += dps_worker_now () - w;
    t += dps_worker_now () - w;
  }
  for (int l = ps->first; l < ps->end; l++)
    dps_train_net_forward_layer (net, l);
  if (ps->next >= 0) {
    memcpy (ps->send[j], dps_gpt2_input (net, ps->end), sizeof (float) * floats);
    MPI_Isend (ps->send[j], (int) floats, MPI_FLOAT, ps->next, j, MPI_COMM_WORLD, &ps->req[j]);
  } else
    *loss += dps_train_net_loss_grad (net);
  *fwd += dps_worker_now () - t;
}

/* Micro-batch i's backward, as forward. */
static void
backward (DpsPipeStage *ps, const DpsWorkerPlan *plan, DpsTrainNet *net, int i, double *bwd, double *wait)
{
  int K = MIN (ps->stages - ps->stage, ps->micro);
  gsize floats = (gsize) net->batch * (gsize) plan->model->seq_len * (gsize) dps_model_tensor (plan->model, 0)->cols;
  dps_gpt2_use_slot (net, i % K);
  net->accumulate = i > 0;
  double t = dps_worker_now ();
  if (ps->next >= 0) {
    MPI_Recv (dps_gpt2_grad (net), (int) floats, MPI_FLOAT, ps->next, ps->micro + i, MPI_COMM_WORLD,
              MPI_STATUS_IGNORE);
    double w = dps_worker_now () - t;
    *wait += w;
    t += w;
  }
  for (int l = ps->end - 1; l >= ps->first; l--)
    dps_train_net_backward_layer (net, l);
  if (ps->prev >= 0) {
    /* the previous stage's send buffer of micro-batch i went long ago */
    if (ps->next >= 0)
      MPI_Wait (&ps->req[i], MPI_STATUS_IGNORE);
    memcpy (ps->send[i], dps_gpt2_grad (net), sizeof (float) * floats);
    MPI_Isend (ps->send[i], (int) floats, MPI_FLOAT, ps->prev, ps->micro + i, MPI_COMM_WORLD, &ps->req[i]);
  }
  *bwd += dps_worker_now () - t;
}

void
dps_pipe_step (DpsPipeStage *ps, const DpsWorkerOpts *o, const DpsWorkerPlan *plan, DpsWorkerBuffers *bufs,
               DpsTrainNet *net, int s, double mine[9])
{
  int P = ps->stages, M = ps->micro, warm = MIN (P - ps->stage - 1, M);
  double t0 = dps_worker_now (), fwd = 0, bwd = 0, wait = 0, loss = 0;
  DpsDev *dev = net->dev;
  /* the first stage's embeddings add into the token embedding's gradient */
  if (ps->stage == 0)
    dev->zero (dev, net->grads + ps->wte0, sizeof (float) * (gsize) ps->wte_n);
  for (int j = 0; j < warm; j++)
    forward (ps, o, plan, net, s, j, &fwd, &wait, &loss);
  for (int i = 0; i < M - warm; i++) {
    forward (ps, o, plan, net, s, warm + i, &fwd, &wait, &loss);
    backward (ps, plan, net, i, &bwd, &wait);
  }
  for (int i = M - warm; i < M; i++)
    backward (ps, plan, net, i, &bwd, &wait);
  double w = dps_worker_now ();
  /* a stage between two others sent each micro-batch both ways from one
   * buffer: its last sends, backward's, are the ones outstanding */
  if (ps->prev >= 0 || ps->next >= 0)
    MPI_Waitall (M, ps->req, MPI_STATUSES_IGNORE);
  /* the tied embedding's two halves, then the replicas */
  if (ps->emb != MPI_COMM_NULL && P > 1)
    MPI_Allreduce (MPI_IN_PLACE, net->grads + ps->wte0, (int) ps->wte_n, MPI_FLOAT, MPI_SUM, ps->emb);
  if (plan->dp > 1) {
    MPI_Allreduce (MPI_IN_PLACE, net->grads + ps->span0, (int) (ps->span1 - ps->span0), MPI_FLOAT, MPI_SUM, ps->dp);
    if (ps->stage == P - 1 && P > 1)
      MPI_Allreduce (MPI_IN_PLACE, net->grads + ps->wte0, (int) ps->wte_n, MPI_FLOAT, MPI_SUM, ps->dp);
  }
  wait += dps_worker_now () - w;
  double t = dps_worker_now ();
  if (o->adam && !bufs->m1) {
    bufs->m1 = dev->alloc (dev, sizeof (float) * (gsize) MAX (net->n_params, 1));
    bufs->m2 = dev->alloc (dev, sizeof (float) * (gsize) MAX (net->n_params, 1));
    if (!bufs->m1 || !bufs->m2)
      dps_worker_fail ("Adam's moments: out of memory");
    dev->zero (dev, bufs->m1, sizeof (float) * (gsize) net->n_params);
    dev->zero (dev, bufs->m2, sizeof (float) * (gsize) net->n_params);
  }
  /* the mean over micro-batches and replicas */
  double scale = 1.0 / ((double) M * plan->dp);
  gint64 a = ps->span0, n = ps->span1 - ps->span0;
  dps_train_net_optimize (dev, o->adam, o->lr, scale, s + 1, net->params + a, net->grads + a,
                          bufs->m1 ? bufs->m1 + a : NULL, bufs->m2 ? bufs->m2 + a : NULL, n);
  if (ps->stage == P - 1 && P > 1)
    dps_train_net_optimize (dev, o->adam, o->lr, scale, s + 1, net->params + ps->wte0, net->grads + ps->wte0,
                            bufs->m1 ? bufs->m1 + ps->wte0 : NULL, bufs->m2 ? bufs->m2 + ps->wte0 : NULL, ps->wte_n);
  double opt = dps_worker_now () - t;
  /* the loss is the last stage's (of replica 0), for every rank's report */
  MPI_Bcast (&loss, 1, MPI_DOUBLE, (P - 1) * plan->dp, MPI_COMM_WORLD);
  mine[0] = fwd;
  mine[1] = bwd;
  mine[2] = wait;
  mine[3] = opt;
  mine[4] = dps_worker_now () - t0;
  mine[5] = loss / M;
  mine[6] = mine[7] = mine[8] = 0;
}
