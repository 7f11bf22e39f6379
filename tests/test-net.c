/* Unit tests of the max-min flow-level network (sim/net.c). */
#include "sim/net.h"

typedef struct { double end_s; int done; } Done;


/* the engine of the running test, for the callbacks */
static DpsEngine *eng;

static void
on_done_eng (DpsNet *net, int flow, void *data)
{
  Done *d = data;
  d->end_s = dps_engine_now (eng);
  d->done++;
}

/* Two flows on one link of capacity C get C/2 each: max-min fairness on a
 * single constraint is an equal split. */
static void
test_two_flows_one_link (void)
{
  eng = dps_engine_new ();
  double cap[] = { 10.0 };
  DpsNet *net = dps_net_new (eng, cap, 1);
  int l = 0;
  Done a = { 0 }, b = { 0 };
  int fa = dps_net_flow_start (net, &l, 1, 100, 0, on_done_eng, &a);
  int fb = dps_net_flow_start (net, &l, 1, 100, 0, on_done_eng, &b);
  dps_net_solve_now (net);
  g_assert_cmpfloat_with_epsilon (dps_net_flow_rate (net, fa), 5.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (dps_net_flow_rate (net, fb), 5.0, 1e-12);
  dps_engine_run (eng);
  /* 200 bytes through 10 B/s */
  g_assert_cmpfloat_with_epsilon (a.end_s, 20.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (b.end_s, 20.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (dps_net_link_bytes (net, 0), 200.0, 1e-9);
  dps_net_free (net);
  dps_engine_free (eng);
}

/* The classic example: A crosses L1 (C=1) and L2 (C=2), B only L1, C only
 * L2.  L1 is the first bottleneck: A = B = 1/2; then C gets what L2 has
 * left, 2 - 1/2 = 3/2. */
static void
test_three_flows_two_links (void)
{
  eng = dps_engine_new ();
  double cap[] = { 1.0, 2.0 };
  DpsNet *net = dps_net_new (eng, cap, 2);
  int ab[] = { 0, 1 }, l1 = 0, l2 = 1;
  Done d[3] = { { 0 } };
  int fa = dps_net_flow_start (net, ab, 2, 1e9, 0, on_done_eng, &d[0]);
  int fb = dps_net_flow_start (net, &l1, 1, 1e9, 0, on_done_eng, &d[1]);
  int fc = dps_net_flow_start (net, &l2, 1, 1e9, 0, on_done_eng, &d[2]);
  dps_net_solve_now (net);
  g_assert_cmpfloat_with_epsilon (dps_net_flow_rate (net, fa), 0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (dps_net_flow_rate (net, fb), 0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (dps_net_flow_rate (net, fc), 1.5, 1e-12);
  dps_net_free (net);
  dps_engine_free (eng);
}

/* When a flow ends its share goes to the others: flows of 1 and 2 bytes on
 * a 1 B/s link share until t = 2 (the first has sent its byte at 1/2 B/s);
 * the second then has 1 byte left at 1 B/s and ends at t = 3. */
static void
test_release (void)
{
  eng = dps_engine_new ();
  double cap[] = { 1.0 };
  DpsNet *net = dps_net_new (eng, cap, 1);
  int l = 0;
  Done a = { 0 }, b = { 0 };
  dps_net_flow_start (net, &l, 1, 1, 0, on_done_eng, &a);
  dps_net_flow_start (net, &l, 1, 2, 0, on_done_eng, &b);
  dps_engine_run (eng);
  g_assert_cmpfloat_with_epsilon (a.end_s, 2.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (b.end_s, 3.0, 1e-9);
  g_assert_cmpint (dps_net_active_flows (net), ==, 0);
  dps_net_free (net);
  dps_engine_free (eng);
}

/* A flow capped at 2 B/s on a 10 B/s link leaves 8 B/s to its neighbour:
 * the cap acts as a private link. */
static void
test_rate_cap (void)
{
  eng = dps_engine_new ();
  double cap[] = { 10.0 };
  DpsNet *net = dps_net_new (eng, cap, 1);
  int l = 0;
  Done a = { 0 }, b = { 0 };
  int fa = dps_net_flow_start (net, &l, 1, 100, 2.0, on_done_eng, &a);
  int fb = dps_net_flow_start (net, &l, 1, 100, 0, on_done_eng, &b);
  dps_net_solve_now (net);
  g_assert_cmpfloat_with_epsilon (dps_net_flow_rate (net, fa), 2.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (dps_net_flow_rate (net, fb), 8.0, 1e-12);
  dps_net_free (net);
  dps_engine_free (eng);
}

/* Independent components: a flow started on link 1 leaves the rate of a
 * flow on link 0 as it was, and re-solves only its own component (one
 * solve per start here, never touching link 0's flow). */
static void
test_components (void)
{
  eng = dps_engine_new ();
  double cap[] = { 4.0, 6.0 };
  DpsNet *net = dps_net_new (eng, cap, 2);
  int l0 = 0, l1 = 1;
  Done a = { 0 }, b = { 0 };
  int fa = dps_net_flow_start (net, &l0, 1, 40, 0, on_done_eng, &a);
  dps_net_solve_now (net);
  g_assert_cmpfloat (dps_net_flow_rate (net, fa), ==, 4.0);
  int fb = dps_net_flow_start (net, &l1, 1, 60, 0, on_done_eng, &b);
  dps_net_solve_now (net);
  g_assert_cmpfloat (dps_net_flow_rate (net, fa), ==, 4.0);
  g_assert_cmpfloat (dps_net_flow_rate (net, fb), ==, 6.0);
  dps_engine_run (eng);
  g_assert_cmpfloat_with_epsilon (a.end_s, 10.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (b.end_s, 10.0, 1e-9);
  dps_net_free (net);
  dps_engine_free (eng);
}

/* Flows started at the same instant are solved once, not once each. */
static void
test_batched_solve (void)
{
  eng = dps_engine_new ();
  double cap[] = { 100.0 };
  DpsNet *net = dps_net_new (eng, cap, 1);
  int l = 0;
  Done d[50] = { { 0 } };
  for (int i = 0; i < 50; i++)
    dps_net_flow_start (net, &l, 1, 10, 0, on_done_eng, &d[i]);
  dps_engine_run (eng);
  /* 500 bytes at 100 B/s: all end together at 5 s; one solve to start
   * them, one after they all end */
  for (int i = 0; i < 50; i++)
    g_assert_cmpfloat_with_epsilon (d[i].end_s, 5.0, 1e-9);
  g_assert_cmpuint (dps_net_solves (net), <=, 2);
  dps_net_free (net);
  dps_engine_free (eng);
}

/* A flow over no link finishes at once. */
static void
test_empty_route (void)
{
  eng = dps_engine_new ();
  double cap[] = { 1.0 };
  DpsNet *net = dps_net_new (eng, cap, 1);
  Done a = { 0 };
  dps_engine_run_until (eng, 7.0);
  dps_net_flow_start (net, NULL, 0, 1e6, 0, on_done_eng, &a);
  dps_engine_run (eng);
  g_assert_cmpint (a.done, ==, 1);
  g_assert_cmpfloat (a.end_s, ==, 7.0);
  dps_net_free (net);
  dps_engine_free (eng);
}

/* A callback may start a flow at once, and the id it gets may be one that
 * completed in the same instant: the others completing then are still
 * told, each with its own data, and the new flow only when it ends.  A and
 * B (100 bytes each) share a link of 10 B/s and end at 20 s; A's callback
 * starts C (100 bytes), alone on the link, so C ends at 30 s. */
typedef struct { DpsNet *net; Done *c; } Chain;
static Done chain_a;

static void
on_done_start (DpsNet *net, int flow, void *data)
{
  Chain *ch = data;
  chain_a.end_s = dps_engine_now (eng);
  chain_a.done++;
  int l = 0;
  dps_net_flow_start (ch->net, &l, 1, 100, 0, on_done_eng, ch->c);
}

static void
test_start_in_callback (void)
{
  eng = dps_engine_new ();
  double cap[] = { 10.0 };
  DpsNet *net = dps_net_new (eng, cap, 1);
  int l = 0;
  Done b = { 0 }, c = { 0 };
  chain_a = (Done) { 0 };
  Chain ch = { net, &c };
  dps_net_flow_start (net, &l, 1, 100, 0, on_done_start, &ch);
  dps_net_flow_start (net, &l, 1, 100, 0, on_done_eng, &b);
  dps_engine_run (eng);
  g_assert_cmpint (chain_a.done, ==, 1);
  g_assert_cmpfloat_with_epsilon (chain_a.end_s, 20.0, 1e-9);
  g_assert_cmpint (b.done, ==, 1);
  g_assert_cmpfloat_with_epsilon (b.end_s, 20.0, 1e-9);
  g_assert_cmpint (c.done, ==, 1);
  g_assert_cmpfloat_with_epsilon (c.end_s, 30.0, 1e-9);
  dps_net_free (net);
  dps_engine_free (eng);
}

int
main (int argc, char **argv)
{

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/net/maxmin/two-flows-one-link", test_two_flows_one_link);
  g_test_add_func ("/net/maxmin/three-flows-two-links", test_three_flows_two_links);
  g_test_add_func ("/net/maxmin/release-on-end", test_release);
  g_test_add_func ("/net/maxmin/rate-cap", test_rate_cap);
  g_test_add_func ("/net/maxmin/components", test_components);
  g_test_add_func ("/net/maxmin/batched-solve", test_batched_solve);
  g_test_add_func ("/net/empty-route", test_empty_route);
  g_test_add_func ("/net/start-in-callback", test_start_in_callback);
  return g_test_run ();
}
