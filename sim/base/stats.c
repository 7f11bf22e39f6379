/* stats.c — see stats.h. */
#include "sim/base/stats.h"

#include <math.h>
#include <stdlib.h>

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

void
dps_sort_doubles (double *v, gsize n)
{
  if (n > 1)
    qsort (v, n, sizeof (double), cmp_double);
}

double
dps_quantile (double *v, gsize n, double q)
{
  dps_sort_doubles (v, n);
  return dps_quantile_sorted (v, n, q);
}

double
dps_quantile_sorted (const double *sorted, gsize n, double q)
{
  if (n == 0)
    return 0;
  double pos = q * (double) (n - 1);
  gsize i = (gsize) floor (pos);
  if (i + 1 >= n)
    return sorted[n - 1];
  return sorted[i] + (pos - (double) i) * (sorted[i + 1] - sorted[i]);
}

double
dps_expected_max_normal (double n)
{
  if (!(n > 1))
    return 0;
  /* the last answer, kept: a simulation asks the same n at every trial */
  static _Thread_local double last_n = 0, last_v = 0;
  if (n == last_n)
    return last_v;
  /* Simpson's rule over [-9, 9]; the integrand is smooth and below 1e-15
   * outside it (down by phi(9) below, by n (1 - Phi(9)) above) */
  const int steps = 3600;
  const double a = -9, b = 9, h = (b - a) / steps;
  double sum = 0;
  for (int i = 0; i <= steps; i++) {
    double x = a + i * h;
    double cdf = 0.5 * erfc (-x / G_SQRT2);
    double f = cdf > 0 ? x * n * exp (-0.5 * x * x) / sqrt (2 * G_PI) * exp ((n - 1) * log (cdf)) : 0;
    sum += f * (i == 0 || i == steps ? 1 : i % 2 ? 4 : 2);
  }
  last_n = n;
  last_v = sum * h / 3;
  return last_v;
}

double
dps_normal_factor (GRand *rand, double cv, double floor)
{
  double u = g_rand_double_range (rand, 1e-12, 1), v = g_rand_double (rand);
  double f = 1 + cv * sqrt (-2 * log (u)) * cos (2 * G_PI * v);
  return f > floor ? f : floor;
}
