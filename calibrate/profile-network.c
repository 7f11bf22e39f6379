/* profile-network.c — see profile-network.h. */
#include "calibrate/profile-network.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"
#include "sim/base/keyfile.h"

#include <math.h>
#include <string.h>

void
dps_profile_network_save (const DpsProfile *p, GKeyFile *k)
{
  const DpsNetFit *f = &p->net;
  if (!f->fitted)
    return;
  g_key_file_set_string (k, "network", "topology", p->net_topology ? p->net_topology : "machine");
  for (int i = 0; i < DPS_NETFIT_N; i++) {
    if (!f->used[i])
      continue;
    g_autofree char *sd = g_strconcat (dps_netfit_name (i), "_sd", NULL);
    g_key_file_set_double (k, "network", dps_netfit_name (i), f->scale[i]);
    g_key_file_set_double (k, "network", sd, f->sd[i]);
  }
  g_key_file_set_double (k, "network", "rms_log", f->rms_log);
  g_key_file_set_integer (k, "network", "points", f->n_points);
  g_key_file_set_boolean (k, "network", "ring_only", f->ring_only);
  if (f->cores > 0)
    g_key_file_set_integer (k, "network", "cores", f->cores);
  g_key_file_set_comment (k, "network", NULL,
                          " the simulator's own figures fitted to every group at once: multipliers of the\n"
                          " topology's bandwidths (intra_bw, nic_bw), of NCCL's per-step latencies inside\n"
                          " and across nodes (intra_lat, net_lat) and of the NVLS efficiency (nvls)", NULL);
}

/* Reads [network] when present.  Errors name the key: a figure outside
 * 0.001-1000, a negative sd. */
gboolean
dps_profile_network_load (DpsProfile *p, const DpsKeyFile *kf, GError **error)
{
  if (!dps_key_file_has_group (kf, "network"))
    return TRUE;
  static const char *const keys[] = { "topology", "intra_bw", "intra_bw_sd", "nic_bw", "nic_bw_sd", "intra_lat",
                                      "intra_lat_sd", "net_lat", "net_lat_sd", "nvls", "nvls_sd", "rms_log",
                                      "points", "ring_only", "cores", NULL };
  DpsNetFit *f = &p->net;
  gint64 n, cores;
  g_autofree char *topo = NULL;
  if (!dps_key_file_check_keys (kf, "network", keys, error)
      || !dps_key_file_get_string (kf, "network", "topology", TRUE, NULL, &topo, error)
      || !dps_key_file_get_double (kf, "network", "rms_log", FALSE, 0, 0, 100, &f->rms_log, error)
      || !dps_key_file_get_int (kf, "network", "points", FALSE, 0, 0, G_MAXINT, &n, error)
      || !dps_key_file_get_bool (kf, "network", "ring_only", FALSE, FALSE, &f->ring_only, error)
      || !dps_key_file_get_int (kf, "network", "cores", FALSE, 0, 0, 1 << 20, &cores, error))
    return FALSE;
  f->n_points = (int) n;
  f->cores = (int) cores;   /* profiles before it: a core each, as they were fitted */
  for (int i = 0; i < DPS_NETFIT_N; i++) {
    g_autofree char *sd = g_strconcat (dps_netfit_name (i), "_sd", NULL);
    f->used[i] = dps_key_file_has_key (kf, "network", dps_netfit_name (i));
    if (!dps_key_file_get_double (kf, "network", dps_netfit_name (i), FALSE, 1, 1e-3, 1e3, &f->scale[i], error)
        || !dps_key_file_get_double (kf, "network", sd, FALSE, 0, 0, 1e3, &f->sd[i], error))
      return FALSE;
  }
  p->net_topology = g_str_equal (topo, "machine") ? NULL : g_steal_pointer (&topo);
  f->fitted = TRUE;
  return TRUE;
}

static gboolean
measured (const DpsProfile *p, int ranks, int nodes)
{
  for (int g = 0; g < p->fit.n_groups; g++)
    if (p->fit.group[g].ranks == ranks && MAX (p->fit.group[g].nodes, 1) == MAX (nodes, 1))
      return TRUE;
  return FALSE;
}

/* Whether predictions for ranks on nodes go through the network fit: for
 * NCCL's logs always (a measured group with its own per-size correction on
 * top, dps_profile_network_correction), for a ring library's only where
 * that group was not measured (a measured one keeps its own ring fit); a
 * group's correction never leaks to others. */
gboolean
dps_profile_uses_network (const DpsProfile *p, int ranks, int nodes)
{
  return p->net.fitted && (!p->net.ring_only || !measured (p, ranks, nodes));
}

/* The base the fit scales, as a new spec: the topology it names, or the
 * calibrated machine. */
DpsTopoSpec *
dps_profile_network_spec (const DpsProfile *p, int ranks, int nodes, GError **error)
{
  if (!p->net_topology) {
    DpsTopoSpec *s = dps_profile_machine_spec (p, ranks, nodes);
    if (!s)
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: the network fit names no topology and no machine",
                   p->path ? p->path : "profile");
    return s;
  }
  g_autoptr (GError) why = NULL;
  g_autofree char *path = dps_topo_find (p->net_topology, &why);
  DpsTopoSpec *s = path ? dps_topo_spec_load (path, &why) : NULL;
  if (!s)   /* said of the profile, not of a --topology nobody gave */
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: its network fit's %s", p->path ? p->path : "profile",
                 why->message);
  return s;
}

/* Fits p's measurements jointly (netfit.h) on topology (a name or path;
 * NULL: the calibrated machine).  A ring library's measurements (MPI) are
 * fitted with ring alone. */
gboolean
dps_profile_fit_network (DpsProfile *p, const char *topology, GError **error)
{
  int ranks = 1, nodes = 1;
  for (guint i = 0; i < p->data->points->len; i++) {
    const DpsCalPoint *q = &g_array_index (p->data->points, DpsCalPoint, i);
    ranks = MAX (ranks, q->ranks);
    nodes = MAX (nodes, q->nodes);
  }
  g_free (p->net_topology);
  p->net_topology = g_strdup (topology);
  p->net.fitted = FALSE;   /* the base, not a fit of itself */
  g_autoptr (DpsTopoSpec) s = dps_profile_network_spec (p, p->machine_ranks > 0 ? p->machine_ranks : ranks,
                                                        1, error);
  if (!s)
    return FALSE;
  gboolean ring_only = dps_cal_data_on_cpu (p->data);
  return dps_netfit_fit (p->data, s, ring_only, &p->net, error);
}

typedef struct {
  const DpsNetFit *net;
  const DpsTopo   *topo;
  int              ranks;
  DpsCollOp        op;
} NetModel;

static double
net_model_time (double bytes, void *data)
{
  const NetModel *m = data;
  return dps_netfit_time_on (m->net, m->topo, m->ranks, m->op, bytes, NULL);
}

/* A measured group's own shape of op on top of the network fit
 * (dps_fit_correction), for dps_tune_calibrated to interpolate; none
 * (out->n = 0) for a group not measured, for a ring library's group whose
 * all-reduce was measured (it keeps its ring fits) or when the model
 * cannot time the group.  The group's topology is built once. */
void
dps_profile_network_correction (const DpsProfile *p, DpsCollOp op, int ranks, int nodes, DpsCollCorr *out)
{
  out->n = 0;
  if (!p->net.fitted || (p->net.ring_only && measured (p, ranks, nodes)))
    return;
  g_autoptr (DpsTopoSpec) spec = dps_profile_network_spec (p, ranks, nodes, NULL);
  g_autoptr (DpsTopo) topo = spec ? dps_netfit_topo (&p->net, spec, ranks, nodes, NULL) : NULL;
  if (!topo)
    return;
  NetModel m = { &p->net, topo, ranks, op };
  dps_fit_correction (p->data, op, ranks, nodes, net_model_time, &m, out);
}
