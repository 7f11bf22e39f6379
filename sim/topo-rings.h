/* topo-rings — the rings NCCL runs inside a node: the topology file's
 * order, or in an NVLink mesh the most link-disjoint Hamiltonian cycles
 * its link counts carry, each run both ways (NCCL runs one ring channel
 * per NVLink and direction: DGX-1's hybrid cube mesh gives 3 cycles, 6
 * rings), else 0..k-1.  Used by topo.c when it builds a topology. */
#pragma once

#include "sim/topo.h"

int dps_topo_find_rings (const DpsTopoSpec *spec, int k, int *rings);
