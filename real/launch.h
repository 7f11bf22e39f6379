/* launch — run a helper program (mpirun and its ranks) and read its output
 * line by line as it comes, with a time limit: a hung collective ends the
 * run with a clear error instead of hanging the caller. */
#pragma once

#include <glib.h>

typedef gboolean (*DpsLineFn) (const char *line, void *data, GError **error);

gboolean dps_launch_lines (const char *const *argv, const char *const *extra_env, double timeout_s,
                           DpsLineFn fn, void *data, GError **error);
void     dps_launch_trap_signals (void);
int      dps_launch_stop_signal (void);
void     dps_launch_hold (gboolean hold);
char    *dps_helper_path (const char *name);
/* The python3 that runs PyTorch's side (calibrate --backend gloo,
 * validate --torch): $DPS_PYTHON, else /usr/bin/python3 (Debian's
 * python3-torch installs there), else python3 on the PATH; NULL none. */
char    *dps_launch_python (void);
GPtrArray *dps_mpirun_argv (int ranks, const char *program);
const char *const *dps_mpirun_env (void);
