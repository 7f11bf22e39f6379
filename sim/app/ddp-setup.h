/* ddp-setup — the workflow predict, sweep, advise, run and validate share
 * to turn a model, a topology (or a profile's cluster or machine) and a
 * GPU count into the simulator's configuration: dps_ddp_setup sizes the
 * topology and applies the profile; dps_ddp_setup_emulation gives the
 * per-layer times an emulated replica waits. */
#pragma once

#include "sim/ddp.h"
#include "calibrate/profile.h"

gboolean dps_ddp_setup (const char *topology, const DpsProfile *profile, DpsModel *model, int nodes, int gpus,
                        DpsDdpConfig *c, DpsTopo **topo, GError **error);
gboolean dps_ddp_setup_emulation (DpsModel *model, const DpsProfile *profile, const char *topology, int batch,
                                  gboolean adam, double **fwd_s, double **bwd_s, double *opt_s, GError **error);
