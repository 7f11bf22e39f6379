/* profile-measure — the [measure.OP.RANKS.NODES] sections of a profile
 * (OP: allreduce, allgather, reducescatter): every measured collective, a
 * group per operation, rank and node count, its
 * sizes (bytes), times (us, out of place and in place), failed elements,
 * held-out marks and, where measured, NCCL's own estimate (us), the spread
 * of single timings (cv) and the time handed over while ranks compute
 * (busy_us). */
#pragma once

#include "calibrate/caldata.h"
#include "sim/base/keyfile.h"

void     dps_profile_measures_save (const DpsCalData *d, GKeyFile *k);
gboolean dps_profile_measure_load (const DpsKeyFile *kf, const char *group, DpsCalData *d, GError **error);
