/* worker-check.c — see worker-check.h. */
#include "real/worker-check.h"
#include "real/tensor-parallel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void
dps_worker_check_params (DpsDev *dev, const DpsWorkerOpts *o, const DpsWorkerPlan *p, const float *params, int rank,
                         MPI_Comm tp_comm)
{
  if (!o->check_params || (rank != 0 && p->tp == 1 && p->pp == 1))
    return;
  const DpsShardLayout *l = p->layout;
  float *all = g_new (float, MAX (l->total, 1)), *model = g_new (float, MAX (p->model->n_params, 1));
  dev->download (dev, all, params, sizeof (float) * (gsize) l->total);
  if (p->pp > 1) {
    /* each stage's layers from its rank of replica 0 (its own are current,
     * the rest as they started) */
    int L = dps_model_n_layers (p->model), blocks = L - 2;
    g_autofree gint64 *loff = g_new (gint64, L + 1);
    dps_train_net_layout (p->model, 1, NULL, loff);
    for (int s = 1; s < p->pp; s++) {
      int first = 1 + (int) ((gint64) s * blocks / p->pp), end = s == p->pp - 1 ? L : 1 + (int) ((gint64) (s + 1) * blocks / p->pp);
      int n = (int) (loff[end] - loff[first]);
      if (rank == 0)
        MPI_Recv (all + loff[first], n, MPI_FLOAT, s * p->dp, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      else if (rank == s * p->dp)
        MPI_Send (all + loff[first], n, MPI_FLOAT, 0, 99, MPI_COMM_WORLD);
    }
    if (rank != 0) {
      g_free (all);
      g_free (model);
      return;
    }
  }
  gint64 n = 0;
  for (int u = 0; u < l->n_units; u++) {
    memcpy (model + n, all + l->off[u], sizeof (float) * (gsize) l->count[u]);
    n += l->count[u];
  }
  if (p->tp > 1) {
    /* the whole model from the parts of rank 0's tensor-parallel group
     * (every group gathers to its first rank; only rank 0 reads) */
    float *parts = p->tp_rank == 0 ? g_new (float, (gsize) n * p->tp) : NULL;
    MPI_Gather (model, (int) n, MPI_FLOAT, parts, (int) n, MPI_FLOAT, 0, tp_comm);
    g_free (model);
    if (rank != 0) {
      g_free (parts);
      g_free (all);
      return;
    }
    const float **part = g_new (const float *, p->tp);
    for (int r = 0; r < p->tp; r++)
      part[r] = parts + (gsize) r * n;
    n = p->full->n_params;
    model = g_new (float, MAX (n, 1));
    dps_tp_unshard (p->full, p->model, p->tp, part, model);
    g_free (part);
    g_free (parts);
  }
  double l2 = 0, sum = 0;
  for (gint64 i = 0; i < n; i++) {
    l2 += (double) model[i] * model[i];
    sum += model[i];
  }
  if (o->save_params) {
    FILE *f = fopen (o->save_params, "wb");
    gboolean ok = f && fwrite (model, sizeof (float), (gsize) n, f) == (gsize) n;
    ok = f && fclose (f) == 0 && ok;
    if (!ok) {
      char msg[512];
      g_snprintf (msg, sizeof msg, "--save-params: cannot write %s", o->save_params);
      dps_worker_fail (msg);
    }
  }
  printf ("# params %" G_GINT64_FORMAT " %.17g %.17g %" G_GUINT64_FORMAT "\n", n, sqrt (l2), sum,
          dps_train_net_hash_floats (dps_dev_cpu (), model, n));
  fflush (stdout);
  g_free (all);
  g_free (model);
}

void
dps_worker_time_layers (DpsDev *dev, const DpsWorkerOpts *o, const DpsWorkerPlan *p, int rank)
{
  if (rank != 0)
    return;
  int L = dps_model_n_layers (p->model);
  double *t = g_new (double, 2 * L + 2);
  if (!dps_train_net_layer_times_on (dev, p->model, o->batch, 1.0, t, t + L, t + 2 * L, t + 2 * L + 1))
    dps_worker_fail ("the runner cannot train this model (MLPs and GPT-2 stacks)");
  GError *error = NULL;
  if (!dev->sync (dev, &error))
    dps_worker_fail (error->message);
  dps_train_net_print_layers (L, t);
  g_free (t);
}

static float *
host_grads (DpsTrainNet *n)
{
  float *g = g_new (float, n->n_params);
  n->dev->download (n->dev, g, n->grads, sizeof (float) * n->n_params);
  return g;
}

void
dps_worker_gradcheck (DpsTrainNet *net, const DpsWorkerOpts *o, const DpsWorkerPlan *p, int rank, int world,
                      DpsWorkerAllreduce allreduce, void *data)
{
  GError *error = NULL;
  dps_train_net_batch (net, (guint32) o->seed, (gint64) rank * o->batch);
  dps_train_net_forward (net);
  dps_train_net_loss_grad (net);
  dps_train_net_backward (net);
  allreduce (net->grads, net->n_params, data);
  if (rank != 0)
    return;
  float *shards = host_grads (net);
  DpsTrainNet *whole = dps_train_net_new_padded (net->dev, p->model, o->batch * world, (guint32) o->seed,
                                                 p->layout->shards, &error);
  if (!whole)
    dps_worker_fail (error->message);
  dps_train_net_batch (whole, (guint32) o->seed, 0);
  dps_train_net_forward (whole);
  dps_train_net_loss_grad (whole);
  dps_train_net_backward (whole);
  float *all = host_grads (whole);
  double maxdiff = 0, maxg = 0;
  for (gint64 i = 0; i < net->n_params; i++) {
    maxdiff = MAX (maxdiff, fabs (all[i] - shards[i] / world));
    maxg = MAX (maxg, fabs (all[i]));
  }
  printf ("# gradcheck %.3g\n", maxg > 0 ? maxdiff / maxg : 0);
  fflush (stdout);
  g_free (shards);
  g_free (all);
  dps_train_net_free (whole);
}
