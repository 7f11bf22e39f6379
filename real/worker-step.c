/* worker-step.c — see worker-step.h. */
#include "real/worker-step.h"

double
dps_worker_step (const DpsWorkerReplica *w, int s, const DpsWorkerExec *x, void *self, double *loss)
{
  const DpsWorkerOpts *o = w->opts;
  const DpsWorkerPlan *plan = w->plan;
  const DpsStepProgram *prog = plan->program;
  double asked = 0;
  *loss = 0;
  for (int i = 0; i < prog->n_acts; i++) {
    const DpsStepAct *a = &prog->acts[i];
    switch (a->kind) {
    case DPS_ACT_BATCH:
      if (w->net)
        dps_worker_micro_batch (w->net, o, plan, s, a->arg, w->rank, w->world);
      break;
    case DPS_ACT_FORWARD:
    case DPS_ACT_BACKWARD:
      if (w->net)
        (a->kind == DPS_ACT_FORWARD ? dps_train_net_forward_layer : dps_train_net_backward_layer) (w->net, a->arg);
      else {
        double t = (a->kind == DPS_ACT_FORWARD ? plan->fwd_s : plan->bwd_s)[a->arg];
        x->emulate (self, t);
        asked += t;
      }
      break;
    case DPS_ACT_LOSS:
      if (w->net)
        *loss = dps_train_net_loss_grad (w->net);
      break;
    case DPS_ACT_ISSUE:
      x->issue (self, a->arg);
      break;
    case DPS_ACT_WAIT:
    case DPS_ACT_WAIT_ALL:
      x->wait (self, a->kind == DPS_ACT_WAIT ? a->arg : -1);
      break;
    case DPS_ACT_RELEASE:
      /* the gathered parameters are left as they are (nothing reads them
       * before they are gathered again); the check poisons them, so that
       * a layer reading them would turn everything into NaN */
      if (o->check_params && w->net)
        x->release (self, a->arg);
      break;
    case DPS_ACT_ACCUMULATE:
      dps_worker_accumulate (w->dev, plan, w->bufs, a->arg);
      break;
    case DPS_ACT_OPTIMIZER:
      if (w->net) {
        /* summed over micro-steps and replicas: the update uses their mean */
        GError *error = NULL;
        if (!dps_worker_optimize (w->dev, o, plan, w->bufs, a->arg, 1.0 / ((double) o->accum * w->world), s + 1,
                                  &error))
          dps_worker_fail (error->message);
      } else if (o->opt_ms > 0) {
        double t = o->opt_ms * 1e-3 * dps_worker_optimizer_share (plan, a->arg);
        x->emulate (self, t);
        asked += t;
      }
      break;
    default:
      g_assert_not_reached ();
    }
    x->done (self, i);
  }
  return asked;
}
