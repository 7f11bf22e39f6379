/* reference-entries.c — see reference-entries.h. */
#include "reference-entries.h"

#include <glib.h>
#include <stdio.h>

void
dps_ref_entry (const char *suite, const char *prediction, const char *table, int gpus, double error)
{
  const char *path = g_getenv ("DPS_REFERENCE_ENTRIES");
  if (!path || !*path)
    return;
  FILE *f = fopen (path, "a");
  if (!f)
    g_error ("DPS_REFERENCE_ENTRIES: cannot open %s", path);
  if (ftell (f) == 0)
    fputs ("suite,prediction,table,gpus,error_pct\n", f);
  fprintf (f, "%s,%s,%s,%d,%.3f\n", suite, prediction, table, gpus, 100 * error);
  if (fclose (f) != 0)
    g_error ("DPS_REFERENCE_ENTRIES: cannot write %s", path);
}
