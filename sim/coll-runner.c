/* coll-runner.c — a collective's plan run on the flow-level network
 * (coll.h: DpsCollRunner, dps_plan_time_flow): each phase's flows started
 * together, the next phase once the last ends and its latency (the
 * protocol's and the longest wire's) has passed. */
#include "sim/coll.h"

typedef struct {
  DpsCollRunner *runner;
  DpsPlan       *plan;
  DpsProto       proto;
  guint          phase;
  int            pending;
  double         start_s, wire_s;
  DpsCollDoneFn  fn;
  void          *data;
} Running;

struct DpsCollRunner {
  const DpsTopo *topo;
  DpsEngine     *engine;
  DpsNet        *net;
};

DpsCollRunner *
dps_coll_runner_new (const DpsTopo *topo, DpsEngine *engine, DpsNet *net)
{
  DpsCollRunner *r = g_new0 (DpsCollRunner, 1);
  r->topo = topo;
  r->engine = engine;
  r->net = net;
  return r;
}

void
dps_coll_runner_free (DpsCollRunner *r)
{
  g_free (r);
}

static void start_phase (DpsEngine *e, void *data);

static void
finish_phase (DpsEngine *e, Running *run)
{
  DpsPhase *ph = &g_array_index (run->plan->phases, DpsPhase, run->phase);
  run->phase++;
  dps_engine_after (e, ph->latency_s[run->proto] + run->wire_s, start_phase, run);
}

static void
on_flow_done (DpsNet *net, int flow, void *data)
{
  Running *run = data;
  if (--run->pending == 0)
    finish_phase (run->runner->engine, run);
}

static void
start_phase (DpsEngine *e, void *data)
{
  Running *run = data;
  if (run->phase >= run->plan->phases->len) {
    if (run->fn)
      run->fn (run->data, run->start_s, dps_engine_now (e));
    dps_plan_unref (run->plan);
    g_free (run);
    return;
  }
  DpsPhase *ph = &g_array_index (run->plan->phases, DpsPhase, run->phase);
  const DpsTopo *topo = run->runner->topo;
  double scale = 1.0 / run->plan->payload[run->proto];
  int links[DPS_ROUTE_MAX];
  run->wire_s = 0;
  run->pending = (int) ph->flows->len;
  if (run->pending == 0) {
    finish_phase (e, run);
    return;
  }
  for (guint i = 0; i < ph->flows->len; i++) {
    const DpsFlowSpec *f = &g_array_index (ph->flows, DpsFlowSpec, i);
    int n = dps_coll_flow_route (topo, f, links);
    double lat;
    dps_topo_route_latency_hops (topo, links, n, &lat);
    run->wire_s = MAX (run->wire_s, lat);
    dps_net_flow_start (run->runner->net, links, n, f->bytes * scale, 0, on_flow_done, run);
  }
}

/* Runs plan with proto on the runner's network from now; fn(data, start,
 * end) is called when its last phase ends.  Holds a reference to plan. */
void
dps_coll_runner_launch (DpsCollRunner *r, DpsPlan *plan, DpsProto proto, DpsCollDoneFn fn, void *data)
{
  g_return_if_fail (plan->payload[proto] > 0);
  Running *run = g_new0 (Running, 1);
  *run = (Running) { r, dps_plan_ref (plan), proto, 0, 0, dps_engine_now (r->engine), 0, fn, data };
  start_phase (r->engine, run);
}

static void
store_end (void *data, double start_s, double end_s)
{
  *(double *) data = end_s - start_s;
}

/* Times plan alone on an empty network in flow-level mode. */
double
dps_plan_time_flow (const DpsTopo *topo, DpsPlan *plan, DpsProto proto)
{
  DpsEngine *e = dps_engine_new ();
  DpsNet *net = dps_net_new_for_topo (e, topo);
  DpsCollRunner *r = dps_coll_runner_new (topo, e, net);
  double t = -1;
  dps_coll_runner_launch (r, plan, proto, store_end, &t);
  dps_engine_run (e);
  dps_coll_runner_free (r);
  dps_net_free (net);
  dps_engine_free (e);
  return t;
}
