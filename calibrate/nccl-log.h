/* nccl-log — import nccl-tests all_reduce_perf output as calibration data.
 *
 * Accepts the layouts nccl-tests has printed over its versions: with or
 * without the root column, "#wrong" counts or an "error" column (0e+00),
 * N/A, MPI launchers' "[0]" or "[1,0]<stdout>:" prefixes, numbers in any
 * width; and tables as authors paste them: without the '#' before the
 * header lines, the out-of-place half alone, banners such as "NCCL
 * version" inside.  The rank count comes from the "#  Rank r ... on HOST"
 * lines (their hosts give the node count), else from the hints, else from
 * busbw / algbw = 2(n-1)/n.  A row with fewer columns than the header
 * names is a cut log and is refused; a log whose rows are whole but whose
 * "# Avg bus bandwidth" footer is missing loads, and the caller is told
 * (footer_missing; dps_nccl_log_load_warn words it).
 */
#pragma once

#include "calibrate/caldata.h"

typedef struct {
  int      ranks, hosts;       /* in: where the log has no "#  Rank" lines (0: unknown) */
  char    *test;               /* out: "Collective test starting:" name, a new string; NULL none */
  char     redop[16];          /* out: the first row's redop column ("sum", "none") */
  int      footer_missing;     /* out: the last row's line when no footer follows it (0: there is one) */
} DpsNcclLogHints;

gboolean dps_nccl_log_parse_hinted (const char *name, const char *text, gssize len, DpsNcclLogHints *hints,
                                    DpsCalData *into, GError **error);
gboolean dps_nccl_log_parse (const char *name, const char *text, gssize len, DpsCalData *into, GError **error);
gboolean dps_nccl_log_load (const char *path, DpsCalData *into, GError **error);
gboolean dps_nccl_log_load_warn (const char *path, DpsCalData *into, char **warning, GError **error);
