/* advise-sizes — `dpscale advise --gpus A,B,...`: the fastest plan that
 * fits at each cluster size, one global batch held, and its report with
 * the fastest and the cheapest marked. */
#pragma once

#include "sim/app/advise-search.h"
#include "sim/app/cli-ddp.h"

/* The fastest plan that fits at one cluster size. */
typedef struct {
  int       gpus;
  gboolean  found;
  DpsAdviseCandidate best;
  int       tried, fit;
} DpsAdviseSizeBest;

/* For each GPU count of sizes, the plans at the global batch of pristine's
 * options (each on a topology of that size), the fastest that fits kept:
 * a new array of DpsAdviseSizeBest, NULL-free (error set where a size
 * could not be set up). */
GArray *dps_advise_search_sizes (const DpsDdpOpts *o, const DpsDdpConfig *pristine, double global_batch,
                                 const DpsProfile *profile, DpsModel *model, const GArray *sizes, GError **error);
/* The fastest and the cheapest (per sample) of the sizes' best plans:
 * indices into sizes, -1 when none fits. */
void    dps_advise_fastest_cheapest (const GArray *sizes, int *fastest, int *cheapest);
/* The sizes' table (or CSV, JSON): each size's fastest plan, the fastest
 * and the cheapest marked, and what the one costs against the other. */
void    dps_advise_report_sizes (GString *out, DpsFormat format, const DpsModel *model, const DpsDdpConfig *base,
                                 double global_batch, const GArray *sizes);
