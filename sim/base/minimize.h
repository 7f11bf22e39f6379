/* minimize — Nelder-Mead simplex minimisation of a smooth function of a
 * few variables (the joint fits of calibration: a handful of network
 * figures against every measured point).  No derivatives; the caller
 * bounds the variables by its own parameterisation (log scale for
 * positive figures).  Deterministic: the same start gives the same answer.
 */
#pragma once

#include <glib.h>

typedef double (*DpsCostFn) (const double *x, void *data);

double dps_minimize (DpsCostFn f, void *data, double *x, int n, const double *step, int max_evals, double tol);
gboolean dps_curvature_sd (DpsCostFn f, void *data, const double *x, int n, int n_obs, double *sd);
