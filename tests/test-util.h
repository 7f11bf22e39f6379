/* Helpers shared by the unit tests. */
#pragma once

#include "sim/topo-load.h"

/* A shipped topology (topologies/NAME.topo) for `nodes` nodes; aborts the
 * test when it does not load. */
static inline DpsTopo *
test_shipped_topo (const char *name, int nodes)
{
  g_autoptr (GError) e = NULL;
  g_autofree char *path = dps_topo_find (name, &e);
  g_assert_no_error (e);
  g_autoptr (DpsTopoSpec) s = dps_topo_spec_load (path, &e);
  g_assert_no_error (e);
  DpsTopo *t = dps_topo_new (s, nodes, &e);
  g_assert_no_error (e);
  return t;
}
