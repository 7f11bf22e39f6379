/* topo-load — topology files (GLib key files, *.topo) into DpsTopoSpec.
 *
 * Sections: [system] name, description, gpus_per_node, max_nodes;
 * [gpu] model and datasheet figures; [intra] the fabric inside a node;
 * [nic] count, rate and which GPUs use each NIC; [fabric] between nodes;
 * [nccl] channels.  Bandwidths are GB/s (1e9 bytes/s) except NIC rates,
 * which are Gbit/s as vendors quote them; latencies are microseconds.
 * topologies/README.md documents every key.  Every error names the file,
 * the line and what was expected.
 *
 * A log's GPUs against a topology's: the family words of their names
 * ("A100", "GB200"; a model "B200 (GB200 NVL72)" names both B200 and
 * GB200) say whether they differ and which shipped topologies have them.
 */
#pragma once

#include "sim/topo.h"
#include "sim/base/datadir.h"

DpsTopoSpec *dps_topo_spec_load (const char *path, GError **error);
DpsTopoSpec *dps_topo_spec_load_data (const char *name, const char *data, gssize len, GError **error);
char        *dps_topo_find (const char *name_or_path, GError **error);
char       **dps_topo_list_shipped (void);
gboolean     dps_topo_gpu_differs (const DpsTopoSpec *spec, const char *device);
char        *dps_topo_shipped_for_gpu (const char *device);
char        *dps_topo_gpu_mismatch (const DpsTopoSpec *spec, const char *name, const char *device, const char *middle);
