/* profile-apply — the one bridge from a calibration profile to the
 * simulator, for one prediction.  Plain values in (the topology asked for
 * or none, the ranks and nodes, the model), the simulator's own inputs out;
 * predict, sweep, advise, collective (and --compare), calibrate's check of
 * its fit, validate and the emulated replicas' waits all go through it.
 *
 * - dps_profile_apply_spec: the topology a prediction runs on (the one
 *   named; without a name the cluster the profile's logs came from, else
 *   the machine it measured, else the fallback) with the profile's fitted
 *   figures applied where they speak for it.
 * - dps_profile_apply_coll: the collective parameters and the algorithms
 *   and protocols allowed, at ranks on nodes.
 * - dps_profile_apply_ddp: all a DDP step takes from it: the collectives,
 *   the layer times (as measured, transferred to another GPU, or refused:
 *   compute_note says which), the overlap contention and the communication
 *   thread's waits measured on its own machine.
 *
 * A profile may be NULL throughout (the topology's datasheet figures).
 * What the user should know (a CPU profile's collectives left out on a GPU
 * cluster; more ranks than measured, predicted through the network fit)
 * comes back in *note (a new string, or NULL), for the caller to show once.
 * Errors name the quantity ("GPU count: ..."), not a flag. */
#pragma once

#include "calibrate/profile.h"
#include "sim/ddp.h"

DpsTopoSpec *dps_profile_apply_spec (const DpsProfile *p, const char *name, const char *fallback, int nodes,
                                     int ranks, char **note, GError **error);
gboolean     dps_profile_network_applies (const DpsProfile *p, const char *name, char **note);
void         dps_profile_apply_coll (const DpsProfile *p, const char *name, int ranks, int nodes,
                                     DpsCollParams *params, guint *algo_mask, guint *proto_mask, char **note);
gboolean     dps_profile_apply_ddp (const DpsProfile *p, const char *name, DpsModel *model, const DpsTopo *topo,
                                    int ranks, DpsDdpConfig *c, char **note, GError **error);
