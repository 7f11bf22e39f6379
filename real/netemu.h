/* netemu — several nodes emulated on one machine, joined by a shaped
 * network: what was found to work on Debian 12 with Open MPI 4.1 / PMIx 4.
 *
 * Each node is a network namespace with a veth pair to a Linux bridge;
 * a tbf rate limit on both ends of each veth caps the node's link in both
 * directions (netem is not in this kernel, so no added latency).  mpirun
 * starts one orted per node through a remote-shell agent that enters the
 * node's namespace under its own host name (unshare --uts), so ranks of one
 * node use shared memory and ranks of different nodes TCP over the shaped
 * links.  Distinct host names are needed (two orteds with one name share a
 * session directory and their shared-memory files collide); ranks of one
 * mpirun in several namespaces without their own orted would use shared
 * memory across namespaces and bypass the shaping.  On 2 cores the ranks
 * run with --bind-to none and mpi_yield_when_idle (no busy-polling on one
 * core).  With 1 Gbit/s links iperf3 measured 957 Mbit/s each way here.
 * Open MPI runs with two TCP sockets a pair of ranks and its ring
 * all-reduce (one socket halves an exchange both ways; its default
 * all-reduce from 4 ranks is pairwise, not the ring the model costs),
 * unless the user's OMPI_MCA_ environment sets them.
 * Needs root; everything is removed when the emulation is freed, also
 * after a failure. */
#pragma once

#include <glib.h>

/* What TCP carries of an emulated link's shaped rate: tbf counts whole
 * Ethernet frames on the veth (1514 bytes for the 1500-byte MTU), of which
 * 1448 are TCP payload (IP 20, TCP 20 and its timestamps 12 bytes).
 * iperf3 measured 957 Mbit/s each way on 1 Gbit/s links here (95.7%; this
 * gives 95.6%). */
#define DPS_NETEMU_PAYLOAD_SHARE (1448.0 / 1514.0)

typedef struct DpsNetEmu DpsNetEmu;

DpsNetEmu *dps_netemu_new (int nodes, int ranks_per_node, double link_gbps, GError **error);
void       dps_netemu_free (DpsNetEmu *e);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsNetEmu, dps_netemu_free)
int        dps_netemu_nodes (const DpsNetEmu *e);
GPtrArray *dps_netemu_mpirun_argv (const DpsNetEmu *e, int ranks, const char *program);
GPtrArray *dps_launcher_argv (const DpsNetEmu *net, int ranks, const char *program);
