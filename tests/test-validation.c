/* Unit test of the validation arithmetic (sim/validation.c) on a table
 * computed by hand. */
#include "sim/validation.h"

/* Three points, by hand:
 *   N=1: measured 10 ms, predicted 11 ms (interval 10.5..11.5): error +10%,
 *        efficiencies 1 and 1, measured outside the interval;
 *   N=2: measured 12.5, predicted 12.1 (11.5..13): error -3.2%; efficiency
 *        measured 10/12.5 = 0.8, predicted 11/12.1 = 0.90909; inside;
 *   N=4: measured 20, predicted 23 (21..25): error +15%; efficiencies 0.5 and
 *        11/23 = 0.47826; outside.
 * MAPE (10 + 3.2 + 15) / 3 = 9.4%; worst 15%; 1 of 3 inside.  A failed
 * point (N=8) counts nowhere. */
static void
test_hand_table (void)
{
  DpsValidationPoint p[4] = {
    { .replicas = 1, .ok = TRUE, .meas_median_s = 10e-3, .pred_mean_s = 11e-3, .pred_p5_s = 10.5e-3, .pred_p95_s = 11.5e-3 },
    { .replicas = 2, .ok = TRUE, .meas_median_s = 12.5e-3, .pred_mean_s = 12.1e-3, .pred_p5_s = 11.5e-3, .pred_p95_s = 13e-3 },
    { .replicas = 4, .ok = TRUE, .meas_median_s = 20e-3, .pred_mean_s = 23e-3, .pred_p5_s = 21e-3, .pred_p95_s = 25e-3 },
    { .replicas = 8, .ok = FALSE },
  };
  DpsValidationScore s;
  dps_validation_score (p, 4, &s);
  g_assert_cmpfloat_with_epsilon (p[0].error_pct, 10.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (p[1].error_pct, -3.2, 1e-9);
  g_assert_cmpfloat_with_epsilon (p[2].error_pct, 15.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (p[1].meas_eff, 0.8, 1e-12);
  g_assert_cmpfloat_with_epsilon (p[1].pred_eff, 11.0 / 12.1, 1e-12);
  g_assert_cmpfloat_with_epsilon (p[2].pred_eff, 11.0 / 23.0, 1e-12);
  g_assert_false (p[0].inside);
  g_assert_true (p[1].inside);
  g_assert_false (p[2].inside);
  g_assert_cmpfloat_with_epsilon (s.mape_pct, (10 + 3.2 + 15) / 3, 1e-9);
  g_assert_cmpfloat_with_epsilon (s.worst_pct, 15.0, 1e-9);
  g_assert_cmpint (s.inside, ==, 1);
  g_assert_cmpint (s.scored, ==, 3);
}

/* Without a one-replica point the smallest count is the reference. */
static void
test_no_single (void)
{
  DpsValidationPoint p[2] = {
    { .replicas = 4, .ok = TRUE, .meas_median_s = 2, .pred_mean_s = 2, .pred_p5_s = 1, .pred_p95_s = 3 },
    { .replicas = 2, .ok = TRUE, .meas_median_s = 1, .pred_mean_s = 1, .pred_p5_s = 1, .pred_p95_s = 1 },
  };
  DpsValidationScore s;
  dps_validation_score (p, 2, &s);
  g_assert_cmpfloat (p[0].meas_eff, ==, 0.5);
  g_assert_cmpfloat (p[1].meas_eff, ==, 1.0);
  g_assert_cmpint (s.inside, ==, 2);   /* bounds are inclusive */
  g_assert_cmpfloat (s.mape_pct, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/validation/hand-table", test_hand_table);
  g_test_add_func ("/validation/no-single-replica", test_no_single);
  return g_test_run ();
}
