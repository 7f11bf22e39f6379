/* Unit tests of the Nelder-Mead minimiser and the curvature standard
 * deviations (sim/base/minimize.c). */
#include "sim/base/minimize.h"

#include <math.h>

static double
quadratic (const double *x, void *data)
{
  /* minimum 0 at (3, -2): the simplex must find it from (0, 0) */
  return (x[0] - 3) * (x[0] - 3) + 10 * (x[1] + 2) * (x[1] + 2);
}

static void
test_quadratic (void)
{
  double x[2] = { 0, 0 }, step[2] = { 1, 1 };
  double v = dps_minimize (quadratic, NULL, x, 2, step, 2000, 1e-14);
  g_assert_cmpfloat_with_epsilon (x[0], 3, 1e-4);
  g_assert_cmpfloat_with_epsilon (x[1], -2, 1e-4);
  g_assert_cmpfloat (v, <, 1e-8);
}

static double
rosenbrock (const double *x, void *data)
{
  return 100 * pow (x[1] - x[0] * x[0], 2) + pow (1 - x[0], 2);
}

static void
test_rosenbrock (void)
{
  /* the curved valley: minimum at (1, 1) */
  double x[2] = { -1.2, 1 }, step[2] = { 0.5, 0.5 };
  dps_minimize (rosenbrock, NULL, x, 2, step, 5000, 1e-16);
  g_assert_cmpfloat_with_epsilon (x[0], 1, 1e-3);
  g_assert_cmpfloat_with_epsilon (x[1], 1, 2e-3);
}

/* y = a + b t with residuals of known size: the least-squares line's
 * standard errors are the textbook ones, s sqrt(1/n + tbar^2/Stt) for a and
 * s / sqrt(Stt) for b. */
static const double ts[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
static const double ys[] = { 1.1, 2.9, 5.2, 6.8, 9.1, 11.0, 12.8, 15.2 };

static double
line_cost (const double *x, void *data)
{
  double s = 0;
  for (int i = 0; i < 8; i++)
    s += pow (ys[i] - x[0] - x[1] * ts[i], 2);
  return s;
}

static void
test_line_sd (void)
{
  double x[2] = { 0, 0 }, step[2] = { 1, 1 }, sd[2];
  double sse = dps_minimize (line_cost, NULL, x, 2, step, 4000, 1e-15);
  double tbar = 3.5, stt = 0, sty = 0, ybar = 0;
  for (int i = 0; i < 8; i++)
    ybar += ys[i] / 8;
  for (int i = 0; i < 8; i++) {
    stt += (ts[i] - tbar) * (ts[i] - tbar);
    sty += (ts[i] - tbar) * (ys[i] - ybar);
  }
  double b = sty / stt, a = ybar - b * tbar;
  g_assert_cmpfloat_with_epsilon (x[0], a, 1e-4);
  g_assert_cmpfloat_with_epsilon (x[1], b, 1e-5);
  g_assert_true (dps_curvature_sd (line_cost, NULL, x, 2, 8, sd));
  double s = sqrt (sse / 6);
  g_assert_cmpfloat_with_epsilon (sd[1], s / sqrt (stt), 1e-3 * sd[1]);
  g_assert_cmpfloat_with_epsilon (sd[0], s * sqrt (1.0 / 8 + tbar * tbar / stt), 1e-3 * sd[0]);
}

static double
flat_in_y (const double *x, void *data)
{
  return (x[0] - 1) * (x[0] - 1);   /* x[1] does not matter: undetermined */
}

static void
test_undetermined (void)
{
  double x[2] = { 1, 5 }, sd[2];
  g_assert_false (dps_curvature_sd (flat_in_y, NULL, x, 2, 10, sd));
  g_assert_true (isinf (sd[1]));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/minimize/quadratic", test_quadratic);
  g_test_add_func ("/minimize/rosenbrock", test_rosenbrock);
  g_test_add_func ("/minimize/line-standard-errors", test_line_sd);
  g_test_add_func ("/minimize/undetermined", test_undetermined);
  return g_test_run ();
}
