/* libFuzzer target: model zoo key files (sim/model-load.c, generators in
 * sim/model-gen.c).  Sizes are capped by the loader, so generation is
 * bounded. */
#include "fuzz-models.h"   /* beside this file */

int LLVMFuzzerTestOneInput (const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
  fuzz_through_path (fuzz_model_path, ".model", data, size);
  GError *e = NULL;
  DpsModel *m = dps_model_load_keyfile_data ("fuzz.model", (const char *) data, (gssize) size, &e);
  fuzz_model_done (m, e);
  return 0;
}
