/* sched-group.c — a step program's collectives as its run times them:
 * a group instance launched by all its members, its latency phase, then
 * its bandwidth phase sharing its resources with the collectives running
 * on them, each slowed while its ranks compute; see sched-run-state.h. */
#include "sim/sched-run-state.h"

static void on_group_phase (DpsEngine *e, void *data);

/* Re-times a running collective at its current contention and, in its
 * bandwidth phase, its share of its busiest resource. */
void
sched_group_retime (Run *r, GroupState *g)
{
  double now = dps_engine_now (r->e);
  double rate = g->n_computing > 0 ? 1 / (1 + g->contention_comm) : 1;
  if (g->in_bw) {
    const DpsSchedGroup *gd = &r->groups[g->id];
    int most = 1;
    for (int i = 0; i < gd->n_res; i++)
      most = MAX (most, r->res_running[gd->res[i]]);
    rate /= most;
  }
  g->remaining = MAX (0, g->remaining - g->rate * (now - g->t_last));
  g->t_last = now;
  if (rate == g->rate)
    return;
  g->rate = rate;
  dps_engine_cancel (r->e, g->ev);
  g->ev = dps_engine_at (r->e, now + g->remaining / rate, on_group_phase, g);
}

static void
group_start (Run *r, GroupState *g)
{
  const Task *t = task_at (r, g->task);
  const DpsSchedComm *c = &g_array_index (r->s->comms, DpsSchedComm, t->comm);
  double now = dps_engine_now (r->e), lat = 0;
  DpsAlgo a = DPS_ALGO_RING;
  DpsProto p = DPS_PROTO_SIMPLE;
  double d = c->time (c->data, t->bytes, &lat, &a, &p);
  double f = r->opts->comm_factor > 0 && !c->copy ? r->opts->comm_factor : 1;
  /* a time below zero (a calibration's correction extrapolated past its
   * sizes) takes none rather than running the clock backwards; its latency
   * is a part of it */
  d = MAX (d * f, 0);
  lat = CLAMP (lat * f, 0, d);
  DpsSchedCommStats *cs = &r->out->comms[t->comm];
  cs->count++;
  if (!c->copy) {
    cs->algo_count[a]++;
    cs->proto_count[p]++;
  }
  g->running = TRUE;
  g->start_s = now;
  g->contention = c->contention;
  g->contention_comm = c->contention_comm;
  g->lat_left = lat;
  g->bw_left = d - lat;
  g->in_bw = FALSE;
  g->n_computing = 0;
  for (int i = 0; i < g->n_members; i++) {
    StreamState *ss = &r->streams[r->members[g->first_member + i]];
    ss->state = ST_RUNNING;
    ss->start_s = now;
    /* each member's own task: a pipeline's send and receive pair up, and
     * only the receive allocates what it receives */
    int own = head_task (r, ss);
    const Task *mt = task_at (r, own);
    sched_mem_change (r, ss->rank, mt->alloc_bytes, own, mt->alloc_kind);
    sched_mem_change (r, ss->rank, mt->hold_bytes, own, DPS_MEM_ACTIVATIONS);
    RankState *rs = &r->rs[ss->rank];
    rs->sum_c += g->contention;
    if (rs->computing) {
      g->n_computing++;
      if (g->contention > 0)
        sched_compute_retime (r, &r->streams[rs->compute]);
    }
  }
  g->remaining = g->lat_left;
  g->rate = g->n_computing > 0 ? 1 / (1 + g->contention_comm) : 1;
  g->t_last = now;
  g->ev = dps_engine_at (r->e, now + g->remaining / g->rate, on_group_phase, g);
}

/* Resource counts of g's resources change by delta: every collective in
 * its bandwidth phase on them is re-timed. */
static void
resources_changed (Run *r, GroupState *g, int delta)
{
  const DpsSchedGroup *gd = &r->groups[g->id];
  for (int i = 0; i < gd->n_res; i++) {
    int res = gd->res[i];
    r->res_running[res] += delta;
    GArray *list = r->res_groups[res];
    if (delta > 0)
      g_array_append_val (list, g->id);
    else
      for (guint k = 0; k < list->len; k++)
        if (g_array_index (list, int, k) == g->id) {
          g_array_remove_index_fast (list, k);
          break;
        }
    for (guint k = 0; k < list->len; k++) {
      GroupState *o = &r->gs[g_array_index (list, int, k)];
      if (o != g)
        sched_group_retime (r, o);
    }
  }
}

static void
on_group_phase (DpsEngine *e, void *data)
{
  GroupState *g = data;
  Run *r = g->run;
  double now = dps_engine_now (e);
  g->ev = DPS_EVENT_NONE;
  if (!g->in_bw && g->bw_left > 0) {
    g->in_bw = TRUE;
    g->remaining = g->bw_left;
    g->t_last = now;
    g->rate = 0;   /* forces the re-time */
    resources_changed (r, g, +1);
    sched_group_retime (r, g);
    return;
  }
  if (g->in_bw)
    resources_changed (r, g, -1);
  const Task *t = task_at (r, g->task);
  r->out->comms[t->comm].time_s += now - g->start_s;
  g->running = FALSE;
  g->in_bw = FALSE;
  g->launched = 0;
  g->task = -1;
  for (int i = 0; i < g->n_members; i++) {
    StreamState *ss = &r->streams[r->members[g->first_member + i]];
    RankState *rs = &r->rs[ss->rank];
    rs->sum_c -= g->contention;
    if (rs->sum_c < 1e-12)
      rs->sum_c = 0;
    if (g->contention > 0 && rs->compute >= 0 && r->streams[rs->compute].state == ST_RUNNING)
      sched_compute_retime (r, &r->streams[rs->compute]);
    int own = head_task (r, ss);
    const Task *mt = task_at (r, own);
    rs->st.comm_kind_s[mt->comm] += now - g->start_s + ss->delay_s;
    rs->st.comm_kind_n[mt->comm]++;
    sched_span (r, ss->rank, own, g->start_s, now);
    sched_mem_change (r, ss->rank, -mt->hold_bytes, own, DPS_MEM_ACTIVATIONS);
    sched_mem_change (r, ss->rank, -mt->free_bytes, own, mt->free_kind);
    ss->pc++;
    ss->end_last_s = now;
    ss->last_comm = t->comm;
    ss->state = ST_WAIT;
  }
  for (int i = 0; i < g->n_members; i++)
    sched_advance (r, r->streams[r->members[g->first_member + i]].rank);
}

void
sched_launch (Run *r, StreamState *ss)
{
  GroupState *g = &r->gs[ss->group];
  int task = head_task (r, ss);
  ss->state = ST_LAUNCHED;
  ss->busy_delay = FALSE;
  ss->delay_s = dps_engine_now (r->e) - ss->ready_s;
  if (g->task < 0)
    g->task = task;
  if (++g->launched == g->n_members)
    group_start (r, g);
}

void
sched_on_launch_delay (DpsEngine *e, void *data)
{
  StreamState *ss = data;
  ss->ev = DPS_EVENT_NONE;
  sched_launch (ss->run, ss);
}
