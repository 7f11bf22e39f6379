/* libFuzzer target: nccl-tests logs (calibrate/nccl-log.c), and the fit
 * of what they hold (calibrate/fit.c). */
#include "fuzz-files.h"   /* beside this file */
#include "calibrate/nccl-log.h"
#include "calibrate/fit.h"

int LLVMFuzzerTestOneInput (const unsigned char *data, size_t size);

/* the path entry point: calibrate --import FILE */
static gboolean
load_path (const char *path, GError **error)
{
  DpsCalData *d = dps_cal_data_new ("nccl-tests");
  gboolean ok = dps_nccl_log_load (path, d, error);
  dps_cal_data_free (d);
  return ok;
}

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
  fuzz_through_path (load_path, ".log", data, size);
  GError *e = NULL;
  DpsCalData *d = dps_cal_data_new ("nccl-tests");
  if (dps_nccl_log_parse ("fuzz.log", (const char *) data, (gssize) size, d, &e)) {
    DpsFit f;
    dps_fit_mark_held_out (d);
    if (dps_fit_levels (d, &f, &e))
      dps_fit_predict (&f, 8, 1, 1e6);
    else
      g_clear_error (&e);
  } else
    g_error_free (e);
  dps_cal_data_free (d);
  return 0;
}
