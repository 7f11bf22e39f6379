/* cli-util — what every subcommand shares: option parsing with one-line
 * errors, the topology options, and writing results whole or not at all.
 * The flags' values are read by cli-values.h. */
#pragma once


#include <glib.h>
#include <json-glib/json-glib.h>
#include "sim/topo.h"
#include "sim/strategy-kind.h"
#include "calibrate/profile-apply.h"
#include "sim/app/cli-values.h"

#define DPS_EXIT_USAGE 2
#define DPS_DEFAULT_TOPOLOGY "dgx-h100"


/* The network model every subcommand predicts with unless --mode says
 * otherwise: the flow-level (max-min) one.  predict and collective used it
 * already (sweep and validate the analytical one); it is the model the
 * README describes and the one that shares a link's bandwidth between
 * the flows that cross it; and it costs a sweep little (the default 11
 * points to 1024 GPUs: 0.29 s against 0.23 s).  On the shipped topologies
 * the two give the same figures today; where they differ, a sweep's row
 * is now the predict of its point. */
#define DPS_CLI_NET_MODE DPS_MODE_FLOW
/* The optimizer where a subcommand lets one be chosen (predict, sweep,
 * run): Adam, what DDP's large-model users train with and what memory
 * (12 bytes a parameter) and step time must be predicted for.  validate
 * and calibrate fix SGD, the step their calibration times. */
#define DPS_CLI_OPTIMIZER "adam"

/* cmd's one-line summary (its --help's first line, `dpscale --help`'s list). */
const char *dps_cli_summary (const char *cmd);
gboolean  dps_cli_parse (const char *cmd, const char *description, GOptionEntry *entries, int *argc, char ***argv,
                         GError **error);

/* An old spelling of a flag, still accepted for a while: old_flag ("--ranks"
 * or "-n") is read as new_flag ("--gpus"). */
typedef struct {
  const char *old_flag;
  const char *new_flag;
} DpsCliAlias;
void      dps_cli_deprecated (const char *cmd, const DpsCliAlias *aliases, int argc, char **argv);
/* -n, once nodes in predict, sweep and topo: nccl-tests' -n is iterations */
extern const DpsCliAlias dps_cli_nodes_alias[];
DpsTopo  *dps_cli_topology (const char *name, int nodes, int gpus, int *n_gpus, GError **error);
DpsTopo  *dps_cli_topology_calibrated (const char *name, const DpsProfile *profile, int nodes, int gpus,
                                       int *n_gpus, GError **error);
void      dps_cli_note (const char *note);
/* With --tp or --pp, whether the CPU runner can split model; FALSE with
 * the flag's error otherwise. */
gboolean  dps_cli_layout_splits (const DpsModel *model, int tp, int pp, GError **error);
gboolean  dps_cli_emit (const char *path, const GString *text, GError **error);
/* Prints a result on standard output in the format asked for: the table,
 * the CSV, or json's document (its top object closed here). */
void      dps_cli_emit_as (DpsFormat format, const GString *table, const GString *csv, JsonBuilder *json);
gboolean  dps_cli_check_cpu_model (const DpsModel *m, int batch, int ranks, GError **error);
gboolean  dps_cli_check_prefix (const char *flag, const char *prefix, GError **error);
gboolean  dps_cli_check_output (const char *flag, const char *path, GError **error);
void      dps_cli_name_flag (GError *error);
int       dps_cli_fail (const char *cmd, GError *error);
void      dps_cli_network_table (GString *out, const DpsProfile *p, const DpsTopoSpec *spec);
void      dps_csv_num (GString *o, double v, gboolean have);
