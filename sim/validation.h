/* validation — predicted against measured step times: the error table.
 *
 * For each replica count: the measured median (with p10 and p90 over
 * steps) and the predicted mean (with the 5th and 95th percentile over
 * Monte Carlo trials).  Error = (predicted mean - measured median) /
 * measured median.  Scaling efficiency (weak scaling) = T(1) / T(N), each
 * side against its own one-replica time; without a one-replica point, the
 * smallest count stands in for it (T(n0) n0-relative).  Then the mean
 * absolute percentage error, the worst error, and how many measured medians
 * fall inside the predicted interval. */
#pragma once

#include <glib.h>

typedef struct {
  int    replicas;
  gboolean ok;                       /* the point ran and was predicted */
  double meas_median_s, meas_p10_s, meas_p90_s;
  double pred_mean_s, pred_p5_s, pred_p95_s;
  /* filled by dps_validation_score */
  double meas_eff, pred_eff, error_pct;
  gboolean inside;
} DpsValidationPoint;

typedef struct {
  double mape_pct, worst_pct;
  int    inside, scored;
} DpsValidationScore;

void dps_validation_score (DpsValidationPoint *points, int n, DpsValidationScore *out);
