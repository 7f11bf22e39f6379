/* profile.c — see profile.h: a profile in memory and what it means for the
 * simulator (its parameters, topology, waits, layer times); reading and
 * writing it as a key file is profile-file.c. */
#include "calibrate/profile.h"
#include "calibrate/profile-network.h"
#include "real/netemu.h"
#include "sim/coll-predict.h"
#include "sim/base/stats.h"

#include <math.h>
#include <string.h>

static void
layer_times_free (gpointer p)
{
  DpsLayerTimes *l = p;
  g_free (l->model);
  g_array_free (l->fwd_s, TRUE);
  g_array_free (l->bwd_s, TRUE);
  g_free (l);
}

/* A profile around data (owned from now on). */
DpsProfile *
dps_profile_new (DpsCalData *data)
{
  DpsProfile *p = g_new0 (DpsProfile, 1);
  p->data = data;
  p->gemm = g_array_new (FALSE, FALSE, sizeof (DpsGemmPoint));
  p->layers = g_ptr_array_new_with_free_func (layer_times_free);
  p->contention = g_array_new (FALSE, FALSE, sizeof (DpsContention));
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  p->created = g_date_time_format_iso8601 (now);
  return p;
}

void
dps_profile_free (DpsProfile *p)
{
  if (!p)
    return;
  g_free (p->path);
  g_free (p->created);
  g_free (p->machine_name);
  g_free (p->run_section);
  g_free (p->net_topology);
  g_array_free (p->contention, TRUE);
  dps_cal_data_free (p->data);
  g_array_free (p->gemm, TRUE);
  g_ptr_array_unref (p->layers);
  g_free (p);
}

/* Records measured per-layer times of model at batch (copies them). */
DpsLayerTimes *
dps_profile_add_layers (DpsProfile *p, const char *model, int batch, int ranks, const double *fwd, const double *bwd,
                        int n)
{
  DpsLayerTimes *l = g_new0 (DpsLayerTimes, 1);
  l->model = g_strdup (model);
  l->batch = batch;
  l->ranks = MAX (ranks, 1);
  l->fwd_s = g_array_new (FALSE, FALSE, sizeof (double));
  l->bwd_s = g_array_new (FALSE, FALSE, sizeof (double));
  g_array_append_vals (l->fwd_s, fwd, n);
  g_array_append_vals (l->bwd_s, bwd, n);
  g_ptr_array_add (p->layers, l);
  return l;
}

static double
max_bw (const DpsFitLevel *l)
{
  /* a regime whose time did not grow with size (latency only) fits an
   * unbounded bandwidth: it says nothing of the links' rate */
  double m = 0;
  for (int r = 0; l && r < l->n_regimes; r++)
    if (l->bw_Bps[r] < DPS_FIT_UNBOUNDED_BPS)
      m = MAX (m, l->bw_Bps[r]);
  return m > 0 || !l || l->n_regimes == 0 ? m : l->bw_Bps[l->n_regimes - 1];
}

/* Replaces NCCL's latency tables and protocol factors by the fit of the
 * group nearest to ranks on nodes: ring only, one protocol slot per size
 * regime, its latency on the links of its level (network steps when the
 * group spans nodes, intra-node steps priced by the single-node fit). */
void
dps_profile_apply_params (const DpsProfile *p, int ranks, int nodes, DpsCollParams *params,
                          guint *algo_mask, guint *proto_mask)
{
  if (dps_profile_uses_network (p, ranks, nodes)) {
    /* the network fit, and for a measured group of NCCL's its per-size
     * correction on top (its own ring fit cannot say what NVLS or a tree
     * reach: a ring of 2 H100 nodes tops out below their NVLS tree) */
    dps_netfit_apply_params (&p->net, params, algo_mask);
    for (int op = 0; op < DPS_OP_COUNT; op++)
      if (DPS_CAL_OPS >> op & 1)
        dps_profile_network_correction (p, (DpsCollOp) op, ranks, nodes, &params->corr[op]);
    return;
  }
  const DpsFitLevel *lv = dps_fit_nearest (&p->fit, ranks, nodes > 1);
  if (!lv)
    return;   /* one device: nothing was fitted, nothing to replace */
  gboolean inter = lv->nodes > 1;
  double bmax = max_bw (lv);
  params->sized_regimes = TRUE;
  params->net_overhead_s = 0;
  params->call_s = 0;   /* the measured regimes' latency holds the call's cost */
  params->host_skew_s = 0;
  for (int q = 0; q < DPS_PROTO_COUNT; q++) {
    gboolean used = q < lv->n_regimes;
    double upper = used && lv->max_bytes[q] > 0 ? lv->max_bytes[q] : 1e15;
    double a_intra = !used ? 0 : inter ? dps_fit_intra_alpha (&p->fit, upper) : lv->alpha_s[q];
    params->base_s[DPS_ALGO_RING][q] = 0;
    params->bw_factor[DPS_ALGO_RING][q] = used ? lv->bw_Bps[q] / bmax : 0;
    params->regime_max_bytes[q] = used ? lv->max_bytes[q] : 0;
    for (int k = 0; k < DPS_LINK_NET; k++)
      params->step_s[DPS_ALGO_RING][k][q] = a_intra;
    params->step_s[DPS_ALGO_RING][DPS_LINK_NET][q] = used && inter ? lv->alpha_s[q] : a_intra;
  }
  params->algo_bw_factor[DPS_ALGO_RING] = 1;
  memset (params->fill_bytes, 0, sizeof params->fill_bytes);   /* the fit holds it */
  /* the all-reduce's, and the other operations measured in that group:
   * their own shape against the group's rings (a library's all-gather need
   * not be a ring: Open MPI's reduce-scatter is a reduce, then a scatter) */
  dps_fit_level_corrections (&p->fit, lv, p->data, DPS_CAL_OPS, params->corr);
  *algo_mask = 1u << DPS_ALGO_RING;
  *proto_mask = (1u << lv->n_regimes) - 1;
}

/* Sets the topology's bandwidths to the fitted ones for ranks on nodes: a
 * GPU's link into its node from the nearest single-node fit, the NICs from
 * the nearest multi-node fit (the ring's per-rank bandwidth spread over the
 * NICs its channels use). */
void
dps_profile_apply_topo (const DpsProfile *p, DpsTopoSpec *spec, int ranks, int nodes)
{
  if (dps_profile_uses_network (p, ranks, nodes)) {
    dps_netfit_apply_spec (&p->net, spec);
    dps_netfit_share_cores (&p->net, spec, ranks);
    return;
  }
  const DpsFitLevel *intra = dps_fit_nearest (&p->fit, MIN (ranks, spec->gpus_per_node), FALSE);
  const DpsFitLevel *inter = dps_fit_nearest (&p->fit, ranks, TRUE);
  if (intra && intra->nodes == 1 && spec->intra != DPS_INTRA_NVLINK_MESH)
    spec->intra_bw_Bps = max_bw (intra);
  if (inter && inter->nodes > 1 && spec->n_nics > 0)
    spec->nic_bw_Bps = max_bw (inter) / MIN (spec->channels, spec->n_nics);
}

/* The calibrated machine as a topology for ranks replicas on nodes
 * (emulated) nodes: ranks_per_node (or ranks / nodes)
 * devices (CPU ranks or GPUs) on one switch with the fitted bandwidth, the
 * best measured GEMM rate of each type as their peak, and the memory
 * bandwidth one rank had while as many copied at once.  NULL when the profile has no [machine]
 * section (imported logs describe no machine). */
/* What a collective handed over while the replicas go on computing waits
 * to run: the median over the points measured so on one node (busy_time_s
 * less time_s) at the rank count nearest to ranks; 0 when none was. */
static int
busy_point_ranks (const void *data, guint i)
{
  const DpsCalPoint *q = &g_array_index ((const GArray *) data, DpsCalPoint, i);
  return q->busy_time_s > 0 && q->nodes == 1 ? q->ranks : -1;
}

double
dps_profile_busy_wait (const DpsProfile *p, int ranks)
{
  int at = dps_fit_nearest_index (p->data->points, p->data->points->len, busy_point_ranks, ranks);
  int best = at < 0 ? 0 : g_array_index (p->data->points, DpsCalPoint, at).ranks;
  GArray *v = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < p->data->points->len; i++) {
    const DpsCalPoint *q = &g_array_index (p->data->points, DpsCalPoint, i);
    if (q->busy_time_s > 0 && q->nodes == 1 && q->ranks == best) {
      double w = MAX (q->busy_time_s - q->time_s, 0);
      g_array_append_val (v, w);
    }
  }
  double m = dps_quantile ((double *) v->data, v->len, 0.5);
  g_array_free (v, TRUE);
  return m;
}

/* The contention measured at the rank count nearest to ranks (log
 * scale), or NULL when none was measured. */
static int
contention_ranks (const void *data, guint i)
{
  return g_array_index ((const GArray *) data, DpsContention, i).ranks;
}

const DpsContention *
dps_profile_contention (const DpsProfile *p, int ranks)
{
  int at = dps_fit_nearest_index (p->contention, p->contention->len, contention_ranks, ranks);
  return at < 0 ? NULL : &g_array_index (p->contention, DpsContention, at);
}

DpsTopoSpec *
dps_profile_machine_spec (const DpsProfile *p, int ranks, int nodes)
{
  if (p->machine_ranks <= 0)
    return NULL;
  DpsTopoSpec *s = g_new0 (DpsTopoSpec, 1);
  s->name = g_strdup_printf ("%s (calibrated)", p->machine_name ? p->machine_name : "this machine");
  s->description = g_strdup_printf ("from %s", p->path ? p->path : "a calibration");
  s->path = g_strdup (p->path);
  /* over emulated nodes, a node holds its share of the ranks; on one
   * machine, more ranks than were measured where the network fit speaks
   * for them */
  s->gpus_per_node = nodes > 1 && ranks >= nodes ? ranks / nodes
                     : p->net.fitted ? MAX (p->machine_ranks, ranks) : p->machine_ranks;
  s->gpu.model = g_strdup (p->data->devices && !g_str_has_suffix (p->data->devices, "cores")
                           ? p->data->devices : "CPU rank");
  double flops = p->gemm_peak_flops > 0 ? p->gemm_peak_flops : 1e10;
  for (int d = 0; d < DPS_DTYPE_COUNT; d++)
    s->gpu.peak_flops[d] = flops;
  for (guint i = 0; i < p->gemm->len; i++) {   /* GPUs: the best GEMM of each type */
    const DpsGemmPoint *q = &g_array_index (p->gemm, DpsGemmPoint, i);
    if (q->dtype != DPS_DTYPE_FP32)
      s->gpu.peak_flops[q->dtype] = MAX (q->flops, s->gpu.peak_flops[q->dtype] == flops ? 0 : s->gpu.peak_flops[q->dtype]);
  }
  /* FP8 as the GPU's generation has it (a CPU: none) */
  s->gpu.fp8_flops = dps_gpu_arch_fp8_flops (dps_topo_spec_gpu_arch (s), s->gpu.peak_flops[DPS_DTYPE_BF16]);
  s->gpu.memory_bytes = 1e12;
  /* a rank's copy bandwidth: one rank's alone (the GEMM sweep's), or while
   * the nearest count measured copies at once (the contention's) */
  const DpsContention *ct = dps_profile_contention (p, ranks);
  s->gpu.memory_bw_Bps = ranks <= 1 && p->copy_bw_Bps > 0 ? p->copy_bw_Bps
                         : ct                            ? ct->copy_Bps
                         : p->copy_bw_Bps > 0            ? p->copy_bw_Bps
                                                         : 10e9;
  s->intra = DPS_INTRA_NVSWITCH;
  s->intra_bw_Bps = max_bw (dps_fit_nearest (&p->fit, p->machine_ranks, FALSE));
  if (s->intra_bw_Bps <= 0)
    s->intra_bw_Bps = 1e9;
  s->pcie_bw_Bps = s->host_link_Bps = s->intra_bw_Bps;
  s->gpu_nic = g_new (int, s->gpus_per_node);
  for (int g = 0; g < s->gpus_per_node; g++)
    s->gpu_nic[g] = p->machine_nodes > 1 ? 0 : -1;
  s->fabric = DPS_FABRIC_SWITCH;
  s->nodes_per_leaf = 1 << 20;
  s->oversubscription = 1;
  s->max_nodes = MAX (p->machine_nodes, 1);
  s->channels = 1;
  if (p->machine_nodes > 1) {
    /* emulated nodes: one shaped link each, at what TCP carries of the rate
     * it was shaped to (the network fit's datasheet; its prior pulls
     * towards it); older profiles, which did not say it, 1 GB/s as before */
    s->n_nics = 1;
    s->nic_gpu = g_new0 (int, 1);
    s->nic_bw_Bps = p->machine_link_Bps > 0 ? p->machine_link_Bps * DPS_NETEMU_PAYLOAD_SHARE : 1e9;
  }
  return s;
}

/* The profile's entry for m (matched by name and layer count) measured
 * with the rank count nearest to ranks; NULL when there is none. */
typedef struct { const DpsProfile *p; const DpsModel *m; } LayersOf;

static int
layers_ranks (const void *data, guint i)
{
  const LayersOf *of = data;
  const DpsLayerTimes *l = of->p->layers->pdata[i];
  gboolean same = g_strcmp0 (l->model, of->m->name) == 0 && (int) l->fwd_s->len == dps_model_n_layers (of->m);
  return same ? l->ranks : -1;
}

const DpsLayerTimes *
dps_profile_layers_for (const DpsProfile *p, const DpsModel *m, int ranks)
{
  LayersOf of = { p, m };
  int at = dps_fit_nearest_index (&of, p->layers->len, layers_ranks, ranks);
  return at < 0 ? NULL : p->layers->pdata[at];
}

static double
layers_total (const DpsLayerTimes *l)
{
  double t = 0;
  for (guint i = 0; i < l->fwd_s->len; i++)
    t += g_array_index (l->fwd_s, double, i) + g_array_index (l->bwd_s, double, i);
  return t;
}

double
dps_profile_colocation (const DpsProfile *p, int ranks)
{
  for (guint i = 0; ranks > 1 && i < p->layers->len; i++) {
    const DpsLayerTimes *at = p->layers->pdata[i];
    if (at->ranks != ranks)
      continue;
    for (guint k = 0; k < p->layers->len; k++) {
      const DpsLayerTimes *alone = p->layers->pdata[k];
      if (alone->ranks == 1 && g_strcmp0 (alone->model, at->model) == 0 && alone->batch == at->batch
          && alone->fwd_s->len == at->fwd_s->len && layers_total (alone) > 0)
        return layers_total (at) / layers_total (alone);
    }
  }
  return 1;
}

/* Gives model the measured per-layer times of that entry; FALSE when
 * there is none. */
gboolean
dps_profile_apply_model (const DpsProfile *p, DpsModel *m, int ranks)
{
  const DpsLayerTimes *best = dps_profile_layers_for (p, m, ranks);
  if (!best)
    return FALSE;
  dps_model_set_times (m, (const double *) best->fwd_s->data, (const double *) best->bwd_s->data, best->batch);
  return TRUE;
}

