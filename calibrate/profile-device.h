/* profile-device — where a profile's layer times were measured, and their
 * use on another device.
 *
 * A profile's [layers.*] are times on the device it calibrated: CPU cores
 * (backend cpu-mpi) or a GPU named in [profile] devices ("0:NVIDIA
 * A100-SXM4-80GB; ...").  On its own machine, or on a GPU of the same
 * kind, they are used as measured.  On another known GPU they are
 * transferred (dps_compute_transfer: each layer's compute-bound part
 * scaled by the peak FLOP/s ratio, its memory-bound part by the bandwidth
 * ratio).  CPU cores for a GPU, or a GPU dpscale does not know, are
 * refused: the layers are then timed by the target's kernel model, and the
 * note says so (never used silently). */
#pragma once

#include "calibrate/profile.h"
#include "sim/compute.h"

typedef enum {
  DPS_LAYERS_NONE,          /* the profile has no times for this model */
  DPS_LAYERS_MEASURED,      /* used as measured */
  DPS_LAYERS_TRANSFERRED,   /* transferred to the target device */
  DPS_LAYERS_REFUSED        /* not used: the note says why */
} DpsLayersUse;

char        *dps_profile_device_name (const DpsProfile *p);
DpsLayersUse dps_profile_use_layers (const DpsProfile *p, DpsModel *m, int ranks, const DpsDeviceSpec *target,
                                     const DpsComputeParams *cp, char **note);
