/* profile-apply.c — see profile-apply.h. */
#include "calibrate/profile-apply.h"
#include "calibrate/profile-device.h"
#include "calibrate/profile-network.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

#include <stdarg.h>

static const char *
profile_name (const DpsProfile *p)
{
  return p->path ? p->path : "the profile";
}

/* Appends a line to *note (NULL or a new string). */
static void G_GNUC_PRINTF (2, 3)
add_note (char **note, const char *fmt, ...)
{
  if (!note)
    return;
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *line = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  char *joined = *note ? g_strconcat (*note, "\n", line, NULL) : g_strdup (line);
  g_free (*note);
  *note = joined;
}

/* A CPU calibration's collective figures (MPI ranks on this machine)
 * describe no GPU cluster: on a named topology they are left out. */
gboolean
dps_profile_network_applies (const DpsProfile *p, const char *name, char **note)
{
  if (!p)
    return FALSE;
  if (name && p->net.fitted && p->net_topology && g_strcmp0 (name, p->net_topology) != 0) {
    /* its multipliers of another topology's figures, applied here: said */
    g_autofree char *a = dps_topo_find (name, NULL), *b = dps_topo_find (p->net_topology, NULL);
    if (!a || !b || !dps_same_file (a, b))
      add_note (note, "%s was fitted on %s: its network multipliers are applied to %s's figures", profile_name (p),
                p->net_topology, name);
  }
  if (!name || !dps_cal_data_on_cpu (p->data))
    return TRUE;
  add_note (note, "%s measured %s ranks on CPU cores: its collective figures are not applied to %s "
            "(its own figures are used)", profile_name (p),
            g_strcmp0 (p->data->backend, "cpu-gloo") == 0 ? "gloo" : "MPI", name);
  return FALSE;
}

DpsTopoSpec *
dps_profile_apply_spec (const DpsProfile *p, const char *name, const char *fallback, int nodes, int ranks,
                        char **note, GError **error)
{
  g_autoptr (DpsTopoSpec) spec = NULL;
  if (p && !name && p->net.fitted && p->net_topology) {
    name = p->net_topology;   /* the cluster its logs came from (a missing one said of the profile) */
    if (!(spec = dps_profile_network_spec (p, ranks, nodes, error)))
      return NULL;
  }
  if (p && !name) {
    int mr = MAX (p->machine_ranks, 1);
    /* one machine measured (no emulated nodes): its ranks stay on it */
    int n_nodes = nodes > 0 ? nodes : ranks > mr && p->machine_nodes > 1 ? (ranks + mr - 1) / mr : 1;
    spec = dps_profile_machine_spec (p, ranks > 0 ? ranks : mr * n_nodes, n_nodes);
  }
  if (!spec) {
    g_autofree char *path = dps_topo_find (name ? name : fallback, error);
    if (!path || !(spec = dps_topo_spec_load (path, error)))
      return NULL;
  }
  if (!p)
    return g_steal_pointer (&spec);
  if (dps_profile_network_applies (p, name, note)) {
    int k = spec->gpus_per_node, n_nodes = nodes > 0 ? nodes : ranks > k ? ranks / k : 1;
    dps_profile_apply_topo (p, spec, ranks > 0 ? ranks : n_nodes * k, n_nodes);
  }
  /* the network fit speaks for counts not measured: more nodes where the
   * NICs were fitted, more ranks on one machine where its links were */
  int most = spec->gpus_per_node * MAX (p->machine_nodes, 1);
  gboolean grows = p->net.fitted && (p->net.used[DPS_NETFIT_NIC_BW] || (nodes <= 1 && p->net.used[DPS_NETFIT_INTRA_BW]));
  if (p->machine_ranks > 0 && !name && ranks > most && !grows) {
    dps_set_field_error (error, DPS_FIELD_GPUS, DPS_ERROR_INPUT,
                 "%d ranks asked for, but the calibrated machine (%s) was measured with up to %d",
                 ranks, profile_name (p), most);
    return NULL;
  }
  int measured = p->machine_ranks * MAX (p->machine_nodes, 1);
  if (measured > 0 && !name && ranks > measured && grows)
    add_note (note, "%d ranks, more than the %d %s measured: predicted through its network fit", ranks, measured,
              profile_name (p));
  return g_steal_pointer (&spec);
}

void
dps_profile_apply_coll (const DpsProfile *p, const char *name, int ranks, int nodes, DpsCollParams *params,
                        guint *algo_mask, guint *proto_mask, char **note)
{
  if (dps_profile_network_applies (p, name, note))
    dps_profile_apply_params (p, ranks, nodes, params, algo_mask, proto_mask);
}

/* A per-layer file's own times on the topology's GPU (dps_compute_use_file_times),
 * the report's line in c->compute_note. */
static gboolean
use_file_times (DpsModel *model, const DpsTopo *topo, DpsDdpConfig *c, GError **error)
{
  g_autofree char *note = NULL;
  if (!dps_compute_use_file_times (model, &dps_topo_spec (topo)->gpu, &c->compute, &note, error))
    return FALSE;
  if (note)
    g_strlcpy (c->compute_note, note, sizeof c->compute_note);
  return TRUE;
}

gboolean
dps_profile_apply_ddp (const DpsProfile *p, const char *name, DpsModel *model, const DpsTopo *topo, int ranks,
                       DpsDdpConfig *c, char **note, GError **error)
{
  if (!p)
    return use_file_times (model, topo, c, error);
  /* co-located ranks (per node) share cores, caches and memory */
  int per_node = ranks / dps_topo_n_nodes (topo);
  dps_profile_apply_coll (p, name, ranks, dps_topo_n_nodes (topo), &c->coll, &c->algo_mask, &c->proto_mask, note);
  /* the layer times: on the profile's own machine as measured, on a
   * named topology's GPU transferred there (or refused, said) */
  g_autofree char *layers_note = NULL;
  dps_profile_use_layers (p, model, per_node, name ? &dps_topo_spec (topo)->gpu : NULL, &c->compute, &layers_note);
  if (layers_note)
    g_strlcpy (c->compute_note, layers_note, sizeof c->compute_note);
  if (!layers_note && name && !dps_profile_layers_for (p, model, per_node) && !use_file_times (model, topo, c, error))
    return FALSE;
  const DpsContention *ct = name ? NULL : dps_profile_contention (p, per_node);
  if (ct && per_node > 1) {
    /* measured on this machine: overlap slowdowns */
    c->contention = ct->compute;
    c->contention_comm = ct->comm;
  }
  /* the device's memory bandwidth is then a copy measured here (the
   * contention's at per_node ranks, else one rank's: dps_profile_apply_spec),
   * already what a rank reaches: no further efficiency */
  if (ct || (!name && p->copy_bw_Bps > 0))
    c->compute.mem_efficiency = 1;
  /* measured with the collectives: a communication thread's hand-off, and
   * its wait for a core while co-located replicas compute (one replica
   * leaves it the other cores) */
  c->launch_s = p->data->handoff_s;
  c->launch_busy_s = per_node > 1 ? dps_profile_busy_wait (p, per_node) : 0;
  return TRUE;
}
