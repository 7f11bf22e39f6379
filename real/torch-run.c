/* torch-run.c — see torch-run.h. */
#include "real/torch-run.h"
#include "real/launch.h"
#include "sim/base/datadir.h"
#include "sim/base/error.h"

#include <stdio.h>

static gboolean
on_step (const char *line, void *data, GError **error)
{
  (void) error;
  GArray *steps = data;
  int step;
  double s;
  if (sscanf (line, "dpscale-step %d %lf", &step, &s) != 2 || !(s > 0))
    return FALSE;
  g_array_append_val (steps, s);
  return TRUE;
}

gboolean
dps_torch_run (const char *script, int ranks, int steps, int batch, double timeout_s, GArray *step_s,
               GError **error)
{
  g_autofree char *py = dps_launch_python ();
  g_autofree char *launcher = dps_data_path ("real", "torch-launch.py");
  if (!py || !launcher) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "PyTorch job: %s", !py ? "no python3 (Debian: apt-get install "
                 "python3-torch)" : "real/torch-launch.py not found in dpscale's data");
    return FALSE;
  }
  g_autofree char *n = g_strdup_printf ("%d", ranks);
  g_autofree char *env_steps = g_strdup_printf ("DPS_STEPS=%d", steps), *env_batch = g_strdup_printf ("DPS_BATCH=%d", batch);
  const char *argv[] = { py, launcher, n, script, NULL };
  const char *env[] = { env_steps, env_batch, NULL };
  guint before = step_s->len;
  if (!dps_launch_lines (argv, env, timeout_s, on_step, step_s, error))
    return FALSE;
  if (step_s->len == before) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "%s printed no 'dpscale-step STEP SECONDS' line (the hook "
                 "dpscale reads: real/torch-run.h)", script);
    return FALSE;
  }
  return TRUE;
}
