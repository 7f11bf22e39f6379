/* Unit tests of the max-flow solver (sim/maxflow.c), on graphs small enough
 * to solve by hand: the answer is the capacity of the smallest cut. */
#include "sim/maxflow.h"

#include <math.h>

typedef struct { int from, to; double capacity; } Edge;

/* The max flow from source to sink over n vertices and the edges given. */
static double
solve (int n, const Edge *edges, gsize n_edges, int source, int sink)
{
  DpsMaxflow *mf = dps_maxflow_new (n);
  for (gsize i = 0; i < n_edges; i++)
    dps_maxflow_add_edge (mf, edges[i].from, edges[i].to, edges[i].capacity);
  double f = dps_maxflow_solve (mf, source, sink);
  dps_maxflow_free (mf);
  return f;
}

/* The textbook network (Cormen et al., Introduction to Algorithms, fig.
 * 26.1): s=0, v1..v4 = 1..4, t=5.  Its max flow is 23: the cut
 * {s, v1, v2, v4} | {v3, t} crosses v1->v3 (12), v4->v3 (7) and v4->t (4),
 * and 12 + 7 + 4 = 23 (v3->v2 points back into the source side). */
static void
test_textbook (void)
{
  static const Edge e[] = { { 0, 1, 16 }, { 0, 2, 13 }, { 2, 1, 4 }, { 1, 3, 12 }, { 3, 2, 9 },
                            { 2, 4, 14 }, { 4, 3, 7 }, { 3, 5, 20 }, { 4, 5, 4 } };
  g_assert_cmpfloat (fabs (solve (6, e, G_N_ELEMENTS (e), 0, 5) - 23), <, 1e-9);
}

/* A path carries its narrowest edge; parallel paths add; real (fractional)
 * capacities are kept exactly.  s -> a -> t with 2.5 then 1.25, and
 * s -> b -> t with 0.5 then 3: 1.25 + 0.5 = 1.75. */
static void
test_paths (void)
{
  /* s=0, a=1, b=2, t=3 */
  static const Edge e[] = { { 0, 1, 2.5 }, { 1, 3, 1.25 }, { 0, 2, 0.5 }, { 2, 3, 3 } };
  g_assert_cmpfloat (fabs (solve (4, e, G_N_ELEMENTS (e), 0, 3) - 1.75), <, 1e-12);
}

/* A cross edge does not add capacity: s->a 1, s->b 1, a->b 1, a->t 1,
 * b->t 1 carries 2 (the cut at the source), whichever path is found first
 * (s->a->b->t alone would leave 1 unless the reverse edges undo it). */
static void
test_undo (void)
{
  /* s=0, a=1, b=2, t=3 */
  static const Edge e[] = { { 0, 1, 1 }, { 1, 2, 1 }, { 2, 3, 1 }, { 0, 2, 1 }, { 1, 3, 1 } };
  g_assert_cmpfloat (fabs (solve (4, e, G_N_ELEMENTS (e), 0, 3) - 2), <, 1e-12);
}

/* Edges are directed: with only t -> s there is no flow from s to t, and an
 * unreachable sink gets none either.  Solving consumes the capacities, so a
 * second solve of a saturated network finds 0. */
static void
test_direction_and_consumption (void)
{
  DpsMaxflow *mf = dps_maxflow_new (3);
  dps_maxflow_add_edge (mf, 1, 0, 5);
  g_assert_cmpfloat (dps_maxflow_solve (mf, 0, 1), ==, 0);
  g_assert_cmpfloat (dps_maxflow_solve (mf, 0, 2), ==, 0);
  g_assert_cmpfloat (fabs (dps_maxflow_solve (mf, 1, 0) - 5), <, 1e-12);
  g_assert_cmpfloat (dps_maxflow_solve (mf, 1, 0), ==, 0);
  dps_maxflow_free (mf);
}

/* Bisection as sim/topo.c asks it: four GPUs in a ring of 10-unit links
 * each way, halves {0,1} and {2,3} joined by a super source and sink of
 * unbounded capacity.  The cut between the halves crosses two ring links
 * (1->2 and 3->0), so the flow is 2 x 10 = 20. */
static void
test_bisection_ring (void)
{
  /* GPUs 0..3, source 4, sink 5 */
  const double inf = G_MAXDOUBLE / 4;
  const Edge e[] = { { 0, 1, 10 }, { 1, 0, 10 }, { 1, 2, 10 }, { 2, 1, 10 }, { 2, 3, 10 }, { 3, 2, 10 },
                     { 3, 0, 10 }, { 0, 3, 10 }, { 4, 0, inf }, { 4, 1, inf }, { 2, 5, inf }, { 3, 5, inf } };
  g_assert_cmpfloat (fabs (solve (6, e, G_N_ELEMENTS (e), 4, 5) - 20), <, 1e-9);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/maxflow/textbook", test_textbook);
  g_test_add_func ("/maxflow/paths", test_paths);
  g_test_add_func ("/maxflow/undo", test_undo);
  g_test_add_func ("/maxflow/direction-and-consumption", test_direction_and_consumption);
  g_test_add_func ("/maxflow/bisection-ring", test_bisection_ring);
  return g_test_run ();
}
