/* stats — sorting and quantiles of samples (step times, repeated timings). */
#pragma once

#include <glib.h>

/* Sorts n doubles in ascending order. */
void   dps_sort_doubles (double *v, gsize n);

/* The q-quantile (0 <= q <= 1) of n ascending samples, interpolating
 * linearly between the closest ranks: position q * (n - 1).  0 when n == 0. */
double dps_quantile_sorted (const double *sorted, gsize n, double q);

/* The same of n samples in any order (sorted in place first). */
double dps_quantile (double *v, gsize n, double q);
