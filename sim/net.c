/* net.c — see net.h for the model. */
#include "sim/net.h"

#include <math.h>

/* A growable array of ints, pushed inline: the solver's hot loops append
 * to these millions of times, where a GArray's call per append cost a
 * quarter of a 4096-GPU all-reduce's wall time. */
typedef struct { int *v; guint len, cap; } IntVec;

static void
int_vec_grow (IntVec *a)
{
  a->cap = a->cap ? 2 * a->cap : 4;
  a->v = g_renew (int, a->v, a->cap);
}

static inline void
int_vec_push (IntVec *a, int x)
{
  if (a->len == a->cap)
    int_vec_grow (a);
  a->v[a->len++] = x;
}

typedef struct {
  int           n;
  int           links[DPS_ROUTE_MAX];
  int           pos[DPS_ROUTE_MAX];   /* index of this flow in each link's list */
  double        bytes, remaining, rate, max_rate;
  DpsFlowDoneFn fn;
  void         *data;
  guint         stamp;                /* component visit */
  guint         fixed;                /* solve in which the rate was fixed */
  gboolean      active;
} Flow;

typedef struct {
  double  cap, rem, bytes;
  int     cnt;
  guint   version, stamp;
  gboolean dirty;
  IntVec  flows;                      /* flow ids */
} Link;

typedef struct { double share; int id; guint version; } HeapItem; /* id < 0: flow cap -(id+1) */

struct DpsNet {
  DpsEngine *engine;
  Link      *links;
  int        n_links;
  Flow      *flows;
  guint      n_flows, cap_flows;
  IntVec     free_flows;
  int        n_active;
  double     last_s;
  DpsEventId wake, solve;
  IntVec     dirty;                   /* link ids */
  HeapItem  *heap;
  guint      heap_len, heap_cap;
  IntVec     comp_links, comp_flows, queue;
  guint      stamp;
  guint64    solves;
};

static void on_solve (DpsEngine *e, void *data);
static void on_wake (DpsEngine *e, void *data);

/* A network of n_links links with the given capacities (bytes/s, > 0). */
DpsNet *
dps_net_new (DpsEngine *engine, const double *capacity_Bps, int n_links)
{
  DpsNet *net = g_new0 (DpsNet, 1);
  net->engine = engine;
  net->n_links = n_links;
  net->links = g_new0 (Link, MAX (n_links, 1));
  for (int l = 0; l < n_links; l++) {
    g_return_val_if_fail (capacity_Bps[l] > 0, NULL);
    net->links[l].cap = capacity_Bps[l];
  }
  net->last_s = dps_engine_now (engine);
  return net;
}

/* A network with one link per directed link of topo. */
DpsNet *
dps_net_new_for_topo (DpsEngine *engine, const DpsTopo *topo)
{
  int n = dps_topo_n_links (topo);
  double *cap = g_new (double, MAX (n, 1));
  for (int l = 0; l < n; l++)
    cap[l] = dps_topo_link (topo, l)->bw_Bps;
  DpsNet *net = dps_net_new (engine, cap, n);
  g_free (cap);
  return net;
}

void
dps_net_free (DpsNet *net)
{
  if (!net)
    return;
  dps_engine_cancel (net->engine, net->wake);
  dps_engine_cancel (net->engine, net->solve);
  for (int l = 0; l < net->n_links; l++)
    g_free (net->links[l].flows.v);
  g_free (net->links);
  g_free (net->flows);
  g_free (net->free_flows.v);
  g_free (net->dirty.v);
  g_free (net->heap);
  g_free (net->comp_links.v);
  g_free (net->comp_flows.v);
  g_free (net->queue.v);
  g_free (net);
}

static inline Flow *
flow_at (const DpsNet *net, int f)
{
  return &net->flows[f];
}

/* Moves every active flow forward to the current time. */
static void
advance (DpsNet *net)
{
  double now = dps_engine_now (net->engine);
  double dt = now - net->last_s;
  net->last_s = now;
  if (dt <= 0)
    return;
  Flow *fl = net->flows;
  for (guint f = 0; f < net->n_flows; f++)
    if (fl[f].active && fl[f].rate > 0)
      fl[f].remaining -= fl[f].rate * dt;
}

static void
mark_dirty (DpsNet *net, int l)
{
  if (!net->links[l].dirty) {
    net->links[l].dirty = TRUE;
    int_vec_push (&net->dirty, l);
  }
}

static void
want_solve (DpsNet *net)
{
  if (net->solve == DPS_EVENT_NONE)
    net->solve = dps_engine_after (net->engine, 0, on_solve, net);
}

/* Starts a flow of bytes (> 0) over links[0..n_links-1] (at most
 * DPS_ROUTE_MAX); max_rate_Bps caps its rate (0: no cap).  fn(net, id,
 * data) is called when the last byte arrives.  Returns the flow id, valid
 * until then.  A flow over no link completes after zero time. */
int
dps_net_flow_start (DpsNet *net, const int *links, int n_links, double bytes,
                    double max_rate_Bps, DpsFlowDoneFn fn, void *data)
{
  g_return_val_if_fail (n_links >= 0 && n_links <= DPS_ROUTE_MAX, -1);
  g_return_val_if_fail (bytes >= 0 && isfinite (bytes), -1);
  advance (net);
  int id;
  if (net->free_flows.len) {
    id = net->free_flows.v[--net->free_flows.len];
  } else {
    if (net->n_flows == net->cap_flows) {
      net->cap_flows = net->cap_flows ? 2 * net->cap_flows : 64;
      net->flows = g_renew (Flow, net->flows, net->cap_flows);
    }
    id = (int) net->n_flows++;
  }
  Flow *f = flow_at (net, id);
  *f = (Flow) { .n = n_links, .bytes = bytes, .remaining = bytes, .max_rate = max_rate_Bps,
                .fn = fn, .data = data, .active = TRUE };
  if (n_links == 0)  /* nothing shared: runs at its cap, or completes at once */
    f->rate = f->max_rate = max_rate_Bps > 0 ? max_rate_Bps : G_MAXDOUBLE;
  for (int i = 0; i < n_links; i++) {
    int l = links[i];
    g_return_val_if_fail (l >= 0 && l < net->n_links, -1);
    f->links[i] = l;
    f->pos[i] = (int) net->links[l].flows.len;
    int_vec_push (&net->links[l].flows, id);
    mark_dirty (net, l);
  }
  net->n_active++;
  want_solve (net);
  return id;
}

static void
heap_push (DpsNet *net, double share, int id, guint version)
{
  HeapItem it = { share, id, version };
  if (net->heap_len == net->heap_cap) {
    net->heap_cap = net->heap_cap ? 2 * net->heap_cap : 64;
    net->heap = g_renew (HeapItem, net->heap, net->heap_cap);
  }
  HeapItem *h = net->heap;
  guint i = net->heap_len++;
  while (i > 0) {
    guint p = (i - 1) / 2;
    if (h[p].share <= it.share)
      break;
    h[i] = h[p];
    i = p;
  }
  h[i] = it;
}

static HeapItem
heap_pop (DpsNet *net)
{
  HeapItem *h = net->heap;
  HeapItem top = h[0];
  guint n = --net->heap_len;
  HeapItem x = h[n];
  guint i = 0;
  while (n > 0) {
    guint c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && h[c + 1].share < h[c].share)
      c++;
    if (h[c].share >= x.share)
      break;
    h[i] = h[c];
    i = c;
  }
  if (n > 0)
    h[i] = x;
  return top;
}

/* Collects the component reachable from the dirty links. */
static void
collect_component (DpsNet *net)
{
  guint st = ++net->stamp;
  net->comp_links.len = net->comp_flows.len = net->queue.len = 0;
  for (guint i = 0; i < net->dirty.len; i++) {
    int l = net->dirty.v[i];
    net->links[l].dirty = FALSE;
    if (net->links[l].stamp != st) {
      net->links[l].stamp = st;
      int_vec_push (&net->queue, l);
    }
  }
  net->dirty.len = 0;
  for (guint qi = 0; qi < net->queue.len; qi++) {
    int l = net->queue.v[qi];
    int_vec_push (&net->comp_links, l);
    const IntVec *lf = &net->links[l].flows;
    for (guint j = 0; j < lf->len; j++) {
      int fid = lf->v[j];
      Flow *f = flow_at (net, fid);
      if (f->stamp == st)
        continue;
      f->stamp = st;
      int_vec_push (&net->comp_flows, fid);
      for (int k = 0; k < f->n; k++) {
        int m = f->links[k];
        if (net->links[m].stamp != st) {
          net->links[m].stamp = st;
          int_vec_push (&net->queue, m);
        }
      }
    }
  }
}

static void
fix_flow (DpsNet *net, Flow *f, double rate, guint solve_id)
{
  f->rate = rate;
  f->fixed = solve_id;
  for (int k = 0; k < f->n; k++) {
    Link *m = &net->links[f->links[k]];
    m->rem -= rate;
    if (m->rem < 0)
      m->rem = 0;
    m->cnt--;
    m->version++;
    if (m->cnt > 0)
      heap_push (net, m->rem / m->cnt, f->links[k], m->version);
  }
}

/* Progressive filling over the dirty component. */
static void
solve (DpsNet *net)
{
  if (net->dirty.len == 0)
    return;
  net->solves++;
  collect_component (net);
  guint solve_id = net->stamp;   /* unique per solve */
  net->heap_len = 0;
  for (guint i = 0; i < net->comp_links.len; i++) {
    Link *l = &net->links[net->comp_links.v[i]];
    l->rem = l->cap;
    l->cnt = (int) l->flows.len;
    l->version++;
    if (l->cnt > 0)
      heap_push (net, l->rem / l->cnt, net->comp_links.v[i], l->version);
  }
  for (guint i = 0; i < net->comp_flows.len; i++) {
    int fid = net->comp_flows.v[i];
    Flow *f = flow_at (net, fid);
    f->rate = 0;
    if (f->max_rate > 0)
      heap_push (net, f->max_rate, -(fid + 1), 0);
  }
  while (net->heap_len) {
    HeapItem it = heap_pop (net);
    if (it.id < 0) {
      Flow *f = flow_at (net, -(it.id + 1));
      if (f->fixed != solve_id)
        fix_flow (net, f, it.share, solve_id);
      continue;
    }
    Link *l = &net->links[it.id];
    if (it.version != l->version || l->cnt <= 0)
      continue;
    double share = it.share;
    const IntVec *lf = &l->flows;
    for (guint j = 0; j < lf->len; j++) {
      Flow *f = flow_at (net, lf->v[j]);
      if (f->fixed != solve_id)
        fix_flow (net, f, share, solve_id);
    }
  }
}

static void
schedule_wake (DpsNet *net)
{
  double best = G_MAXDOUBLE;
  Flow *fl = net->flows;
  for (guint f = 0; f < net->n_flows; f++) {
    if (fl[f].active && fl[f].rate > 0) {
      double t = fl[f].remaining / fl[f].rate;
      if (t < best)
        best = t;
    }
  }
  dps_engine_cancel (net->engine, net->wake);
  net->wake = DPS_EVENT_NONE;
  if (best < G_MAXDOUBLE)
    net->wake = dps_engine_after (net->engine, MAX (best, 0), on_wake, net);
}

static void
on_solve (DpsEngine *e, void *data)
{
  DpsNet *net = data;
  net->solve = DPS_EVENT_NONE;
  advance (net);
  solve (net);
  schedule_wake (net);
}

static void
remove_flow (DpsNet *net, int id)
{
  Flow *f = flow_at (net, id);
  for (int k = 0; k < f->n; k++) {
    Link *l = &net->links[f->links[k]];
    l->bytes += f->bytes;
    /* swap-remove from the link's list, fixing the moved flow's position */
    int pos = f->pos[k];
    int last = l->flows.v[--l->flows.len];
    l->flows.v[pos] = last;
    if (last != id) {
      Flow *g = flow_at (net, last);
      for (int j = 0; j < g->n; j++)
        if (g->links[j] == f->links[k]) {
          g->pos[j] = pos;
          break;
        }
    }
    mark_dirty (net, f->links[k]);
  }
  f->active = FALSE;
  net->n_active--;
  int_vec_push (&net->free_flows, id);
}

static void
on_wake (DpsEngine *e, void *data)
{
  DpsNet *net = data;
  net->wake = DPS_EVENT_NONE;
  advance (net);
  double now = dps_engine_now (e);
  double tol_s = MAX (1e-15, 1e-9 * now);
  /* complete every flow due now (within rounding), then call back */
  IntVec *done = &net->queue;
  done->len = 0;
  for (guint f = 0; f < net->n_flows; f++) {
    Flow *fl = flow_at (net, (int) f);
    if (fl->active && fl->rate > 0 && fl->remaining <= fl->rate * tol_s + 1e-9 * fl->bytes)
      int_vec_push (done, (int) f);
  }
  /* each one's callback and data, taken before any is called: a callback
   * may start a flow, which reuses the queue and may take the id of one
   * that ended in this same instant */
  typedef struct { int id; DpsFlowDoneFn fn; void *data; } Ended;
  int n = (int) done->len;
  Ended stack_ended[64];
  Ended *ended = n <= 64 ? stack_ended : g_new (Ended, n);
  for (int i = 0; i < n; i++) {
    const Flow *f = flow_at (net, done->v[i]);
    ended[i] = (Ended) { done->v[i], f->fn, f->data };
  }
  for (int i = 0; i < n; i++)
    remove_flow (net, ended[i].id);
  if (n > 0)
    want_solve (net);
  for (int i = 0; i < n; i++)
    if (ended[i].fn)
      ended[i].fn (net, ended[i].id, ended[i].data);
  if (ended != stack_ended)
    g_free (ended);
  if (net->solve == DPS_EVENT_NONE)
    schedule_wake (net);
}

/* The current rate of an active flow, bytes/s (0 before the first solve). */
double
dps_net_flow_rate (const DpsNet *net, int flow)
{
  return flow_at (net, flow)->rate;
}

int
dps_net_active_flows (const DpsNet *net)
{
  return net->n_active;
}

/* Bytes carried by a link by the flows that have completed. */
double
dps_net_link_bytes (const DpsNet *net, int link)
{
  return net->links[link].bytes;
}

double
dps_net_link_capacity (const DpsNet *net, int link)
{
  return net->links[link].cap;
}

int
dps_net_n_links (const DpsNet *net)
{
  return net->n_links;
}

/* Number of component re-solves so far (a measure of work). */
guint64
dps_net_solves (const DpsNet *net)
{
  return net->solves;
}

/* Solves pending changes at once (tests read rates right after a start). */
void
dps_net_solve_now (DpsNet *net)
{
  dps_engine_cancel (net->engine, net->solve);
  net->solve = DPS_EVENT_NONE;
  advance (net);
  solve (net);
  schedule_wake (net);
}
