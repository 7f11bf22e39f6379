/* topo — a cluster as a graph of devices and directed links.
 *
 * A topology is described once per node type (DpsTopoSpec: the GPUs, the
 * fabric inside a node, the NICs and how GPUs reach them, the fabric between
 * nodes) and instantiated for a node count given at run time (DpsTopo).
 *
 * Every physical link is full duplex and appears as two directed links,
 * each with its own capacity in bytes/s and latency in seconds, so traffic
 * in one direction never slows the other.
 *
 * Inside a node, routes are shortest paths (fewest hops) that transit only
 * switches and host bridges, never another GPU or a NIC; they are computed
 * once on the node template.  Between nodes, a GPU leaves through a NIC and
 * crosses the fabric:
 *   switch    one non-blocking switch joins every NIC;
 *   fat-tree  nodes hang off leaf switches (nodes_per_leaf each) joined by a
 *             spine layer whose uplinks carry 1/oversubscription of the leaf's
 *             NIC bandwidth; the spine layer is one logical switch, which is
 *             what ideal ECMP spreading over equal spines amounts to;
 *   rail      NIC i of every node joins leaf i of its group (rail-optimised);
 *             a GPU reaches the rail of its peer's NIC inside its own node
 *             first (as NCCL's PXN does), so traffic stays on one rail.
 */
#pragma once

#include <glib.h>
#include "sim/device.h"

typedef enum { DPS_INTRA_NVSWITCH, DPS_INTRA_NVLINK_MESH, DPS_INTRA_PCIE } DpsIntraKind;
typedef enum { DPS_FABRIC_SWITCH, DPS_FABRIC_FAT_TREE, DPS_FABRIC_RAIL } DpsFabricKind;
/* How NCCL's network steps travel between nodes: InfiniBand verbs (NCCL's
 * own latency tables are for it), RoCE, AWS EFA (libfabric through
 * aws-ofi-nccl: its RDMA protocol of RDMA writes, p5 and later, or its
 * SENDRECV protocol of tagged messages, p4d, p4de and p3dn, whose
 * platform-aws.c says so), host sockets (NCCL_NET=Socket),
 * GPUDirect-TCPX/TCPXO. */
typedef enum {
  DPS_NET_IB, DPS_NET_ROCE, DPS_NET_EFA, DPS_NET_SOCKET, DPS_NET_TCPX, DPS_NET_EFA_SENDRECV, DPS_NET_TRANSPORTS
} DpsNetTransport;
/* NCCL's NVLS efficiency on Hopper (src/graph/tuning.cc nvlsEfficiency) */
#define DPS_NVLS_EFFICIENCY_DEFAULT 0.85
/* Link kinds, in NCCL's order (its latency tables are indexed by them). */
typedef enum { DPS_LINK_NVLINK, DPS_LINK_PCI, DPS_LINK_NET, DPS_LINK_KINDS } DpsLinkKind;
typedef enum {
  DPS_VX_GPU, DPS_VX_NVSWITCH, DPS_VX_PCIE_SWITCH, DPS_VX_HOST, DPS_VX_NIC,
  DPS_VX_LEAF, DPS_VX_SPINE, DPS_VX_CORE
} DpsVertexKind;

#define DPS_ROUTE_MAX 16
#define DPS_TOPO_MAX_GPUS_PER_NODE 1024
#define DPS_TOPO_MAX_RINGS 16         /* intra-node rings of a mesh */
#define DPS_TOPO_MAX_GPUS (1 << 20)
/* The largest cluster dpscale simulates: 131072 GPUs take about 3 s and
 * 0.8 GB for one predict on 2 cores (dgx-h100); 2^20 took 79 s and 5.4 GB. */
#define DPS_SIM_MAX_GPUS 131072

typedef struct { int a, b, count; } DpsMeshLink;

typedef struct {
  char          *name;
  char          *description;
  char          *path;              /* where it was loaded from, or NULL */
  int            gpus_per_node;     /* a node is one NVLink domain */
  int            gpus_per_host;     /* of one host (tray) of a node: an NVL72 rack is 18 hosts of 4 */
  double         price_per_gpu_hour_usd;  /* what one GPU-hour costs here; 0: not stated */
  DpsDeviceSpec  gpu;
  const char    *gpu_arch;          /* one of dps_gpu_arch_names (static), or NULL: from gpu.model */
  /* inside a node */
  DpsIntraKind   intra;
  double         intra_bw_Bps;      /* nvswitch: per GPU per direction; pcie: GPU-switch link;
                                       mesh: one NVLink per direction */
  double         intra_nccl_Bps;    /* nvswitch: intra_bw_Bps as loaded, NCCL's own estimate of a GPU's
                                       NVLinks, which its graph search divides into channels; a
                                       calibration scales intra_bw_Bps, not this (0: intra_bw_Bps) */
  double         intra_latency_s;   /* per hop */
  gboolean       nvls;              /* NVSwitch multicast/reduction (SHARP in the switch) */
  double         nvls_efficiency;   /* fraction of the NVLink bandwidth NVLS reaches */
  int            pcie_switches;     /* pcie: GPUs spread evenly over this many switches */
  double         pcie_uplink_Bps;   /* pcie: switch to host bridge */
  DpsMeshLink   *mesh;              /* nvlink-mesh: GPU pairs and link counts */
  int            n_mesh;
  double         pcie_bw_Bps;       /* GPU (or switch) to NIC, and mesh GPU to host */
  int           *ring;              /* optional intra-node ring order (gpus_per_node entries) */
  /* NICs */
  int            n_nics;
  double         nic_bw_Bps;        /* per NIC per direction, reachable (line rate x efficiency) */
  double         nic_nccl_Bps;      /* nic_bw_Bps as loaded, which NCCL's channel rules read; a
                                       calibration scales nic_bw_Bps, not this (0: nic_bw_Bps) */
  int           *gpu_nic;           /* per GPU: the NIC it uses (-1: none) */
  int           *nic_gpu;           /* per NIC: the first GPU attached to it */
  DpsNetTransport net_transport;
  double         net_extra_s;       /* latency of a network step beyond NCCL's InfiniBand tables */
  /* between nodes */
  DpsFabricKind  fabric;
  double         fabric_latency_s;  /* per switch hop */
  int            nodes_per_leaf;
  double         oversubscription;  /* leaf downlink : uplink, >= 1 */
  gboolean       sharp;             /* the InfiniBand switches reduce (SHARP): NCCL's CollNet can run */
  int            max_nodes;         /* 0: no limit */
  int            channels;          /* NCCL channels (rings) per collective */
  /* the host (CPU offload) */
  double         host_link_Bps;     /* a GPU to host memory, per direction (default: pcie_bw_Bps) */
  double         host_mem_Bps;      /* a host's memory bandwidth, all sockets (0: not stated) */
  double         host_mem_bytes;    /* a host's memory (0: not stated) */
} DpsTopoSpec;

typedef struct {
  int         src, dst;           /* vertex ids */
  double      bw_Bps;
  double      latency_s;
  DpsLinkKind kind;
} DpsLink;

typedef struct {
  DpsVertexKind kind;
  int           node;             /* -1 for fabric switches */
  int           index;            /* GPU, NIC or switch index within its node or level */
} DpsVertex;

typedef struct DpsTopo DpsTopo;

DpsTopoSpec   *dps_topo_spec_copy (const DpsTopoSpec *spec);
const char    *dps_topo_spec_gpu_arch (const DpsTopoSpec *spec);
int            dps_topo_spec_gpus_per_host (const DpsTopoSpec *spec);
/* the GPUs of one host a run of n_gpus trains on: a host's, or the run's fewer */
int            dps_topo_spec_host_gpus (const DpsTopoSpec *spec, int n_gpus);
/* per transport (net-transport.c) */
double         dps_net_transport_extra_us (DpsNetTransport t);
double         dps_net_transport_eager_bytes (DpsNetTransport t);
int            dps_net_transport_crossings (DpsNetTransport t);
gboolean       dps_net_transport_eager_any_memory (DpsNetTransport t);
const char    *dps_net_transport_name (DpsNetTransport t);
/* Every transport's name, by DpsNetTransport, NULL-terminated. */
const char *const *dps_net_transport_names (void);
void           dps_topo_spec_free (DpsTopoSpec *spec);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsTopoSpec, dps_topo_spec_free)

DpsTopo       *dps_topo_new (const DpsTopoSpec *spec, int n_nodes, GError **error);
void           dps_topo_free (DpsTopo *topo);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsTopo, dps_topo_free)

const DpsTopoSpec *dps_topo_spec (const DpsTopo *topo);
int            dps_topo_n_nodes (const DpsTopo *topo);
int            dps_topo_n_gpus (const DpsTopo *topo);
int            dps_topo_gpus_per_node (const DpsTopo *topo);
int            dps_topo_n_links (const DpsTopo *topo);
int            dps_topo_n_vertices (const DpsTopo *topo);
const DpsLink *dps_topo_link (const DpsTopo *topo, int link);
const DpsVertex *dps_topo_vertex (const DpsTopo *topo, int vertex);
int            dps_topo_gpu_vertex (const DpsTopo *topo, int gpu);
DpsLinkKind    dps_topo_intra_kind (const DpsTopo *topo);
int            dps_topo_route (const DpsTopo *topo, int src_gpu, int dst_gpu, int *links);
int            dps_topo_route_latency_hops (const DpsTopo *topo, const int *links, int n, double *latency_s);
gboolean       dps_topo_nvls_links (const DpsTopo *topo, int gpu, int *up, int *down);
const int     *dps_topo_ring_order (const DpsTopo *topo);
/* The intra-node rings channels take in turn (a mesh's rings over distinct
 * links, both ways: sim/topo.c mesh_rings; else the one ring) */
int            dps_topo_n_rings (const DpsTopo *topo);
const int     *dps_topo_ring (const DpsTopo *topo, int i);
double         dps_topo_bisection_Bps (const DpsTopo *topo);
double         dps_topo_gpu_intra_bw_Bps (const DpsTopo *topo);
double         dps_topo_leaf_uplink_Bps (const DpsTopo *topo);
int            dps_topo_n_leaves (const DpsTopo *topo);

const char    *dps_intra_kind_name (DpsIntraKind kind);
const char    *dps_fabric_kind_name (DpsFabricKind kind);
const char    *dps_link_kind_name (DpsLinkKind kind);
const char    *dps_vertex_kind_name (DpsVertexKind kind);
