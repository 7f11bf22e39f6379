/* sched-result.c — a run's per-rank figures summed into its result (see
 * sched.h, DpsSchedResult). */
#include "sim/sched-private.h"

static void
stats_add (DpsSchedRankStats *sum, const DpsSchedRankStats *x, double w)
{
  sum->finish_s += w * x->finish_s;
  sum->start_s += w * x->start_s;
  for (int p = 0; p < DPS_PART_COUNT; p++) {
    sum->work_s[p] += w * x->work_s[p];
    sum->work_mean_s[p] += w * x->work_mean_s[p];
    sum->wall_s[p] += w * x->wall_s[p];
    sum->last_end_s[p] += w * x->last_end_s[p];
  }
  for (int c = 0; c < DPS_SCHED_MAX_COMMS; c++) {
    sum->exposed_s[c] += w * x->exposed_s[c];
    sum->comm_kind_s[c] += w * x->comm_kind_s[c];
    sum->comm_kind_n[c] += w * x->comm_kind_n[c];
  }
  sum->peak_bytes += w * x->peak_bytes;
  for (int k = 0; k < DPS_MEM_KINDS; k++)
    sum->peak_kind_bytes[k] += w * x->peak_kind_bytes[k];
}

/* The step (the last rank to finish), its critical rank, the rank of the
 * highest memory peak and the ranks' mean weighted by the real ranks each
 * stands for, from each rank's stats st[k]. */
void
dps_sched_result_summarise (DpsSchedResult *out, const DpsSchedRankStats *const *st, const DpsSchedRank *ranks,
                            int n_ranks)
{
  double wsum = 0;
  out->critical = 0;
  out->peak_rank = 0;
  double crit_work = 0;
  for (int k = 0; k < n_ranks; k++) {
    const DpsSchedRankStats *rs = st[k];
    /* the last to finish; of those that finish together (a collective
     * ends the step for all), the one with the most compute, which the
     * others waited for */
    double work = 0;
    for (int p = 0; p < DPS_PART_COUNT; p++)
      work += rs->work_s[p];
    double tol = 1e-12 * MAX (1, out->step_s);
    if (k == 0 || rs->finish_s > out->step_s + tol || (rs->finish_s >= out->step_s - tol && work > crit_work)) {
      out->step_s = MAX (out->step_s, rs->finish_s);
      out->critical = k;
      crit_work = work;
    }
    if (rs->peak_bytes > out->peak_bytes || k == 0) {
      out->peak_bytes = rs->peak_bytes;
      out->peak_rank = k;
    }
    stats_add (&out->mean, rs, ranks[k].weight);
    wsum += ranks[k].weight;
  }
  stats_add (&out->crit, st[out->critical], 1);
  out->crit.peak_task = st[out->critical]->peak_task;
  out->crit.peak_at_s = st[out->critical]->peak_at_s;
  out->peak = *st[out->peak_rank];
  DpsSchedRankStats m = { 0 };
  stats_add (&m, &out->mean, 1 / MAX (wsum, 1e-300));
  m.peak_task = -1;
  out->mean = m;
}

void
dps_sched_result_clear (DpsSchedResult *r)
{
  g_clear_pointer (&r->comms, g_free);
  if (r->spans)
    g_array_free (r->spans, TRUE);
  if (r->memory)
    g_array_free (r->memory, TRUE);
  r->spans = r->memory = NULL;
}
