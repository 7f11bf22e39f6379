/* profile-network — the [network] section of a profile: the joint network
 * fit (netfit.h) as keys with units, and when it speaks for a rank and node
 * count (one that was not measured; a measured group keeps its own
 * per-size correction on top of it). */
#pragma once

#include "calibrate/profile.h"
#include "sim/base/keyfile.h"

void     dps_profile_network_save (const DpsProfile *p, GKeyFile *k);
gboolean dps_profile_network_load (DpsProfile *p, const DpsKeyFile *kf, GError **error);
DpsTopoSpec *dps_profile_network_spec (const DpsProfile *p, int ranks, int nodes, GError **error);
void     dps_profile_network_correction (const DpsProfile *p, DpsCollOp op, int ranks, int nodes, DpsCollCorr *out);
