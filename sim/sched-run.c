/* sched-run.c — a step program run on the event engine; see sched.h.
 * Its ranks' streams, compute and memory here; its collectives in
 * sched-group.c. */
#include "sim/sched-run-state.h"
#include "sim/base/error.h"
#include "sim/base/stats.h"

#include <string.h>

/* Whether task (of rank's role) has ended on rank. */
static gboolean
task_done (const Run *r, int rank, int task)
{
  const Task *t = task_at (r, task);
  const RankState *rs = &r->rs[rank];
  for (int i = 0; i < rs->n_streams; i++) {
    const StreamState *ss = &r->streams[rs->first_stream + i];
    if (ss->stream == t->stream)
      return ss->pc > t->index;
  }
  g_assert_not_reached ();
  return FALSE;
}

/* Whether t's dependencies have ended on rank; if not, *blocking (may be
 * NULL) receives the first that has not. */
static gboolean
deps_done (const Run *r, int rank, const Task *t, int *blocking)
{
  for (int i = 0; i < t->n_deps; i++) {
    int d = g_array_index (r->s->deps, int, t->first_dep + i);
    if (!task_done (r, rank, d)) {
      if (blocking)
        *blocking = d;
      return FALSE;
    }
  }
  return TRUE;
}

void
sched_mem_change (Run *r, int rank, double delta, int task, DpsMemKind kind)
{
  RankState *rs = &r->rs[rank];
  if (delta == 0)
    return;
  rs->mem_cur += delta;
  rs->mem_kind[kind] += delta;
  double now = dps_engine_now (r->e);
  if (rs->mem_cur > rs->st.peak_bytes * (1 + 1e-12)) {
    rs->st.peak_bytes = rs->mem_cur;
    rs->st.peak_task = task;
    rs->st.peak_at_s = now;
    for (int k = 0; k < DPS_MEM_KINDS; k++)
      rs->st.peak_kind_bytes[k] = rs->mem_kind[k];
  }
  if (r->out->memory && r->ranks[rank].trace) {
    DpsSchedMemSample m = { rank, now, rs->mem_cur };
    g_array_append_val (r->out->memory, m);
  }
}

void
sched_span (Run *r, int rank, int task, double start, double end)
{
  if (r->out->spans && r->ranks[rank].trace) {
    DpsSchedSpan sp = { rank, task, start, end };
    g_array_append_val (r->out->spans, sp);
  }
}


static void on_compute_done (DpsEngine *e, void *data);

/* Re-times a running compute task at the rank's current contention. */
void
sched_compute_retime (Run *r, StreamState *ss)
{
  if (ss->state != ST_RUNNING)
    return;   /* between two tasks (its rank still counted computing) */
  double now = dps_engine_now (r->e);
  double rate = 1 / (1 + r->rs[ss->rank].sum_c);
  ss->remaining = MAX (0, ss->remaining - ss->rate * (now - ss->t_last));
  ss->t_last = now;
  if (rate == ss->rate)
    return;
  ss->rate = rate;
  dps_engine_cancel (r->e, ss->ev);
  ss->ev = dps_engine_at (r->e, now + ss->remaining / rate, on_compute_done, ss);
}

/* Rank's compute stream starts or stops: the collectives it is a member
 * of run slower or faster. */
static void
set_computing (Run *r, int rank, gboolean on)
{
  RankState *rs = &r->rs[rank];
  if (rs->computing == on)
    return;
  rs->computing = on;
  for (int i = 0; i < rs->n_streams; i++) {
    StreamState *ss = &r->streams[rs->first_stream + i];
    if (ss->group < 0 || ss->state != ST_RUNNING)
      continue;
    GroupState *g = &r->gs[ss->group];
    g->n_computing += on ? 1 : -1;
    sched_group_retime (r, g);
  }
}

static gboolean
compute_busy (const Run *r, int rank)
{
  int c = r->rs[rank].compute;
  return c >= 0 && r->streams[c].state == ST_RUNNING;
}

static void
start_compute (Run *r, StreamState *ss, int task_id)
{
  const Task *t = task_at (r, task_id);
  const DpsSchedRank *rk = &r->ranks[ss->rank];
  double j = 1;
  if ((t->flags & DPS_TASK_JITTER) && r->opts->jitter_cv > 0)
    j = dps_normal_factor (r->rand, r->opts->jitter_cv, 0.05);
  double f = (t->flags & DPS_TASK_FIXED) ? 1 : rk->speed;
  double f_mean = (t->flags & DPS_TASK_FIXED) ? 1 : rk->speed_mean;
  RankState *rs = &r->rs[ss->rank];
  double now = dps_engine_now (r->e);
  ss->work_s = t->work_s * f * j;
  rs->st.work_s[t->part] += ss->work_s;
  rs->st.work_mean_s[t->part] += t->work_s * f_mean * j;
  sched_mem_change (r, ss->rank, t->alloc_bytes, task_id, t->alloc_kind);
  sched_mem_change (r, ss->rank, t->hold_bytes, task_id, DPS_MEM_ACTIVATIONS);
  if (ss->wait_s >= 0) {   /* idle since: waiting for a collective is exposed communication */
    if (ss->wait_comm >= 0)
      rs->st.exposed_s[ss->wait_comm] += now - ss->wait_s;
    ss->wait_s = -1;
  }
  ss->state = ST_RUNNING;
  ss->start_s = now;
  ss->remaining = ss->work_s;
  ss->rate = 1 / (1 + rs->sum_c);
  ss->t_last = now;
  ss->ev = dps_engine_at (r->e, now + ss->remaining / ss->rate, on_compute_done, ss);
  set_computing (r, ss->rank, TRUE);
}

static void
on_compute_done (DpsEngine *e, void *data)
{
  StreamState *ss = data;
  Run *r = ss->run;
  int task_id = head_task (r, ss);
  const Task *t = task_at (r, task_id);
  double now = dps_engine_now (e);
  RankState *rs = &r->rs[ss->rank];
  rs->st.wall_s[t->part] += now - ss->start_s;
  rs->st.last_end_s[t->part] = now;
  sched_span (r, ss->rank, task_id, ss->start_s, now);
  sched_mem_change (r, ss->rank, -t->hold_bytes, task_id, DPS_MEM_ACTIVATIONS);
  sched_mem_change (r, ss->rank, -t->free_bytes, task_id, t->free_kind);
  ss->pc++;
  ss->end_last_s = now;
  ss->state = ST_WAIT;
  ss->ev = DPS_EVENT_NONE;
  sched_advance (r, ss->rank);
  if (ss->state == ST_RUNNING)
    return;
  set_computing (r, ss->rank, FALSE);
  /* a sched_launch waiting for a core goes now that the compute lets it run */
  for (int i = 0; i < rs->n_streams; i++) {
    StreamState *o = &r->streams[rs->first_stream + i];
    if (o->state == ST_DELAYED && o->busy_delay) {
      dps_engine_cancel (e, o->ev);
      o->ev = DPS_EVENT_NONE;
      sched_launch (r, o);
    }
  }
}

/* Once all of rank's streams are done: the time its step runs on after
 * its compute stream's last task, waiting for collectives, is exposed
 * communication too, of the collective the step ended on. */
static void
rank_done (Run *r, RankState *rs)
{
  double compute_end = -1, last = -1;
  int comm = -1;
  for (int i = 0; i < rs->n_streams; i++) {
    const StreamState *ss = &r->streams[rs->first_stream + i];
    if (ss->state != ST_DONE)
      return;
    if (ss->group < 0)
      compute_end = MAX (compute_end, ss->end_last_s);
    else if (ss->last_comm >= 0 && ss->end_last_s > last) {
      last = ss->end_last_s;
      comm = ss->last_comm;
    }
  }
  if (compute_end >= 0 && comm >= 0 && last > compute_end)
    rs->st.exposed_s[comm] += last - compute_end;
}

/* Starts what can start on rank's streams. */
void
sched_advance (Run *r, int rank)
{
  RankState *rs = &r->rs[rank];
  double now = dps_engine_now (r->e);
  if (now < r->ranks[rank].start_s)
    return;
  for (int i = 0; i < rs->n_streams; i++) {
    StreamState *ss = &r->streams[rs->first_stream + i];
    if (ss->state != ST_WAIT)
      continue;
    int task = head_task (r, ss);
    if (task < 0) {
      ss->state = ST_DONE;
      rs->st.finish_s = MAX (rs->st.finish_s, ss->end_last_s);
      rank_done (r, rs);
      continue;
    }
    const Task *t = task_at (r, task);
    int blocking = -1;
    if (!deps_done (r, rank, t, &blocking)) {
      /* each stretch of the wait goes to the collective blocking it then
       * (the first unfinished dependency), not all of it to the first */
      int comm = task_at (r, blocking)->comm;
      if (ss->group < 0 && (ss->wait_s < 0 || comm != ss->wait_comm)) {
        if (ss->wait_s >= 0 && ss->wait_comm >= 0)
          rs->st.exposed_s[ss->wait_comm] += now - ss->wait_s;
        ss->wait_s = now;
        ss->wait_comm = comm;
      }
      continue;
    }
    if (ss->group < 0) {
      start_compute (r, ss, task);
      continue;
    }
    /* a collective: its sched_launch, handed to a thread where launches cost,
     * unless the stream was busy until now */
    double delay = 0;
    gboolean busy = compute_busy (r, rank);
    if (now > ss->end_last_s)
      delay = busy ? r->opts->launch_busy_s : r->opts->launch_s;
    ss->ready_s = now;
    if (delay > 0) {
      ss->state = ST_DELAYED;
      ss->busy_delay = busy;
      ss->ev = dps_engine_at (r->e, now + delay, sched_on_launch_delay, ss);
    } else
      sched_launch (r, ss);
  }
}

static void
on_rank_start (DpsEngine *e, void *data)
{
  StreamState *first = data;
  Run *r = first->run;
  if (r->out->memory && r->ranks[first->rank].trace) {
    DpsSchedMemSample m = { first->rank, dps_engine_now (e), r->rs[first->rank].mem_cur };
    g_array_append_val (r->out->memory, m);
  }
  sched_advance (r, first->rank);
}

/* Plays s on ranks (n_ranks of them, each with its group instances among
 * groups' n_groups) and fills out (clear it with dps_sched_result_clear).
 * rand draws the tasks' jitter.  Fails when a group's members would wait
 * for each other forever (their streams disagree), naming the group. */
gboolean
dps_sched_run (const DpsSched *s, const DpsSchedRank *ranks, int n_ranks, const DpsSchedGroup *groups,
               int n_groups, const DpsSchedOpts *opts, GRand *rand, DpsSchedResult *out, GError **error)
{
  memset (out, 0, sizeof *out);
  Run r = { .s = s, .ranks = ranks, .groups = groups, .opts = opts, .n_ranks = n_ranks, .n_groups = n_groups,
            .rand = rand, .out = out };
  out->n_comms = (int) s->comms->len;
  out->comms = g_new0 (DpsSchedCommStats, MAX (1, out->n_comms));
  if (opts->trace) {
    out->spans = g_array_new (FALSE, FALSE, sizeof (DpsSchedSpan));
    out->memory = g_array_new (FALSE, FALSE, sizeof (DpsSchedMemSample));
  }
  /* streams and members */
  int n_streams = 0;
  for (int k = 0; k < n_ranks; k++)
    n_streams += (int) g_array_index (s->roles, Role, ranks[k].role).streams->len;
  r.streams = g_new0 (StreamState, MAX (1, n_streams));
  r.rs = g_new0 (RankState, MAX (1, n_ranks));
  r.gs = g_new0 (GroupState, MAX (1, n_groups));
  r.members = g_new (int, MAX (1, n_streams));
  for (int gi = 0; gi < n_groups; gi++)
    r.gs[gi] = (GroupState) { .run = &r, .id = gi, .task = -1 };
  int *count = g_new0 (int, MAX (1, n_groups) + 1);
  int pos = 0;
  for (int k = 0; k < n_ranks; k++) {
    const Role *role = &g_array_index (s->roles, Role, ranks[k].role);
    RankState *rs = &r.rs[k];
    rs->first_stream = pos;
    rs->n_streams = (int) role->streams->len;
    rs->compute = -1;
    rs->mem_cur = role->static_bytes;
    rs->st.peak_bytes = role->static_bytes;
    rs->st.peak_task = -1;
    rs->st.start_s = ranks[k].start_s;
    for (guint i = 0; i < role->streams->len; i++) {
      int sid = g_array_index (role->streams, int, i);
      const Stream *st = &g_array_index (s->streams, Stream, sid);
      StreamState *ss = &r.streams[pos];
      *ss = (StreamState) { .run = &r, .rank = k, .stream = sid, .group = -1, .end_last_s = ranks[k].start_s,
                            .wait_s = -1, .wait_comm = -1, .last_comm = -1 };
      if (st->group_slot == DPS_SCHED_NO_STREAM)
        rs->compute = pos;
      else {
        ss->group = ranks[k].groups[st->group_slot];
        g_return_val_if_fail (ss->group >= 0 && ss->group < n_groups, FALSE);
        count[ss->group]++;
      }
      pos++;
    }
  }
  for (int gi = 0, at = 0; gi < n_groups; gi++) {
    r.gs[gi].first_member = at;
    at += count[gi];
    count[gi] = r.gs[gi].first_member;
  }
  gboolean ok = TRUE;
  for (int i = 0; i < n_streams; i++)
    if (r.streams[i].group >= 0) {
      GroupState *g = &r.gs[r.streams[i].group];
      int prev = g->n_members > 0 ? r.members[g->first_member + g->n_members - 1] : -1;
      if (prev >= 0 && r.streams[prev].rank == r.streams[i].rank && ok) {
        g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "schedule: rank %d runs group %d on two streams",
                     r.streams[i].rank, r.streams[i].group);
        ok = FALSE;
      }
      r.members[count[r.streams[i].group]++] = i;
      g->n_members++;
    }
  g_free (count);
  for (int gi = 0; gi < n_groups; gi++)
    for (int i = 0; i < groups[gi].n_res; i++)
      r.n_res = MAX (r.n_res, groups[gi].res[i] + 1);
  r.res_running = g_new0 (int, MAX (1, r.n_res));
  r.res_groups = g_new (GArray *, MAX (1, r.n_res));
  for (int i = 0; i < r.n_res; i++)
    r.res_groups[i] = g_array_new (FALSE, FALSE, sizeof (int));

  r.e = dps_engine_new ();
  for (int k = 0; k < n_ranks && ok; k++)
    if (r.rs[k].n_streams > 0)
      dps_engine_at (r.e, MAX (0, ranks[k].start_s), on_rank_start, &r.streams[r.rs[k].first_stream]);
  dps_engine_run (r.e);
  out->events = dps_engine_events_fired (r.e);

  for (int i = 0; i < n_streams && ok; i++)
    if (r.streams[i].state != ST_DONE) {
      const StreamState *ss = &r.streams[i];
      int t = head_task (&r, ss);
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                   "schedule: rank %d (%s) never ran '%s' on stream %s: its group or dependencies wait for each other",
                   ss->rank, dps_sched_role_name (s, ranks[ss->rank].role), t >= 0 ? dps_sched_task_label (s, t) : "?",
                   dps_sched_stream_name (s, ss->stream));
      ok = FALSE;
    }
  if (ok) {
    const DpsSchedRankStats **st = g_new (const DpsSchedRankStats *, MAX (1, n_ranks));
    for (int k = 0; k < n_ranks; k++)
      st[k] = &r.rs[k].st;
    dps_sched_result_summarise (out, st, ranks, n_ranks);
    g_free (st);
  }
  dps_engine_free (r.e);
  for (int i = 0; i < r.n_res; i++)
    g_array_free (r.res_groups[i], TRUE);
  g_free (r.res_groups);
  g_free (r.res_running);
  g_free (r.members);
  g_free (r.gs);
  g_free (r.rs);
  g_free (r.streams);
  if (!ok)
    dps_sched_result_clear (out);
  return ok;
}
