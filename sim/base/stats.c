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
