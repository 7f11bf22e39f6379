/* minimize.c — see minimize.h. */
#include "sim/base/minimize.h"

#include <math.h>
#include <string.h>

#define NMAX 16

/* Minimises f from x (n <= 16 variables, first simplex x + step[i] e_i);
 * x receives the best point found.  Stops after max_evals evaluations or
 * when the simplex's values differ by less than tol.  Returns f(x). */
double
dps_minimize (DpsCostFn f, void *data, double *x, int n, const double *step, int max_evals, double tol)
{
  g_return_val_if_fail (n >= 1 && n <= NMAX, NAN);
  double p[NMAX + 1][NMAX], y[NMAX + 1];
  for (int i = 0; i <= n; i++) {
    memcpy (p[i], x, sizeof (double) * (gsize) n);
    if (i > 0)
      p[i][i - 1] += step[i - 1];
    y[i] = f (p[i], data);
  }
  int evals = n + 1;
  while (evals < max_evals) {
    int lo = 0, hi = 0, nh = 0;
    for (int i = 0; i <= n; i++) {
      if (y[i] < y[lo])
        lo = i;
      if (y[i] > y[hi])
        hi = i;
    }
    nh = lo;
    for (int i = 0; i <= n; i++)
      if (i != hi && y[i] > y[nh])
        nh = i;
    if (fabs (y[hi] - y[lo]) <= tol * (fabs (y[lo]) + 1e-30))
      break;
    double c[NMAX] = { 0 }, r[NMAX], e[NMAX];
    for (int i = 0; i <= n; i++)
      if (i != hi)
        for (int j = 0; j < n; j++)
          c[j] += p[i][j] / n;
    for (int j = 0; j < n; j++)
      r[j] = c[j] + (c[j] - p[hi][j]);
    double yr = f (r, data);
    evals++;
    if (yr < y[lo]) {
      for (int j = 0; j < n; j++)
        e[j] = c[j] + 2 * (c[j] - p[hi][j]);
      double ye = f (e, data);
      evals++;
      if (ye < yr) {
        memcpy (p[hi], e, sizeof (double) * (gsize) n);
        y[hi] = ye;
      } else {
        memcpy (p[hi], r, sizeof (double) * (gsize) n);
        y[hi] = yr;
      }
    } else if (yr < y[nh]) {
      memcpy (p[hi], r, sizeof (double) * (gsize) n);
      y[hi] = yr;
    } else {
      /* contract toward the better of the worst point and its reflection */
      double *from = yr < y[hi] ? r : p[hi];
      for (int j = 0; j < n; j++)
        e[j] = c[j] + 0.5 * (from[j] - c[j]);
      double yc = f (e, data);
      evals++;
      if (yc < MIN (yr, y[hi])) {
        memcpy (p[hi], e, sizeof (double) * (gsize) n);
        y[hi] = yc;
      } else {
        for (int i = 0; i <= n; i++)
          if (i != lo) {
            for (int j = 0; j < n; j++)
              p[i][j] = p[lo][j] + 0.5 * (p[i][j] - p[lo][j]);
            y[i] = f (p[i], data);
            evals++;
          }
      }
    }
  }
  int lo = 0;
  for (int i = 1; i <= n; i++)
    if (y[i] < y[lo])
      lo = i;
  memcpy (x, p[lo], sizeof (double) * (gsize) n);
  return y[lo];
}

/* Standard deviations of the variables at a least-squares minimum x of f
 * (f: the sum of n_obs squared residuals): s^2 (H/2)^-1 with the Hessian H
 * from central differences and s^2 = f / (n_obs - n).  FALSE when there are
 * too few observations or H is not positive definite (a variable the data
 * do not determine); sd[i] is then HUGE_VAL for the undetermined ones. */
gboolean
dps_curvature_sd (DpsCostFn f, void *data, const double *x, int n, int n_obs, double *sd)
{
  g_return_val_if_fail (n >= 1 && n <= NMAX, FALSE);
  for (int i = 0; i < n; i++)
    sd[i] = HUGE_VAL;
  if (n_obs <= n)
    return FALSE;
  double h[NMAX], a[NMAX][2 * NMAX], xx[NMAX];
  double f0 = f (x, data);
  for (int i = 0; i < n; i++)
    h[i] = 1e-3 * MAX (fabs (x[i]), 1e-2);
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++) {
      double v[4];
      for (int k = 0; k < 4; k++) {
        memcpy (xx, x, sizeof (double) * (gsize) n);
        xx[i] += (k & 1 ? -1 : 1) * h[i];
        xx[j] += (k & 2 ? -1 : 1) * h[j];
        v[k] = f (xx, data);
      }
      double hij = (v[0] - v[1] - v[2] + v[3]) / (4 * h[i] * h[j]);
      a[i][j] = a[j][i] = hij / 2;
    }
  /* invert (H/2) by Gauss-Jordan with partial pivoting */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      a[i][n + j] = i == j;
  for (int c = 0; c < n; c++) {
    int piv = c;
    for (int r = c + 1; r < n; r++)
      if (fabs (a[r][c]) > fabs (a[piv][c]))
        piv = r;
    if (!(fabs (a[piv][c]) > 1e-300))
      return FALSE;
    for (int k = 0; k < 2 * n; k++) {
      double t = a[c][k];
      a[c][k] = a[piv][k];
      a[piv][k] = t;
    }
    double d = a[c][c];
    for (int k = 0; k < 2 * n; k++)
      a[c][k] /= d;
    for (int r = 0; r < n; r++)
      if (r != c) {
        double m = a[r][c];
        for (int k = 0; k < 2 * n; k++)
          a[r][k] -= m * a[c][k];
      }
  }
  double s2 = f0 / (n_obs - n);
  gboolean ok = TRUE;
  for (int i = 0; i < n; i++) {
    if (a[i][n + i] > 0)
      sd[i] = sqrt (s2 * a[i][n + i]);
    else
      ok = FALSE;
  }
  return ok;
}
