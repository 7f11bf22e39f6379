/* validation.c — see validation.h. */
#include "sim/validation.h"

#include <math.h>

/* Fills each ok point's error, efficiencies and inside flag, and the
 * summary.  Points not ok are left out of everything. */
void
dps_validation_score (DpsValidationPoint *p, int n, DpsValidationScore *out)
{
  *out = (DpsValidationScore) { 0 };
  const DpsValidationPoint *base = NULL;
  for (int i = 0; i < n; i++)
    if (p[i].ok && (!base || p[i].replicas < base->replicas))
      base = &p[i];
  double sum = 0;
  for (int i = 0; i < n; i++) {
    if (!p[i].ok)
      continue;
    p[i].error_pct = (p[i].pred_mean_s - p[i].meas_median_s) / p[i].meas_median_s * 100;
    p[i].meas_eff = base->meas_median_s / p[i].meas_median_s;
    p[i].pred_eff = base->pred_mean_s / p[i].pred_mean_s;
    p[i].inside = p[i].meas_median_s >= p[i].pred_p5_s && p[i].meas_median_s <= p[i].pred_p95_s;
    sum += fabs (p[i].error_pct);
    out->worst_pct = MAX (out->worst_pct, fabs (p[i].error_pct));
    out->inside += p[i].inside;
    out->scored++;
  }
  out->mape_pct = out->scored ? sum / out->scored : 0;
}
