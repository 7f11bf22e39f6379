/* libFuzzer target: per-layer CSV models (sim/model-load.c). */
#include "sim/model.h"

int LLVMFuzzerTestOneInput (const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
  GError *e = NULL;
  DpsModel *m = dps_model_load_csv_data ("fuzz.csv", (const char *) data, (gssize) size, &e);
  if (m)
    dps_model_free (m);
  else
    g_error_free (e);
  return 0;
}
