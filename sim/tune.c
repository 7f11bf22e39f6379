/* tune.c — see tune.h. */
#include "sim/tune.h"
#include "sim/coll.h"

#include <math.h>
#include <string.h>

#define US 1e-6

/* Fills p with NCCL's published defaults (Hopper, Intel host). */
void
dps_tune_params_nccl (DpsCollParams *p)
{
  memset (p, 0, sizeof *p);
  /* each algorithm's own figures, from its file (coll.h) */
  for (int i = 0; i < DPS_ALGO_COUNT; i++) {
    const DpsCollAlgo *al = dps_coll_algo_nth (i);
    int a = al->id;
    for (int pr = 0; pr < DPS_PROTO_COUNT; pr++) {
      p->base_s[a][pr] = al->nccl.base_us[pr] * US;
      for (int k = 0; k < DPS_LINK_KINDS; k++)
        p->step_s[a][k][pr] = al->nccl.step_us[k][pr] * US;
      p->bw_factor[a][pr] = al->nccl.bw[pr];
      p->fill_bytes[a][pr] = al->nccl.fill_bytes[pr];
    }
    p->algo_bw_factor[a] = al->nccl.algo_bw > 0 ? al->nccl.algo_bw : 1.0;
  }
  p->net_overhead_s = 1.0 * US;
  /* What a call costs, as nccl-tests times it, beyond its algorithm's latency:
   * the host's enqueue and launch, which NCCL's tuner leaves out; the same
   * for every algorithm, so NCCL's choice does not move.
   * Fitted over tests/reference/nccl (tests/reference/README.md, "How the constants were set"). */
  p->call_s = 12.0 * US;
  /* The hosts of one NVLink domain (an NVL72 rack's trays) join each call at
   * their own moment and a call lasts until the last has, which NCCL's tuner
   * leaves out: this for every doubling beyond two hosts (dps_tune_call_s).
   * Fitted over tests/reference/nccl (tests/reference/README.md, "How the constants were set"). */
  p->host_skew_s = 9.0 * US;
  /* The share of the fill rings and trees pay inside one NVLink domain, where
   * chunks go from GPU to GPU by load and store, with no proxy thread,
   * network or flush in the pipeline (dps_tune_fill_times).
   * Fitted over tests/reference/nccl (tests/reference/README.md, "How the constants were set"). */
  p->fill_one_node = 0.375;
  /* Across nodes a tree fills fill_bytes for every tree_fill_hops hops of its
   * depth, NCCL's nRanks / nNodes - 1 + log2i(nNodes) (src/graph/connect.cc).
   * Fitted over tests/reference/nccl (tests/reference/README.md, "How the constants were set"). */
  p->tree_fill_hops = 4;
  /* The most one NCCL channel moves across nodes with Simple, each way,
   * whatever its NIC carries (dps_tune_bw_cap_Bps; NCCL's tuner has none).
   * Fitted over tests/reference/nccl with the NICs' efficiency (tests/reference/README.md, "How the constants were set"). */
  p->net_channel_Bps = 20.5e9;
}

/* How much longer than its bandwidth term a collective of bytes takes while
 * its pipeline fills: (S + min(S, fill)) / S, fill being fill_bytes times
 * `times` (dps_tune_fill_times).  NCCL's chunks in flight on every channel
 * must all be under way before the algorithm runs at its full rate. */
double
dps_tune_fill_factor (const DpsCollParams *p, DpsAlgo algo, DpsProto proto, double times, double bytes)
{
  double f = p->fill_bytes[algo][proto] * times;
  return f > 0 && bytes > 0 ? (bytes + MIN (bytes, f)) / bytes : 1;
}

/* NCCL's GPU generation index for its tuning tables
 * (dps_gpu_arch_nccl_generation); a GPU of no known architecture is taken
 * as Hopper, as NCCL's defaults here are, and `dpscale topo` says so. */
static int
compcap_index (const DpsTopoSpec *spec)
{
  int gen = dps_gpu_arch_nccl_generation (dps_topo_spec_gpu_arch (spec));
  return gen >= 0 ? gen : 2;
}

/* NCCL's NVLS channels (src/transport/nvls.cc: NVLS_NCHANNELS_SM90 16,
 * NVLS_NCHANNELS_SM100 32 across nodes, NVLS_NCHANNELS_SM100_NVL 24 in
 * one node). */
static int
nvls_channels (const DpsCollCtx *ctx)
{
  return compcap_index (dps_topo_spec (ctx->topo)) < 3 ? 16 : ctx->n_nodes > 1 ? 32 : 24;
}

/* NCCL's ring channels inside one NVSwitch node (0 for another fabric), as
 * its graph search finds them with no network (src/graph/search.cc,
 * ncclTopoCompute, NVIDIA/nccl@5067397): from the fastest channel speed of
 * the generation's intra-node list that one GPU's NVLink bandwidth
 * (NCCL's estimate, the topology's bw x efficiency as loaded: a
 * calibration's fitted bandwidth does not move NCCL's search) holds, as many
 * channels as it holds, trying slower speeds while they are over 0.49 of
 * the best and keeping the most bandwidth (the first on a tie); doubled,
 * at half the speed, by ncclTopoDupChannels unless the GPU is past compute
 * capability 8.0 with more than 4 channels under 50 GB/s each; then a
 * faster speed for as many channels where the NVLinks hold it (pass 2).
 * MAXCHANNELS / 2 = 32 at most.  An H100 (370.8 GB/s) gets 6 x 60, then
 * 12 x 30; an A100 (240) 6 x 40, then 12; a B200 (721.8) 8 x 90, then 16.
 * (connectRings doubles them once more for the kernels; NCCL's tuner,
 * and so this model, counts the graph's.) */
static int
nvswitch_graph (const DpsTopoSpec *s, double *channel_GBps)
{
  static const double intra[] = { 40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 0 };
  static const double sm90[] = { 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0, 0 };
  static const double sm100[] = { 90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0, 0 };
  const int max_channels = 32;
  if (s->intra != DPS_INTRA_NVSWITCH || s->gpus_per_node < 2)
    return 0;
  int gen = compcap_index (s);
  const double *speed = gen >= 3 ? sm100 : gen == 2 ? sm90 : intra;
  double total = (s->intra_nccl_Bps > 0 ? s->intra_nccl_Bps : s->intra_bw_Bps) / 1e9;
  int i = 0;
  while (speed[i + 1] > 0 && speed[i] > total)
    i++;
  int best_n = 0, best_i = i;
  for (; speed[i] > 0 && (best_n == 0 || speed[i] / speed[best_i] > 0.49); i++) {
    int n = MIN ((int) (total / speed[i] + 1e-9), max_channels);
    if (n * speed[i] > best_n * speed[best_i]) {
      best_n = n;
      best_i = i;
    }
  }
  if (best_n == 0) {
    *channel_GBps = total;
    return 1;
  }
  double found = best_n * speed[best_i];
  if (!(gen >= 2 && speed[best_i] < 50.0 && best_n > 4))
    best_n = MIN (2 * best_n, max_channels);
  *channel_GBps = found / best_n;
  return best_n;   /* pass 2 raises the speed only: the count stays */
}

int
dps_tune_nvswitch_channels (const DpsTopoSpec *s)
{
  double speed;
  return nvswitch_graph (s, &speed);
}

/* NCCL's steps of a ring of n ranks (src/graph/tuning.cc, nsteps):
 * 2(n - 1) for all-reduce, n - 1 for reduce-scatter and all-gather, n for
 * broadcast.  n / steps turns its bus bandwidth into algorithm bandwidth,
 * as nccl-tests' busbw does back. */
static int
ring_steps (DpsCollOp op, int n)
{
  return op == DPS_OP_ALLREDUCE ? 2 * (n - 1) : op == DPS_OP_BROADCAST ? n : n - 1;
}

/* The most algorithm bandwidth (bytes/s) NCCL's own model allows ctx's
 * algorithm with proto, or 0 for no limit: its per-channel ceilings by GPU
 * generation and scale (1 node, 2, more) for ring LL128, tree LL128 and tree
 * Simple, and its LL ceiling (src/graph/tuning.cc: perChMaxRingLL128Bws,
 * perChMaxTreeLL128Bws, perChMaxTreeBws, llMaxBws, GB/s of busbw;
 * Blackwell's as NCCL 2.28.3-2.29.7 measured them on B200), turned into
 * algorithm bandwidth as NCCL does (ring x n / its steps, ring_steps;
 * tree x 1/2).  Across nodes Simple rings and NVLSTree also keep to
 * net_channel_Bps a channel. */
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
  if (proto == DPS_PROTO_SIMPLE && ctx->algo == DPS_ALGO_RING && ctx->n_nodes == 1) {
    /* inside one NVSwitch node a channel moves NCCL's bwIntra (its graph
     * search's speed): at NCCL's count the channels' sum is the NVLinks',
     * which the flows hold already; fewer channels (--channels) carry
     * less */
    double channel_GBps;
    if (ctx->channels < nvswitch_graph (dps_topo_spec (ctx->topo), &channel_GBps))
      return ctx->channels * channel_GBps * 1e9 * n / ring_steps (ctx->op, n);
  }
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
    /* the channels' ceiling across nodes, ring: n / nsteps of busbw (NCCL's
     * ratio) */
    double net = dps_tune_ring_net_channels (ctx) * ctx->params->net_channel_Bps;
    if (net > 0)
      return net * n / ring_steps (ctx->op, n);
  } else if (proto == DPS_PROTO_SIMPLE && ctx->algo == DPS_ALGO_NVLS && ctx->n_nodes > 1 && ctx->params->net_channel_Bps > 0) {
    /* NVLSTree: NCCL's NVLS channels carry each node's S once each way
     * between two nodes and 2 S deeper, where every node is a parent in
     * one of the two trees */
    return nvls_channels (ctx) * ctx->params->net_channel_Bps / (ctx->n_nodes == 2 ? 1 : 2);
  }
  if (bus <= 0)
    return 0;
  return bus * 1e9 * (ctx->algo == DPS_ALGO_RING ? (double) n / ring_steps (ctx->op, n) : 0.5);
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

/* The share of a node's NICs that ctx's ranks on it use (1 for whole nodes),
 * by the topology's GPU-to-NIC map.  See dps_tune_fill_times. */
double
dps_tune_fill_nic_share (const DpsCollCtx *ctx)
{
  int all, used = nics_in_use (ctx, &all);
  return all > 0 && used > 0 ? (double) used / all : 1;
}

/* NCCL's ring channels across nodes (0: no NIC in use): a channel for each
 * NIC the node's ranks use (src/graph/search.cc), doubled by
 * ncclTopoDupChannels where the NICs reach 25 GB/s (taken for 400 Gb/s and
 * up; as loaded: a calibration's fitted figure does not move NCCL's rule)
 * and at most 4 are in use, then doubled again by connectRings
 * (src/graph/connect.cc), at most MAXCHANNELS, 64. */
int
dps_tune_ring_net_channels (const DpsCollCtx *ctx)
{
  int all, k = nics_in_use (ctx, &all);
  if (k <= 0)
    return 0;
  const DpsTopoSpec *s = dps_topo_spec (ctx->topo);
  gboolean dup = (s->nic_nccl_Bps > 0 ? s->nic_nccl_Bps : s->nic_bw_Bps) >= 25e9 && k <= 4;
  return MIN (64, 2 * (dup ? 2 * k : k));
}

/* How many times its fill_bytes ctx's collective with algo fills.  NVLS: its
 * channels (nvls_channels) times the domain's GPUs, NCCL's NVLS kernel
 * stepping a channel through one chunk per GPU (src/device/all_reduce.h,
 * runNvls: loopCount = nvls->nHeads * chunkSize).  Rings, PAT and CollNet:
 * fill_one_node inside one node; across nodes the share of the node's NICs
 * in use (dps_tune_fill_nic_share), NCCL's channels there following the
 * NICs (src/graph/search.cc).  Trees across nodes: their depth, NCCL's
 * r - 1 + floor(log2 m), over tree_fill_hops. */
double
dps_tune_fill_times (const DpsCollCtx *ctx, DpsAlgo algo)
{
  if (algo == DPS_ALGO_TREE && ctx->n_nodes > 1 && ctx->params->tree_fill_hops > 0)
    return (ctx->ranks_per_node - 1 + dps_tune_log2i (ctx->n_nodes)) / ctx->params->tree_fill_hops;
  if (algo != DPS_ALGO_NVLS)
    return ctx->n_nodes > 1 ? dps_tune_fill_nic_share (ctx) : ctx->params->fill_one_node;
  return (double) nvls_channels (ctx) * ctx->ranks_per_node;
}

/* The protocols an algorithm runs are its own (coll.h). */
gboolean
dps_tune_proto_ok (DpsAlgo algo, DpsProto proto)
{
  return dps_coll_algo (algo)->protos >> proto & 1;
}

/* CollNet's in-switch reduction: 0.85 of its bandwidth from compute
 * capability 9.0 on, 1 before (src/graph/tuning.cc, NVIDIA/nccl@5067397:
 * "if (minCompCap >= 90) busBw *= .85"). */
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

gboolean
dps_tune_may_run (const DpsCollParams *p, double payload, DpsProto proto, double bytes)
{
  return payload > 0 && dps_tune_size_ok (p, proto, bytes);
}

gboolean
dps_tune_beats (double est, int algo, double best_est, int best_algo)
{
  return est < best_est || (est == best_est && best_algo >= 0 && algo < best_algo);
}

/* A collective's time with a calibration's correction table for op: model(S) times
 * the factor measured at the tabled sizes, interpolated linearly in log time
 * and log size between two of them.  Without a table: model(bytes). */
const DpsCollCorr *
dps_tune_corr (const DpsCollParams *p, DpsCollOp op)
{
  const DpsCollCorr *c = p->corr[op].n > 0 ? &p->corr[op] : &p->corr[DPS_OP_ALLREDUCE];
  return c->n > 0 ? c : NULL;
}

void
dps_tune_uncorrect (DpsCollParams *p)
{
  for (int op = 0; op < DPS_OP_COUNT; op++)
    p->corr[op].n = 0;
}

double
dps_tune_calibrated (const DpsCollParams *p, DpsCollOp op, double bytes, DpsTimeFn model, void *data)
{
  const DpsCollCorr *c = dps_tune_corr (p, op);
  if (!c)
    return model (bytes, data);
  int n = c->n;
  if (bytes <= c->bytes[0])
    return model (bytes, data) * c->factor[0];
  if (bytes >= c->bytes[n - 1])
    return model (bytes, data) * c->factor[n - 1];
  int i = 1;
  while (bytes > c->bytes[i])
    i++;
  double lo = c->bytes[i - 1], hi = c->bytes[i];
  double t0 = model (lo, data) * c->factor[i - 1], t1 = model (hi, data) * c->factor[i];
  if (!(t0 > 0) || !(t1 > 0))
    return model (bytes, data);
  double w = log (bytes / lo) / log (hi / lo);
  return exp ((1 - w) * log (t0) + w * log (t1));
}

/* The largest collective (bytes) of algo with proto on ctx whose network
 * steps still go as the transport's eager messages, or 0 where every size
 * does (dps_net_transport_eager_bytes).  A step carries a channel's chunk: a
 * ring's S / (ranks x channels), a tree's or NVLS's S / channels; LL's chunk
 * is twice its data, and its network buffers are in host memory (NCCL
 * src/transport/net.cc), where only dps_net_transport_eager_any_memory's hold. */
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
 * host_skew_s for every doubling beyond two of the NVLink domain's hosts it
 * spans (log2(hosts / 2), where a host holds fewer GPUs than a node). */
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

/* Whose network step latency algo takes from NCCL's table: with one rank a
 * node the tree's ("With ppn=1 latencies are fully exposed, use the Tree
 * network latency", src/graph/tuning.cc).  Calibrated regimes keep theirs. */
static DpsAlgo
net_step_algo (const DpsCollCtx *ctx, DpsAlgo algo, DpsLinkKind kind)
{
  return kind == DPS_LINK_NET && ctx->ranks_per_node == 1 && !ctx->params->sized_regimes ? DPS_ALGO_TREE : algo;
}

/* Per-step latency of algo over links of kind, with NCCL's rule that a ring
 * across nodes pays at least the network overhead on each intra-node step
 * (three times with Simple).  A network step whose chunk passes the eager
 * size (dps_tune_eager_bytes) takes the transport's crossings of the
 * network (dps_net_transport_crossings). */
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

/* The smallest collective (bytes) from which NCCL's "plateau effect of ring"
 * lengthens ctx's algo with proto, or 0: a ring all-reduce with Simple across
 * nodes, once bytes / (channels x ranks) reaches 64 (ncclTopoGetAlgoTime). */
double
dps_tune_plateau_bytes (const DpsCollCtx *ctx, DpsAlgo algo, DpsProto proto)
{
  if (algo != DPS_ALGO_RING || proto != DPS_PROTO_SIMPLE || ctx->op != DPS_OP_ALLREDUCE || ctx->n_nodes < 2)
    return 0;
  return 64.0 * MAX (ctx->channels, 1) * ctx->n_nodes * ctx->ranks_per_node;
}

/* NCCL's ring latency: base + (nsteps - ninter) intra steps + ninter network
 * steps.  From dps_tune_plateau_bytes on Simple's is 1.4 times that (1.9
 * before compute capability 8.0; ncclTopoGetAlgoTime, NCCL 2.18 on), the
 * transport's step latency included; the crossings past the eager size are
 * the transport's exchange and are added unscaled. */
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
