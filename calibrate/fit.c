/* fit.c — see fit.h. */
#include "calibrate/fit.h"
#include "sim/base/error.h"
#include "sim/coll-predict.h"

#include <math.h>
#include <string.h>

double
dps_fit_solve (const DpsFitObs *o, int n, double *alpha, double *beta)
{
  double s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0;
  for (int i = 0; i < n; i++) {
    double w = 1 / (o[i].t * o[i].t);
    s11 += w * o[i].x1 * o[i].x1;
    s12 += w * o[i].x1 * o[i].x2;
    s22 += w * o[i].x2 * o[i].x2;
    r1 += w * o[i].x1 * o[i].t;
    r2 += w * o[i].x2 * o[i].t;
  }
  double det = s11 * s22 - s12 * s12;
  double a = 0, b = 0;
  if (fabs (det) > 1e-300 * (s11 * s22 + 1e-300)) {
    a = (r1 * s22 - r2 * s12) / det;
    b = (s11 * r2 - s12 * r1) / det;
  }
  if (!(a >= 0) || !(b > 0)) {
    /* one term alone: the better of latency only and bandwidth only */
    double a1 = s11 > 0 ? r1 / s11 : 0, b1 = s22 > 0 ? r2 / s22 : 0;
    double e_a = 0, e_b = 0;
    for (int i = 0; i < n; i++) {
      e_a += pow ((o[i].x1 * a1 - o[i].t) / o[i].t, 2);
      e_b += pow ((o[i].x2 * b1 - o[i].t) / o[i].t, 2);
    }
    if (b1 > 0 && (e_b <= e_a || a1 <= 0)) {
      a = 0;
      b = b1;
    } else {
      a = MAX (a1, 0);
      b = 1 / DPS_FIT_UNBOUNDED_BPS;   /* bandwidth too large to matter */
    }
  }
  double err = 0;
  for (int i = 0; i < n; i++)
    err += pow ((o[i].x1 * a + o[i].x2 * b - o[i].t) / o[i].t, 2);
  *alpha = a;
  *beta = b;
  return err;
}

void
dps_fit_choose_regimes (double *best_err, DpsFitLevel *best, const DpsFitObs *sorted, int n, DpsFitLevel *out)
{
  if (best_err[1] == G_MAXDOUBLE) {
    /* a single size measured: one regime, whatever it can tell */
    double a, b;
    best_err[1] = dps_fit_solve (sorted, n, &a, &b);
    best[1] = (DpsFitLevel) { .n_regimes = 1, .n_points = n, .alpha_s = { a }, .bw_Bps = { 1 / b } };
  }
  /* the fewest regimes within 10% (and 0.1% RMS) of the best fit */
  int kbest = 1;
  double emin = G_MAXDOUBLE;
  for (int k = 1; k <= DPS_FIT_MAX_REGIMES; k++)
    emin = MIN (emin, best_err[k]);
  for (int k = DPS_FIT_MAX_REGIMES; k >= 1; k--)
    if (best_err[k] < G_MAXDOUBLE && best_err[k] <= emin * 1.1 + n * 1e-6)
      kbest = k;
  *out = best[kbest];
  out->rms_rel = sqrt (best_err[kbest] / n);
}

static int
cmp_obs_size (gconstpointer a, gconstpointer b, gpointer sizes)
{
  double x = ((const double *) sizes)[*(const int *) a], y = ((const double *) sizes)[*(const int *) b];
  return x < y ? -1 : x > y;
}

void
dps_fit_sort_by_size (const DpsFitObs *obs, const double *sizes, int n, DpsFitObs **sorted, double **ssz)
{
  int *idx = g_new (int, MAX (n, 1));
  for (int i = 0; i < n; i++)
    idx[i] = i;
  g_qsort_with_data (idx, n, sizeof (int), cmp_obs_size, (gpointer) sizes);
  *sorted = g_new (DpsFitObs, MAX (n, 1));
  *ssz = g_new (double, MAX (n, 1));
  for (int i = 0; i < n; i++) {
    (*sorted)[i] = obs[idx[i]];
    (*ssz)[i] = sizes[idx[i]];
  }
  g_free (idx);
}


/* The regime search sees each candidate's error in O(1): the weighted
 * sums dps_fit_solve needs are prefix sums over the points in size order, kept
 * as double-doubles (a value and its rounding error) so that a regime of
 * large messages, whose sums are 1e-12 of the small ones' before it, is
 * read from their difference without cancellation. */
enum { S11, S12, S22, R1, R2, N_SUMS };
typedef struct { double hi[N_SUMS], lo[N_SUMS]; } Prefix;

static void
dd_add (double *hi, double *lo, double v)
{
  double s = *hi + v, bb = s - *hi, e = (*hi - (s - bb)) + (v - bb);
  *hi = s;
  *lo += e;
}

/* The sums of points [run_start[a], run_start[b]) of p (a prefix array) */
static void
range_sums (const Prefix *p, int from, int to, double *sums)
{
  for (int k = 0; k < N_SUMS; k++)
    sums[k] = (p[to].hi[k] - p[from].hi[k]) + (p[to].lo[k] - p[from].lo[k]);
}

/* dps_fit_solve's fit and its error from the sums of n points alone (the
 * closed form of sum w (x1 a + x2 b - t)^2, with sum w t^2 = n): the
 * same choice between both terms and one alone; accurate to about n x
 * 1e-15, enough to rank candidates, whose winners are then solved
 * exactly. */
static double
solve_sums (const double *s, int n)
{
  double det = s[S11] * s[S22] - s[S12] * s[S12];
  double a = 0, b = 0;
  if (fabs (det) > 1e-300 * (s[S11] * s[S22] + 1e-300)) {
    a = (s[R1] * s[S22] - s[R2] * s[S12]) / det;
    b = (s[S11] * s[R2] - s[S12] * s[R1]) / det;
  }
  if (!(a >= 0) || !(b > 0)) {
    double a1 = s[S11] > 0 ? s[R1] / s[S11] : 0, b1 = s[S22] > 0 ? s[R2] / s[S22] : 0;
    double e_a = a1 * a1 * s[S11] - 2 * a1 * s[R1] + n, e_b = b1 * b1 * s[S22] - 2 * b1 * s[R2] + n;
    if (b1 > 0 && (e_b <= e_a || a1 <= 0)) {
      a = 0;
      b = b1;
    } else {
      a = MAX (a1, 0);
      b = 1 / DPS_FIT_UNBOUNDED_BPS;
    }
  }
  double err = a * a * s[S11] + b * b * s[S22] + 2 * a * b * s[S12] - 2 * a * s[R1] - 2 * b * s[R2] + n;
  return MAX (err, 0);
}

/* A candidate: its regimes' first runs (cut[0] = 0, then one a later
 * regime) and its error. */
typedef struct { int k, cut[DPS_FIT_MAX_REGIMES]; double err; } Cand;

typedef struct {
  const Prefix *prefix;
  const int    *run_start;   /* the first point of each run of equal sizes; [m] = n */
  int           m;
} Runs;

/* The approximate error of cuts (regime r starts at run cut[r]), or
 * G_MAXDOUBLE where a regime holds fewer than 2 sizes. */
static double
cand_err (const Runs *R, int k, const int *cut)
{
  double err = 0;
  for (int r = 0; r < k; r++) {
    int a = cut[r], b = r + 1 < k ? cut[r + 1] : R->m;
    if (b - a < 2)
      return G_MAXDOUBLE;
    double sums[N_SUMS];
    range_sums (R->prefix, R->run_start[a], R->run_start[b], sums);
    err += solve_sums (sums, R->run_start[b] - R->run_start[a]);
  }
  return err;
}

/* The candidates within tol of the least error, in the order the search
 * meets them: at most TIES (the worst make way), which are then solved
 * exactly. */
#define TIES 8
typedef struct { Cand c[TIES]; int n; double best; } Ties;

static void
ties_offer (Ties *t, const Cand *c, double tol)
{
  if (c->err == G_MAXDOUBLE || c->err > t->best + tol)
    return;
  if (c->err < t->best) {
    t->best = c->err;
    int keep = 0;   /* those still within tol of the new best */
    for (int i = 0; i < t->n; i++)
      if (t->c[i].err <= t->best + tol)
        t->c[keep++] = t->c[i];
    t->n = keep;
  }
  if (t->n == TIES) {   /* full: the worst makes way, the others keep their order */
    int worst = 0;
    for (int i = 1; i < t->n; i++)
      if (t->c[i].err > t->c[worst].err)
        worst = i;
    if (t->c[worst].err <= c->err)
      return;
    memmove (&t->c[worst], &t->c[worst + 1], sizeof (Cand) * (gsize) (t->n - worst - 1));
    t->n--;
  }
  t->c[t->n++] = *c;
}

/* Below this many sizes every pair of cuts is tried (the original search,
 * in O(1) a candidate); above, pairs of a grid of them, then each cut moved
 * over the runs between its grid neighbours. */
#define EXHAUSTIVE_RUNS 400
#define GRID_RUNS 256

static void
search_three (const Runs *R, double tol, Ties *t)
{
  int m = R->m;
  if (m <= EXHAUSTIVE_RUNS) {
    for (int c1 = 1; c1 < m; c1++)
      for (int c2 = c1 + 1; c2 < m; c2++) {
        Cand c = { 3, { 0, c1, c2 }, 0 };
        c.err = cand_err (R, 3, c.cut);
        ties_offer (t, &c, tol);
      }
    return;
  }
  int grid[GRID_RUNS];
  int ng = 0;
  for (int j = 1; j < GRID_RUNS; j++)
    grid[ng++] = (int) ((gint64) j * m / GRID_RUNS);
  Cand best = { 3, { 0, 0, 0 }, G_MAXDOUBLE };
  for (int i = 0; i < ng; i++)
    for (int j = i + 1; j < ng; j++) {
      Cand c = { 3, { 0, grid[i], grid[j] }, 0 };
      c.err = cand_err (R, 3, c.cut);
      if (c.err < best.err)
        best = c;
    }
  if (best.err == G_MAXDOUBLE)
    return;
  int span = m / GRID_RUNS + 1;
  for (int round = 0; round < 3; round++)
    for (int which = 1; which <= 2; which++) {
      int lo = MAX (which == 1 ? 1 : best.cut[1] + 1, best.cut[which] - span);
      int hi = MIN (which == 1 ? best.cut[2] - 1 : m - 1, best.cut[which] + span);
      for (int c = lo; c <= hi; c++) {
        Cand x = best;
        x.cut[which] = c;
        x.err = cand_err (R, 3, x.cut);
        if (x.err < best.err)
          best = x;
      }
    }
  ties_offer (t, &best, tol);
}

/* dps_fit_solve over each regime of c, exactly as fitted; fills out and returns
 * the error. */
static double
fit_cand (const Cand *c, const Runs *R, const DpsFitObs *sorted, const double *ssz, int n, DpsFitLevel *out)
{
  *out = (DpsFitLevel) { .n_regimes = c->k, .n_points = n };
  double err = 0;
  for (int r = 0; r < c->k; r++) {
    int lo = R->run_start[c->cut[r]], hi = r + 1 < c->k ? R->run_start[c->cut[r + 1]] : n;
    double a, b;
    err += dps_fit_solve (sorted + lo, hi - lo, &a, &b);
    out->alpha_s[r] = a;
    out->bw_Bps[r] = 1 / b;
    out->max_bytes[r] = r == c->k - 1 ? 0 : sqrt (ssz[hi - 1] * ssz[hi]);   /* geometric midpoint */
  }
  return err;
}

/* Fits one level's regimes: for each count of regimes the cuts (between
 * distinct sizes, each regime with 2+ sizes) of least squared relative
 * error, then the fewest regimes within 10% of the best.  obs[i] belongs
 * to message size sizes[i].  O(n log n): the points sorted once, each
 * candidate's error from prefix sums in O(1), every pair of cuts tried up
 * to EXHAUSTIVE_RUNS sizes (every log measured; 300,000 sizes take a grid
 * and its refinement), the near-best solved exactly and the first of the
 * least kept, as an exhaustive search over exact errors would. */
static void
fit_level (const DpsFitObs *obs, const double *sizes, int n, DpsFitLevel *out)
{
  memset (out, 0, sizeof *out);
  if (n == 0)
    return;
  DpsFitObs *sorted;
  double *ssz;
  dps_fit_sort_by_size (obs, sizes, n, &sorted, &ssz);
  /* runs of equal sizes, and the prefix sums at each point */
  int *run_start = g_new (int, n + 1), m = 0;
  Prefix *prefix = g_new0 (Prefix, n + 1);
  for (int i = 0; i < n; i++) {
    if (i == 0 || ssz[i] != ssz[i - 1])
      run_start[m++] = i;
    const DpsFitObs *o = &sorted[i];
    double w = 1 / (o->t * o->t), v[N_SUMS] = { w * o->x1 * o->x1, w * o->x1 * o->x2, w * o->x2 * o->x2,
                                                 w * o->x1 * o->t, w * o->x2 * o->t };
    prefix[i + 1] = prefix[i];
    for (int k = 0; k < N_SUMS; k++)
      dd_add (&prefix[i + 1].hi[k], &prefix[i + 1].lo[k], v[k]);
  }
  run_start[m] = n;
  Runs R = { prefix, run_start, m };
  double tol = 1e-9 * (n + 1);
  double best_err[DPS_FIT_MAX_REGIMES + 1];
  DpsFitLevel best[DPS_FIT_MAX_REGIMES + 1];
  for (int k = 1; k <= DPS_FIT_MAX_REGIMES; k++) {
    Ties t = { .n = 0, .best = G_MAXDOUBLE };
    if (k == 1) {
      Cand c = { 1, { 0 }, 0 };
      c.err = cand_err (&R, 1, c.cut);
      ties_offer (&t, &c, tol);
    } else if (k == 2)
      for (int c1 = 1; c1 < m; c1++) {
        Cand c = { 2, { 0, c1 }, 0 };
        c.err = cand_err (&R, 2, c.cut);
        ties_offer (&t, &c, tol);
      }
    else
      search_three (&R, tol, &t);
    best_err[k] = G_MAXDOUBLE;
    for (int i = 0; i < t.n; i++) {
      DpsFitLevel cand;
      double err = fit_cand (&t.c[i], &R, sorted, ssz, n, &cand);
      if (err < best_err[k]) {
        best_err[k] = err;
        best[k] = cand;
      }
    }
  }
  dps_fit_choose_regimes (best_err, best, sorted, n, out);
  g_free (prefix);
  g_free (run_start);
  g_free (sorted);
  g_free (ssz);
}

/* The regime of a level that holds messages of bytes. */
int
dps_fit_regime (const DpsFitLevel *l, double bytes)
{
  for (int r = 0; r < l->n_regimes - 1; r++)
    if (bytes <= l->max_bytes[r])
      return r;
  return MAX (l->n_regimes - 1, 0);
}

static double
level_time (const DpsFitLevel *l, int ranks, int nodes, double bytes, double intra_alpha)
{
  int r = dps_fit_regime (l, bytes);
  double hop = 2.0 * (ranks - 1) / ranks * bytes;
  if (nodes <= 1)
    return 2.0 * (ranks - 1) * l->alpha_s[r] + hop / l->bw_Bps[r];
  return 2.0 * (nodes - 1) * l->alpha_s[r] + hop / l->bw_Bps[r] + 2.0 * (ranks - nodes) * intra_alpha;
}

/* The single-node group with the most ranks, or NULL. */
static const DpsFitLevel *
largest_intra (const DpsFit *f)
{
  const DpsFitLevel *best = NULL;
  for (int g = 0; g < f->n_groups; g++)
    if (f->group[g].nodes == 1 && (!best || f->group[g].ranks > best->ranks))
      best = &f->group[g];
  return best;
}

/* Latency per intra-node step for messages of bytes: the largest
 * single-node group's fit (0 without one). */
double
dps_fit_intra_alpha (const DpsFit *f, double bytes)
{
  const DpsFitLevel *l = largest_intra (f);
  return l ? l->alpha_s[dps_fit_regime (l, bytes)] : 0;
}

/* What "the rank count nearest to ranks" means for fits, layer times,
 * contention and busy waits alike: among the n candidates of data (those
 * for which ranks_of gives a rank count, at least 1), the one whose count
 * is nearest to ranks in log scale (|log(measured / ranks)|), the first of
 * equals.  Returns its index, or -1 when there is no candidate. */
int
dps_fit_nearest_index (const void *data, guint n, DpsRanksOf ranks_of, int ranks)
{
  int best = -1;
  double bd = G_MAXDOUBLE;
  for (guint i = 0; i < n; i++) {
    int measured = ranks_of (data, i);
    if (measured < 0)
      continue;
    double dist = fabs (log ((double) measured / MAX (ranks, 1)));
    if (dist < bd) {
      bd = dist;
      best = (int) i;
    }
  }
  return best;
}

typedef struct { const DpsFit *f; int kind; } GroupsOf;   /* kind 1: multi-node, 0: single, -1: both */

static int
group_ranks (const void *data, guint i)
{
  const GroupsOf *g = data;
  const DpsFitLevel *l = &g->f->group[i];
  return g->kind < 0 || (l->nodes > 1) == g->kind ? l->ranks : -1;
}

/* The fitted group nearest to ranks (in log scale), among single-node
 * groups or multi-node ones; falls back to the other kind.  NULL only for
 * an empty fit. */
const DpsFitLevel *
dps_fit_nearest (const DpsFit *f, int ranks, gboolean multi_node)
{
  GroupsOf of = { f, multi_node ? 1 : 0 };
  int best = dps_fit_nearest_index (&of, (guint) f->n_groups, group_ranks, ranks);
  if (best < 0) {
    of.kind = -1;
    best = dps_fit_nearest_index (&of, (guint) f->n_groups, group_ranks, ranks);
  }
  return best < 0 ? NULL : &f->group[best];
}

/* Fits each (ranks, nodes) group of all-reduces: single-node groups first,
 * then the multi-node ones, whose intra-node steps are priced with the
 * largest single-node fit.  Fails without any usable point of any
 * operation (all-gathers and reduce-scatters alone fit no group here: the
 * network fit takes them). */
gboolean
dps_fit_levels (const DpsCalData *d, DpsFit *out, GError **error)
{
  memset (out, 0, sizeof *out);
  int n = (int) d->points->len;
  DpsFitObs *obs = g_new (DpsFitObs, MAX (n, 1));
  double *sizes = g_new (double, MAX (n, 1));
  for (int pass = 0; pass < 2; pass++) {
    GHashTable *done = g_hash_table_new (g_direct_hash, g_direct_equal);
    for (int i = 0; i < n; i++) {
      const DpsCalPoint *first = &g_array_index (d->points, DpsCalPoint, i);
      gpointer key = GINT_TO_POINTER (first->ranks * 100000 + first->nodes);
      if (first->op != DPS_OP_ALLREDUCE || (first->nodes > 1) != pass || first->ranks < 2
          || g_hash_table_contains (done, key))
        continue;
      g_hash_table_add (done, key);
      int k = 0;
      for (int j = i; j < n; j++) {
        const DpsCalPoint *p = &g_array_index (d->points, DpsCalPoint, j);
        if (p->op != DPS_OP_ALLREDUCE || p->ranks != first->ranks || p->nodes != first->nodes || p->held_out
            || p->time_s <= 0)
          continue;
        double t = p->time_s;
        if (pass == 1)
          t -= 2.0 * (p->ranks - p->nodes) * dps_fit_intra_alpha (out, p->bytes);
        if (t <= 0)
          continue;
        double steps = pass == 0 ? 2.0 * (p->ranks - 1) : 2.0 * (p->nodes - 1);
        obs[k] = (DpsFitObs) { steps, 2.0 * (p->ranks - 1) / p->ranks * p->bytes, t };
        sizes[k++] = p->bytes;
      }
      if (k == 0 || out->n_groups == DPS_FIT_MAX_GROUPS)
        continue;
      DpsFitLevel *l = &out->group[out->n_groups++];
      fit_level (obs, sizes, k, l);
      l->ranks = first->ranks;
      l->nodes = first->nodes;
      /* corrections at the fitted sizes, in size order */
      for (int j = i; j < n && l->n_corr < DPS_FIT_MAX_CORR; j++) {
        const DpsCalPoint *p = &g_array_index (d->points, DpsCalPoint, j);
        if (p->op != DPS_OP_ALLREDUCE || p->ranks != l->ranks || p->nodes != l->nodes || p->held_out
            || p->time_s <= 0)
          continue;
        double model = level_time (l, p->ranks, p->nodes, p->bytes, dps_fit_intra_alpha (out, p->bytes));
        int at = l->n_corr++;
        while (at > 0 && l->corr_bytes[at - 1] > p->bytes) {
          l->corr_bytes[at] = l->corr_bytes[at - 1];
          l->corr_factor[at] = l->corr_factor[at - 1];
          at--;
        }
        l->corr_bytes[at] = p->bytes;
        l->corr_factor[at] = model > 0 ? p->time_s / model : 1;
      }
    }
    g_hash_table_unref (done);
  }
  g_free (obs);
  g_free (sizes);
  gboolean any = out->n_groups > 0;
  for (int i = 0; i < n && !any; i++) {
    const DpsCalPoint *p = &g_array_index (d->points, DpsCalPoint, i);
    any = p->ranks >= 2 && p->time_s > 0 && !p->held_out;
  }
  if (!any) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                 "nothing to fit: no measurement over 2 or more ranks with a positive time");
    return FALSE;
  }
  return TRUE;
}

typedef struct { const DpsFit *f; const DpsFitLevel *l; int ranks, nodes; DpsCollOp op; } PredictCtx;

static double
predict_line (double bytes, void *data)
{
  const PredictCtx *c = data;
  double t = level_time (c->l, c->ranks, c->nodes, bytes, dps_fit_intra_alpha (c->f, bytes));
  return c->op == DPS_OP_ALLREDUCE ? t : t / 2;   /* dps_fit_ring_time's halving */
}

void
dps_fit_op_correction (const DpsFit *f, const DpsFitLevel *l, const DpsCalData *d, DpsCollOp op, DpsCollCorr *out)
{
  PredictCtx c = { f, l, l->ranks, l->nodes, op };
  dps_fit_correction (d, op, l->ranks, l->nodes, predict_line, &c, out);
}

void
dps_fit_level_corrections (const DpsFit *f, const DpsFitLevel *l, const DpsCalData *d, guint ops, DpsCollCorr *corr)
{
  DpsCollCorr *ar = &corr[DPS_OP_ALLREDUCE];
  ar->n = MIN (l->n_corr, DPS_COLL_MAX_CORR);
  memcpy (ar->bytes, l->corr_bytes, sizeof (double) * ar->n);
  memcpy (ar->factor, l->corr_factor, sizeof (double) * ar->n);
  for (int op = 0; op < DPS_OP_COUNT; op++)
    if (op != DPS_OP_ALLREDUCE && ops >> op & 1)
      dps_fit_op_correction (f, l, d, (DpsCollOp) op, &corr[op]);
}

/* The fitted time of an all-reduce of bytes over ranks on nodes: the
 * nearest group's regime lines with its corrections, between measured
 * sizes interpolated in log-log (the simulator's own rule, tune.h);
 * 0 when nothing was fitted. */
double
dps_fit_predict (const DpsFit *f, int ranks, int nodes, double bytes)
{
  return dps_fit_predict_op (f, NULL, DPS_OP_ALLREDUCE, ranks, nodes, bytes);
}

double
dps_fit_predict_op (const DpsFit *f, const DpsCalData *d, DpsCollOp op, int ranks, int nodes, double bytes)
{
  if (ranks < 2)
    return 0;
  const DpsFitLevel *l = dps_fit_nearest (f, ranks, nodes > 1);
  if (!l)
    return 0;   /* nothing fitted (a machine of one device) */
  PredictCtx c = { f, l, ranks, nodes, op };
  DpsCollParams p = { 0 };
  dps_fit_level_corrections (f, l, d, d ? 1u << op : 0, p.corr);
  return dps_tune_calibrated (&p, op, bytes, predict_line, &c);
}

/* Marks every other size of each group (operation, ranks, nodes) as held out (the 2nd, 4th, ...
 * in the order measured, never the last), so the fit can be checked on
 * sizes it did not see. */
void
dps_fit_mark_held_out (DpsCalData *d)
{
  GHashTable *count = g_hash_table_new (g_direct_hash, g_direct_equal);
  GHashTable *seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < d->points->len; i++) {
      DpsCalPoint *p = &g_array_index (d->points, DpsCalPoint, i);
      gpointer key = (gpointer) (gsize) dps_cal_point_group (p);
      GHashTable *h = pass == 0 ? count : seen;
      int c = GPOINTER_TO_INT (g_hash_table_lookup (h, key));
      if (pass == 1)
        p->held_out = c % 2 == 1 && c < GPOINTER_TO_INT (g_hash_table_lookup (count, key)) - 1;
      g_hash_table_insert (h, key, GINT_TO_POINTER (c + 1));
    }
  g_hash_table_unref (count);
  g_hash_table_unref (seen);
}
