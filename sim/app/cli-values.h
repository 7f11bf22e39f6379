/* cli-values — reading the flags' values, one way for every command: a
 * numeric flag starts unset (a sentinel no user can give), so that 0 and
 * -1 are values and are checked against the flag's range; lists are read
 * by one reader that refuses an empty list or entry; topology names are
 * resolved and NCCL_ALGO/NCCL_PROTO lists parsed before any work. */
#pragma once

#include <glib.h>
#include "sim/strategy-kind.h"
#include "sim/layout.h"

#define DPS_UNSET_INT G_MININT

/* A collective's 28 default sizes at 32768 GPUs take about 1 s on dgx-h100
 * and 2 s on NVL72 racks (each algorithm's plan run through the flow model
 * once, dps_coll_predict_cached); the largest cluster any command
 * simulates is DPS_SIM_MAX_GPUS (sim/topo.h). */
#define DPS_CLI_MAX_COLLECTIVE_GPUS 32768
/* CPU ranks (replicas) one machine runs: run, validate, calibrate */
#define DPS_CLI_MAX_MACHINE_RANKS 256

typedef enum { DPS_FORMAT_TABLE, DPS_FORMAT_CSV, DPS_FORMAT_JSON } DpsFormat;

double    dps_cli_unset (void);
gboolean  dps_cli_is_unset (double v);
/* A numeric flag's value, unset (not given) or given: fallback where
 * not given, else checked against its declared range (cli-flags.h). */
gboolean  dps_cli_int_given (const char *flag, int *v, int fallback, GError **error);
gboolean  dps_cli_double_given (const char *flag, double *v, double fallback, GError **error);
/* --strategy's text (ours or PyTorch's name) into *out; FALSE with the
 * flag's error otherwise. */
gboolean  dps_cli_strategy (const char *text, DpsStrategy *out, GError **error);
gboolean  dps_cli_format (const char *text, DpsFormat *out, GError **error);
/* --rank-order's text (sim/layout.h) into *out, Megatron's where not
 * given; FALSE with the flag's error for another name, or given without
 * a layout (with_layout: --tp or --pp given above 1) */
gboolean  dps_cli_rank_order (const char *text, gboolean with_layout, DpsRankOrder *out, GError **error);
/* A real run's --micro-batches (run, validate): only with --pp above 1,
 * 2 pp where not given, dividing the replica's batch, without
 * --grad-accum; FALSE with the flag's error otherwise. */
gboolean  dps_cli_micro_batches (int pp, int *micro, int batch, int grad_accum, GError **error);
#define DPS_CLI_RANK_ORDER_HELP "With --tp or --pp: where ranks sit, tp-dp-pp (Megatron's, default) or tp-pp-dp"
char    **dps_cli_split_list (const char *flag, const char *text, GError **error);
gboolean  dps_cli_parse_int_list (const char *flag, const char *text, gint64 min, gint64 max,
                                  GArray **out, GError **error);
gboolean  dps_cli_check_topologies (const char *const *names, GError **error);
/* --algo's help, its names from the algorithms' registry (coll.c): those
 * NCCL runs by default first, then the others.  Built once. */
const char *dps_cli_algo_help (void);
gboolean  dps_cli_parse_masks (const char *algo_list, const char *proto_list, guint *algo_mask,
                               guint *proto_mask, GError **error);

/* A value of a declared flag (cli-flags.h) read from text and checked
 * (dps_cli_flag_check): "FLAG: 'T' is not a number ...". */
gboolean  dps_cli_range_parse (const char *flag, const char *text, double *v, GError **error);
/* --steps (min_steps to 100000) and --warmup (0 to --steps - 1), as run
 * and validate time them: "--steps: 0 is out of range (1 to 100000)". */
gboolean  dps_cli_steps (int steps, int min_steps, int warmup, GError **error);
