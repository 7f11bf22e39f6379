/* fit — what the simulator needs, fitted to measured all-reduce times.
 *
 * The measured times of each group (a rank count on a node count) are
 * described as a ring all-reduce with a per-step latency alpha and a
 * per-rank bandwidth B, as NCCL's own model does:
 *   t(n, S) = 2(n-1) alpha + 2(n-1)/n S / B        (n ranks on one node)
 * and across m nodes the network's terms:
 *   t = 2(n-m) alpha_intra + 2(m-1) alpha + 2(n-1)/n S / B
 * (alpha_intra from the largest single-node group, when measured).
 * Libraries switch protocol or algorithm with the size (NCCL's LL, LL128,
 * Simple; MPI's recursive doubling, then ring), so the sizes are cut into up
 * to three regimes, each with its own alpha and B, the cuts placed where
 * they fit best (as SimGrid fits piecewise factors).  Each rank count gets
 * its own fit, because what a rank gets of the machine changes with their
 * number (cores shared when oversubscribed, NVLink versus NVSwitch); a count
 * that was not measured takes the fit of the nearest one that was, with its
 * own n in the formula.  A correction factor per fitted size (measured over
 * model, interpolated in log size) then takes in what straight lines miss:
 * caches, eager and rendezvous switches.  The least-squares fit minimises relative error, so
 * small and large messages count alike.  Points marked held_out are left out
 * of the fit and only checked.  Only all-reduces are fitted here: the rings
 * fitted (alpha, B) then time an all-gather or reduce-scatter with the
 * ring's own n-1 steps; measured ones are fitted in the network fit
 * (netfit.h) and check these.
 */
#pragma once

#include "calibrate/caldata.h"

#define DPS_FIT_MAX_REGIMES 3
#define DPS_FIT_MAX_GROUPS 64
#define DPS_FIT_MAX_CORR 64
/* the bandwidth of a regime whose time does not grow with size (latency
 * only): 100 TB/s, too large to matter, within what a profile may hold */
#define DPS_FIT_UNBOUNDED_BPS 1e14

typedef struct {
  int    ranks, nodes;                     /* the group measured */
  int    n_regimes;
  double max_bytes[DPS_FIT_MAX_REGIMES];   /* upper bound of each regime; the last is unbounded (0) */
  double alpha_s[DPS_FIT_MAX_REGIMES];
  double bw_Bps[DPS_FIT_MAX_REGIMES];
  double rms_rel;                          /* over the fitted points, before correction */
  int    n_points;
  /* what the regimes' straight lines miss, as SimGrid's piecewise factors:
   * measured / model at each fitted size, interpolated in log size between
   * them (constant beyond the ends) */
  int    n_corr;
  double corr_bytes[DPS_FIT_MAX_CORR], corr_factor[DPS_FIT_MAX_CORR];
} DpsFitLevel;

typedef struct {
  int         n_groups;
  DpsFitLevel group[DPS_FIT_MAX_GROUPS];
} DpsFit;

/* One measured point of a regime's straight line: time t = x1 alpha +
 * x2 / B (x1 the latency steps, x2 the bytes each rank moves). */
typedef struct { double x1, x2, t; } DpsFitObs;
/* The weighted least squares every regime is fitted with: t = x1 a + x2 b
 * with weights 1/t^2, a >= 0, b > 0 (where both cannot hold, the better of
 * latency alone and bandwidth alone).  Returns the sum of squared
 * relative errors. */
double   dps_fit_solve (const DpsFitObs *o, int n, double *alpha, double *beta);
/* Of best[1..DPS_FIT_MAX_REGIMES] (the best fit of each count of regimes,
 * its error in best_err, G_MAXDOUBLE where none) the one a level keeps:
 * the fewest regimes within 10% (and 0.1% RMS) of the best; where no
 * count had a fit (a single size measured), one regime through sorted's
 * n points.  Fills out, its rms_rel too. */
/* obs and their sizes in size order (a stable sort: equal sizes keep
 * their order), into new arrays *sorted and *ssz (g_free both). */
void     dps_fit_sort_by_size (const DpsFitObs *obs, const double *sizes, int n, DpsFitObs **sorted, double **ssz);
void     dps_fit_choose_regimes (double *best_err, DpsFitLevel *best, const DpsFitObs *sorted, int n,
                                 DpsFitLevel *out);
gboolean dps_fit_levels (const DpsCalData *d, DpsFit *out, GError **error);
const DpsFitLevel *dps_fit_nearest (const DpsFit *f, int ranks, gboolean multi_node);
/* The rank count of candidate i of data, or -1 when i is not a candidate. */
typedef int (*DpsRanksOf) (const void *data, guint i);
int      dps_fit_nearest_index (const void *data, guint n, DpsRanksOf ranks_of, int ranks);
double   dps_fit_intra_alpha (const DpsFit *f, double bytes);
double   dps_fit_predict (const DpsFit *f, int ranks, int nodes, double bytes);
/* A measured group's own shape on top of a model: at each size of op it
 * measured at ranks on nodes (held-out sizes left out, so that they still
 * test the fit), the measured time over model's (several of one size: the
 * geometric mean), the DPS_COLL_MAX_CORR smallest sizes in increasing
 * order, into out (out->n = 0: none measured, or model cannot time one).
 * Linear in the points but for sorting the sizes (a log of 300,000 sizes
 * took minutes each time its profile was applied when each size was
 * searched for). */
void     dps_fit_correction (const DpsCalData *d, DpsCollOp op, int ranks, int nodes,
                             double (*model) (double bytes, void *data), void *data, DpsCollCorr *out);
/* op's own correction (dps_fit_correction) where group l measured it,
 * against l's rings: an all-gather's or reduce-scatter's ring takes n-1
 * steps of (n-1)/n of its S bytes, half an all-reduce's 2(n-1) steps and
 * 2(n-1)/n S, so half its time at every size and regime. */
void     dps_fit_op_correction (const DpsFit *f, const DpsFitLevel *l, const DpsCalData *d, DpsCollOp op,
                                DpsCollCorr *out);
/* Group l's correction tables into corr (DPS_OP_COUNT of them, by
 * operation): its all-reduce's own, and for each other operation in ops
 * (1 << DpsCollOp) its correction where d measured it (dps_fit_op_correction). */
void     dps_fit_level_corrections (const DpsFit *f, const DpsFitLevel *l, const DpsCalData *d, guint ops,
                                    DpsCollCorr *corr);
/* dps_fit_predict of op, with its own correction where d measured it in
 * the nearest group (d NULL: the all-reduce's). */
double   dps_fit_predict_op (const DpsFit *f, const DpsCalData *d, DpsCollOp op, int ranks, int nodes,
                             double bytes);
int      dps_fit_regime (const DpsFitLevel *l, double bytes);
void     dps_fit_mark_held_out (DpsCalData *d);
