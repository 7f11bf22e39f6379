/* libFuzzer target: model zoo key files (sim/model-load.c, generators in
 * sim/model-gen.c).  Sizes are capped by the loader, so generation is
 * bounded. */
#include "fuzz-files.h"   /* beside this file */
#include "sim/model.h"

int LLVMFuzzerTestOneInput (const unsigned char *data, size_t size);

/* the path entry point: --model FILE */
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
  fuzz_through_path (load_path, ".model", data, size);
  GError *e = NULL;
  DpsModel *m = dps_model_load_keyfile_data ("fuzz.model", (const char *) data, (gssize) size, &e);
  if (m)
    dps_model_free (m);
  else
    g_error_free (e);
  return 0;
}
