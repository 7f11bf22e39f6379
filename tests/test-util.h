/* Helpers shared by the unit tests. */
#pragma once

#include "sim/topo-load.h"

#include <math.h>

/* The relative difference of a from b (b nonzero). */
#define REL(a, b) (fabs ((a) - (b)) / fabs (b))

/* The spec of a shipped topology (topologies/NAME.topo); aborts the test
 * when it does not load.  The caller owns it. */
static inline DpsTopoSpec *
test_shipped_spec (const char *name)
{
  g_autoptr (GError) e = NULL;
  g_autofree char *path = dps_topo_find (name, &e);
  g_assert_no_error (e);
  DpsTopoSpec *s = dps_topo_spec_load (path, &e);
  g_assert_no_error (e);
  return s;
}

/* A shipped topology for `nodes` nodes; aborts the test when it does not
 * load. */
static inline DpsTopo *
test_shipped_topo (const char *name, int nodes)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsTopoSpec) s = test_shipped_spec (name);
  DpsTopo *t = dps_topo_new (s, nodes, &e);
  g_assert_no_error (e);
  return t;
}

/* A topology for `nodes` nodes from the text of a .topo file (read as
 * `file_name`, which its errors would name); aborts the test when it does
 * not load. */
static inline DpsTopo *
test_topo_from_text (const char *file_name, const char *text, int nodes)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsTopoSpec) s = dps_topo_spec_load_data (file_name, text, -1, &e);
  g_assert_no_error (e);
  DpsTopo *t = dps_topo_new (s, nodes, &e);
  g_assert_no_error (e);
  return t;
}
