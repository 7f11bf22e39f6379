/* nccl-log — import nccl-tests all_reduce_perf output as calibration data.
 *
 * Accepts every variant listed in shared/reference/nccl.md: with or without
 * the root column, "#wrong" counts or an "error" column (0e+00), N/A, MPI
 * launchers' "[0]" or "[1,0]<stdout>:" prefixes, numbers in any width.  The
 * rank count comes from the "#  Rank r ... on HOST" lines (their hosts give
 * the node count), else from busbw / algbw = 2(n-1)/n.  A log without the
 * "# Avg bus bandwidth" footer was cut short and is refused.
 */
#pragma once

#include "calibrate/caldata.h"

gboolean dps_nccl_log_parse (const char *name, const char *text, gssize len, DpsCalData *into, GError **error);
gboolean dps_nccl_log_load (const char *path, DpsCalData *into, GError **error);
