/* libFuzzer target: calibration profiles (calibrate/profile.c), and what
 * the simulator does with one that loads. */
#include "calibrate/profile.h"
#include "sim/nccl-tune.h"

int LLVMFuzzerTestOneInput (const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
  GError *e = NULL;
  DpsProfile *p = dps_profile_load_data ("fuzz.calib", (const char *) data, (gssize) size, &e);
  if (!p) {
    g_error_free (e);
    return 0;
  }
  DpsCollParams params;
  guint am, pm;
  dps_coll_params_nccl (&params);
  dps_profile_apply_params (p, 4, 1, &params, &am, &pm);
  DpsTopoSpec *s = dps_profile_machine_spec (p, 4, 1);
  if (s)
    dps_topo_spec_free (s);
  dps_fit_predict (&p->fit, 4, 1, 65536);
  dps_profile_free (p);
  return 0;
}
