/* libFuzzer target: nccl-tests logs (calibrate/nccl-log.c), and the fit
 * of what they hold (calibrate/fit.c). */
#include "calibrate/nccl-log.h"
#include "calibrate/fit.h"

int LLVMFuzzerTestOneInput (const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
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
