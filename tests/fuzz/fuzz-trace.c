/* libFuzzer target: torch.profiler traces (sim/model-trace.c), through the
 * same content test --model uses. */
#include "sim/model.h"

int LLVMFuzzerTestOneInput (const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
  GError *e = NULL;
  if (!dps_model_data_is_trace ((const char *) data, size))
    return 0;
  DpsModel *m = dps_model_load_trace_data ("fuzz.json", (const char *) data, (gssize) size, &e);
  if (m)
    dps_model_free (m);
  else
    g_error_free (e);
  return 0;
}
