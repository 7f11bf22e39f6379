/* compare — the collective model against measured nccl-tests results.
 *
 * For one reference (or log): the topology that describes its hardware
 * (the file's "#% topology", or the one given), sized to the log's ranks;
 * what NCCL was allowed (the file's env); then each measured row predicted
 * as `dpscale collective` would print it.  The error of a row is that of
 * its bus bandwidth, predicted / measured - 1 (= measured time / predicted
 * time - 1): +10% means the model is 10% too fast.
 *
 * Hosts and nodes: a topology node is one NVLink domain.  A log whose hosts
 * hold fewer GPUs than a topology node (the 4-GPU trays of an NVL72 rack)
 * fills whole domains with them; hosts of more GPUs than a node are
 * refused.
 */
#pragma once

#include "calibrate/reference.h"
#include "calibrate/profile.h"
#include "sim/coll-predict.h"

typedef struct {
  double   bytes, measured_s, predicted_s, measured_busbw_GBps, predicted_busbw_GBps, error;
  DpsAlgo  algo;
  DpsProto proto;
} DpsCompareRow;

typedef struct {
  char   *path, *system, *topology;
  char   *note;          /* what the caller should say (the log's GPUs are not the topology's), or NULL */
  int     op, ranks, hosts, nodes;
  gboolean degraded;     /* the source says the system was not healthy */
  GArray *rows;          /* DpsCompareRow, by size */
} DpsCompareResult;

#define DPS_COMPARE_MIN_BYTES 65536.0   /* rows from which errors count (below, latency noise) */

gboolean dps_compare_reference (const DpsReference *ref, const char *topology, const DpsProfile *profile,
                                DpsNetMode mode, DpsCompareResult *out, GError **error);
void     dps_compare_result_clear (DpsCompareResult *r);
double   dps_compare_median_abs (const DpsCompareResult *r, double min_bytes, double *worst, double *worst_bytes);
