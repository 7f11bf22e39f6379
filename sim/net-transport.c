/* net-transport.c — what network transports cost beyond NCCL's InfiniBand figures (topo.h). */
#include "sim/topo.h"

/* Each transport once, by DpsNetTransport:
 * - name: its word in a topology's [nic] transport;
 * - extra_us: the latency a network step pays beyond NCCL's InfiniBand
 *   figures (a topology's [nic] latency_us overrides it); TCPX's tables are
 *   bandwidth-bound.  Fitted over tests/reference/nccl, EFA's on its tables'
 *   rows below 64 KiB (tests/reference/README.md, "How the constants were set");
 * - eager_bytes: the largest message it sends in one go (0: any size); past
 *   it, `crossings`.  EFA's 8 KiB: one packet from CUDA memory for SENDRECV
 *   (p4d; aws-ofi-nccl src/platform-aws.c, libfabric prov/efa/src/efa_hmem.c),
 *   OFI_NCCL_EAGER_MAX_SIZE's default for RDMA (p5 on; aws-ofi-nccl
 *   nccl_ofi_param.h); IB and RoCE: one RDMA write;
 * - crossings of the network past the eager size: SENDRECV's read protocol
 *   three (request, RDMA read, response), RDMA's two (the receiver's control
 *   message, then the write), which NCCL's early receives do not hide on p5
 *   (tests/reference/README.md, "How the constants were set");
 * - eager_any_memory: the eager size holds for host memory too (LL's network
 *   buffers, NCCL src/transport/net.cc): RDMA's is the plugin's own;
 *   SENDRECV's libfabric's for CUDA memory. */
static const struct {
  const char *name;
  double      extra_us, eager_bytes;
  int         crossings;
  gboolean    eager_any_memory;
} transports[] = {
  [DPS_NET_IB] = { "ib", 1, 0, 2, FALSE },
  [DPS_NET_ROCE] = { "roce", 1, 0, 2, FALSE },
  [DPS_NET_EFA] = { "efa", 12, 8192, 2, TRUE },
  [DPS_NET_SOCKET] = { "socket", 0, 0, 2, FALSE },
  [DPS_NET_TCPX] = { "tcpx", 0, 0, 2, FALSE },
  [DPS_NET_EFA_SENDRECV] = { "efa-sendrecv", 48, 8192, 3, FALSE },
};
G_STATIC_ASSERT (G_N_ELEMENTS (transports) == DPS_NET_TRANSPORTS);

double
dps_net_transport_extra_us (DpsNetTransport t)
{
  g_return_val_if_fail (t < DPS_NET_TRANSPORTS, 0);
  return transports[t].extra_us;
}

double
dps_net_transport_eager_bytes (DpsNetTransport t)
{
  g_return_val_if_fail (t < DPS_NET_TRANSPORTS, 0);
  return transports[t].eager_bytes;
}

int
dps_net_transport_crossings (DpsNetTransport t)
{
  g_return_val_if_fail (t < DPS_NET_TRANSPORTS, 2);
  return transports[t].crossings;
}

gboolean
dps_net_transport_eager_any_memory (DpsNetTransport t)
{
  g_return_val_if_fail (t < DPS_NET_TRANSPORTS, FALSE);
  return transports[t].eager_any_memory;
}

const char *
dps_net_transport_name (DpsNetTransport t)
{
  g_return_val_if_fail (t < DPS_NET_TRANSPORTS, "?");
  return transports[t].name;
}

const char *const *
dps_net_transport_names (void)
{
  static const char *names[DPS_NET_TRANSPORTS + 1];
  static gsize once = 0;
  if (g_once_init_enter (&once)) {
    for (int t = 0; t < DPS_NET_TRANSPORTS; t++)
      names[t] = transports[t].name;
    g_once_init_leave (&once, 1);
  }
  return names;
}
