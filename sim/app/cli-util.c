/* cli-util.c — see cli-util.h. */
#include "sim/app/cli-util.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"
#include "sim/nccl-tune.h"

#include <stdio.h>

/* Parses a subcommand's options; on failure error holds GOption's one-line
 * message (unknown flag, missing or malformed value). */
gboolean
dps_cli_parse (const char *cmd, const char *summary, const char *description,
               GOptionEntry *entries, int *argc, char ***argv, GError **error)
{
  g_autofree char *param = g_strdup_printf ("- %s", summary);
  GOptionContext *ctx = g_option_context_new (param);
  g_autofree char *prg = g_strdup_printf ("dpscale %s", cmd);
  g_set_prgname (prg);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (description)
    g_option_context_set_description (ctx, description);
  gboolean ok = g_option_context_parse (ctx, argc, argv, error);
  g_option_context_free (ctx);
  if (ok && *argc > 1 && (*argv)[1][0] == '-' && (*argv)[1][1]) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option %s", (*argv)[1]);
    return FALSE;
  }
  return ok;
}

gboolean
dps_cli_format (const char *text, DpsFormat *out, GError **error)
{
  if (!text || g_str_equal (text, "table"))
    *out = DPS_FORMAT_TABLE;
  else if (g_str_equal (text, "csv"))
    *out = DPS_FORMAT_CSV;
  else if (g_str_equal (text, "json"))
    *out = DPS_FORMAT_JSON;
  else {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--format: '%s' is not table, csv or json", text);
    return FALSE;
  }
  return TRUE;
}

static DpsTopo *
size_topology (const DpsTopoSpec *spec, int nodes, int gpus, int *n_gpus, GError **error)
{
  int k = spec->gpus_per_node;
  if (nodes < 0 || gpus < 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: must be positive, got %d",
                 nodes < 0 ? "--nodes" : "--gpus", nodes < 0 ? nodes : gpus);
    return NULL;
  }
  if (nodes > 0 && gpus > 0 && gpus != (gint64) nodes * k) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                 "--nodes %d and --gpus %d disagree (%d GPUs per node): give one of them", nodes, gpus, k);
    return NULL;
  }
  if (gpus > DPS_TOPO_MAX_GPUS || nodes > DPS_TOPO_MAX_GPUS / k) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s: at most %d GPUs are simulated",
                 gpus ? "--gpus" : "--nodes", DPS_TOPO_MAX_GPUS);
    return NULL;
  }
  if (gpus > k && gpus % k) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                 "--gpus: %d GPUs span nodes of %d GPUs (%s): use a multiple of %d or at most %d",
                 gpus, k, spec->name, k, k);
    return NULL;
  }
  if (nodes == 0)
    nodes = gpus > k ? gpus / k : 1;
  *n_gpus = gpus > 0 ? gpus : nodes * k;
  return dps_topo_new (spec, nodes, error);
}

/* Loads the topology named by --topology (a path or a shipped name) and
 * sizes it from --nodes or --gpus (one of them, or neither: one node).
 * *n_gpus receives the GPUs in use (--gpus, or all GPUs of the nodes). */
DpsTopo *
dps_cli_topology (const char *name, int nodes, int gpus, int *n_gpus, GError **error)
{
  return dps_cli_topology_calibrated (name, NULL, nodes, gpus, n_gpus, error);
}

/* As dps_cli_topology, with a calibration profile (may be NULL): without
 * --topology a profile that describes its machine gives the topology;
 * otherwise the named topology takes the profile's fitted bandwidths. */
DpsTopo *
dps_cli_topology_calibrated (const char *name, const DpsProfile *profile, int nodes, int gpus, int *n_gpus,
                             GError **error)
{
  g_autoptr (DpsTopoSpec) spec = NULL;
  if (profile && !name && profile->net.fitted && profile->net_topology)
    name = profile->net_topology;   /* the cluster its logs came from */
  if (profile && !name) {
    int mr = MAX (profile->machine_ranks, 1);
    int n_nodes = nodes > 0 ? nodes : gpus > mr ? (gpus + mr - 1) / mr : 1;
    spec = dps_profile_machine_spec (profile, gpus > 0 ? gpus : mr * n_nodes, n_nodes);
  }
  if (!spec) {
    g_autofree char *path = dps_topo_find (name ? name : DPS_DEFAULT_TOPOLOGY, error);
    if (!path)
      return NULL;
    spec = dps_topo_spec_load (path, error);
    if (!spec)
      return NULL;
  }
  if (profile) {
    int k = spec->gpus_per_node, n_nodes = nodes > 0 ? nodes : gpus > k ? gpus / k : 1;
    dps_profile_apply_topo (profile, spec, gpus > 0 ? gpus : n_nodes * k, n_nodes);
  }
  int most = spec->gpus_per_node * MAX (profile ? profile->machine_nodes : 1, 1);
  gboolean grows = profile && profile->net.fitted && profile->net.used[DPS_NETFIT_NIC_BW];   /* nodes were fitted */
  if (profile && profile->machine_ranks > 0 && !name && gpus > most && !grows) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                 "--gpus: %d ranks asked for, but the calibrated machine (%s) was measured with up to %d",
                 gpus, profile->path ? profile->path : "the profile", most);
    return NULL;
  }
  return size_topology (spec, nodes, gpus, n_gpus, error);
}

/* Writes text to path whole (a temporary file renamed into place), or to
 * standard output when path is NULL or "-". */
gboolean
dps_cli_emit (const char *path, const GString *text, GError **error)
{
  if (!path || g_str_equal (path, "-")) {
    fwrite (text->str, 1, text->len, stdout);
    fflush (stdout);
    return TRUE;
  }
  g_autoptr (GError) local = NULL;
  if (!g_file_set_contents (path, text->str, (gssize) text->len, &local)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "-o %s: %s", path, local->message);
    return FALSE;
  }
  return TRUE;
}

/* Prints "dpscale CMD: message" on stderr, frees error, returns the exit
 * status: 2 for usage errors (an unknown or malformed flag), 1 for the rest
 * (bad files, failed writes, unsupported requests). */
int
dps_cli_fail (const char *cmd, GError *error)
{
  gboolean flag = error->domain == DPS_ERROR && error->code != DPS_ERROR_IO
                  && (g_str_has_prefix (error->message, "-") || g_str_has_prefix (error->message, "unknown option"));
  gboolean usage = error->domain == G_OPTION_ERROR || flag;
  int status = usage ? DPS_EXIT_USAGE : 1;
  fprintf (stderr, "dpscale %s: %s\n", cmd, error->message);
  g_error_free (error);
  return status;
}

/* Parses "1,2,4,8" into a new GArray of gint64, each in [min, max]. */
gboolean
dps_cli_parse_int_list (const char *flag, const char *text, gint64 min, gint64 max,
                        GArray **out, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (int i = 0; parts[i]; i++) {
    gint64 v;
    if (!dps_parse_int (parts[i], &v) || v < min || v > max) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: '%s' is not a whole number from %" G_GINT64_FORMAT
                   " to %" G_GINT64_FORMAT, flag, parts[i], min, max);
      g_array_free (a, TRUE);
      return FALSE;
    }
    g_array_append_val (a, v);
  }
  if (a->len == 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: empty list", flag);
    g_array_free (a, TRUE);
    return FALSE;
  }
  *out = a;
  return TRUE;
}

static gboolean
parse_mask (const char *flag, const char *text, gboolean algo, guint *out, GError **error)
{
  *out = 0;
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  for (int i = 0; parts[i]; i++) {
    DpsAlgo a;
    DpsProto p;
    g_strstrip (parts[i]);
    if (algo && dps_algo_parse (parts[i], &a))
      *out |= 1u << a;
    else if (!algo && dps_proto_parse (parts[i], &p))
      *out |= 1u << p;
    else {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: unknown %s '%s' (expected %s)", flag,
                   algo ? "algorithm" : "protocol", parts[i], algo ? "ring, tree, nvls, hier" : "LL, LL128, Simple");
      return FALSE;
    }
  }
  return TRUE;
}

/* --algo and --proto (NULL: not given) as bit masks: NCCL's own algorithms
 * (ring, tree, NVLS) and every protocol by default. */
gboolean
dps_cli_parse_masks (const char *algo_list, const char *proto_list, guint *algo_mask, guint *proto_mask,
                     GError **error)
{
  *algo_mask = DPS_NCCL_ALGOS;
  *proto_mask = DPS_ALL_PROTOS;
  return (!algo_list || parse_mask ("--algo", algo_list, TRUE, algo_mask, error))
         && (!proto_list || parse_mask ("--proto", proto_list, FALSE, proto_mask, error));
}
