/* netfit.c — see netfit.h. */
#include "calibrate/netfit.h"
#include "sim/coll-predict.h"
#include "sim/base/error.h"
#include "sim/base/minimize.h"
#include "sim/base/progress.h"

#include <math.h>
#include <string.h>

const char *
dps_netfit_name (int i)
{
  static const char *const names[DPS_NETFIT_N] = { "intra_bw", "nic_bw", "intra_lat", "net_lat", "nvls" };
  g_return_val_if_fail (i >= 0 && i < DPS_NETFIT_N, "?");
  return names[i];
}

/* The topology figures scaled by the fit (NVLS efficiency at most 1). */
void
dps_netfit_apply_spec (const DpsNetFit *f, DpsTopoSpec *spec)
{
  spec->intra_bw_Bps *= f->scale[DPS_NETFIT_INTRA_BW];
  if (spec->intra == DPS_INTRA_PCIE)
    spec->pcie_uplink_Bps *= f->scale[DPS_NETFIT_INTRA_BW];
  spec->nic_bw_Bps *= f->scale[DPS_NETFIT_NIC_BW];
  double e = spec->nvls_efficiency > 0 ? spec->nvls_efficiency : DPS_NVLS_EFFICIENCY_DEFAULT;
  spec->nvls_efficiency = MIN (1.0, e * f->scale[DPS_NETFIT_NVLS]);
  spec->max_nodes = 0;   /* the point of the fit: any node count */
}

/* MPI ranks on CPU cores: shared memory's copies and reductions are made
 * by the cores, so a ring of n ranks moves its 2(n-1) S bytes with
 * min(n, cores) of them: each rank's bandwidth is the fitted one times
 * cores / n where the ranks outnumber the cores (every rank of a machine,
 * its emulated nodes' too: they share its cores).  Measured on 2 cores
 * (`dpscale calibrate --gpus 2,4`, then `--gpus 8`, in three runs): 4 ranks
 * take 2.8 to 4.6 times 2 ranks' time from 1 MiB (a ring of ranks with a
 * core each: 1.5; sharing 2 cores: 3), 8 ranks 1.7 to 4.3 times 4 ranks'
 * (1.17; sharing: 2.33). */
void
dps_netfit_share_cores (const DpsNetFit *f, DpsTopoSpec *spec, int ranks)
{
  if (f->cores <= 0 || ranks <= f->cores)
    return;
  double share = (double) f->cores / ranks;
  spec->intra_bw_Bps *= share;
  spec->pcie_bw_Bps *= share;
}

/* NCCL's per-step latencies scaled by the fit, over a node's links and
 * across nodes; a ring library's fit keeps to ring.  NCCL's base latency
 * of each algorithm stays its table's: the figure is the links' per-step
 * latency, which any algorithm pays on those links (across nodes no less
 * than NCCL's network overhead a step), not a fixed cost of every
 * algorithm, which one node's table, at one rank count, cannot tell from
 * its steps (scaled with them, Voltage Park's one node, 33 us at 8 B,
 * took 1.77 times NCCL's tree base to its 4 nodes, whose 38 us at 8 B are
 * half the model's already: 11.0% from 1 MiB, 9.7% without).  A ring
 * library has no base of NCCL's: there the figure scales it too, as the
 * rest of its latency. */
void
dps_netfit_apply_params (const DpsNetFit *f, DpsCollParams *params, guint *algo_mask)
{
  for (int a = 0; a < DPS_ALGO_COUNT; a++)
    for (int p = 0; p < DPS_PROTO_COUNT; p++) {
      for (int k = 0; k < DPS_LINK_NET; k++)
        params->step_s[a][k][p] *= f->scale[DPS_NETFIT_INTRA_LAT];
      params->step_s[a][DPS_LINK_NET][p] *= f->scale[DPS_NETFIT_NET_LAT];
      if (f->ring_only)
        params->base_s[a][p] *= f->scale[DPS_NETFIT_INTRA_LAT];
    }
  params->net_overhead_s *= f->scale[DPS_NETFIT_NET_LAT];
  if (f->ring_only) {
    params->call_s = 0;   /* a ring library's calls: its fitted latency holds them */
    params->host_skew_s = 0;
    /* a ring library's own protocols: its fit holds the shape */
    memset (params->fill_bytes, 0, sizeof params->fill_bytes);
    if (algo_mask)
      *algo_mask = 1u << DPS_ALGO_RING;
  }
}

typedef struct {
  const DpsTopoSpec *spec;
  const DpsCalPoint *pts;
  const double      *weight;              /* of each point: the measured points it stands for */
  int               n;
  double            n_obs;                /* the measured points: the weights' sum */
  gboolean          ring_only;
  int               cores;                /* DpsNetFit's */
  gboolean          free[DPS_NETFIT_N];   /* varied in this stage */
  double            fixed[DPS_NETFIT_N];  /* the others' scales */
  double            prior_w[DPS_NETFIT_N]; /* the prior's weight: noise variance / prior variance */
  gboolean          wall;                 /* the wall beyond a quarter and four times the datasheet */
  int               nodes_lo, nodes_hi;   /* points of these node counts */
} Problem;

/* How far from the datasheet each figure is believed to be before anything
 * is measured, one standard deviation of the log of its scale: the NICs'
 * bandwidth and the NVLS efficiency 25% (the uncalibrated model's worst
 * rows of 256 MiB and more are 3-26% off on 10 of the 13 systems of the
 * published suite, tests/reference/README.md), NCCL's latencies a factor
 * 2 (its small messages are 2-3x off on 4-8 H100 nodes, same), an
 * NVSwitch's bandwidth 10% (the one-node tables of H100, A100 and B200
 * are within 1.7-6.3% of the model at 1 GiB and more), a mesh's or PCIe's
 * 25% (V100's mesh 18% at 128 MiB, an RTX 4090's PCIe 11%). */
static const double prior_sd_log[DPS_NETFIT_N] = { 0.1, 0.223, 0.693, 0.693, 0.223 };
#define PRIOR_SD_LOG_LINKS 0.223   /* the intra-node bandwidth of a mesh or PCIe */

/* The noise of a log time the prior's weight is scaled by, at least: 1%
 * (nccl-tests' own run-to-run spread); with it, a prior of 0.223 weighs
 * 0.002 (the weight the fit had for every figure before it took the noise
 * from the fit). */
#define NOISE_MIN_LOG 0.01

/* A figure is exercised by the measured points when it decides at least
 * this share of one fitted point's time (d log t / d log figure, at the
 * first fit's figures): a figure that no point's time turns on (NVLS's
 * efficiency on 2 H100 nodes once the first fit has made the switch
 * faster than their NICs, or the NICs while the switch bounds NVLSTree)
 * says nothing of other scales, and a fit of it moved it only through
 * NCCL's choice. */
#define MIN_SENSITIVITY 0.05

/* The topology a group of ranks on nodes runs on with figures f (NULL on
 * error): it depends on the group and the figures, not on the size, so a
 * cost evaluation builds it once a group (an NVL72 rack's 72 GPUs take
 * milliseconds to route). */
static DpsTopo *
model_topo (const DpsNetFit *f, const DpsTopoSpec *spec, int ranks, int nodes, GError **error)
{
  g_autoptr (DpsTopoSpec) s = dps_topo_spec_copy (spec);
  dps_netfit_apply_spec (f, s);
  dps_netfit_share_cores (f, s, ranks);
  /* a group of fewer ranks per node than the nodes hold (emulated nodes of
   * one rank each) uses that many of each node's devices; where the node's
   * NICs name GPUs past those (a GPU node's network test, one rank a node),
   * whole nodes, which the collective spreads its ranks over */
  int whole = s->gpus_per_node;
  gboolean spread = nodes > 1 && ranks / nodes < whole && ranks % nodes == 0;
  if (spread && !s->ring) {
    s->gpus_per_node = ranks / nodes;
    DpsTopo *t = dps_topo_new (s, nodes, NULL);
    if (t)
      return t;
    s->gpus_per_node = whole;
  }
  int k = s->gpus_per_node;
  int n_nodes = MAX (nodes, ranks > k ? (ranks + k - 1) / k : 1);
  return dps_topo_new (s, n_nodes, error);
}

/* One point's modelled time on topo (model_topo's) with figures f; < 0 on error. */
static double
model_time_on (const DpsNetFit *f, const DpsTopo *topo, int ranks, DpsCollOp op, double bytes, GError **error)
{
  DpsCollParams params;
  dps_tune_params_nccl (&params);
  guint amask = DPS_NCCL_ALGOS;
  dps_netfit_apply_params (f, &params, &amask);
  DpsCollCtx ctx;
  DpsCollChoice ch;
  if (!dps_coll_ctx_init_spread (&ctx, topo, &params, ranks, op, bytes, error)   /* model_topo's whole nodes */
      || !dps_coll_choose (&ctx, amask, DPS_ALL_PROTOS, &ch, error))
    return -1;
  dps_plan_unref (ch.plan);
  return ch.time_s;
}

/* One point's modelled time with figures f; < 0 on error. */
static double
model_time (const DpsNetFit *f, const DpsTopoSpec *spec, int ranks, int nodes, DpsCollOp op, double bytes,
            GError **error)
{
  g_autoptr (DpsTopo) topo = model_topo (f, spec, ranks, nodes, error);
  return topo ? model_time_on (f, topo, ranks, op, bytes, error) : -1;
}

static void
unpack (const Problem *pb, const double *x, DpsNetFit *f)
{
  int j = 0;
  for (int i = 0; i < DPS_NETFIT_N; i++)
    f->scale[i] = pb->free[i] ? exp (x[j++]) : pb->fixed[i];
  f->ring_only = pb->ring_only;
  f->cores = pb->cores;
}

static double
cost (const double *x, void *data)
{
  const Problem *pb = data;
  DpsNetFit f = { 0 };
  unpack (pb, x, &f);
  dps_progress ("fitting the network figures", 0, 0);
  double s = 0;
  g_autoptr (DpsTopo) topo = NULL;   /* the last group's: a group's points follow each other */
  int t_ranks = 0, t_nodes = 0;
  for (int i = 0; i < pb->n; i++) {
    const DpsCalPoint *p = &pb->pts[i];
    if (MAX (p->nodes, 1) < pb->nodes_lo || MAX (p->nodes, 1) > pb->nodes_hi)
      continue;
    if (!topo || p->ranks != t_ranks || p->nodes != t_nodes) {
      g_clear_pointer (&topo, dps_topo_free);
      if (!(topo = model_topo (&f, pb->spec, p->ranks, p->nodes, NULL)))
        return HUGE_VAL;
      t_ranks = p->ranks;
      t_nodes = p->nodes;
    }
    double t = model_time_on (&f, topo, p->ranks, p->op, p->bytes, NULL);
    if (!(t > 0))
      return HUGE_VAL;
    double r = log (t / p->time_s);
    s += pb->weight[i] * r * r;
  }
  /* The prior (prior_sd_log) as a penalty: a figure the points do not
   * determine (the node's figures from multi-node logs alone, where NVLink
   * and NIC bandwidth trade against each other in an NVLS tree) stays near
   * the topology's instead of running off (a 2- and 4-node H100 fit took
   * NVLS to 1e6 times NCCL's figure), one they determine moves as far as
   * they say.  Beyond a quarter or four times the datasheet, a wall. */
  for (int i = 0, j = 0; i < DPS_NETFIT_N; i++)
    if (pb->free[i]) {
      double out = fabs (x[j]) - log (4.0);
      s += pb->prior_w[i] * x[j] * x[j] + (pb->wall && out > 0 ? out * out : 0);
      j++;
    }
  return s;
}

/* The points' own sum of squared log residuals (no prior) at figures x. */
static double
data_cost (const Problem *pb, const double *x)
{
  Problem q = *pb;
  memset (q.prior_w, 0, sizeof q.prior_w);
  q.wall = FALSE;
  q.nodes_lo = 1;
  q.nodes_hi = G_MAXINT;
  return cost (x, &q);
}

/* Which figures the points exercise (MIN_SENSITIVITY) with the figures at
 * scale: clears used[i] for the others. */
static void
exercised (const Problem *pb, const double *scale, gboolean *used)
{
  double most[DPS_NETFIT_N] = { 0 };
  DpsNetFit up[DPS_NETFIT_N], down[DPS_NETFIT_N];
  DpsTopo *tup[DPS_NETFIT_N] = { NULL }, *tdown[DPS_NETFIT_N] = { NULL };   /* the group's, built once a group */
  int t_ranks = 0, t_nodes = 0;
  for (int i = 0; i < DPS_NETFIT_N; i++) {
    up[i] = (DpsNetFit) { .ring_only = pb->ring_only };
    for (int j = 0; j < DPS_NETFIT_N; j++)
      up[i].scale[j] = scale[j];
    down[i] = up[i];
    up[i].scale[i] *= 1.05;
    down[i].scale[i] /= 1.05;
  }
  for (int k = 0; k < pb->n; k++) {
    const DpsCalPoint *p = &pb->pts[k];
    if (k == 0 || p->ranks != t_ranks || p->nodes != t_nodes) {
      for (int i = 0; i < DPS_NETFIT_N; i++) {
        g_clear_pointer (&tup[i], dps_topo_free);
        g_clear_pointer (&tdown[i], dps_topo_free);
      }
      t_ranks = p->ranks;
      t_nodes = p->nodes;
    }
    for (int i = 0; i < DPS_NETFIT_N; i++) {
      if (!used[i] || most[i] >= MIN_SENSITIVITY)
        continue;
      if (!tup[i] && !(tup[i] = model_topo (&up[i], pb->spec, p->ranks, p->nodes, NULL)))
        continue;
      if (!tdown[i] && !(tdown[i] = model_topo (&down[i], pb->spec, p->ranks, p->nodes, NULL)))
        continue;
      double a = model_time_on (&up[i], tup[i], p->ranks, p->op, p->bytes, NULL);
      double b = model_time_on (&down[i], tdown[i], p->ranks, p->op, p->bytes, NULL);
      if (a > 0 && b > 0)
        most[i] = MAX (most[i], fabs (log (a / b)) / (2 * log (1.05)));
    }
  }
  for (int i = 0; i < DPS_NETFIT_N; i++) {
    g_clear_pointer (&tup[i], dps_topo_free);
    g_clear_pointer (&tdown[i], dps_topo_free);
    used[i] = used[i] && most[i] >= MIN_SENSITIVITY;
  }
}

/* A group's points beyond this many are fitted through a sample of them,
 * each kept point weighing for those it stands for: every cost evaluation
 * of the fit runs the simulator's choice once a point (a thousand of them a
 * stage), so a log of 300,000 sizes took hours; the 53 published tables
 * hold at most 40 sizes a group, and nccl-tests' -f 1.1 from 8 B to 16 GiB
 * about 230. */
#define MAX_GROUP_POINTS 256

/* The points of all as fitted (a new array): a group (ranks on nodes) of at
 * most MAX_GROUP_POINTS whole, a larger one as every k-th of its points in
 * their order (k its count over MAX_GROUP_POINTS, rounded up), each
 * weighing k (the last what is left); *weights (new) receives each one's
 * weight, 1 for a point that stands for itself. */
static GArray *
thin (const GArray *all, GArray **weights)
{
  GArray *pts = g_array_new (FALSE, FALSE, sizeof (DpsCalPoint));
  *weights = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GHashTable) counts = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autofree gint64 *keys = g_new (gint64, MAX (all->len, 1));
  for (guint i = 0; i < all->len; i++) {
    const DpsCalPoint *p = &g_array_index (all, DpsCalPoint, i);
    keys[i] = (gint64) dps_cal_point_group (p);
    g_hash_table_insert (counts, &keys[i], GINT_TO_POINTER (GPOINTER_TO_INT (g_hash_table_lookup (counts, &keys[i])) + 1));
  }
  for (guint i = 0; i < all->len; i++) {
    int count = GPOINTER_TO_INT (g_hash_table_lookup (counts, &keys[i]));
    int k = (count + MAX_GROUP_POINTS - 1) / MAX_GROUP_POINTS;
    gint64 *at = g_hash_table_lookup (seen, &keys[i]);
    if (!at) {
      at = g_new (gint64, 2);
      at[0] = keys[i];
      at[1] = 0;
      g_hash_table_insert (seen, at, at);
    }
    int j = (int) at[1]++;   /* the point's place in its group */
    if (j % k)
      continue;
    double w = MIN (k, count - j);
    g_array_append_val (pts, g_array_index (all, DpsCalPoint, i));
    g_array_append_val (*weights, w);
  }
  return pts;
}

/* The staged fit of pb's figures in used from the datasheet (the others
 * at 1): x receives the last stage's free figures (log scales), *n_free
 * their count; pb->free and pb->fixed are left as that stage's.  Returns
 * its cost. */
static double
fit_stages (Problem *pb, const gboolean *used, gboolean multi, gboolean single, double *x, int *n_free)
{
  for (int i = 0; i < DPS_NETFIT_N; i++)
    pb->fixed[i] = 1;
  memset (pb->free, 0, sizeof pb->free);
  pb->nodes_lo = 1;
  pb->nodes_hi = G_MAXINT;
  /* in stages, as the measurements separate them: the node's figures from
   * one-node groups, then the network's from the others with the node's
   * fixed, then everything together from there */
  static const int stage_vars[3][DPS_NETFIT_N] = {
    { DPS_NETFIT_INTRA_BW, DPS_NETFIT_INTRA_LAT, DPS_NETFIT_NVLS, -1 },
    { DPS_NETFIT_NIC_BW, DPS_NETFIT_NET_LAT, -1 },
    { DPS_NETFIT_INTRA_BW, DPS_NETFIT_NIC_BW, DPS_NETFIT_INTRA_LAT, DPS_NETFIT_NET_LAT, DPS_NETFIT_NVLS },
  };
  double c = data_cost (pb, x);
  int n = 0;
  for (int st = 0; st < 3; st++) {
    int lo = st == 1 ? 2 : 1, hi = st == 0 && single ? 1 : G_MAXINT, m = 0;
    for (int k = 0; k < DPS_NETFIT_N && stage_vars[st][k] >= 0; k++)
      m += used[stage_vars[st][k]];
    if (m == 0 || (st == 1 && !multi))
      continue;
    pb->nodes_lo = lo;
    pb->nodes_hi = hi;
    memset (pb->free, 0, sizeof pb->free);
    n = 0;
    for (int k = 0; k < DPS_NETFIT_N && stage_vars[st][k] >= 0; k++) {
      int v = stage_vars[st][k];
      if (used[v]) {
        pb->free[v] = TRUE;
        x[n++] = log (pb->fixed[v]);
      }
    }
    /* a coarse grid over the first two figures, then the simplex from the
     * best of it, restarted from its best (the choice of algorithm makes
     * kinks where a simplex can stall) */
    double best = HUGE_VAL, bx[DPS_NETFIT_N];
    memcpy (bx, x, sizeof bx);
    int g0 = 0, g1 = n > 1 ? 1 : -1;
    for (double a = -1.4; a <= 1.41; a += 0.35)
      for (double b = g1 >= 0 ? -1.4 : 0; b <= (g1 >= 0 ? 1.41 : 0); b += 0.35) {
        double y[DPS_NETFIT_N];
        memcpy (y, x, sizeof y);
        y[g0] = a;
        if (g1 >= 0)
          y[g1] = b;
        double v = cost (y, pb);
        if (v < best) {
          best = v;
          memcpy (bx, y, sizeof bx);
        }
      }
    memcpy (x, bx, sizeof bx);
    double step[DPS_NETFIT_N];
    for (int i = 0; i < n; i++)
      step[i] = 0.2;
    for (int round = 0; round < 3; round++)
      c = dps_minimize (cost, pb, x, n, step, 80 * n, 1e-10);
    DpsNetFit tmp;
    unpack (pb, x, &tmp);
    memcpy (pb->fixed, tmp.scale, sizeof pb->fixed);
  }
  *n_free = n;
  return c;
}

/* Fits the figures that d determines on spec (the machine or the cluster the
 * logs came from): those its groups can reach (the NICs' and the network's
 * latency with 2+ nodes, NVLS where it runs) and exercise (MIN_SENSITIVITY),
 * each as the maximum of the points' likelihood (log times, their noise the
 * fit's own residual, at least NOISE_MIN_LOG) times its prior
 * (prior_sd_log): twice, first all those it can reach with the datasheet's
 * residual as the noise, then those the first fit's figures exercise with
 * its residual.  The sd are the posterior's.  Points held out,
 * of one rank, or of zero time are left out.  Errors: no point to fit, a
 * group the topology cannot hold. */
gboolean
dps_netfit_fit (const DpsCalData *d, const DpsTopoSpec *spec, gboolean ring_only, DpsNetFit *out, GError **error)
{
  memset (out, 0, sizeof *out);
  for (int i = 0; i < DPS_NETFIT_N; i++)
    out->scale[i] = 1;
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (DpsCalPoint));
  gboolean multi = FALSE, single = FALSE;
  for (guint i = 0; i < d->points->len; i++) {
    const DpsCalPoint *p = &g_array_index (d->points, DpsCalPoint, i);
    if (p->held_out || p->ranks < 2 || !(p->time_s > 0) || (!ring_only && p->bytes < DPS_NETFIT_MIN_BYTES))
      continue;
    g_array_append_val (all, *p);
    multi = multi || p->nodes > 1;
    single = single || p->nodes <= 1;
  }
  g_autoptr (GArray) weights = NULL;
  g_autoptr (GArray) pts = thin (all, &weights);
  if (pts->len == 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "no collective of 2 or more ranks to fit the network to");
    return FALSE;
  }
  out->used[DPS_NETFIT_INTRA_BW] = out->used[DPS_NETFIT_INTRA_LAT] = single || spec->gpus_per_node > 1;
  out->used[DPS_NETFIT_NIC_BW] = out->used[DPS_NETFIT_NET_LAT] = multi && spec->n_nics > 0;
  out->used[DPS_NETFIT_NVLS] = spec->nvls && !ring_only;
  out->cores = ring_only ? dps_cal_data_cores (d) : 0;
  Problem pb = { .spec = spec, .pts = (const DpsCalPoint *) pts->data, .weight = (const double *) weights->data,
                 .n = (int) pts->len, .n_obs = all->len, .ring_only = ring_only, .cores = out->cores, .wall = TRUE,
                 .nodes_lo = 1, .nodes_hi = G_MAXINT };
  for (int i = 0; i < DPS_NETFIT_N; i++)
    pb.fixed[i] = 1;
  /* a first look: the topology must hold every group */
  double t0 = model_time (out, spec, pb.pts[0].ranks, pb.pts[0].nodes, pb.pts[0].op, pb.pts[0].bytes, error);
  if (t0 < 0)
    return FALSE;
  double x[DPS_NETFIT_N] = { 0 };
  int n = 0;
  double noise2 = 0;   /* first the floor: least squares, the prior barely there */
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < DPS_NETFIT_N; i++) {
      double sp = i == DPS_NETFIT_INTRA_BW && spec->intra != DPS_INTRA_NVSWITCH ? PRIOR_SD_LOG_LINKS
                                                                               : prior_sd_log[i];
      pb.prior_w[i] = MAX (noise2, NOISE_MIN_LOG * NOISE_MIN_LOG) / (sp * sp);
    }
    fit_stages (&pb, out->used, multi, single, x, &n);
    noise2 = data_cost (&pb, x) / MAX (pb.n_obs - n, 1);
    if (pass == 0)
      exercised (&pb, pb.fixed, out->used);   /* at the first fit's figures */
  }
  /* the last stage's points are all of them; the posterior's curvature
   * (the wall is a guard, not a belief) */
  double sd[DPS_NETFIT_N];
  pb.wall = FALSE;
  if (n > 0)
    dps_curvature_sd (cost, &pb, x, n, (int) pb.n_obs, sd);
  unpack (&pb, x, out);
  for (int i = 0, j = 0; i < DPS_NETFIT_N; i++)
    if (pb.free[i]) {
      /* the sd of a scale from that of its log; unknown (0) where the
       * curvature is not positive, as at a kink of NCCL's choice */
      out->sd[i] = isfinite (sd[j]) ? out->scale[i] * sd[j] : 0;
      j++;
    }
  out->rms_log = sqrt (data_cost (&pb, x) / pb.n_obs);
  out->n_points = (int) pb.n_obs;
  out->fitted = TRUE;
  return TRUE;
}

/* The fitted model's time for one collective: what a profile predicts for
 * a rank or node count it did not measure.  < 0 with error. */
double
dps_netfit_time (const DpsNetFit *f, const DpsTopoSpec *spec, int ranks, int nodes, DpsCollOp op, double bytes,
                 GError **error)
{
  return model_time (f, spec, ranks, nodes, op, bytes, error);
}

/* dps_netfit_time's two halves, for many sizes of one group: the
 * topology ranks on nodes run on with the fitted figures (a new one, or
 * NULL with error), then a size's time on it (< 0 with error). */
DpsTopo *
dps_netfit_topo (const DpsNetFit *f, const DpsTopoSpec *spec, int ranks, int nodes, GError **error)
{
  return model_topo (f, spec, ranks, nodes, error);
}

double
dps_netfit_time_on (const DpsNetFit *f, const DpsTopo *topo, int ranks, DpsCollOp op, double bytes, GError **error)
{
  return model_time_on (f, topo, ranks, op, bytes, error);
}
