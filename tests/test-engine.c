/* Unit tests of the event engine (sim/engine.c). */
#include "sim/engine.h"

typedef struct { GArray *log; int tag; } Ev;

static void
record (DpsEngine *e, void *data)
{
  Ev *ev = data;
  g_array_append_val (ev->log, ev->tag);
}

/* Events fire in time order whatever order they were scheduled in, and the
 * clock reads each event's time when it fires. */
static void
test_order (void)
{
  DpsEngine *e = dps_engine_new ();
  GArray *log = g_array_new (FALSE, FALSE, sizeof (int));
  Ev a = { log, 3 }, b = { log, 1 }, c = { log, 2 };
  dps_engine_at (e, 3.0, record, &a);
  dps_engine_at (e, 1.0, record, &b);
  dps_engine_at (e, 2.0, record, &c);
  dps_engine_run (e);
  g_assert_cmpint (log->len, ==, 3);
  for (int i = 0; i < 3; i++)
    g_assert_cmpint (g_array_index (log, int, i), ==, i + 1);
  g_assert_cmpfloat (dps_engine_now (e), ==, 3.0);
  g_array_free (log, TRUE);
  dps_engine_free (e);
}

/* Equal times fire in scheduling order (FIFO), so a run is deterministic. */
static void
test_ties (void)
{
  DpsEngine *e = dps_engine_new ();
  GArray *log = g_array_new (FALSE, FALSE, sizeof (int));
  Ev ev[100];
  for (int i = 0; i < 100; i++) {
    ev[i] = (Ev) { log, i };
    dps_engine_at (e, 5.0, record, &ev[i]);
  }
  dps_engine_run (e);
  for (int i = 0; i < 100; i++)
    g_assert_cmpint (g_array_index (log, int, i), ==, i);
  g_array_free (log, TRUE);
  dps_engine_free (e);
}

/* A cancelled event never fires; cancelling twice, or after it fired, is
 * refused; the other events are unaffected. */
static void
test_cancel (void)
{
  DpsEngine *e = dps_engine_new ();
  GArray *log = g_array_new (FALSE, FALSE, sizeof (int));
  Ev a = { log, 1 }, b = { log, 2 }, c = { log, 3 };
  DpsEventId ia = dps_engine_at (e, 1.0, record, &a);
  DpsEventId ib = dps_engine_at (e, 2.0, record, &b);
  dps_engine_at (e, 3.0, record, &c);
  g_assert_true (dps_engine_cancel (e, ib));
  g_assert_false (dps_engine_cancel (e, ib));
  dps_engine_run (e);
  g_assert_false (dps_engine_cancel (e, ia));
  g_assert_false (dps_engine_cancel (e, DPS_EVENT_NONE));
  g_assert_cmpint (log->len, ==, 2);
  g_assert_cmpint (g_array_index (log, int, 0), ==, 1);
  g_assert_cmpint (g_array_index (log, int, 1), ==, 3);
  g_array_free (log, TRUE);
  dps_engine_free (e);
}

/* A stale id whose slot was reused by a newer event does not cancel it. */
static void
test_stale_id (void)
{
  DpsEngine *e = dps_engine_new ();
  GArray *log = g_array_new (FALSE, FALSE, sizeof (int));
  Ev a = { log, 1 }, b = { log, 2 };
  DpsEventId ia = dps_engine_at (e, 1.0, record, &a);
  dps_engine_run (e);
  dps_engine_at (e, 2.0, record, &b);   /* reuses a's slot */
  g_assert_false (dps_engine_cancel (e, ia));
  dps_engine_run (e);
  g_assert_cmpint (log->len, ==, 2);
  g_array_free (log, TRUE);
  dps_engine_free (e);
}

typedef struct { int left; double period; } Chain;

static void
tick (DpsEngine *e, void *data)
{
  Chain *c = data;
  if (--c->left > 0)
    dps_engine_after (e, c->period, tick, c);
}

/* Random times with cancellations: what fires comes out sorted by time,
 * and exactly the events not cancelled fire (heap invariants hold). */
static GArray *fired_times;

static void
note_time (DpsEngine *e, void *data)
{
  double t = dps_engine_now (e);
  g_array_append_val (fired_times, t);
}

static void
test_random_heap (void)
{
  DpsEngine *e = dps_engine_new ();
  fired_times = g_array_new (FALSE, FALSE, sizeof (double));
  GRand *r = g_rand_new_with_seed (42);
  DpsEventId ids[5000];
  for (int i = 0; i < 5000; i++)
    ids[i] = dps_engine_at (e, g_rand_double_range (r, 0, 100), note_time, NULL);
  int cancelled = 0;
  for (int i = 0; i < 5000; i += 3)
    cancelled += dps_engine_cancel (e, ids[i]);
  dps_engine_run (e);
  g_assert_cmpint (fired_times->len, ==, 5000 - cancelled);
  for (guint i = 1; i < fired_times->len; i++)
    g_assert_cmpfloat (g_array_index (fired_times, double, i - 1), <=, g_array_index (fired_times, double, i));
  g_array_free (fired_times, TRUE);
  g_rand_free (r);
  dps_engine_free (e);
}

/* The steady state of a simulation: each event schedules another at a
 * random later time (on a grid of 0.01 s, so that many share a time),
 * some cancel a pending one, and a burst of far-off events joins midway.
 * Whatever tier of the queue an event waits in, the events fire in time
 * order, equal times in the order they were scheduled (the sequence
 * number each carries), and exactly those not cancelled fire. */
typedef struct Steady Steady;
typedef struct { Steady *s; guint64 seq; } SteadyEv;
struct Steady { GRand *rand; int left; guint64 next; GArray *log; DpsEventId *ids; SteadyEv *evs; int n_ids; int cancelled; };

static void steady_fire (DpsEngine *e, void *data);

static void
steady_schedule (DpsEngine *e, Steady *s, double at)
{
  SteadyEv *ev = &s->evs[s->next];
  *ev = (SteadyEv) { s, s->next++ };
  s->ids[s->n_ids++] = dps_engine_at (e, at, steady_fire, ev);
}

static void
steady_fire (DpsEngine *e, void *data)
{
  SteadyEv *ev = data;
  Steady *s = ev->s;
  double rec[2] = { dps_engine_now (e), (double) ev->seq };
  g_array_append_vals (s->log, rec, 2);
  if (s->left-- <= 0)
    return;
  steady_schedule (e, s, dps_engine_now (e) + g_rand_int_range (s->rand, 0, 1000) / 100.0);
  if (g_rand_int_range (s->rand, 0, 10) == 0) {
    DpsEventId victim = s->ids[g_rand_int_range (s->rand, 0, s->n_ids)];
    if (dps_engine_cancel (e, victim))
      s->cancelled++;
  }
  if (s->left == 50000)
    for (int i = 0; i < 20000; i++)
      steady_schedule (e, s, dps_engine_now (e) + 1000 + g_rand_int_range (s->rand, 0, 100000) / 100.0);
}

static void
test_steady_state (void)
{
  DpsEngine *e = dps_engine_new ();
  Steady s = { g_rand_new_with_seed (7), 100000, 0, g_array_new (FALSE, FALSE, sizeof (double)),
               g_new (DpsEventId, 200000), g_new (SteadyEv, 200000), 0, 0 };
  for (int i = 0; i < 20000; i++)
    steady_schedule (e, &s, g_rand_int_range (s.rand, 0, 10000) / 100.0);
  dps_engine_run (e);
  guint n = s.log->len / 2;
  g_assert_cmpuint (n, ==, s.next - (guint64) s.cancelled);
  g_assert_cmpuint (dps_engine_pending (e), ==, 0);
  for (guint i = 1; i < n; i++) {
    double t0 = g_array_index (s.log, double, 2 * i - 2), t1 = g_array_index (s.log, double, 2 * i);
    g_assert_cmpfloat (t0, <=, t1);
    if (t0 == t1)
      g_assert_cmpfloat (g_array_index (s.log, double, 2 * i - 1), <, g_array_index (s.log, double, 2 * i + 1));
  }
  g_test_message ("%u fired, %d cancelled", n, s.cancelled);
  g_array_free (s.log, TRUE);
  g_free (s.ids);
  g_free (s.evs);
  g_rand_free (s.rand);
  dps_engine_free (e);
}

/* A chain of 1000 events 0.5 s apart ends at 499.5 s having fired 1000. */
static void
test_chain (void)
{
  DpsEngine *e = dps_engine_new ();
  Chain c = { 1000, 0.5 };
  dps_engine_at (e, 0, tick, &c);
  dps_engine_run (e);
  g_assert_cmpfloat_with_epsilon (dps_engine_now (e), 499.5, 1e-9);
  g_assert_cmpuint (dps_engine_events_fired (e), ==, 1000);
  g_assert_cmpuint (dps_engine_pending (e), ==, 0);
  dps_engine_free (e);
}

/* run_until fires what is due and stops the clock at the given time. */
static void
test_run_until (void)
{
  DpsEngine *e = dps_engine_new ();
  GArray *log = g_array_new (FALSE, FALSE, sizeof (int));
  Ev a = { log, 1 }, b = { log, 2 };
  dps_engine_at (e, 1.0, record, &a);
  dps_engine_at (e, 3.0, record, &b);
  dps_engine_run_until (e, 2.0);
  g_assert_cmpint (log->len, ==, 1);
  g_assert_cmpfloat (dps_engine_now (e), ==, 2.0);
  g_assert_cmpuint (dps_engine_pending (e), ==, 1);
  g_array_free (log, TRUE);
  dps_engine_free (e);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/order", test_order);
  g_test_add_func ("/engine/ties-fifo", test_ties);
  g_test_add_func ("/engine/cancel", test_cancel);
  g_test_add_func ("/engine/stale-id", test_stale_id);
  g_test_add_func ("/engine/random-heap", test_random_heap);
  g_test_add_func ("/engine/chain", test_chain);
  g_test_add_func ("/engine/steady-state", test_steady_state);
  g_test_add_func ("/engine/run-until", test_run_until);
  return g_test_run ();
}
