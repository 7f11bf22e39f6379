/* cli-values — reading the flags' values, one way for every command: a
 * numeric flag starts unset (a sentinel no user can give), so that 0 and
 * -1 are values and are checked against the flag's range; lists are read
 * by one reader that refuses an empty list or entry; topology names are
 * resolved and NCCL_ALGO/NCCL_PROTO lists parsed before any work. */
#pragma once

#include <glib.h>
#include "sim/strategy-kind.h"

#define DPS_UNSET_INT G_MININT

typedef enum { DPS_FORMAT_TABLE, DPS_FORMAT_CSV, DPS_FORMAT_JSON } DpsFormat;

double    dps_cli_unset (void);
gboolean  dps_cli_is_unset (double v);
gboolean  dps_cli_int_given (const char *flag, int *v, int lo, int hi, int fallback, GError **error);
gboolean  dps_cli_double_given (const char *flag, double *v, double lo, gboolean lo_closed, double hi,
                                double fallback, GError **error);
/* --strategy's text (ours or PyTorch's name) into *out; FALSE with the
 * flag's error otherwise. */
gboolean  dps_cli_strategy (const char *text, DpsStrategy *out, GError **error);
gboolean  dps_cli_format (const char *text, DpsFormat *out, GError **error);
char    **dps_cli_split_list (const char *flag, const char *text, GError **error);
gboolean  dps_cli_parse_int_list (const char *flag, const char *text, gint64 min, gint64 max,
                                  GArray **out, GError **error);
gboolean  dps_cli_check_topologies (const char *const *names, GError **error);
/* --algo's help, its names from the algorithms' registry (coll.c): those
 * NCCL runs by default first, then the others.  Built once. */
const char *dps_cli_algo_help (void);
gboolean  dps_cli_parse_masks (const char *algo_list, const char *proto_list, guint *algo_mask,
                               guint *proto_mask, GError **error);

/* The range of a flag that several commands take, one declaration each
 * (cli-values.c): --batch, --bucket-cap-mb, --first-bucket-mb,
 * --grad-accum, --jitter, --link-gbps, --timeout.  dps_cli_in_range checks
 * a value ("FLAG: V is out of range (more than 0, at most 1e+06)"),
 * dps_cli_range_parse reads and checks one from text ("FLAG: 'T' is not a
 * number ..."); both fail loudly (g_return) for a flag not in the table. */
gboolean  dps_cli_in_range (const char *flag, double v, GError **error);
gboolean  dps_cli_range_parse (const char *flag, const char *text, double *v, GError **error);
/* As dps_cli_in_range for a flag that starts unset (dps_cli_unset): not given, fallback. */
gboolean  dps_cli_range_given (const char *flag, double *v, double fallback, GError **error);
/* --steps (min_steps to 100000) and --warmup (0 to --steps - 1), as run
 * and validate time them: "--steps: 0 is out of range (1 to 100000)". */
gboolean  dps_cli_steps (int steps, int min_steps, int warmup, GError **error);
