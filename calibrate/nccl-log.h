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

typedef struct {
  int      ranks, hosts;       /* in: where the log has no "#  Rank" lines (0: unknown) */
  gboolean footer_optional;    /* in: a table without its footer is whole (a pasted table) */
  char    *test;               /* out: "Collective test starting:" name, a new string; NULL none */
  char     redop[16];          /* out: the first row's redop column ("sum", "none") */
} DpsNcclLogHints;

gboolean dps_nccl_log_parse_hinted (const char *name, const char *text, gssize len, DpsNcclLogHints *hints,
                                    DpsCalData *into, GError **error);
gboolean dps_nccl_log_parse (const char *name, const char *text, gssize len, DpsCalData *into, GError **error);
gboolean dps_nccl_log_load (const char *path, DpsCalData *into, GError **error);
