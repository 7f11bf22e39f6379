/* topo.c — see topo.h for the model. */
#include "sim/topo-private.h"
#include "sim/topo-rings.h"
#include "sim/base/error.h"
#include "sim/maxflow.h"

#include <string.h>

static const char *const intra_names[] = { "nvswitch", "nvlink-mesh", "pcie" };
static const char *const fabric_names[] = { "switch", "fat-tree", "rail" };
static const char *const link_names[] = { "nvlink", "pci", "net" };
static const char *const vertex_names[] = { "gpu", "nvswitch", "pcie-switch", "host", "nic",
                                            "leaf", "spine", "core" };

const char *dps_intra_kind_name (DpsIntraKind k) { return intra_names[k]; }
const char *dps_fabric_kind_name (DpsFabricKind k) { return fabric_names[k]; }
const char *dps_link_kind_name (DpsLinkKind k) { return link_names[k]; }
const char *dps_vertex_kind_name (DpsVertexKind k) { return vertex_names[k]; }

/* Returns a deep copy of spec (free with dps_topo_spec_free). */
DpsTopoSpec *
dps_topo_spec_copy (const DpsTopoSpec *s)
{
  DpsTopoSpec *c = g_new (DpsTopoSpec, 1);
  *c = *s;
  c->name = g_strdup (s->name);
  c->description = g_strdup (s->description);
  c->path = g_strdup (s->path);
  c->gpu.model = g_strdup (s->gpu.model);
  c->mesh = s->mesh ? g_memdup2 (s->mesh, sizeof (DpsMeshLink) * (gsize) s->n_mesh) : NULL;
  c->ring = s->ring ? g_memdup2 (s->ring, sizeof (int) * (gsize) s->gpus_per_node) : NULL;
  c->gpu_nic = s->gpu_nic ? g_memdup2 (s->gpu_nic, sizeof (int) * (gsize) s->gpus_per_node) : NULL;
  c->nic_gpu = s->nic_gpu ? g_memdup2 (s->nic_gpu, sizeof (int) * (gsize) s->n_nics) : NULL;
  return c;
}

/* The GPU's generation: the spec's own (a topology's [gpu] arch), else
 * the known device its model names (device.c), else NULL. */
const char *
dps_topo_spec_gpu_arch (const DpsTopoSpec *s)
{
  if (s->gpu_arch)
    return s->gpu_arch;
  const DpsKnownDevice *k = dps_device_lookup (s->gpu.model);
  return k ? k->arch : NULL;
}

/* GPUs of one host of a node: gpus_per_host where set (the trays of an
 * NVL72 rack), else the whole node (one host a node; a spec built in
 * code leaves it 0). */
int
dps_topo_spec_gpus_per_host (const DpsTopoSpec *s)
{
  return s->gpus_per_host > 0 ? s->gpus_per_host : s->gpus_per_node;
}

int
dps_topo_spec_host_gpus (const DpsTopoSpec *s, int n_gpus)
{
  return MIN (n_gpus, dps_topo_spec_gpus_per_host (s));
}

void
dps_topo_spec_free (DpsTopoSpec *s)
{
  if (!s)
    return;
  g_free (s->name);
  g_free (s->description);
  g_free (s->path);
  g_free (s->gpu.model);
  g_free (s->mesh);
  g_free (s->ring);
  g_free (s->gpu_nic);
  g_free (s->nic_gpu);
  g_free (s);
}

static int
add_vertex (DpsTopo *t, DpsVertexKind kind, int node, int index)
{
  DpsVertex v = { kind, node, index };
  g_array_append_val (t->vertices, v);
  return (int) t->vertices->len - 1;
}

/* Adds a full-duplex link as two directed links; returns the a->b id
 * (b->a is the next id). */
static int
add_duplex (DpsTopo *t, int a, int b, double bw_Bps, double latency_s, DpsLinkKind kind)
{
  DpsLink ab = { a, b, bw_Bps, latency_s, kind }, ba = { b, a, bw_Bps, latency_s, kind };
  g_array_append_val (t->links, ab);
  g_array_append_val (t->links, ba);
  return (int) t->links->len - 2;
}

static void
choose_ring (DpsTopo *t)
{
  t->ring = g_new (int, t->k * DPS_TOPO_MAX_RINGS);
  t->n_rings = dps_topo_find_rings (t->spec, t->k, t->ring);
}

static void
build_template (DpsTopo *t)
{
  const DpsTopoSpec *s = t->spec;
  int k = s->gpus_per_node;
  for (int g = 0; g < k; g++)
    add_vertex (t, DPS_VX_GPU, 0, g);
  t->sw_tv = -1;
  int host = -1, first_sw = -1;
  DpsLinkKind ik = s->intra == DPS_INTRA_PCIE ? DPS_LINK_PCI : DPS_LINK_NVLINK;
  t->gpu_up_tl = g_new (int, k);
  t->gpu_down_tl = g_new (int, k);
  switch (s->intra) {
  case DPS_INTRA_NVSWITCH:
    t->sw_tv = add_vertex (t, DPS_VX_NVSWITCH, 0, 0);
    for (int g = 0; g < k; g++) {
      t->gpu_up_tl[g] = add_duplex (t, g, t->sw_tv, s->intra_bw_Bps, s->intra_latency_s, ik);
      t->gpu_down_tl[g] = t->gpu_up_tl[g] + 1;
    }
    break;
  case DPS_INTRA_NVLINK_MESH:
    host = add_vertex (t, DPS_VX_HOST, 0, 0);
    for (int i = 0; i < s->n_mesh; i++)
      add_duplex (t, s->mesh[i].a, s->mesh[i].b, s->intra_bw_Bps * s->mesh[i].count,
                  s->intra_latency_s, ik);
    for (int g = 0; g < k; g++)
      add_duplex (t, g, host, s->pcie_bw_Bps, s->intra_latency_s, DPS_LINK_PCI);
    break;
  case DPS_INTRA_PCIE:
    first_sw = (int) t->vertices->len;
    for (int i = 0; i < s->pcie_switches; i++)
      add_vertex (t, DPS_VX_PCIE_SWITCH, 0, i);
    host = add_vertex (t, DPS_VX_HOST, 0, 0);
    for (int g = 0; g < k; g++)
      add_duplex (t, g, first_sw + g * s->pcie_switches / k, s->intra_bw_Bps, s->intra_latency_s, ik);
    if (s->pcie_switches > 1)
      for (int i = 0; i < s->pcie_switches; i++)
        add_duplex (t, first_sw + i, host, s->pcie_uplink_Bps, s->intra_latency_s, DPS_LINK_PCI);
    break;
  }
  t->nic_tv = g_new (int, MAX (s->n_nics, 1));
  for (int n = 0; n < s->n_nics; n++)
    t->nic_tv[n] = add_vertex (t, DPS_VX_NIC, 0, n);
  for (int n = 0; n < s->n_nics; n++) {
    if (s->intra == DPS_INTRA_PCIE) {
      int g = s->nic_gpu[n];
      add_duplex (t, first_sw + g * s->pcie_switches / k, t->nic_tv[n], s->pcie_bw_Bps,
                  s->intra_latency_s, DPS_LINK_PCI);
    } else {
      for (int g = 0; g < k; g++)
        if (s->gpu_nic[g] == n)
          add_duplex (t, g, t->nic_tv[n], s->pcie_bw_Bps, s->intra_latency_s, DPS_LINK_PCI);
    }
  }
  t->tv = (int) t->vertices->len;
  t->tl = (int) t->links->len;
  t->adj_off = g_new0 (int, t->tv + 1);
  t->adj = g_new (int, t->tl);
  for (int l = 0; l < t->tl; l++)
    t->adj_off[g_array_index (t->links, DpsLink, l).src + 1]++;
  for (int v = 0; v < t->tv; v++)
    t->adj_off[v + 1] += t->adj_off[v];
  int *fill = g_memdup2 (t->adj_off, sizeof (int) * (gsize) t->tv);
  for (int l = 0; l < t->tl; l++)
    t->adj[fill[g_array_index (t->links, DpsLink, l).src]++] = l;
  g_free (fill);
}

static void
instantiate (DpsTopo *t)
{
  const DpsTopoSpec *s = t->spec;
  int N = t->n_nodes, nn = s->n_nics;
  /* copies of the template for nodes 1..N-1 */
  for (int m = 1; m < N; m++) {
    for (int v = 0; v < t->tv; v++) {
      DpsVertex x = g_array_index (t->vertices, DpsVertex, v);
      x.node = m;
      g_array_append_val (t->vertices, x);
    }
    for (int l = 0; l < t->tl; l++) {
      DpsLink x = g_array_index (t->links, DpsLink, l);
      x.src += m * t->tv;
      x.dst += m * t->tv;
      g_array_append_val (t->links, x);
    }
  }
  if (N < 2 || nn == 0)
    return;
  int npl = MAX (1, MIN (s->nodes_per_leaf, N));
  int groups = (N + npl - 1) / npl;
  int leaves_per_rail = groups;
  switch (s->fabric) {
  case DPS_FABRIC_SWITCH: t->n_leaves = 1; break;
  case DPS_FABRIC_FAT_TREE: t->n_leaves = groups; break;
  case DPS_FABRIC_RAIL: t->n_leaves = groups * nn; break;
  }
  int first_leaf = (int) t->vertices->len;
  for (int i = 0; i < t->n_leaves; i++)
    add_vertex (t, DPS_VX_LEAF, -1, i);
  t->nic_leaf = g_new (int, N * nn);
  t->nic_up = g_new (int, N * nn);
  t->nic_down = g_new (int, N * nn);
  for (int m = 0; m < N; m++) {
    for (int n = 0; n < nn; n++) {
      int leaf = 0;
      if (s->fabric == DPS_FABRIC_FAT_TREE)
        leaf = m / npl;
      else if (s->fabric == DPS_FABRIC_RAIL)
        leaf = n * leaves_per_rail + m / npl;
      t->nic_leaf[m * nn + n] = leaf;
      t->nic_up[m * nn + n] = add_duplex (t, m * t->tv + t->nic_tv[n], first_leaf + leaf,
                                          s->nic_bw_Bps, s->fabric_latency_s, DPS_LINK_NET);
      t->nic_down[m * nn + n] = t->nic_up[m * nn + n] + 1;
    }
  }
  if (t->n_leaves > 1) {
    int spine = add_vertex (t, DPS_VX_SPINE, -1, 0);
    /* the leaf's ports, populated or not, set its uplink */
    int nics_per_leaf = s->fabric == DPS_FABRIC_RAIL ? s->nodes_per_leaf : s->nodes_per_leaf * nn;
    t->leaf_uplink_Bps = nics_per_leaf * s->nic_bw_Bps / s->oversubscription;
    t->leaf_up = g_new (int, t->n_leaves);
    t->leaf_down = g_new (int, t->n_leaves);
    for (int i = 0; i < t->n_leaves; i++) {
      t->leaf_up[i] = add_duplex (t, first_leaf + i, spine, t->leaf_uplink_Bps,
                                  s->fabric_latency_s, DPS_LINK_NET);
      t->leaf_down[i] = t->leaf_up[i] + 1;
    }
  }
}

/* Instantiates spec for n_nodes nodes.  Errors: a node count below 1 or
 * above the spec's limit, a multi-node cluster without NICs, more than
 * DPS_TOPO_MAX_GPUS GPUs, or GPUs that cannot reach each other. */
DpsTopo *
dps_topo_new (const DpsTopoSpec *spec, int n_nodes, GError **error)
{
  g_return_val_if_fail (spec != NULL, NULL);
  const char *name = spec->path ? spec->path : spec->name;
  if (n_nodes < 1) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: the node count must be at least 1, got %d",
                 name, n_nodes);
    return NULL;
  }
  if ((gint64) n_nodes * spec->gpus_per_node > DPS_TOPO_MAX_GPUS) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s: %d nodes of %d GPUs exceed the limit of %d GPUs",
                 name, n_nodes, spec->gpus_per_node, DPS_TOPO_MAX_GPUS);
    return NULL;
  }
  if (spec->max_nodes > 0 && n_nodes > spec->max_nodes) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: at most %d nodes in this system, asked for %d",
                 name, spec->max_nodes, n_nodes);
    return NULL;
  }
  if (n_nodes > 1 && spec->n_nics == 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: a node without NICs cannot join %d nodes",
                 name, n_nodes);
    return NULL;
  }
  g_autoptr (DpsTopo) t = g_new0 (DpsTopo, 1);
  t->spec = dps_topo_spec_copy (spec);
  t->n_nodes = n_nodes;
  t->k = spec->gpus_per_node;
  t->n_gpus = n_nodes * t->k;
  t->vertices = g_array_new (FALSE, FALSE, sizeof (DpsVertex));
  t->links = g_array_new (FALSE, FALSE, sizeof (DpsLink));
  build_template (t);
  if (!dps_topo_build_template_routes (t, error))
    return NULL;
  instantiate (t);
  choose_ring (t);
  return g_steal_pointer (&t);
}

void
dps_topo_free (DpsTopo *t)
{
  if (!t)
    return;
  dps_topo_spec_free (t->spec);
  if (t->vertices)
    g_array_free (t->vertices, TRUE);
  if (t->links)
    g_array_free (t->links, TRUE);
  if (t->tr_data)
    g_array_free (t->tr_data, TRUE);
  g_free (t->nic_tv);
  g_free (t->adj_off);
  g_free (t->adj);
  g_free (t->gpu_up_tl);
  g_free (t->gpu_down_tl);
  g_free (t->gg_off);
  g_free (t->gg_len);
  g_free (t->gn_off);
  g_free (t->gn_len);
  g_free (t->ng_off);
  g_free (t->ng_len);
  g_free (t->ring);
  g_free (t->nic_leaf);
  g_free (t->nic_up);
  g_free (t->nic_down);
  g_free (t->leaf_up);
  g_free (t->leaf_down);
  g_free (t);
}

const DpsTopoSpec *dps_topo_spec (const DpsTopo *t) { return t->spec; }
int dps_topo_n_nodes (const DpsTopo *t) { return t->n_nodes; }
int dps_topo_n_gpus (const DpsTopo *t) { return t->n_gpus; }
int dps_topo_gpus_per_node (const DpsTopo *t) { return t->k; }
int dps_topo_n_links (const DpsTopo *t) { return (int) t->links->len; }
int dps_topo_n_vertices (const DpsTopo *t) { return (int) t->vertices->len; }
int dps_topo_n_leaves (const DpsTopo *t) { return t->n_leaves; }
double dps_topo_leaf_uplink_Bps (const DpsTopo *t) { return t->n_leaves > 1 ? t->leaf_uplink_Bps : 0; }
const int *dps_topo_ring_order (const DpsTopo *t) { return t->ring; }
int dps_topo_n_rings (const DpsTopo *t) { return t->n_rings; }
const int *dps_topo_ring (const DpsTopo *t, int i) { return t->ring + (gsize) (i % t->n_rings) * (gsize) t->k; }

const DpsLink *
dps_topo_link (const DpsTopo *t, int link)
{
  return &g_array_index (t->links, DpsLink, link);
}

const DpsVertex *
dps_topo_vertex (const DpsTopo *t, int vertex)
{
  return &g_array_index (t->vertices, DpsVertex, vertex);
}

/* The vertex of global GPU index gpu (node * gpus_per_node + local). */
int
dps_topo_gpu_vertex (const DpsTopo *t, int gpu)
{
  return (gpu / t->k) * t->tv + gpu % t->k;
}

/* The kind of the links between GPUs of one node (NCCL's latency tables
 * distinguish NVLink from PCI). */
DpsLinkKind
dps_topo_intra_kind (const DpsTopo *t)
{
  return t->spec->intra == DPS_INTRA_PCIE ? DPS_LINK_PCI : DPS_LINK_NVLINK;
}

static int
append_template (const DpsTopo *t, int node, int off, int len, int *links, int n)
{
  for (int i = 0; i < len; i++)
    links[n++] = node * t->tl + g_array_index (t->tr_data, int, off + i);
  return n;
}

/* Writes the links from GPU src_gpu to GPU dst_gpu (global indices) into
 * links (room for DPS_ROUTE_MAX) and returns their number (0 when equal). */
int
dps_topo_route (const DpsTopo *t, int src_gpu, int dst_gpu, int *links)
{
  int k = t->k, nn = t->spec->n_nics;
  int ma = src_gpu / k, a = src_gpu % k, mb = dst_gpu / k, b = dst_gpu % k;
  if (src_gpu == dst_gpu)
    return 0;
  if (ma == mb)
    return append_template (t, ma, t->gg_off[a * k + b], t->gg_len[a * k + b], links, 0);
  int nd = t->spec->gpu_nic[b];
  int ns = t->spec->fabric == DPS_FABRIC_RAIL ? nd : t->spec->gpu_nic[a];
  int n = append_template (t, ma, t->gn_off[a * nn + ns], t->gn_len[a * nn + ns], links, 0);
  links[n++] = t->nic_up[ma * nn + ns];
  int la = t->nic_leaf[ma * nn + ns], lb = t->nic_leaf[mb * nn + nd];
  if (la != lb) {
    links[n++] = t->leaf_up[la];
    links[n++] = t->leaf_down[lb];
  }
  links[n++] = t->nic_down[mb * nn + nd];
  return append_template (t, mb, t->ng_off[nd * k + b], t->ng_len[nd * k + b], links, n);
}

/* Sums the latencies of a route; returns the hop count. */
int
dps_topo_route_latency_hops (const DpsTopo *t, const int *links, int n, double *latency_s)
{
  double lat = 0;
  for (int i = 0; i < n; i++)
    lat += dps_topo_link (t, links[i])->latency_s;
  *latency_s = lat;
  return n;
}

/* For an NVSwitch node: the links GPU->switch and switch->GPU of gpu.
 * Returns FALSE when the node has no NVSwitch. */
gboolean
dps_topo_nvls_links (const DpsTopo *t, int gpu, int *up, int *down)
{
  if (t->sw_tv < 0)
    return FALSE;
  int m = gpu / t->k, g = gpu % t->k;
  *up = m * t->tl + t->gpu_up_tl[g];
  *down = m * t->tl + t->gpu_down_tl[g];
  return TRUE;
}

/* Bandwidth one GPU can send into its node's fabric, per direction. */
double
dps_topo_gpu_intra_bw_Bps (const DpsTopo *t)
{
  const DpsTopoSpec *s = t->spec;
  if (s->intra != DPS_INTRA_NVLINK_MESH)
    return s->intra_bw_Bps;
  double best = 0;
  for (int g = 0; g < t->k; g++) {
    double sum = 0;
    for (int i = 0; i < s->n_mesh; i++)
      if (s->mesh[i].a == g || s->mesh[i].b == g)
        sum += s->mesh[i].count * s->intra_bw_Bps;
    best = MAX (best, sum);
  }
  return best;
}

/* Bisection bandwidth in bytes/s, one direction: the maximum flow from the
 * first half of the GPUs to the second (halves by node; inside one node by
 * GPU index).  Zero for a single GPU. */
double
dps_topo_bisection_Bps (const DpsTopo *t)
{
  if (t->n_gpus < 2)
    return 0;
  int nv = (int) t->vertices->len;
  DpsMaxflow *mf = dps_maxflow_new (nv + 2);
  int src = nv, sink = nv + 1;
  for (guint l = 0; l < t->links->len; l++) {
    DpsLink *lk = &g_array_index (t->links, DpsLink, l);
    dps_maxflow_add_edge (mf, lk->src, lk->dst, lk->bw_Bps);
  }
  for (int g = 0; g < t->n_gpus; g++) {
    gboolean first = t->n_nodes > 1 ? g / t->k < t->n_nodes / 2 : g % t->k < t->k / 2;
    int v = dps_topo_gpu_vertex (t, g);
    if (first)
      dps_maxflow_add_edge (mf, src, v, G_MAXDOUBLE / 4);
    else
      dps_maxflow_add_edge (mf, v, sink, G_MAXDOUBLE / 4);
  }
  double f = dps_maxflow_solve (mf, src, sink);
  dps_maxflow_free (mf);
  return f;
}
