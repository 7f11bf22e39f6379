/* Unit tests of sorting and quantiles (sim/base/stats.c). */
#include "sim/base/stats.h"

#include <math.h>

/* Sorting puts {3, -1, 2, 2, 0.5} in order -1, 0.5, 2, 2, 3. */
static void
test_sort (void)
{
  double v[] = { 3, -1, 2, 2, 0.5 };
  const double want[] = { -1, 0.5, 2, 2, 3 };
  dps_sort_doubles (v, G_N_ELEMENTS (v));
  for (gsize i = 0; i < G_N_ELEMENTS (v); i++)
    g_assert_cmpfloat (v[i], ==, want[i]);
}

/* By hand, over {10, 20, 30, 40} (n - 1 = 3): q = 0.5 stands at 1.5, half
 * way from 20 to 30 = 25; q = 0.1 at 0.3 = 10 + 0.3 * 10 = 13; q = 0 and
 * q = 1 are the ends; one sample is every quantile; no samples give 0. */
static void
test_quantile (void)
{
  const double v[] = { 10, 20, 30, 40 };
  g_assert_cmpfloat_with_epsilon (dps_quantile_sorted (v, 4, 0.5), 25, 1e-12);
  g_assert_cmpfloat_with_epsilon (dps_quantile_sorted (v, 4, 0.1), 13, 1e-12);
  g_assert_cmpfloat (dps_quantile_sorted (v, 4, 0), ==, 10);
  g_assert_cmpfloat (dps_quantile_sorted (v, 4, 1), ==, 40);
  g_assert_cmpfloat (dps_quantile_sorted (v + 2, 1, 0.9), ==, 30);
  g_assert_cmpfloat (dps_quantile_sorted (v, 0, 0.5), ==, 0);
  /* in any order: the same 25, once sorted in place */
  double u[] = { 40, 10, 30, 20 };
  g_assert_cmpfloat_with_epsilon (dps_quantile (u, 4, 0.5), 25, 1e-12);
  g_assert_cmpfloat (u[0], ==, 10);
  g_assert_cmpfloat (dps_quantile (u, 0, 0.5), ==, 0);
}

/* The expected maximum of n standard normals against the tables of normal
 * order statistics (Harter 1961; 2 is 1/sqrt(pi) exactly): 0.56419 (2),
 * 1.53875 (10), 2.50759 (100), 3.24144 (1000); 0 for one sample or none,
 * and growing with n, about sqrt(2 ln n) at large n. */
static void
test_expected_max_normal (void)
{
  g_assert_cmpfloat (dps_expected_max_normal (1), ==, 0);
  g_assert_cmpfloat (dps_expected_max_normal (0), ==, 0);
  g_assert_cmpfloat_with_epsilon (dps_expected_max_normal (2), 1 / sqrt (G_PI), 1e-6);
  g_assert_cmpfloat_with_epsilon (dps_expected_max_normal (10), 1.53875, 1e-5);
  g_assert_cmpfloat_with_epsilon (dps_expected_max_normal (100), 2.50759, 1e-5);
  g_assert_cmpfloat_with_epsilon (dps_expected_max_normal (1000), 3.24144, 1e-5);
  g_assert_cmpfloat (dps_expected_max_normal (1e6), >, dps_expected_max_normal (1000));
  g_assert_cmpfloat (dps_expected_max_normal (1e6), <, sqrt (2 * log (1e6)));
}

/* dps_normal_factor: never below its floor, even with a spread that puts
 * half the draws below it (cv 2: 1 + 2z < 0.2 whenever z < -0.4, 34% of
 * normal draws); with a small spread, mean 1 and standard deviation cv
 * (20000 draws: the sample mean within 4 standard errors, 0.0028). */
static void
test_normal_factor (void)
{
  GRand *rand = g_rand_new_with_seed (7);
  int floored = 0;
  for (int i = 0; i < 20000; i++) {
    double f = dps_normal_factor (rand, 2, 0.2);
    g_assert_cmpfloat (f, >=, 0.2);
    floored += f == 0.2;
  }
  g_assert_cmpint (floored, >, 20000 * 0.30);
  g_assert_cmpint (floored, <, 20000 * 0.38);
  double sum = 0, sum2 = 0;
  for (int i = 0; i < 20000; i++) {
    double f = dps_normal_factor (rand, 0.1, 0.05);
    sum += f;
    sum2 += f * f;
  }
  double mean = sum / 20000, sd = sqrt (sum2 / 20000 - mean * mean);
  g_assert_cmpfloat_with_epsilon (mean, 1, 0.0028);
  g_assert_cmpfloat_with_epsilon (sd, 0.1, 0.003);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stats/sort", test_sort);
  g_test_add_func ("/stats/quantile", test_quantile);
  g_test_add_func ("/stats/expected-max-normal", test_expected_max_normal);
  g_test_add_func ("/stats/normal-factor", test_normal_factor);
  return g_test_run ();
}
