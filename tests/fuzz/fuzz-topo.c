/* libFuzzer target: topology files (sim/topo-load.c), and the graph they
 * build for 1 and 3 nodes (sim/topo.c): any input is refused with an error
 * or builds a topology; nothing crashes, leaks or hangs. */
#include "fuzz-files.h"   /* beside this file */
#include "sim/topo-load.h"

int LLVMFuzzerTestOneInput (const unsigned char *data, size_t size);

/* the path entry point: --topology FILE */
static gboolean
load_path (const char *path, GError **error)
{
  DpsTopoSpec *s = dps_topo_spec_load (path, error);
  if (s)
    dps_topo_spec_free (s);
  return s != NULL;
}

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
  fuzz_through_path (load_path, ".topo", data, size);
  GError *e = NULL;
  DpsTopoSpec *s = dps_topo_spec_load_data ("fuzz.topo", (const char *) data, (gssize) size, &e);
  if (!s) {
    g_assert (e != NULL && e->message[0]);
    g_error_free (e);
    return 0;
  }
  for (int nodes = 1; nodes <= 3; nodes += 2) {
    if ((gint64) nodes * s->gpus_per_node > 4096)
      break;
    DpsTopo *t = dps_topo_new (s, nodes, &e);
    if (t) {
      int links[DPS_ROUTE_MAX];
      dps_topo_route (t, 0, dps_topo_n_gpus (t) - 1, links);
      dps_topo_free (t);
    } else
      g_clear_error (&e);
  }
  dps_topo_spec_free (s);
  return 0;
}
