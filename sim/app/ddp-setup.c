/* ddp-setup.c — see ddp-setup.h. */
#include "sim/app/ddp-setup.h"
#include "sim/app/cli-util.h"

/* Sizes the topology (named, or the profile's cluster or machine) for
 * nodes or gpus, applies the profile (may be NULL) to it and to c
 * (dps_profile_apply_ddp: collectives, layer times, waits), and fills c's
 * model, topology, GPU count and, where c has none, the topology's price.
 * *topo receives the topology (the caller frees it). */
gboolean
dps_ddp_setup (const char *topology, const DpsProfile *profile, DpsModel *model, int nodes, int gpus,
               DpsDdpConfig *c, DpsTopo **topo, GError **error)
{
  int n_gpus;
  *topo = dps_cli_topology_calibrated (topology, profile, nodes, gpus, &n_gpus, error);
  if (!*topo)
    return FALSE;
  /* the flag's price, else the topology's own (each of a sweep's its own) */
  if (c->price_per_gpu_hour <= 0)
    c->price_per_gpu_hour = dps_topo_spec (*topo)->price_per_gpu_hour_usd;
  g_autofree char *note = NULL;
  gboolean ok = dps_profile_apply_ddp (profile, topology, model, *topo, n_gpus, c, &note, error);
  dps_cli_note (note);
  if (!ok)
    return FALSE;
  c->model = model;
  c->topo = *topo;
  c->n_gpus = n_gpus;
  return TRUE;
}

/* The per-layer times an emulated replica waits, and its optimizer time:
 * the profile's measured layer times for this model, else the model's own
 * (CSV), else the roofline on the topology's device (default dgx-h100), fp32
 * without mixed precision, as the CPU runner computes.  fwd_s and bwd_s are
 * new arrays (g_free them). */
gboolean
dps_ddp_setup_emulation (DpsModel *model, const DpsProfile *profile, const char *topology, int batch,
                         gboolean adam, double **fwd_s, double **bwd_s, double *opt_s, GError **error)
{
  DpsDdpConfig c;
  dps_ddp_config_default (&c);
  c.compute.dtype = DPS_DTYPE_FP32;
  c.precision = DPS_PRECISION_AMP;
  c.optimizer = adam ? DPS_OPT_ADAM : DPS_OPT_SGD;
  g_autoptr (DpsTopo) topo = NULL;
  if (!dps_ddp_setup (topology, profile, model, 0, 1, &c, &topo, error))
    return FALSE;
  int L = dps_model_n_layers (model);
  *fwd_s = g_new (double, L);
  *bwd_s = g_new (double, L);
  dps_ddp_compute_times (&c, batch, *fwd_s, *bwd_s, opt_s);
  return TRUE;
}
