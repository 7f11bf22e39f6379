/* libFuzzer target: per-layer CSV models (sim/model-csv.c). */
#include "fuzz-models.h"   /* beside this file */

int LLVMFuzzerTestOneInput (const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
  fuzz_through_path (fuzz_model_path, ".csv", data, size);
  GError *e = NULL;
  DpsModel *m = dps_model_load_csv_data ("fuzz.csv", (const char *) data, (gssize) size, &e);
  fuzz_model_done (m, e);
  return 0;
}
