/* The regime search of calibrate/fit.c: O(n log n) (prefix sums, every
 * pair of cuts up to 400 sizes, a grid and its refinement beyond), it
 * fits exactly what the exhaustive search over exact errors it replaced
 * fitted (kept here, as it was, as the oracle): the same regimes, cuts,
 * latencies and bandwidths, bit for bit, on noisy logs with protocol
 * switches and repeated sizes; and 300,000 sizes, a log the old search
 * would have taken years over (cubic: 1000 sizes took 0.8 s), fit in a
 * second or so with their three regimes found. */
#include "calibrate/fit.h"

#include <math.h>
#include <string.h>

typedef DpsFitObs Obs;   /* t = x1 alpha + x2 / B */

/* --- the oracle: fit.c's search before this change (over fit.c's own
 * least squares, dps_fit_solve, which the search it replaced used too) --- */

/* Fits one level's regimes.  obs[i] belongs to message size sizes[i]. */
static void
oracle_fit_level (const Obs *obs, const double *sizes, int n, DpsFitLevel *out)
{
  memset (out, 0, sizeof *out);
  if (n == 0)
    return;
  Obs *sorted;
  double *ssz;
  dps_fit_sort_by_size (obs, sizes, n, &sorted, &ssz);
  /* candidate cuts: between distinct sizes, each regime with 2+ sizes */
  GArray *cuts = g_array_new (FALSE, FALSE, sizeof (int));
  for (int i = 1; i < n; i++)
    if (ssz[i] != ssz[i - 1])
      g_array_append_val (cuts, i);
  double best_err[DPS_FIT_MAX_REGIMES + 1];
  DpsFitLevel best[DPS_FIT_MAX_REGIMES + 1];
  for (int k = 1; k <= DPS_FIT_MAX_REGIMES; k++) {
    best_err[k] = G_MAXDOUBLE;
    int nc = (int) cuts->len;
    /* k = 1: no cut; 2: one cut c1; 3: cuts c1 < c2 */
    for (int c1 = (k >= 2 ? 0 : -1); c1 < (k >= 2 ? nc : 0); c1++)
      for (int c2 = (k == 3 ? c1 + 1 : -1); c2 < (k == 3 ? nc : 0); c2++) {
        int bounds[DPS_FIT_MAX_REGIMES + 1];
        int nb = 0;
        bounds[nb++] = 0;
        if (k >= 2)
          bounds[nb++] = g_array_index (cuts, int, c1);
        if (k == 3)
          bounds[nb++] = g_array_index (cuts, int, c2);
        bounds[nb] = n;
        gboolean ok = TRUE;
        for (int r = 0; r < k && ok; r++) {
          int lo = bounds[r], hi = bounds[r + 1];
          int distinct = 1;
          for (int i = lo + 1; i < hi; i++)
            distinct += ssz[i] != ssz[i - 1];
          ok = distinct >= 2;
        }
        if (!ok)
          continue;
        DpsFitLevel cand = { .n_regimes = k, .n_points = n };
        double err = 0;
        for (int r = 0; r < k; r++) {
          int lo = bounds[r], hi = bounds[r + 1];
          double a, b;
          err += dps_fit_solve (sorted + lo, hi - lo, &a, &b);
          cand.alpha_s[r] = a;
          cand.bw_Bps[r] = 1 / b;
          cand.max_bytes[r] = r == k - 1 ? 0 : sqrt (ssz[hi - 1] * ssz[hi]);   /* geometric midpoint */
        }
        if (err < best_err[k]) {
          best_err[k] = err;
          best[k] = cand;
        }
      }
  }
  dps_fit_choose_regimes (best_err, best, sorted, n, out);
  g_array_free (cuts, TRUE);
  g_free (sorted);
  g_free (ssz);
}


/* --- the cases --- */

static double
ring_time (int n, double alpha, double bw, double S)
{
  return 2.0 * (n - 1) * alpha + 2.0 * (n - 1) / n * S / bw;
}

/* A log of one group (8 ranks, 1 node): sizes from 8 B by factor, each
 * measured `repeat` times, three protocols (LL to 16 KiB, LL128 to 4 MiB,
 * Simple), a relative noise of sd `noise`. */
static DpsCalData *
noisy_log (GRand *r, double factor, int repeat, double noise)
{
  DpsCalData *d = dps_cal_data_new ("synthetic");
  for (double S = 8; S <= 1e9; S = ceil (S * factor))
    for (int k = 0; k < repeat; k++) {
      double t = S <= 16384 ? ring_time (8, 1.5e-6, 5e9, S) : S <= 4194304 ? ring_time (8, 4e-6, 60e9, S)
                                                                            : ring_time (8, 15e-6, 180e9, S);
      double z = sqrt (-2 * log (g_rand_double_range (r, 1e-12, 1))) * cos (2 * G_PI * g_rand_double (r));
      dps_cal_data_add (d, 8, 1, S, t * exp (noise * z), 0, 0);
    }
  return d;
}

/* the group's points as the fit sees them (one node: steps 2(n-1)) */
static int
observations (const DpsCalData *d, Obs *obs, double *sizes)
{
  int k = 0;
  for (guint i = 0; i < d->points->len; i++) {
    const DpsCalPoint *p = &g_array_index (d->points, DpsCalPoint, i);
    obs[k] = (Obs) { 2.0 * (p->ranks - 1), 2.0 * (p->ranks - 1) / p->ranks * p->bytes, p->time_s };
    sizes[k++] = p->bytes;
  }
  return k;
}

typedef struct { double factor, noise; int repeat; } Case;

static void
test_same_as_oracle (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (GRand) r = g_rand_new_with_seed (1);
  for (int trial = 0; trial < 40; trial++) {
    g_autoptr (DpsCalData) d = noisy_log (r, c->factor, c->repeat, c->noise);
    int n = (int) d->points->len;
    g_autofree Obs *obs = g_new (Obs, n);
    g_autofree double *sizes = g_new (double, n);
    observations (d, obs, sizes);
    DpsFitLevel want;
    oracle_fit_level (obs, sizes, n, &want);
    DpsFit got;
    g_assert_true (dps_fit_levels (d, &got, NULL));
    const DpsFitLevel *l = &got.group[0];
    g_assert_cmpint (l->n_regimes, ==, want.n_regimes);
    for (int k = 0; k < want.n_regimes; k++) {
      g_assert_cmpfloat (l->max_bytes[k], ==, want.max_bytes[k]);
      g_assert_cmpfloat (l->alpha_s[k], ==, want.alpha_s[k]);
      g_assert_cmpfloat (l->bw_Bps[k], ==, want.bw_Bps[k]);
    }
    g_assert_cmpfloat (l->rms_rel, ==, want.rms_rel);
  }
}

/* 300,000 sizes, 8 B apart from 8 B to 2.4 MB, two protocols (LL to 64
 * KiB, then LL128), 1% noise: fitted in a few seconds at most, the cut
 * between 64 KiB and the next size, the bandwidths within 1%. */
static void
test_many_sizes (void)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (2);
  g_autoptr (DpsCalData) d = dps_cal_data_new ("synthetic");
  for (int i = 1; i <= 300000; i++) {
    double S = 8.0 * i;
    double t = S <= 65536 ? ring_time (8, 1.5e-6, 5e9, S) : ring_time (8, 4e-6, 60e9, S);
    dps_cal_data_add (d, 8, 1, S, t * (1 + 0.01 * (g_rand_double (r) - 0.5)), 0, 0);
  }
  DpsFit f;
  gint64 t0 = g_get_monotonic_time ();
  g_assert_true (dps_fit_levels (d, &f, NULL));
  double s = (g_get_monotonic_time () - t0) / 1e6;
  g_test_message ("300000 sizes fitted in %.2f s: %d regimes, cut at %.0f B", s, f.group[0].n_regimes,
                  f.group[0].max_bytes[0]);
  g_assert_cmpfloat (s, <, 20);
  const DpsFitLevel *l = &f.group[0];
  g_assert_cmpint (l->n_regimes, >=, 2);
  g_assert_cmpfloat (fabs (l->max_bytes[0] - 65540), <, 8);
  g_assert_cmpfloat (fabs (l->bw_Bps[0] / 5e9 - 1), <, 0.01);
  g_assert_cmpfloat (fabs (l->bw_Bps[l->n_regimes - 1] / 60e9 - 1), <, 0.01);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* nccl-tests' -f 2 (31 sizes), -f 1.25 (about 120), sizes measured
   * three times over (-f 2 logs pasted together), one noiseless */
  static const Case cases[] = { { 2, 0.02, 1 }, { 1.25, 0.02, 1 }, { 2, 0.05, 3 }, { 1.1, 0.01, 1 }, { 2, 0, 1 } };
  static const char *const names[] = { "factor-2", "factor-1.25", "repeated", "factor-1.1", "noiseless" };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree char *p = g_strdup_printf ("/fit-search/same-as-oracle/%s", names[i]);
    g_test_add_data_func (p, &cases[i], test_same_as_oracle);
  }
  g_test_add_func ("/fit-search/many-sizes", test_many_sizes);
  return g_test_run ();
}
