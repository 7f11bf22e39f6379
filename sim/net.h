/* net — flow-level network: max-min fair sharing of link bandwidth.
 *
 * The network owns its variables (flows) and constraints (links), as
 * SimGrid's lmm solver does.  A flow carries a number of bytes over a fixed
 * route (a list of directed links); a link of capacity C shares C among the
 * flows crossing it.  Rates are max-min fair, computed by progressive
 * filling: raise every unfixed flow's rate together; when a link saturates,
 * its unfixed flows are fixed at the share C_left / n_unfixed; repeat.  The
 * result has each flow's rate limited by one saturated link on which no
 * other flow gets more.  A flow may also carry its own rate cap.
 *
 * Examples (the unit tests check them):
 *   two flows on one link of C: C/2 each;
 *   flows A over L1 (C=1) and L2 (C=2), B over L1, C over L2:
 *     L1 saturates first at 1/2, so A = B = 1/2 and C takes the rest, 3/2.
 *
 * Rates change only when a flow starts or ends.  Changes made at one
 * simulated instant are batched into one re-solve, and only the connected
 * component of links and flows that the change touched is re-solved, so an
 * independent job elsewhere costs nothing.  Units: bytes, bytes/s, seconds.
 * Steady state allocates nothing: flows, per-link lists and the solver's
 * heap are pooled.
 */
#pragma once

#include "sim/engine.h"
#include "sim/topo.h"

typedef struct DpsNet DpsNet;
typedef void (*DpsFlowDoneFn) (DpsNet *net, int flow, void *data);

DpsNet  *dps_net_new (DpsEngine *engine, const double *capacity_Bps, int n_links);
DpsNet  *dps_net_new_for_topo (DpsEngine *engine, const DpsTopo *topo);
void     dps_net_free (DpsNet *net);
int      dps_net_flow_start (DpsNet *net, const int *links, int n_links, double bytes,
                             double max_rate_Bps, DpsFlowDoneFn fn, void *data);
double   dps_net_flow_rate (const DpsNet *net, int flow);
int      dps_net_active_flows (const DpsNet *net);
double   dps_net_link_bytes (const DpsNet *net, int link);
double   dps_net_link_capacity (const DpsNet *net, int link);
int      dps_net_n_links (const DpsNet *net);
guint64  dps_net_solves (const DpsNet *net);
void     dps_net_solve_now (DpsNet *net);
