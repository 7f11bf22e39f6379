/* libFuzzer target: calibration profiles (calibrate/profile.c), and what
 * the simulator does with one that loads. */
#include "fuzz-files.h"   /* beside this file */
#include "calibrate/profile.h"
#include "sim/coll-predict.h"

int LLVMFuzzerTestOneInput (const unsigned char *data, size_t size);

/* the path entry point: --calibration FILE */
static gboolean
load_path (const char *path, GError **error)
{
  DpsProfile *p = dps_profile_load (path, error);
  if (p)
    dps_profile_free (p);
  return p != NULL;
}

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
  fuzz_through_path (load_path, ".calib", data, size);
  GError *e = NULL;
  DpsProfile *p = dps_profile_load_data ("fuzz.calib", (const char *) data, (gssize) size, &e);
  if (!p) {
    g_error_free (e);
    return 0;
  }
  DpsCollParams params;
  guint am, pm;
  dps_tune_params_nccl (&params);
  dps_profile_apply_params (p, 4, 1, &params, &am, &pm);
  DpsTopoSpec *s = dps_profile_machine_spec (p, 4, 1);
  if (s)
    dps_topo_spec_free (s);
  dps_fit_predict (&p->fit, 4, 1, 65536);
  dps_profile_free (p);
  return 0;
}
