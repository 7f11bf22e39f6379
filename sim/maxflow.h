/* maxflow — maximum flow on a directed graph with real capacities (Dinic's
 * algorithm: BFS levels, then blocking flows by DFS).  Used for bisection
 * bandwidth: the max flow from one half of the GPUs to the other equals the
 * capacity of the smallest cut between them. */
#pragma once

#include <glib.h>

typedef struct DpsMaxflow DpsMaxflow;

DpsMaxflow *dps_maxflow_new (int n_vertices);
void        dps_maxflow_free (DpsMaxflow *mf);
void        dps_maxflow_add_edge (DpsMaxflow *mf, int from, int to, double capacity);
double      dps_maxflow_solve (DpsMaxflow *mf, int source, int sink);
