/* sysmem — how much memory this process may still take: the free physical
 * memory, and where its control group (cgroup v2 or v1) has a memory limit
 * below that, the room left under the limit.  Guards that refuse replicas
 * too big for the machine read it, so that a container's limit refuses
 * them instead of its OOM killer taking the ranks and dpscale. */
#pragma once

#include <glib.h>

/* Bytes this process may still allocate: MIN (free physical memory, the
 * cgroup's room). */
double dps_mem_available (void);

/* The share of what is available that replicas may take: the rest for
 * the system, the page cache and MPI's buffers. */
#define DPS_MEM_USABLE_SHARE 0.8

/* Whether need_bytes fits in DPS_MEM_USABLE_SHARE of what is available;
 * *avail (may be NULL) receives the bytes available, for the message. */
gboolean dps_mem_fits (double need_bytes, double *avail);

/* The room, bytes, under the memory limits of the control group that
 * proc_cgroup (the text of /proc/self/cgroup) names, below sysfs_root (the
 * cgroup mount, "/sys/fs/cgroup"): at each level from the group up to the
 * root that has a limit, limit - usage + inactive file pages (reclaimable
 * cache), the least of them.  cgroup v2 ("0::/path": memory.max,
 * memory.current, memory.stat's inactive_file) is read where mounted, else
 * v1 ("N:...memory...:/path" under sysfs_root/memory: memory.limit_in_bytes,
 * memory.usage_in_bytes, total_inactive_file).  A group path that is not
 * under the mount (a container sees its own group as the root) is read at
 * the mount's root.  G_MAXDOUBLE where no level has a limit. */
double dps_mem_cgroup_room (const char *sysfs_root, const char *proc_cgroup);
