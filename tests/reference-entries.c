/* reference-entries.c — see reference-entries.h. */
#include "reference-entries.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>

void
dps_ref_entry (const char *suite, const char *prediction, const char *table, int gpus, double error,
               double published, double predicted)
{
  const char *path = g_getenv ("DPS_REFERENCE_ENTRIES");
  if (!path || !*path)
    return;
  FILE *f = fopen (path, "a");
  if (!f)
    g_error ("DPS_REFERENCE_ENTRIES: cannot open %s", path);
  if (ftell (f) == 0)
    fputs ("suite,prediction,table,gpus,error_pct,published,predicted\n", f);
  fprintf (f, "%s,%s,%s,%d,%.3f,", suite, prediction, table, gpus, 100 * error);
  if (isfinite (published) && isfinite (predicted))
    fprintf (f, "%.6g,%.6g", published, predicted);
  else
    fputc (',', f);
  fputc ('\n', f);
  if (fclose (f) != 0)
    g_error ("DPS_REFERENCE_ENTRIES: cannot write %s", path);
}
