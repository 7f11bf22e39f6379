/* fuzz-models.h — what the two model fuzz targets (fuzz-model: zoo key
 * files, fuzz-csv: per-layer CSV) share: the path entry point users reach
 * (--model FILE) and the check of a load's outcome. */
#pragma once

#include "fuzz-files.h"   /* beside this file */
#include "sim/model.h"

/* the path entry point: --model FILE (a zoo file or a CSV by its name) */
static gboolean
fuzz_model_path (const char *path, GError **error)
{
  DpsModel *m = dps_model_load (path, error);
  if (m)
    dps_model_free (m);
  return m != NULL;
}

/* frees what a data loader returned: the model, or its error */
static void
fuzz_model_done (DpsModel *m, GError *e)
{
  if (m)
    dps_model_free (m);
  else
    g_error_free (e);
}
