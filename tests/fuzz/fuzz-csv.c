/* libFuzzer target: per-layer CSV models (sim/model-load.c). */
#include "fuzz-files.h"   /* beside this file */
#include "sim/model.h"

int LLVMFuzzerTestOneInput (const unsigned char *data, size_t size);

/* the path entry point: --model FILE.csv */
static gboolean
load_path (const char *path, GError **error)
{
  DpsModel *m = dps_model_load (path, error);
  if (m)
    dps_model_free (m);
  return m != NULL;
}

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
  fuzz_through_path (load_path, ".csv", data, size);
  GError *e = NULL;
  DpsModel *m = dps_model_load_csv_data ("fuzz.csv", (const char *) data, (gssize) size, &e);
  if (m)
    dps_model_free (m);
  else
    g_error_free (e);
  return 0;
}
