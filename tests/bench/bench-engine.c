/* Benchmark: events per second of the engine on one core.
 *
 * A steady state of P pending events (a discrete-event simulation's usual
 * shape): each event fired schedules one new event at a random later time.
 * Reports events/s for P = 1e3, 1e5 and 1e6. */
#include "sim/engine.h"

#include <stdio.h>

typedef struct { GRand *rand; guint64 left; } State;

static void
fire (DpsEngine *e, void *data)
{
  State *s = data;
  if (s->left > 0) {
    s->left--;
    dps_engine_after (e, g_rand_double (s->rand), fire, s);
  }
}

int
main (int argc, char **argv)
{
  guint64 events = argc > 1 ? g_ascii_strtoull (argv[1], NULL, 10) : 20000000;
  int pending[] = { 1000, 100000, 1000000 };
  printf ("%10s %12s %10s %14s\n", "pending", "events", "wall_s", "events_per_s");
  for (gsize i = 0; i < G_N_ELEMENTS (pending); i++) {
    DpsEngine *e = dps_engine_new ();
    State s = { g_rand_new_with_seed (1), events };
    for (int j = 0; j < pending[i]; j++)
      dps_engine_at (e, g_rand_double (s.rand), fire, &s);
    gint64 t0 = g_get_monotonic_time ();
    dps_engine_run (e);
    double wall = (g_get_monotonic_time () - t0) / 1e6;
    guint64 n = dps_engine_events_fired (e);
    printf ("%10d %12" G_GUINT64_FORMAT " %10.3f %14.3e\n", pending[i], n, wall, n / wall);
    g_rand_free (s.rand);
    dps_engine_free (e);
  }
  return 0;
}
