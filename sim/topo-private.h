/* topo-private — the graph behind a DpsTopo, for the files that build
 * it (topo.c: the node template, its copies and the fabric;
 * topo-routes.c: the routes inside the template).  Not for other layers:
 * they use topo.h's accessors. */
#pragma once

#include "sim/topo.h"

struct DpsTopo {
  DpsTopoSpec *spec;
  int          n_nodes, k, n_gpus;
  GArray      *vertices;   /* DpsVertex */
  GArray      *links;      /* DpsLink */
  /* node template */
  int          tv, tl;     /* vertices and links per node */
  int         *nic_tv;     /* per NIC: template vertex */
  int          sw_tv;      /* nvswitch vertex, or -1 */
  int         *gpu_up_tl, *gpu_down_tl;  /* nvswitch: GPU->switch, switch->GPU */
  GArray      *tr_data;    /* template route link ids */
  int         *adj_off, *adj;      /* template out-links, CSR */
  int         *gg_off, *gg_len;   /* k*k */
  int         *gn_off, *gn_len;   /* k*nics: GPU -> NIC */
  int         *ng_off, *ng_len;   /* nics*k: NIC -> GPU */
  int         *ring;               /* n_rings rings of k GPUs each */
  int          n_rings;
  /* fabric */
  int          n_leaves;
  int         *nic_leaf;          /* per node*nics */
  int         *nic_up, *nic_down; /* per node*nics: global link ids */
  int         *leaf_up, *leaf_down;
  double       leaf_uplink_Bps;
};

gboolean dps_topo_build_template_routes (DpsTopo *t, GError **error);
