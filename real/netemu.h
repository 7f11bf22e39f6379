/* netemu — several nodes emulated on one machine, joined by a shaped
 * network (shared/reference/emulation.md records what works here).
 *
 * Each node is a network namespace with a veth pair to a Linux bridge;
 * a tbf rate limit on both ends of each veth caps the node's link in both
 * directions (netem is not in this kernel, so no added latency).  mpirun
 * starts one orted per node through a remote-shell agent that enters the
 * node's namespace under its own host name (unshare --uts), so ranks of one
 * node use shared memory and ranks of different nodes TCP over the shaped
 * links.  Needs root; everything is removed when the emulation is freed,
 * also after a failure. */
#pragma once

#include <glib.h>

typedef struct DpsNetEmu DpsNetEmu;

DpsNetEmu *dps_netemu_new (int nodes, int ranks_per_node, double link_gbps, GError **error);
void       dps_netemu_free (DpsNetEmu *e);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsNetEmu, dps_netemu_free)
int        dps_netemu_nodes (const DpsNetEmu *e);
GPtrArray *dps_netemu_mpirun_argv (const DpsNetEmu *e, int ranks, const char *program);
GPtrArray *dps_launcher_argv (const DpsNetEmu *net, int ranks, const char *program);
