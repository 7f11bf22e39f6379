/* net-transport.c — what network transports cost beyond NCCL's InfiniBand figures (topo.h). */
#include "sim/topo.h"

/* The latency, us, a network step pays beyond NCCL's InfiniBand figures, by
 * transport (a topology's [nic] latency_us overrides it); TCPX's tables are bandwidth-bound.
 * Fitted over tests/reference/nccl, EFA's on its tables' rows below 64 KiB (tests/reference/README.md, "How the constants were set"). */
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

/* The largest message, bytes, a transport sends in one go (0: any size); past it,
 * dps_net_transport_crossings.  EFA's 8 KiB: one packet from CUDA memory for SENDRECV (p4d;
 * aws-ofi-nccl src/platform-aws.c, libfabric prov/efa/src/efa_hmem.c), OFI_NCCL_EAGER_MAX_SIZE's
 * default for RDMA (p5 on; aws-ofi-nccl nccl_ofi_param.h).  IB and RoCE: one RDMA write. */
double
dps_net_transport_eager_bytes (DpsNetTransport t)
{
  return t == DPS_NET_EFA_SENDRECV || t == DPS_NET_EFA ? 8192 : 0;
}

/* Crossings of the network past the eager size: SENDRECV's read protocol three (request,
 * RDMA read, response), RDMA's two (the receiver's control message, then the write), which
 * NCCL's early receives do not hide on p5 (tests/reference/README.md, "How the constants were set"). */
int
dps_net_transport_crossings (DpsNetTransport t)
{
  return t == DPS_NET_EFA_SENDRECV ? 3 : 2;
}

/* Whether the eager size holds for host memory too (LL's network buffers, NCCL
 * src/transport/net.cc): RDMA's is the plugin's own; SENDRECV's libfabric's for CUDA memory. */
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
