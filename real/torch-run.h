/* torch-run — a PyTorch job's ranks on this machine: the user's script
 * started as torchrun --standalone starts it (real/torch-launch.py under
 * dps_launch_python's python3, MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK
 * set), with DPS_STEPS and DPS_BATCH saying what dpscale wants, and its
 * step times read from the hook its rank 0 prints, one line a step:
 *
 *   dpscale-step STEP SECONDS
 *
 * (real/torch-ddp-example.py carries it; any script can). */
#pragma once

#include <glib.h>

/* Runs script on ranks processes for steps steps of batch samples a
 * replica; appends each step's seconds to step_s (doubles, in step order).
 * Errors: no python3, no launcher, the job failing (its first lines
 * quoted), outliving timeout_s, or printing no step. */
gboolean dps_torch_run (const char *script, int ranks, int steps, int batch, double timeout_s, GArray *step_s,
                        GError **error);
