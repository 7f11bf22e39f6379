/* nccl-log — import nccl-tests output (all_reduce_perf, all_gather_perf,
 * reduce_scatter_perf) as calibration data.
 *
 * Accepts the layouts nccl-tests has printed over its versions: with or
 * without the root column, "#wrong" counts or an "error" column (0e+00),
 * N/A, numbers in any width, lines behind launchers' and collectors'
 * prefixes (MPI's "[0]" or "[1,0]<stdout>:", Slurm's `srun --label`
 * "0: ", an RFC 3339 time stamp as `kubectl logs --timestamps` gives);
 * and tables as authors paste them: without the '#' before the header
 * lines, the out-of-place half alone, banners such as "NCCL version"
 * inside.  The rank count comes from the "#  Rank r ... on HOST"
 * lines (their hosts give the node count), else from the hints, else from
 * busbw / algbw = 2(n-1)/n.  A row with fewer columns than the header
 * names is a cut log and is refused; a log whose rows are whole but whose
 * "# Avg bus bandwidth" footer is missing loads, and the caller is told
 * (footer_missing; dps_nccl_log_load_warn words it).  A log of several
 * runs (all_reduce_perf, then all_gather_perf, each with its Rank lines)
 * is read one table at a time: where a run's first lines ("# nccl-tests
 * version", "# Collective test starting", "# nThread", "# Using devices",
 * Rank lines, a header) follow a table's rows, that table ends and
 * next_line says where the next starts; dps_nccl_log_op tells each
 * table's operation, and dps_nccl_log_load_warn keeps the tables of the
 * operations calibration fits (DPS_CAL_OPS), each point marked with its
 * operation, saying which it left out.  A row with a
 * non-zero #wrong count, and a row that repeats an earlier one (the same
 * size, type, operation and root), are left out and counted in the hints.
 * A published reference's header (tests/reference/README.md) gives the
 * counts where its Rank lines were not all pasted: '#% ranks:', '#%
 * nodes:', '#% gpus_per_node:' (dps_nccl_log_header_counts; the loaders
 * of both `calibrate --import` and `collective --compare` read them), and
 * the topology it was run on, '#% topology:' (dps_nccl_log_file_topology,
 * which `calibrate --import` takes without --topology); that header's
 * reader is nccl-log-header.c.
 */
#pragma once

#include "calibrate/caldata.h"
#include "sim/coll-types.h"

typedef struct {
  int      ranks, hosts;       /* in: where the log has no "#  Rank" lines (0: unknown) */
  int      start_line;         /* in: the line (from 0) where the table to read starts its run: 0,
                                * or a next_line */
  int      next_line;          /* out: the line (from 0) where another run of the test begins
                                * after this table (a log of several tables); 0: none */
  gboolean no_table;           /* out: the run from start_line (> 0) has no table after it, as when it
                                * died first: the parse returns FALSE without an error */
  double   ratio, ratio_algbw; /* out: busbw / algbw of the row of the largest algbw (0: none), that algbw (GB/s) */
  char    *test;               /* out: "Collective test starting:" name, a new string; NULL none */
  char    *device;             /* out: the first Rank line's device ("NVIDIA H100 80GB HBM3"), a new string; NULL none */
  char     redop[16];          /* out: the first row's redop column ("sum", "none") */
  int      footer_missing;     /* out: the last row's line when no footer follows it (0: there is one) */
  int      wrong_rows, wrong_line;           /* out: rows left out for a non-zero #wrong, the first's line */
  int      zero_rows, zero_line;             /* out: rows of size 0 or time 0 left out, the first's line */
  int      repeat_rows, repeat_line, repeat_of;   /* out: rows left out as repeats, the first's line and its original's */
} DpsNcclLogHints;

typedef gboolean (*DpsNcclLogHeaderFn) (int line, const char *key, const char *value, gpointer data, GError **error);
gboolean dps_nccl_log_header_foreach (const char *text, gsize len, DpsNcclLogHeaderFn fn, gpointer data,
                                      GError **error);
gboolean dps_nccl_log_header_counts (const char *name, const char *text, gsize len, DpsNcclLogHints *hints,
                                     GError **error);
gboolean dps_nccl_log_file_topology (const char *path, char **topology, GError **error);
gboolean dps_nccl_log_parse_hinted (const char *name, const char *text, gssize len, DpsNcclLogHints *hints,
                                    DpsCalData *into, GError **error);
gboolean dps_nccl_log_parse (const char *name, const char *text, gssize len, DpsCalData *into, GError **error);
int       dps_nccl_test_op (const char *test);
DpsCollOp dps_nccl_log_op (const DpsNcclLogHints *hints, int ranks);
gboolean dps_nccl_log_load (const char *path, DpsCalData *into, GError **error);
gboolean dps_nccl_log_load_warn (const char *path, DpsCalData *into, char **device, char **warning,
                                 GError **error);
