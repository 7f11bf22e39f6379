/* netfit — the simulator's own network figures, fitted jointly to every
 * measured group (rank and node counts, all sizes together).
 *
 * A profile that carries only one ring formula per measured group cannot
 * say what a rank or node count it did not measure will do: NCCL changes
 * algorithm (tree, NVLS) as ranks and nodes grow, and its latency grows
 * with log(nodes), not with the ring's 2(n-1) steps.  Instead, five figures
 * of the topology and of NCCL's model are fitted to all the measurements at
 * once, through the same algorithms and the same NCCL-like choice the
 * simulator predicts with, each measured point (all-reduce, all-gather,
 * reduce-scatter) timed as its own operation:
 *
 *   intra_bw   x the topology's reachable bandwidth inside a node (NVLink, PCIe)
 *   nic_bw     x its NICs' reachable bandwidth           (only with 2+ nodes measured)
 *   intra_lat  x NCCL's per-step latencies inside a node
 *   net_lat    x NCCL's per-step latencies across nodes  (only with 2+ nodes measured)
 *   nvls       x the NVLS efficiency                     (only where NVLS runs)
 *
 * on log time (small and large messages count alike), each the most
 * probable given the points (their noise the fit's own residual) and a
 * prior around the datasheet (a figure the points barely determine stays
 * near it), with its posterior standard deviation.  A figure the measured
 * groups cannot reach or do not exercise (no fitted point's time depends
 * on it by 5% or more) stays at 1 (the datasheet's).  The
 * fitted figures then serve any rank or node count; the per-group ring fits
 * (fit.h) still reproduce the groups that were measured, exactly.  MPI
 * ranks on CPU cores share them where they outnumber them
 * (dps_netfit_share_cores), in the fit and in what it predicts.
 */
#pragma once

#include "calibrate/caldata.h"
#include "sim/coll.h"
#include "sim/topo.h"

enum { DPS_NETFIT_INTRA_BW, DPS_NETFIT_NIC_BW, DPS_NETFIT_INTRA_LAT, DPS_NETFIT_NET_LAT, DPS_NETFIT_NVLS,
       DPS_NETFIT_N };

typedef struct {
  gboolean fitted;
  double   scale[DPS_NETFIT_N];     /* multipliers of the topology's and NCCL's figures (1: as shipped) */
  double   sd[DPS_NETFIT_N];        /* standard deviation of each; 0: unknown */
  gboolean used[DPS_NETFIT_N];      /* determined by the measurements */
  double   rms_log;                 /* rms of log(model / measured) over the fitted points */
  int      n_points;
  gboolean ring_only;               /* the measurements are of a ring library (MPI): fitted and used with ring alone */
  int      cores;                   /* a ring library's ranks share this many CPU cores (0: a core each) */
} DpsNetFit;

/* NCCL's sizes below this are not fitted: there its LL latencies rule,
 * which the model misses by up to 2-3x on some systems (tests/reference/
 * README.md); fitted, they pull the bandwidth figures that transfer to
 * other scales (a 2-node Dell XE9680 H100 log fitted from 8 B gave a NIC
 * figure of 0.75 and its 4 nodes 12.6% off from 1 MiB; fitted from 64 KiB,
 * 1.005 and 7.3%).  A ring library's sizes are all fitted. */
#define DPS_NETFIT_MIN_BYTES 65536

const char *dps_netfit_name (int i);
gboolean dps_netfit_fit (const DpsCalData *d, const DpsTopoSpec *spec, gboolean ring_only, DpsNetFit *out,
                         GError **error);
void     dps_netfit_apply_spec (const DpsNetFit *f, DpsTopoSpec *spec);
void     dps_netfit_share_cores (const DpsNetFit *f, DpsTopoSpec *spec, int ranks);
void     dps_netfit_apply_params (const DpsNetFit *f, DpsCollParams *params, guint *algo_mask);
double   dps_netfit_time (const DpsNetFit *f, const DpsTopoSpec *spec, int ranks, int nodes, DpsCollOp op,
                          double bytes, GError **error);
DpsTopo *dps_netfit_topo (const DpsNetFit *f, const DpsTopoSpec *spec, int ranks, int nodes, GError **error);
double   dps_netfit_time_on (const DpsNetFit *f, const DpsTopo *topo, int ranks, DpsCollOp op, double bytes,
                             GError **error);
