/* stats — sorting and quantiles of samples (step times, repeated timings),
 * the expected maximum of normal samples (the slowest of N replicas), and
 * random factors of a given spread. */
#pragma once

#include <glib.h>

/* Sorts n doubles in ascending order. */
void   dps_sort_doubles (double *v, gsize n);

/* The q-quantile (0 <= q <= 1) of n ascending samples, interpolating
 * linearly between the closest ranks: position q * (n - 1).  0 when n == 0. */
double dps_quantile_sorted (const double *sorted, gsize n, double q);

/* The same of n samples in any order (sorted in place first). */
double dps_quantile (double *v, gsize n, double q);

/* The expected maximum of n independent standard normal samples (n need
 * not be whole): 0 for n <= 1, 0.5642 (1/sqrt(pi)) for 2, 1.4236 for 8,
 * 2.8269 for 256, 3.2482 for 1024 (Harter's 1961 tables of normal order
 * statistics agree to 1e-5).  Integrates x n phi(x) Phi(x)^(n-1) by
 * Simpson's rule over [-9, 9]: 3601 points, about 0.1 ms (the last n's
 * answer is kept, per thread: asked again, at once). */
double dps_expected_max_normal (double n);

/* A random factor 1 + cv z, z standard normal (Box-Muller on two draws of
 * rand), never below floor: a replica's speed or a step's jitter.  Draws
 * twice whatever cv is, so that a run's sequence does not depend on it. */
double dps_normal_factor (GRand *rand, double cv, double floor);
