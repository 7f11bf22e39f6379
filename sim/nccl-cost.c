/* nccl-cost.c — see nccl-cost.h. */
#include "sim/nccl-cost.h"

#include <math.h>
#include <string.h>

#define US 1e-6

/* Fills p with NCCL's published defaults (Hopper, Intel host). */
void
dps_coll_params_nccl (DpsCollParams *p)
{
  memset (p, 0, sizeof *p);
  static const double base[DPS_ALGO_COUNT][DPS_PROTO_COUNT] = {
    [DPS_ALGO_TREE] = { 6.8, 14.0, 8.4 },
    [DPS_ALGO_RING] = { 6.6, 14.0, 8.4 },
    [DPS_ALGO_HIER] = { 6.6, 14.0, 8.4 },   /* a ring in each phase */
    [DPS_ALGO_NVLS] = { 0, 0, 0 },
    [DPS_ALGO_COLLNET] = { 0, 0, 0 },
    [DPS_ALGO_PAT] = { 8.0, 8.0, 8.0 },
  };
  static const double step[DPS_ALGO_COUNT][DPS_LINK_KINDS][DPS_PROTO_COUNT] = {
    [DPS_ALGO_TREE] = { { 0.6, 1.25, 4.0 }, { 1.0, 1.9, 4.0 }, { 5.0, 8.5, 14 } },
    [DPS_ALGO_RING] = { { 0.6, 1.9, 3.4 }, { 1.0, 2.5, 5.7 }, { 2.7, 4.0, 14.0 } },
    [DPS_ALGO_HIER] = { { 0.6, 1.9, 3.4 }, { 1.0, 2.5, 5.7 }, { 2.7, 4.0, 14.0 } },
    /* NVLS: NVLink 25 us; across nodes NCCL's NVLSTree, 20.9 us a step */
    [DPS_ALGO_NVLS] = { { 0, 0, 25 }, { 0, 0, 25 }, { 0, 0, 20.9 } },
    /* CollNet (Direct): NVLink and PCI 3.7 us, the network's reduction in
     * the switches 31 us (NCCL 2.19 on, src/graph/tuning.cc hwLat) */
    [DPS_ALGO_COLLNET] = { { 0, 0, 3.7 }, { 0, 0, 3.7 }, { 0, 0, 31 } },
    /* PAT: its network step, of which a round pays 1/3.5 (coll-pat.c) */
    [DPS_ALGO_PAT] = { { 0, 0, 4.0 }, { 0, 0, 4.0 }, { 0, 0, 14 } },
  };
  for (int a = 0; a < DPS_ALGO_COUNT; a++)
    for (int pr = 0; pr < DPS_PROTO_COUNT; pr++) {
      p->base_s[a][pr] = base[a][pr] * US;
      for (int k = 0; k < DPS_LINK_KINDS; k++)
        p->step_s[a][k][pr] = step[a][k][pr] * US;
    }
  p->net_overhead_s = 1.0 * US;
  /* A call of NCCL's, as nccl-tests times it (calls issued back to back,
   * the mean over them), takes longer than its algorithm's latency: NCCL's
   * base latencies are its tuner's, for choosing, and leave out what a
   * call costs on its own (the host's enqueue and launch).  12 us, fitted
   * once over the whole reference suite (tests/reference/nccl, median
   * |error| of busbw over rows of 64 KiB and more: 9.65% at 0, 9.33 at
   * 10, 9.32 at 11, 9.17 at 12, 9.25 at 13 and 14, the RTX 5090 passing
   * the 20% every system keeps from 13; rows below 64 KiB 43 -> 27%): one
   * node of 8 H100 or GB200 takes 21-33 us for 8 bytes where NCCL's
   * figures give 15.  The same for every algorithm, so NCCL's choice does not move;
   * outside NCCL's plateau factor of the ring. */
  p->call_s = 12.0 * US;
  /* The hosts of one NVLink domain (the 4-GPU trays of an NVL72 rack) are
   * separate machines whose ranks join each call at their own moment, and
   * nccl-tests' call lasts until the last has: its time grows with the
   * hosts it spans, 20 us on 8 trays and 40 on 32 beyond the model (GCP
   * A4X's all-gather, 8 to 32 GPUs: 21 us at 1 KiB on 2 trays, 57 on 8,
   * the model 23 and 37; OCI's GB300, 66-75 us up to 4 MiB on 16 trays
   * where NVLS gives 39-55; OCI's GB200 trays of two racks, 197 us at
   * 1 KiB on 32, the model's tree 157).  Across nodes the network's step
   * latencies, fitted on the suite, hold the same; inside an NVLink
   * domain NCCL's tuner counts no latency for a host's boundary.  A
   * call pays host_skew_s for every doubling of its hosts beyond two
   * (dps_tune_call_s; two trays measure what the model gives without it).
   * Fitted once over the whole suite (tests/reference/nccl, median |error|
   * of busbw over rows of 64 KiB and more): 8.57% without, 8.40% at 6 us,
   * 8.34% at 8, 8.31% at 9, 8.34% at 10, 8.38% at 11 and 12, 8.34% at 15;
   * at 9 GCP's A4X trays 35.4 -> 19.7%, OCI's two GB200 racks 29.5 ->
   * 15.9%, OCI's GB300 trays 7.5 -> 6.2%, the NVL72 tables' rows below 64
   * KiB 18.6 -> 4.6%; no other system moves (their hosts are nodes). */
  p->host_skew_s = 9.0 * US;
  /* payload efficiency: LL carries 4 data bytes per 8; LL128 120 per 128
   * (NCCL uses 0.92 of bus bandwidth for ring LL128 and tree Simple) */
  static const double bw[DPS_ALGO_COUNT][DPS_PROTO_COUNT] = {
    [DPS_ALGO_TREE] = { 1 / 3.8, 120.0 / 128, 0.92 },
    [DPS_ALGO_RING] = { 0.5, 0.92, 1.0 },
    [DPS_ALGO_HIER] = { 0.5, 0.92, 1.0 },
    [DPS_ALGO_NVLS] = { 0, 0, 1.0 },
    [DPS_ALGO_COLLNET] = { 0, 0, 1.0 },
    [DPS_ALGO_PAT] = { 0, 0, 1.0 },
  };
  memcpy (p->bw_factor, bw, sizeof bw);
  for (int a = 0; a < DPS_ALGO_COUNT; a++)
    p->algo_bw_factor[a] = 1.0;
  /* What the published record reaches of NCCL's own model: fitted once
   * over the whole reference suite (tests/reference/nccl: 16 systems,
   * A100 to B200, one node to 128, InfiniBand, RoCE, EFA, TCPX, PCIe), by
   * a grid search of the median |error| of rows of 64 KiB and more, never
   * to one system (tests/reference/README.md).
   *
   * NVLS reaches 0.85 of NCCL's per-generation estimate (nvls_efficiency)
   * on every NVLS system of the suite (8 H100 measure ~480 GB/s busbw
   * where NCCL's figure gives 551). */
  p->algo_bw_factor[DPS_ALGO_NVLS] = 0.85;
  /* PAT: NCCL's own 0.75 of the tree graph's bandwidth (src/graph/tuning.cc,
   * "if (a == NCCL_ALGO_PAT) busBw *= .75") */
  p->algo_bw_factor[DPS_ALGO_PAT] = 0.75;
  /* The pipeline fill (dps_tune_fill_factor): for rings and trees the
   * whole collective's, Simple's 64 MB about NCCL's 4 MiB buffer on each
   * of 16 channels, LL128 3 MB and LL 0.1 MB (fitted, with NCCL's
   * per-channel ceilings of dps_tune_bw_cap_Bps in place); NVLS 250 kB
   * for each GPU on each of NCCL's NVLS channels (dps_tune_fill_times),
   * the fitted 32 MB on Hopper's 16 of 8 GPUs.  Without a fill every
   * collective of 1-64 MiB (DDP's buckets) came out 1.5-3x too fast. */
  static const double fill[DPS_PROTO_COUNT] = { [DPS_PROTO_LL] = 1e5, [DPS_PROTO_LL128] = 3e6, [DPS_PROTO_SIMPLE] = 64e6 };
  for (int q = 0; q < DPS_PROTO_COUNT; q++)
    p->fill_bytes[DPS_ALGO_RING][q] = p->fill_bytes[DPS_ALGO_TREE][q] = fill[q];
  /* CollNet's and PAT's channels hold NCCL's buffers as rings' and trees' do */
  p->fill_bytes[DPS_ALGO_COLLNET][DPS_PROTO_SIMPLE] = fill[DPS_PROTO_SIMPLE];
  p->fill_bytes[DPS_ALGO_PAT][DPS_PROTO_SIMPLE] = fill[DPS_PROTO_SIMPLE];
  p->fill_bytes[DPS_ALGO_NVLS][DPS_PROTO_SIMPLE] = 2.5e5;
  /* Inside one node (or one NVLink domain) rings and trees pay 0.375 of
   * that fill (dps_tune_fill_times): there a step's chunk goes from GPU to
   * GPU by load and store, with no proxy thread, network or flush in the
   * pipeline (NCCL's own tuner keeps its plateau factor of the ring for
   * nNodes > 1 alone, src/graph/tuning.cc).  Fitted once over the whole
   * suite (tests/reference/nccl, 39 tables, median |error| of rows of
   * 64 KiB and more): 1 (as across nodes) 9.81%, 0.5 9.42%, 0.375 9.34%,
   * 0.25 9.33%, 0.125 9.55%, 0 9.95%; 0.375 over 0.25 for the systems it
   * keeps closer (V100's cube mesh 16.3 against 18.8%, the RTX 4090 10.0
   * against 12.3%, GCP's A4X trays 35.4 against 39.1%); all-reduce rows
   * 8.13 -> 7.79%.  One HGX B200's ring all-gather took 49 us for 16 MiB
   * where the whole fill gave 85. */
  p->fill_one_node = 0.375;
  /* A tree's pipeline is as long as its depth: a chunk climbs the r - 1
   * GPUs of each node's chain and the levels between nodes (and comes
   * back down) before the tree runs at its full rate.  NCCL's own depth,
   * nRanks / nNodes - 1 + log2i(nNodes) (src/graph/connect.cc), and its
   * shrinking of a tree's LL128 chunks as 1 + log2i(nNodes) + 0.1 ppn
   * grows (src/enqueue.cc; NVIDIA/nccl@5067397) say as much.  So across
   * nodes a tree's fill is fill_bytes for every
   * tree_fill_hops hops of depth: twice it for 2 nodes of 8 GPUs, 16
   * times for two racks of 64.  Fitted once over the whole suite
   * (tests/reference/nccl, 40 tables, median |error| of rows of 64 KiB and
   * more): the whole fill whatever the depth 8.8%, a fill per 8 hops 8.8%,
   * 6 8.7%, 4 8.6%, 3.5 8.6%, 3 8.4%, 2 8.4%; 4, the least that keeps a
   * calibration's transfer within its 10% (tests/test-reference-transfer.sh:
   * gj-aion fitted on 2 and 4 nodes and predicting 8, 7.5% with the whole
   * fill, 9.5% at 4, 12.4% at 3, its fit taking the network's latency to
   * 2.4 times NCCL's either way).  Two NVL72 racks' all-reduces
   * (oci-gb200-v3, 64 GPUs a chain) 34.1 -> 29.5%, gj-aion 7.9 -> 7.5%,
   * Voltage Park 7.9 -> 7.3%, Nebius 4.8 -> 4.5%; Meta's A100 pair 4.5 ->
   * 5.3%. */
  p->tree_fill_hops = 4;
  /* The most one NCCL channel moves across nodes with Simple, per
   * direction, whatever its NIC could carry (dps_tune_bw_cap_Bps, for
   * rings and NVLSTree; NCCL's own tuner has no such ceiling).  The rings
   * of 8-GPU nodes with 8 NICs of 400 Gb/s level off at the same
   * 19.0-20.7 GB/s a channel on five clusters of H100, H200 and B200 (16
   * channels: 304-331 GB/s of busbw; h100-ib-xxrjun, h100-ib400-gjaion,
   * voltagepark-h100-ib, gcp-a3ultra-h200, vultr-b200-ib), where 1 to 4
   * GPUs a node, whose rings run 4 channels a NIC
   * (dps_tune_ring_net_channels), and a 128-node ring forced to 32
   * channels reach 0.97-0.98 of their NICs' line rate.  Fitted once over
   * the whole suite with the NICs'
   * efficiency (tests/reference/nccl, 53 tables, median |error| of busbw
   * over rows of 64 KiB and more; NICs over InfiniBand and RoCE at 0.90
   * and no ceiling: 9.13%): at 0.97 of line rate 7.63% at 19.5 GB/s,
   * **7.56% at 20**, 7.60% at 20.5; at 0.95 7.78%, 0.98 7.59%, 0.99 7.58%,
   * 1.00 7.48% (no NIC carries all of its line rate: 0.98 at most, as
   * the 1-4 GPU runs measure, bounds the grid); ceiling alone, NICs at
   * 0.90: 8.57% at 20 (8.60% on rings alone).  20.5, not 20: at 20
   * Dell's 4 H100 nodes, the one such cluster whose rings and NVLSTree
   * reach 0.91 of line rate (358-366 GB/s), come out 10.1% off when
   * calibrated on its 2 nodes,
   * past the 10% every system keeps in tests/test-reference-transfer.sh;
   * at 20.5, suite 7.60%, all six transfers within 10% (Dell 8.7%). */
  p->net_channel_Bps = 20.5e9;
  /* NVLS's own efficiency is the topology's (nvls_efficiency: NCCL's
   * per-generation figure); a calibration may scale it */
}

/* How much longer than its bandwidth term a collective of bytes over
 * channels rings or trees takes while its pipeline fills:
 * (S + min(S, fill)) / S, the fill being fill_bytes times `times`
 * (dps_tune_fill_times).  The chunks NCCL keeps
 * in flight on every channel must all be under way before the algorithm
 * runs at its full rate: below the fill size a collective reaches half
 * its bandwidth, above it it pays the fill once, a constant time.  */
double
dps_tune_fill_factor (const DpsCollParams *p, DpsAlgo algo, DpsProto proto, double times, double bytes)
{
  double f = p->fill_bytes[algo][proto] * times;
  return f > 0 && bytes > 0 ? (bytes + MIN (bytes, f)) / bytes : 1;
}

/* NCCL's GPU generation index for its tuning tables (src/graph/tuning.cc:
 * compute capability 7.x Volta, 8.x Ampere (Ada too), 9.x Hopper, 10 and
 * up Blackwell), from the topology's GPU generation (its [gpu] arch, or
 * the known device its model names); a GPU of no known generation is
 * taken for Hopper, as NCCL's other defaults here are. */
static int
compcap_index (const DpsTopoSpec *spec)
{
  static const struct { const char *arch; int idx; } known[] = {
    { "volta", 0 }, { "ampere", 1 }, { "ada", 1 }, { "hopper", 2 }, { "blackwell", 3 },
  };
  const char *arch = dps_topo_spec_gpu_arch (spec);
  for (gsize i = 0; arch && i < G_N_ELEMENTS (known); i++)
    if (g_str_equal (arch, known[i].arch))
      return known[i].idx;
  return 2;
}

/* NCCL's NVLS channels (src/transport/nvls.cc: NVLS_NCHANNELS_SM90 16,
 * NVLS_NCHANNELS_SM100 32 across nodes, NVLS_NCHANNELS_SM100_NVL 24 in
 * one node). */
static int
nvls_channels (const DpsCollCtx *ctx)
{
  return compcap_index (dps_topo_spec (ctx->topo)) < 3 ? 16 : ctx->n_nodes > 1 ? 32 : 24;
}

/* The most algorithm bandwidth (bytes/s) NCCL's own model allows ctx's
 * algorithm with proto, or 0 for no limit: its per-channel ceilings, by
 * GPU generation and scale (1 node, 2, more), for ring LL128, tree LL128
 * and tree Simple, and its LL ceiling for the whole collective
 * (src/graph/tuning.cc: perChMaxRingLL128Bws, perChMaxTreeLL128Bws,
 * perChMaxTreeBws, llMaxBws, GB/s of bus bandwidth; Blackwell's rows as
 * NCCL 2.28.3-2.29.7 have them, measured on B200: 2.25-2.27 had Hopper's
 * doubled, which the two 2-node B200 tables of the suite fall well short
 * of, 35-60% at 8-128 MiB), turned into
 * algorithm bandwidth as NCCL does (ring: x n / 2(n-1), tree: x 1/2).
 * They are what NCCL measured its kernels to reach: a double binary tree
 * of 2 DGX A100 tops out at 8 x 23.6 GB/s, where the links alone would
 * carry 30% more (tests/reference/nccl/a100-fair-gcm-2n-allreduce.ref).
 * Across nodes, Simple rings and NVLSTree also keep to their channels'
 * ceiling, net_channel_Bps a channel (dps_coll_params_nccl), which NCCL's
 * tuner does not have. */
double
dps_tune_bw_cap_Bps (const DpsCollCtx *ctx, DpsProto proto)
{
  static const double ll_max[4][3] = { { 39.0, 39.0, 20.4 }, { 87.7, 22.5, 19.0 }, { 141.0, 45.0, 35.0 },
                                       { 282.0, 90.0, 70.0 } };
  static const double ring_ll128[4][3] = { { 20, 20, 20 }, { 20, 20, 20 }, { 36.7, 36.7, 36.7 },
                                           { 40.0, 40.0, 40.0 } };
  static const double tree_ll128[4][3] = { { 20, 20, 20 }, { 20, 20, 20 }, { 36.7, 36.7, 29.0 },
                                           { 55.6, 31.67, 20.0 } };
  static const double tree_simple[4][3] = { { 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 }, { 38.7, 41.4, 36.0 },
                                            { 70.0, 42.8, 24.0 } };
  if (ctx->params->sized_regimes)
    return 0;   /* a calibration's own regimes hold what was measured */
  int n = ctx->n_nodes * ctx->ranks_per_node;
  if (n < 2)
    return 0;
  int cc = compcap_index (dps_topo_spec (ctx->topo));
  int sc = ctx->n_nodes <= 1 ? 0 : ctx->n_nodes <= 2 ? 1 : 2;
  double bus = 0;
  if (proto == DPS_PROTO_LL && (ctx->algo == DPS_ALGO_RING || ctx->algo == DPS_ALGO_TREE))
    bus = ll_max[cc][sc];
  else if (proto == DPS_PROTO_LL128 && ctx->algo == DPS_ALGO_RING)
    bus = ctx->channels * ring_ll128[cc][sc];
  else if (proto == DPS_PROTO_LL128 && ctx->algo == DPS_ALGO_TREE)
    bus = ctx->channels * tree_ll128[cc][sc];
  else if (proto == DPS_PROTO_SIMPLE && ctx->algo == DPS_ALGO_TREE)
    bus = ctx->channels * tree_simple[cc][sc];
  else if (proto == DPS_PROTO_SIMPLE && ctx->algo == DPS_ALGO_RING && ctx->n_nodes > 1 && ctx->params->net_channel_Bps > 0) {
    /* the channels' ceiling across nodes, ring: n / nsteps of busbw, nsteps
     * 2(n-1) for all-reduce and n-1 for the others (NCCL's ratio) */
    double net = dps_tune_ring_net_channels (ctx) * ctx->params->net_channel_Bps;
    if (net > 0)
      return net * (ctx->op == DPS_OP_ALLREDUCE ? 0.5 : 1.0) * n / (n - 1);
  } else if (proto == DPS_PROTO_SIMPLE && ctx->algo == DPS_ALGO_NVLS && ctx->n_nodes > 1 && ctx->params->net_channel_Bps > 0) {
    /* NVLSTree: NCCL's NVLS channels carry each node's S once each way
     * between two nodes and 2 S deeper, where every node is a parent in
     * one of the two trees */
    return nvls_channels (ctx) * ctx->params->net_channel_Bps / (ctx->n_nodes == 2 ? 1 : 2);
  }
  if (bus <= 0)
    return 0;
  double ratio = ctx->algo == DPS_ALGO_RING ? 0.5 * n / (n - 1) : 0.5;
  return bus * 1e9 * ratio;
}

/* The NICs of a node that ctx's ranks on it use (the topology's GPU-to-NIC
 * map, the ranks on its first GPUs), and in *all the node's NICs. */
static int
nics_in_use (const DpsCollCtx *ctx, int *all)
{
  const DpsTopoSpec *s = dps_topo_spec (ctx->topo);
  int used = 0;
  *all = 0;
  if (!s->gpu_nic)
    return 0;
  for (int g = 0; g < s->gpus_per_node; g++) {
    int nic = s->gpu_nic[g];
    gboolean seen = FALSE;
    for (int h = 0; h < g && !seen; h++)
      seen = s->gpu_nic[h] == nic;
    if (nic < 0 || seen)
      continue;
    (*all)++;
    for (int h = 0; h < MIN (ctx->ranks_per_node, s->gpus_per_node); h++)
      if (s->gpu_nic[h] == nic) {
        used++;
        break;
      }
  }
  return used;
}

/* The share of a node's NICs that ctx's ranks on it use (1 for whole
 * nodes): the NICs of the GPUs in use (the topology's GPU-to-NIC map)
 * over all the node's NICs.  See dps_tune_fill_times. */
double
dps_tune_fill_nic_share (const DpsCollCtx *ctx)
{
  int all, used = nics_in_use (ctx, &all);
  return all > 0 && used > 0 ? (double) used / all : 1;
}

/* NCCL's ring channels across nodes (0: no NIC in use): its search
 * (src/graph/search.cc) finds a channel for each NIC the node's ranks
 * use, at up to 48 GB/s; ncclTopoDupChannels doubles them only where
 * they are fast (25 GB/s and more) and, from Volta on (compute
 * capability above 8.0), no more than 4 at under 50 GB/s; connectRings
 * (src/graph/connect.cc) then doubles them all, at most MAXCHANNELS, 64.
 * 8 GPUs with 8 NICs of 400 Gb/s: 8, 16 channels, 2 a NIC; 1 to 4 GPUs:
 * 4 a NIC.  (NICs at 400 Gb/s and up are taken to reach the 25 GB/s.) */
int
dps_tune_ring_net_channels (const DpsCollCtx *ctx)
{
  int all, k = nics_in_use (ctx, &all);
  if (k <= 0)
    return 0;
  gboolean dup = dps_topo_spec (ctx->topo)->nic_bw_Bps >= 25e9 && k <= 4;
  return MIN (64, 2 * (dup ? 2 * k : k));
}

/* How many times its fill_bytes ctx's collective with algo fills: for
 * NVLS, NCCL's own NVLS channels (nvls_channels) times the GPUs of the
 * NVLS domain: NCCL's NVLS kernel steps each channel through nHeads x
 * chunkSize at a time, one chunk per GPU (src/device/all_reduce.h,
 * runNvls: loopCount = nvls->nHeads * chunkSize), so its pipeline holds
 * as many chunks as the domain has GPUs.  (The fill of 2 MB a channel
 * was fitted on 8 GPUs; 64 GB300s of one NVL72 rack, the one larger
 * NVLS domain of the suite, reach half their plateau only from ~256 MiB:
 * with the fill a channel's at 8 GPUs there, the model was 13-34% fast
 * from 16 MiB to 1 GiB, worst 23.6% from 256 MiB; in proportion, within
 * 17%, suite 9.26 -> 9.1%.)  For rings (and PAT and CollNet) once
 * across nodes, their fill being the whole collective's, and
 * fill_one_node of it inside one node.  Across nodes that once is for
 * whole nodes: NCCL's channels there follow the NICs a ring uses (its
 * search finds a channel per NIC and doubles them, src/graph/search.cc,
 * dupChannels; 8 NICs, 16 channels of 4 MiB, the 64 MB of Simple's
 * fill), so ranks that use fewer of a node's NICs (a network test's one
 * GPU a node) fill that share of it (dps_tune_fill_nic_share: one of a
 * DGX H100's 8 NICs, 8 MB).  A 10-node H100 cluster with 1, 2 and 4 GPUs
 * a node (xxrjun/nccl-tests-cluster@455de4f, nccl_N10_G{1,2,4}.log, 30
 * rows each): median |error| 13.1 -> 8.1%, 13.9 -> 10.7%, 12.0 -> 11.0%
 * (3.3% over the 90 rows since the NICs run at 0.97 of line rate); 16
 * single-A100 nodes' PAT and ring all-gathers (tests/reference/README.md,
 * "Not modelled"): PAT at 64 MB 4.29 -> 6.75 GB/s (6.88 measured), the
 * ring 9.65 -> 9.96 (11.88), where NCCL printed 2 channels.  Every table
 * of the suite runs whole nodes, so none moves.  Trees keep their rule
 * below, whose depth already follows the ranks a node (the same share on
 * them: the 4-GPU rows' 32 MiB tree 39 -> 46% off).  (A ring fill per channel of the
 * topology, tried, made the 2-channel RTX 4090 ring fill a quarter,
 * 14.5 -> 19.2%, and moved no NVLink system: not borne out.)  A tree
 * across nodes fills in proportion to its depth, NCCL's r - 1 + floor(log2
 * m), tree_fill_hops of it to each fill_bytes. */
double
dps_tune_fill_times (const DpsCollCtx *ctx, DpsAlgo algo)
{
  if (algo == DPS_ALGO_TREE && ctx->n_nodes > 1 && ctx->params->tree_fill_hops > 0)
    return (ctx->ranks_per_node - 1 + dps_tune_log2i (ctx->n_nodes)) / ctx->params->tree_fill_hops;
  if (algo != DPS_ALGO_NVLS)
    return ctx->n_nodes > 1 ? dps_tune_fill_nic_share (ctx) : ctx->params->fill_one_node;
  return (double) nvls_channels (ctx) * ctx->ranks_per_node;
}

/* NVLS, CollNet and PAT run only the Simple protocol; the others all
 * three (NCCL's tuner gives CollNet's LL and LL128 no bandwidth, "Not
 * used", and enables PAT with Simple alone). */
gboolean
dps_tune_proto_ok (DpsAlgo algo, DpsProto proto)
{
  return (algo != DPS_ALGO_NVLS && algo != DPS_ALGO_COLLNET && algo != DPS_ALGO_PAT) || proto == DPS_PROTO_SIMPLE;
}

/* What CollNet's in-switch reduction reaches of the NICs' bandwidth:
 * NCCL's tuner takes 0.85 of its CollNet Direct all-reduce bandwidth from
 * compute capability 9.0 on ("if (minCompCap >= 90) busBw *= .85",
 * src/graph/tuning.cc, NVIDIA/nccl@5067397), all of it before. */
double
dps_tune_collnet_efficiency (const DpsCollCtx *ctx)
{
  return compcap_index (dps_topo_spec (ctx->topo)) >= 2 ? 0.85 : 1.0;
}

/* Whether proto may carry a message of bytes: always with NCCL's tables;
 * with calibrated regimes, only inside the protocol's size range. */
gboolean
dps_tune_size_ok (const DpsCollParams *p, DpsProto proto, double bytes)
{
  if (!p->sized_regimes)
    return TRUE;
  double lo = proto > 0 ? p->regime_max_bytes[proto - 1] : 0, hi = p->regime_max_bytes[proto];
  return bytes > lo && (hi <= 0 || bytes <= hi);
}

/* A collective's time with a calibration's correction table: model(S)
 * (the regime lines) times the factor measured at the tabled sizes; between
 * two tabled sizes, the corrected times at both are interpolated linearly
 * in log time and log size, so a size that falls between two regimes lands
 * between the two measured neighbours.  Without a table: model(bytes). */
double
dps_tune_calibrated (const DpsCollParams *p, double bytes, DpsTimeFn model, void *data)
{
  int n = p->n_corr;
  if (n == 0)
    return model (bytes, data);
  if (bytes <= p->corr_bytes[0])
    return model (bytes, data) * p->corr_factor[0];
  if (bytes >= p->corr_bytes[n - 1])
    return model (bytes, data) * p->corr_factor[n - 1];
  int i = 1;
  while (bytes > p->corr_bytes[i])
    i++;
  double lo = p->corr_bytes[i - 1], hi = p->corr_bytes[i];
  double t0 = model (lo, data) * p->corr_factor[i - 1], t1 = model (hi, data) * p->corr_factor[i];
  if (!(t0 > 0) || !(t1 > 0))
    return model (bytes, data);
  double w = log (bytes / lo) / log (hi / lo);
  return exp ((1 - w) * log (t0) + w * log (t1));
}

/* The largest collective (bytes) of algo with proto on ctx whose network
 * steps still go as the transport's eager messages, or 0 where every size
 * does (dps_net_transport_eager_bytes).  A network step carries a
 * channel's chunk: a ring's share of one rank, S / (ranks x channels), a
 * tree's or NVLS's the channel's S / channels in NCCL's chunks, which are
 * larger than any eager size; LL's chunk is twice its data (a flag with
 * every 4 bytes).  LL's network buffers are in host memory (NCCL
 * src/transport/net.cc: only LL128's and Simple's are on the GPU with
 * GPUDirect), so LL takes no eager size that holds for GPU memory alone
 * (dps_net_transport_eager_any_memory). */
double
dps_tune_eager_bytes (const DpsCollCtx *ctx, DpsAlgo algo, DpsProto proto)
{
  DpsNetTransport t = dps_topo_spec (ctx->topo)->net_transport;
  double eager = dps_net_transport_eager_bytes (t);
  if (eager <= 0 || ctx->n_nodes < 2 || (proto == DPS_PROTO_LL && !dps_net_transport_eager_any_memory (t)))
    return 0;
  if (proto == DPS_PROTO_LL)
    eager /= 2;
  int per = algo == DPS_ALGO_RING || algo == DPS_ALGO_HIER ? ctx->n_nodes * ctx->ranks_per_node : 1;
  return eager * per * MAX (ctx->channels, 1);
}

/* What one call costs beyond its algorithm's latency: call_s, and
 * host_skew_s for every doubling beyond two of the hosts of one NVLink
 * domain it spans (the trays of ctx's nodes, where a host holds fewer
 * GPUs than a node: log2(hosts / 2), hosts counted over all its nodes). */
double
dps_tune_call_s (const DpsCollCtx *ctx)
{
  const DpsTopoSpec *spec = dps_topo_spec (ctx->topo);
  int per_host = dps_topo_spec_gpus_per_host (spec);
  double call = ctx->params->call_s;
  if (per_host >= spec->gpus_per_node || ctx->ranks_per_node <= per_host)
    return call;
  int hosts = ctx->n_nodes * ((ctx->ranks_per_node + per_host - 1) / per_host);
  return hosts > 2 ? call + ctx->params->host_skew_s * log2 (hosts / 2.0) : call;
}

/* Whose network step latency algo takes from NCCL's table: with one rank
 * a node the tree's, whatever the algorithm ("With ppn=1 latencies are
 * fully exposed, use the Tree network latency", src/graph/tuning.cc): a
 * ring of single-GPU nodes pays 5 us a step with LL where one of 8-GPU
 * nodes pays 2.7.  A calibration's regimes hold their own figures. */
static DpsAlgo
net_step_algo (const DpsCollCtx *ctx, DpsAlgo algo, DpsLinkKind kind)
{
  return kind == DPS_LINK_NET && ctx->ranks_per_node == 1 && !ctx->params->sized_regimes ? DPS_ALGO_TREE : algo;
}

/* Per-step latency of algo over links of kind, with NCCL's rule that a
 * ring spanning several nodes pays at least the network overhead on each
 * intra-node step (three times with Simple).  A network step whose chunk
 * is larger than the transport's eager message (dps_tune_eager_bytes)
 * takes the transport's crossings of the network for one
 * (dps_net_transport_crossings: EFA's read protocol three, its RDMA
 * write two).  (On the suite's 2-node p4d table with Simple this put
 * the 2-16 MiB rows within 3%, 25-65% too fast without it, before NCCL's
 * plateau of the ring (dps_tune_ring_latency) made them 5-12% too slow;
 * the 512 KiB and 1 MiB rows, eager messages, were 50% too fast, with
 * the plateau 15-20%.) */
double
dps_tune_step_s (const DpsCollCtx *ctx, DpsAlgo algo, DpsLinkKind kind, DpsProto proto)
{
  double s = ctx->params->step_s[net_step_algo (ctx, algo, kind)][kind][proto];
  if (kind == DPS_LINK_NET) {
    s += dps_topo_spec (ctx->topo)->net_extra_s;
    double eager = dps_tune_eager_bytes (ctx, algo, proto);
    if (eager > 0 && ctx->bytes > eager)
      s *= dps_net_transport_crossings (dps_topo_spec (ctx->topo)->net_transport);
  }
  if (kind != DPS_LINK_NET && ctx->n_nodes > 1 && algo != DPS_ALGO_NVLS) {
    double o = ctx->params->net_overhead_s * (proto == DPS_PROTO_SIMPLE ? 3 : 1);
    s = MAX (s, o);
  }
  return s;
}

/* The smallest collective (bytes) from which NCCL's "plateau effect of
 * ring" lengthens ctx's algo with proto, or 0 where it never does: a ring
 * all-reduce with Simple across nodes, once each rank's share of a
 * channel, bytes / (channels x ranks), reaches 64 bytes (NCCL
 * src/graph/tuning.cc, ncclTopoGetAlgoTime). */
double
dps_tune_plateau_bytes (const DpsCollCtx *ctx, DpsAlgo algo, DpsProto proto)
{
  if (algo != DPS_ALGO_RING || proto != DPS_PROTO_SIMPLE || ctx->op != DPS_OP_ALLREDUCE || ctx->n_nodes < 2)
    return 0;
  return 64.0 * MAX (ctx->channels, 1) * ctx->n_nodes * ctx->ranks_per_node;
}

/* NCCL's ring latency for every protocol: base + (nsteps - ninter) intra
 * steps + ninter network steps.  From dps_tune_plateau_bytes on, Simple's
 * is NCCL's 1.4 times that (1.9 below compute capability 8.0: Volta;
 * ncclTopoGetAlgoTime), the network steps' latency the transport's
 * (dps_net_transport_extra_us) included; the crossings a step past the
 * eager size adds (dps_net_transport_crossings) are the transport's exchange,
 * outside NCCL's figure, and are added unscaled.  (On the suite's 2-node
 * p4d Simple table the rows of 64 KiB to 1 MiB move from 23-54% too fast
 * to within 20%, aws-p4d 29.2 -> 17.2%; no other table moves: their ring
 * Simple rows are bandwidth-bound.  The figure is NCCL's since 2.18; that
 * table ran 2.9.9, whose factor was 1.9 for every GPU from nRanks / 16 x
 * 64 KiB: with it aws-p4d would have been 30.2%, with 1.2 29.1%, with 1.6
 * 21.4%, its rows of 64 KiB to 1 MiB lying near 20%; all measured before
 * a call's own cost, with which aws-p4d is 15.5%.) */
void
dps_tune_ring_latency (const DpsCollCtx *ctx, DpsAlgo algo, int nsteps, int ninter,
                       gboolean with_base, double *latency_s)
{
  DpsLinkKind intra = dps_topo_intra_kind (ctx->topo);
  for (int p = 0; p < DPS_PROTO_COUNT; p++)
    latency_s[p] = (with_base ? ctx->params->base_s[algo][p] : 0)
                   + (nsteps - ninter) * dps_tune_step_s (ctx, algo, intra, p)
                   + ninter * dps_tune_step_s (ctx, algo, DPS_LINK_NET, p);
  double from = dps_tune_plateau_bytes (ctx, algo, DPS_PROTO_SIMPLE);
  if (from <= 0 || ctx->bytes < from)
    return;
  double factor = compcap_index (dps_topo_spec (ctx->topo)) < 1 ? 1.9 : 1.4;
  double once = ctx->params->step_s[net_step_algo (ctx, algo, DPS_LINK_NET)][DPS_LINK_NET][DPS_PROTO_SIMPLE]
                + dps_topo_spec (ctx->topo)->net_extra_s;
  double read = ninter * (dps_tune_step_s (ctx, algo, DPS_LINK_NET, DPS_PROTO_SIMPLE) - once);
  latency_s[DPS_PROTO_SIMPLE] = (latency_s[DPS_PROTO_SIMPLE] - read) * factor + read;
}
