/* net-transport.c — what each network transport costs a collective's
 * steps beyond NCCL's InfiniBand figures (declared in topo.h). */
#include "sim/topo.h"

/* The latency a network step pays over NCCL's InfiniBand figures, by
 * transport, microseconds (a topology's [nic] latency_us overrides it).
 * Fitted once over the whole published suite in tests/reference/nccl/
 * (its README): InfiniBand and RoCE, 1 us, the best of a grid of 0 to
 * 10 us by the suite's median over rows of 64 KiB and more (0: 9.11%,
 * 0.5: 9.18, 1: 8.82, 1.5: 8.89, 2: 9.01, 3: 9.13, 4: 9.11, 8: 9.14;
 * rows below 64 KiB 21.7% at 0, 22.1 at 1, 26.6 at 8).  It was 8 us, the
 * best of 0 to 24 before a call's own cost (nccl-cost.c: 12 us a call)
 * was fitted: that cost now holds what the steps' 8 us stood for on
 * 2-node tables, and with both a 4-node H100 tree took 85 us for 8 bytes
 * where Voltage Park measure 38 (the suite's multi-node rows below
 * 64 KiB: 32.0% at 8, 19.6% at 1, 17.5% at 0).
 *
 * EFA, each of aws-ofi-nccl's two protocols on its own tables' rows below
 * 64 KiB, where latency is all they measure:
 * - SENDRECV (p4d, p4de): 48 us, the best of a grid of 0 to 64 us
 *   (aws-p4d-2n-allreduce*.ref, NCCL 2.8.3 with LL and 2.9.9 with Simple:
 *   167 and 175 us for 8 bytes over 2 nodes, where NCCL's InfiniBand
 *   figures give 35 and 103 us; median |error| of those rows 75% at 0,
 *   23% at 48 to 64); above 1 MiB there its steps' chunks pass the eager
 *   size and take three times it (dps_net_transport_crossings), the
 *   512 KiB and 1 MiB rows stay 1.15 to 1.2 times the model's time (eager
 *   messages: not explained).  With NCCL's plateau of the ring
 *   (dps_tune_ring_latency: 1.4 times ring Simple's latency across nodes
 *   from 64 bytes a rank and channel) the grid's best is 48 us again (rows
 *   below 64 KiB: 28% at 40, 23% at 48, 25% at 56).
 * - RDMA (p5 and later): 12 us, the best of a grid of 0 to 48 us with its
 *   rendezvous past 8 KiB in place (aws-p5-2n-allreduce.ref, 2 x
 *   p5.48xlarge, 65 us for 8 bytes, NCCL's default tree LL; rows below
 *   64 KiB: 20.6% at 8, 12.9% at 10, 6.1% at 12, 8.1% at 14, 12.1% at 16,
 *   18.2% at 20, 48.9% at 48).  Until a table of p5 was in the suite it
 *   took SENDRECV's 48, and the p5 table came out twice as slow as measured
 *   below 64 KiB (139 us for 8 bytes), 14.8% off above.
 * TCPX (A3) tables are met with 0, their bandwidth being what limits them
 * at the sizes published. */
double
dps_net_transport_extra_us (DpsNetTransport t)
{
  static const double extra[DPS_NET_TRANSPORTS] = {
    [DPS_NET_IB] = 1, [DPS_NET_ROCE] = 1, [DPS_NET_EFA] = 12, [DPS_NET_EFA_SENDRECV] = 48, [DPS_NET_SOCKET] = 0,
    [DPS_NET_TCPX] = 0,
  };
  g_return_val_if_fail (t < DPS_NET_TRANSPORTS, 0);
  return extra[t];
}

/* The largest message, bytes, a transport delivers in one go, or 0 where
 * none needs more; a larger one takes dps_net_transport_crossings of the
 * network.  Both of aws-ofi-nccl's EFA protocols have one of 8 KiB:
 * - SENDRECV (p4d, p4de: aws/aws-ofi-nccl src/platform-aws.c) hands
 *   NCCL's steps to libfabric as tagged messages, and EFA's libfabric
 *   provider sends one from CUDA memory eagerly only up to one packet (the
 *   device's MTU, about 8 KiB, less the header), a larger one by its read
 *   protocol (ofiwg/libfabric prov/efa/src/efa_hmem.c: min_read_msg_size
 *   for FI_HMEM_CUDA is the eager size + 1, no medium protocol).
 * - RDMA (p5 and later) sends a message of up to OFI_NCCL_EAGER_MAX_SIZE,
 *   8 KiB by default, eagerly, and a larger one by RDMA write into the
 *   buffer the receiver's control message names ("Message sizes greater
 *   than this limit will always be sent using RDMA write instead of
 *   eagerly", aws-ofi-nccl's nccl_ofi_param.h and its README).
 * InfiniBand and RoCE write the data with one RDMA write whatever its
 * size. */
double
dps_net_transport_eager_bytes (DpsNetTransport t)
{
  return t == DPS_NET_EFA_SENDRECV || t == DPS_NET_EFA ? 8192 : 0;
}

/* How many crossings of the network a message past the eager size takes:
 * SENDRECV's read protocol three (the request, the receiver's RDMA read
 * and its response), RDMA's two (the receiver's control message with its
 * buffer's address, then the write).  NCCL posts its receives ahead of
 * the sends, which can hide the control message; the p5 table says it is
 * not hidden: its rows of 1 to 8 MiB (LL128, 120-195 us) are 24-36% too
 * fast with one crossing, within 3% with two, at the latency its rows
 * below 64 KiB choose either way (12 us; median of its rows from 64 KiB
 * 27.4% with one, 7.0% with two). */
int
dps_net_transport_crossings (DpsNetTransport t)
{
  return t == DPS_NET_EFA_SENDRECV ? 3 : 2;
}

/* Whether the eager size holds for messages from host memory too (LL's
 * network buffers: NCCL src/transport/net.cc): RDMA's is the plugin's own
 * limit, whatever the memory; SENDRECV's is libfabric's for CUDA memory
 * alone. */
gboolean
dps_net_transport_eager_any_memory (DpsNetTransport t)
{
  return t == DPS_NET_EFA;
}

const char *
dps_net_transport_name (DpsNetTransport t)
{
  static const char *const names[DPS_NET_TRANSPORTS] = { "ib", "roce", "efa", "socket", "tcpx", "efa-sendrecv" };
  g_return_val_if_fail (t < DPS_NET_TRANSPORTS, "?");
  return names[t];
}
