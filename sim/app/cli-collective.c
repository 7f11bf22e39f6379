/* cli-collective.c — `dpscale collective`: one collective over a range of
 * sizes, printed in nccl-tests' column layout (plus the algorithm and
 * protocol chosen), or as CSV or JSON. */
#include "sim/app/cli.h"
#include "sim/app/cli-util.h"
#include "sim/coll.h"
#include "sim/coll-predict.h"
#include "sim/base/error.h"

#include "sim/base/json-util.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  guint64  bytes;
  guint64  count;
  DpsCollChoice choice;
  double   time_s;
  double   algbw_GBps, busbw_GBps;
} Row;

static int
type_size (const char *t, GError **error)
{
  static const struct { const char *name; int size; } types[] = {
    { "int8", 1 }, { "uint8", 1 }, { "half", 2 }, { "float16", 2 }, { "bfloat16", 2 }, { "fp16", 2 },
    { "bf16", 2 }, { "int32", 4 }, { "uint32", 4 }, { "float", 4 }, { "float32", 4 }, { "fp32", 4 },
    { "int64", 8 }, { "uint64", 8 }, { "double", 8 }, { "float64", 8 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_str_equal (t, types[i].name))
      return types[i].size;
  g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--datatype: unknown type '%s' (float, half, bfloat16, double, int8...)", t);
  return 0;
}

static void
emit_table (GString *out, const DpsTopo *topo, int n_gpus, DpsCollOp op, const char *type,
            DpsNetMode mode, const Row *rows, guint n)
{
  const DpsTopoSpec *s = dps_topo_spec (topo);
  g_string_append_printf (out, "# dpscale collective: %s on %d GPU%s of %s (%d node%s), %s model\n",
                          dps_coll_op_name (op), n_gpus, n_gpus > 1 ? "s" : "", s->name,
                          dps_topo_n_nodes (topo), dps_topo_n_nodes (topo) > 1 ? "s" : "",
                          mode == DPS_MODE_FLOW ? "flow-level" : "analytical");
  g_string_append (out, "#\n");
  g_string_append_printf (out, "# %10s  %12s  %8s  %6s  %6s  %9s  %7s  %7s  %-7s  %-6s\n",
                          "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "algo", "proto");
  g_string_append_printf (out, "# %10s  %12s  %8s  %6s  %6s  %9s  %7s  %7s\n",
                          "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)");
  double sum = 0;
  const char *redop = op == DPS_OP_ALLREDUCE || op == DPS_OP_REDUCE_SCATTER ? "sum" : "none";
  int root = op == DPS_OP_BROADCAST ? 0 : -1;
  for (guint i = 0; i < n; i++) {
    const Row *r = &rows[i];
    double us = r->time_s * 1e6;
    g_string_append_printf (out, "  %10" G_GUINT64_FORMAT "  %12" G_GUINT64_FORMAT "  %8s  %6s  %6d  %9.*f  %7.2f  %7.2f  %-7s  %-6s\n",
                            r->bytes, r->count, type, redop, root, us < 1e4 ? 2 : 0, us,
                            r->algbw_GBps, r->busbw_GBps, dps_algo_name (r->choice.algo),
                            dps_proto_name (r->choice.proto));
    sum += r->busbw_GBps;
  }
  g_string_append_printf (out, "# Avg bus bandwidth    : %g\n", n ? sum / n : 0);
}

static void
emit_csv (GString *out, const Row *rows, guint n, int n_gpus, int n_nodes, DpsCollOp op)
{
  g_string_append (out, "op,gpus,nodes,size_bytes,count_elements,time_s,time_us,algbw_GBps,busbw_GBps,algo,proto\n");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%s,%d,%d,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%.9g,%.4f,%.4f,%.4f,%s,%s\n",
                            dps_coll_op_name (op), n_gpus, n_nodes, rows[i].bytes, rows[i].count, rows[i].time_s,
                            rows[i].time_s * 1e6, rows[i].algbw_GBps, rows[i].busbw_GBps,
                            dps_algo_name (rows[i].choice.algo), dps_proto_name (rows[i].choice.proto));
}

static void
emit_json (GString *out, const DpsTopo *topo, const Row *rows, guint n, int n_gpus, DpsCollOp op, DpsNetMode mode)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  dps_json_str (b, "topology", dps_topo_spec (topo)->name);
  dps_json_int (b, "nodes", dps_topo_n_nodes (topo));
  dps_json_int (b, "gpus", n_gpus);
  dps_json_str (b, "op", dps_coll_op_name (op));
  dps_json_str (b, "mode", mode == DPS_MODE_FLOW ? "flow" : "analytical");
  json_builder_set_member_name (b, "rows");
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++) {
    json_builder_begin_object (b);
    dps_json_int (b, "size_bytes", (gint64) rows[i].bytes);
    dps_json_int (b, "count_elements", (gint64) rows[i].count);
    dps_json_num (b, "time_s", rows[i].time_s);
    dps_json_num (b, "algbw_GBps", rows[i].algbw_GBps);
    dps_json_num (b, "busbw_GBps", rows[i].busbw_GBps);
    dps_json_str (b, "algo", dps_algo_name (rows[i].choice.algo));
    dps_json_str (b, "proto", dps_proto_name (rows[i].choice.proto));
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);
  dps_json_append (out, b);
}

/* nccl-tests' -o is the reduction operation (sum, prod, max, min, avg,
 * mulsum or all), dpscale's the output file: "-o sum" pasted from an
 * all_reduce_perf command line is refused rather than written to ./sum. */
static gboolean
refuse_nccl_tests_op (int argc, char **argv, GError **error)
{
  static const char *const ops[] = { "sum", "prod", "max", "min", "avg", "mulsum", "all", NULL };
  for (int i = 1; i < argc && strcmp (argv[i], "--") != 0; i++) {
    if (strncmp (argv[i], "-o", 2) != 0)
      continue;
    const char *v = argv[i][2] ? argv[i] + 2 : i + 1 < argc ? argv[i + 1] : "";   /* "-osum" or "-o sum" */
    if (g_strv_contains (ops, v)) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "-o %s: -o is the output file here, not nccl-tests' reduction "
                   "(the rows are sum's; --output ./%s for a file of that name)", v, v);
      return FALSE;
    }
  }
  return TRUE;
}

/* What the command line asks for. */
typedef struct {
  char    *topology, *op_s, *minb, *maxb, *algo_s, *proto_s, *mode_s, *format_s, *output, *type;
  char    *calibration, *plot_path;
  char   **compare;
  int      nodes, gpus, per_node, channels, check, iters, warmup, blocking;
  double   factor;
  /* parsed */
  DpsCollOp  op;
  guint64    lo, hi;
  int        tsize;
  guint      amask, pmask;
  DpsNetMode mode;
  DpsFormat  format;
} Opts;

static void
opts_clear (Opts *o)
{
  char **strs[] = { &o->topology, &o->op_s, &o->minb, &o->maxb, &o->algo_s, &o->proto_s, &o->mode_s, &o->format_s,
                    &o->output, &o->type, &o->calibration, &o->plot_path };
  for (gsize i = 0; i < G_N_ELEMENTS (strs); i++)
    g_clear_pointer (strs[i], g_free);
  g_clear_pointer (&o->compare, g_strfreev);
}

static gboolean
check_mode (const Opts *o, GError **error)
{
  if (o->mode_s && !g_str_equal (o->mode_s, "flow") && !g_str_equal (o->mode_s, "analytical")) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--mode: '%s' is not flow or analytical", o->mode_s);
    return FALSE;
  }
  return TRUE;
}

/* --compare FILE...: the model beside each row of logs or references
 * (the files after the flag's are more of them). */
static int
run_compare (Opts *o, int argc, char **argv)
{
  GError *error = NULL;
  g_autoptr (GStrvBuilder) fb = g_strv_builder_new ();
  g_strv_builder_addv (fb, (const char **) o->compare);
  for (int i = 1; i < argc; i++)
    g_strv_builder_add (fb, argv[i]);
  g_auto (GStrv) files = g_strv_builder_end (fb);
  DpsFormat cf;
  g_autoptr (DpsProfile) cprof = NULL;
  if (o->nodes != DPS_UNSET_INT || o->gpus != DPS_UNSET_INT || o->per_node != DPS_UNSET_INT
      || o->channels != DPS_UNSET_INT || o->minb || o->maxb || o->op_s || o->algo_s || o->proto_s
      || !dps_cli_is_unset (o->factor) || o->type)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--compare: the log sets the GPUs, sizes, operation and "
                 "NCCL settings; drop --nodes/--gpus/--per-node/-b/-e/-f/-d/--op/--algo/--proto/--channels");
  else if (check_mode (o, &error) && dps_cli_format (o->format_s, &cf, &error) && cf == DPS_FORMAT_JSON)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--format: --compare writes table or csv");
  if (!error && o->calibration)
    cprof = dps_profile_load (o->calibration, &error);
  if (error)
    return dps_cli_fail ("collective", error);
  DpsNetMode mode = o->mode_s && g_str_equal (o->mode_s, "analytical") ? DPS_MODE_ANALYTICAL : DPS_CLI_NET_MODE;
  return dps_cmd_collective_compare (files, o->topology, cprof, mode, cf, o->output, o->plot_path);
}

/* The sizes, operation, type, scale, masks, mode and format. */
static gboolean
check_opts (Opts *o, int argc, char **argv, GError **error)
{
  o->op = DPS_OP_ALLREDUCE;
  o->lo = 8;
  o->hi = 1ull << 30;
  o->mode = o->mode_s && g_str_equal (o->mode_s, "analytical") ? DPS_MODE_ANALYTICAL : DPS_CLI_NET_MODE;
  if (o->plot_path)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--plot: only with --compare (dpscale plot draws a --format csv result)");
  else if (argc > 1)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option: unexpected argument '%s'", argv[1]);
  else if (!(o->tsize = type_size (o->type ? o->type : "float", error)))
    return FALSE;
  else if (!dps_cli_int_given ("--nodes", &o->nodes, 0, error)
           || !dps_cli_int_given ("--gpus", &o->gpus, 0, error)
           || !dps_cli_int_given ("--per-node", &o->per_node, 0, error)
           || !dps_cli_int_given ("--channels", &o->channels, 0, error)
           || !dps_cli_double_given ("--stepfactor", &o->factor, 2, error))
    return FALSE;
  else if (o->per_node && o->gpus)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--per-node: goes with --nodes, not --gpus");
  else if (o->op_s && !dps_coll_op_parse (o->op_s, &o->op))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                 "--op: unknown operation '%s' (allreduce, reducescatter, allgather, broadcast)", o->op_s);
  else if (o->minb && !dps_parse_size (o->minb, &o->lo))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--minbytes: '%s' is not a size such as 8, 64K, 1G", o->minb);
  else if (o->maxb && !dps_parse_size (o->maxb, &o->hi))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--maxbytes: '%s' is not a size such as 8, 64K, 1G", o->maxb);
  else if (o->lo < 1 || o->hi < o->lo)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--minbytes/--maxbytes: need 1 <= min <= max");
  else if (log ((double) o->hi / o->lo) / log (o->factor) > 10000)
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "--stepfactor: more than 10000 sizes asked for");
  else if (check_mode (o, error))
    return dps_cli_parse_masks (o->algo_s, o->proto_s, &o->amask, &o->pmask, error)
           && dps_cli_format (o->format_s, &o->format, error);
  return FALSE;
}

/* The cluster (named, or the profile's) sized for the GPUs asked for,
 * within the collective's limit. */
static DpsTopo *
cluster (const Opts *o, const DpsProfile *profile, int *n_gpus, GError **error)
{
  int nodes = o->nodes, gpus = o->gpus;
  if (nodes == 0 && gpus == 0 && !(profile && !o->topology && profile->machine_ranks))
    nodes = 2;
  if (gpus > DPS_CLI_MAX_COLLECTIVE_GPUS || nodes > DPS_CLI_MAX_COLLECTIVE_GPUS) {   /* a node holds a GPU at least */
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s: at most %d GPUs in a collective", gpus > 0 ? "--gpus" : "--nodes",
                 DPS_CLI_MAX_COLLECTIVE_GPUS);
    return NULL;
  }
  g_autoptr (DpsTopo) topo = dps_cli_topology_calibrated (o->topology, profile, nodes, gpus, n_gpus, error);
  if (topo && *n_gpus > DPS_CLI_MAX_COLLECTIVE_GPUS) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s: at most %d GPUs in a collective (%d nodes of %d), got %d",
                 gpus > 0 ? "--gpus" : "--nodes", DPS_CLI_MAX_COLLECTIVE_GPUS,
                 DPS_CLI_MAX_COLLECTIVE_GPUS / dps_topo_gpus_per_node (topo), dps_topo_gpus_per_node (topo), *n_gpus);
    return NULL;
  }
  if (topo && o->per_node) {
    int k = dps_topo_gpus_per_node (topo);
    if (o->per_node > k) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--per-node: %d GPUs asked for in a node of %d (%s)", o->per_node,
                   k, dps_topo_spec (topo)->name);
      return NULL;
    }
    *n_gpus = dps_topo_n_nodes (topo) * o->per_node;
  }
  if (topo && *n_gpus < 2) {
    /* NCCL over one rank copies its buffer and moves nothing between
     * GPUs: no algorithm, no bus bandwidth to predict */
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: a collective needs 2 GPUs or more (1 rank moves nothing "
                 "between GPUs)", o->gpus > 0 ? "--gpus" : o->nodes > 0 || o->per_node > 0 ? "--nodes/--per-node"
                                  : "the calibration's machine");
    return NULL;
  }
  return g_steal_pointer (&topo);
}

/* One row per size from o->lo to o->hi by o->factor. */
static GArray *
predict_rows (const Opts *o, const DpsTopo *topo, const DpsCollParams *params, guint amask, guint pmask, int n_gpus,
              GError **error)
{
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (Row));
  DpsCollFlowCache cache = { 0 };
  for (double sz = (double) o->lo; sz <= (double) o->hi * (1 + 1e-12); sz *= o->factor) {
    guint64 bytes = (guint64) llround (sz);
    DpsCollCtx ctx;
    if (!(o->per_node ? dps_coll_ctx_init_nodes (&ctx, topo, params, dps_topo_n_nodes (topo), o->per_node, o->op,
                                                  (double) bytes, error)
                      : dps_coll_ctx_init (&ctx, topo, params, n_gpus, o->op, (double) bytes, error)))
      return NULL;
    if (o->channels)
      ctx.channels = o->channels;
    Row r = { .bytes = bytes };
    r.count = bytes / o->tsize / ((o->op == DPS_OP_REDUCE_SCATTER || o->op == DPS_OP_ALLGATHER) ? n_gpus : 1);
    if (!dps_coll_predict_cached (&ctx, amask, pmask, o->mode, &cache, &r.choice, error))
      return NULL;
    r.time_s = r.choice.time_s;
    r.algbw_GBps = r.time_s > 0 ? bytes / r.time_s / 1e9 : 0;
    r.busbw_GBps = r.algbw_GBps * dps_coll_busbw_factor (o->op, n_gpus);
    g_array_append_val (rows, r);
  }
  return g_steal_pointer (&rows);
}

/* The sweep of sizes on the cluster, in the format asked for. */
static gboolean
run_sizes (Opts *o, GError **error)
{
  g_autoptr (DpsProfile) profile = NULL;
  if (o->calibration && !(profile = dps_profile_load (o->calibration, error)))
    return FALSE;
  int n_gpus;
  g_autoptr (DpsTopo) topo = cluster (o, profile, &n_gpus, error);
  if (!topo)
    return FALSE;
  DpsCollParams params;
  dps_tune_params_nccl (&params);
  guint amask = o->amask, pmask = o->pmask;
  if (profile) {
    if (o->algo_s || o->proto_s)
      fprintf (stderr, "dpscale collective: warning: --calibration fixes the algorithm and protocols; --algo/--proto ignored\n");
    g_autofree char *note = NULL;
    dps_profile_apply_coll (profile, o->topology, n_gpus, dps_topo_n_nodes (topo), &params, &amask, &pmask, &note);
    dps_cli_note (note);
  }
  g_autoptr (GArray) rows = predict_rows (o, topo, &params, amask, pmask, n_gpus, error);
  if (!rows)
    return FALSE;
  g_autoptr (GString) out = g_string_new (NULL);
  const Row *rv = (const Row *) rows->data;
  if (o->format == DPS_FORMAT_TABLE)
    emit_table (out, topo, n_gpus, o->op, o->type ? o->type : "float", o->mode, rv, rows->len);
  else if (o->format == DPS_FORMAT_CSV)
    emit_csv (out, rv, rows->len, n_gpus, dps_topo_n_nodes (topo), o->op);
  else
    emit_json (out, topo, rv, rows->len, n_gpus, o->op, o->mode);
  return dps_cli_emit (o->output, out, error);
}

int
dps_cmd_collective (int argc, char **argv)
{
  Opts o = { .nodes = DPS_UNSET_INT, .gpus = DPS_UNSET_INT, .per_node = DPS_UNSET_INT, .channels = DPS_UNSET_INT, .check = DPS_UNSET_INT,
             .iters = DPS_UNSET_INT, .warmup = DPS_UNSET_INT, .blocking = DPS_UNSET_INT };
  o.factor = dps_cli_unset ();
  GOptionEntry entries[] = {
    { "topology", 't', 0, G_OPTION_ARG_STRING, &o.topology, "Topology file or shipped name (default dgx-h100)", "NAME|FILE" },
    { "nodes", 0, 0, G_OPTION_ARG_INT, &o.nodes, "Number of nodes (default 2; -n is nccl-tests' --iters)", "N" },
    { "gpus", 'g', 0, G_OPTION_ARG_INT, &o.gpus, "Number of GPUs in all (instead of --nodes; all_reduce_perf -g in one process)", "G" },
    { "per-node", 0, 0, G_OPTION_ARG_INT, &o.per_node, "With --nodes: GPUs used in each node (default all; 1: one process a node, as network tests run)", "R" },
    { "op", 0, 0, G_OPTION_ARG_STRING, &o.op_s, "allreduce (default), reducescatter, allgather, broadcast", "OP" },
    { "minbytes", 'b', 0, G_OPTION_ARG_STRING, &o.minb, "Smallest size, as nccl-tests: 8, 1K, 32M (default 8)", "SIZE" },
    { "maxbytes", 'e', 0, G_OPTION_ARG_STRING, &o.maxb, "Largest size (default 1G)", "SIZE" },
    { "stepfactor", 'f', 0, G_OPTION_ARG_DOUBLE, &o.factor, "Multiply the size by this each row (default 2)", "F" },
    { "datatype", 'd', 0, G_OPTION_ARG_STRING, &o.type, "Element type for the count column (default float)", "TYPE" },
    { "algo", 'a', 0, G_OPTION_ARG_STRING, &o.algo_s, dps_cli_algo_help (), "LIST" },
    { "proto", 'p', 0, G_OPTION_ARG_STRING, &o.proto_s, "Protocols, as NCCL_PROTO: LL,LL128,Simple", "LIST" },
    { "channels", 0, 0, G_OPTION_ARG_INT, &o.channels, "NCCL channels (default: the topology's; -c is nccl-tests' --check)", "N" },
    /* nccl-tests' run controls, so that its command lines paste: none
     * changes a simulated time */
    { "check", 'c', 0, G_OPTION_ARG_INT, &o.check, "As nccl-tests: check results (accepted, no effect: nothing is computed)", "0/1" },
    { "iters", 'n', 0, G_OPTION_ARG_INT, &o.iters, "As nccl-tests: timed iterations (accepted, no effect)", "N" },
    { "warmup_iters", 'w', 0, G_OPTION_ARG_INT, &o.warmup, "As nccl-tests: warm-up iterations (accepted, no effect)", "N" },
    { "blocking", 'z', 0, G_OPTION_ARG_INT, &o.blocking, "As nccl-tests: blocking collectives (accepted, no effect)", "0/1" },
    { "mode", 'm', 0, G_OPTION_ARG_STRING, &o.mode_s, "flow (max-min flow-level network, default) or analytical", "MODE" },
    { "calibration", 'C', 0, G_OPTION_ARG_FILENAME, &o.calibration, "Use a calibration profile's fitted latencies and bandwidths (and its machine, without --topology)", "FILE" },
    { "compare", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.compare, "Predict each row of nccl-tests logs or published references (tests/reference/nccl/*.ref; more files may follow) and print the error", "FILE" },
    { "plot", 0, 0, G_OPTION_ARG_FILENAME, &o.plot_path, "With --compare: draw predicted against measured bus bandwidth (.png or .svg)", "FILE" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &o.format_s, "table (default), csv or json", "FMT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "Write to FILE (whole or not at all) instead of stdout", "FILE" },
    G_OPTION_ENTRY_NULL
  };
  GError *error = NULL;
  int status = 0;
  if (!refuse_nccl_tests_op (argc, argv, &error)
      || !dps_cli_parse ("collective", "Prints time, algbw and busbw per size as nccl-tests' all_reduce_perf does,\n"
                         "with the algorithm and protocol that NCCL's cost model picks.\n\n"
                         "Example: dpscale collective --topology dgx-a100 --nodes 4 -b 8 -e 8G -f 2\n\n"
                         "With --compare LOG, the model beside each row of a measured nccl-tests log (or a\n"
                         "published reference: tests/reference/nccl/), the error per row and its median; a\n"
                         "log of several runs (all_reduce_perf, then all_gather_perf) is compared table by table:\n"
                         "  dpscale collective --compare my-cluster.log --topology dgx-h100 --plot cmp.png",
                         entries, &argc, &argv, &error))
    ;
  /* nccl-tests' own ranges (src/common.cu): -c and -z 0 or 1, -n at least 1, -w at least 0 */
  else if (!dps_cli_int_given ("--check", &o.check, DPS_UNSET_INT, &error)
           || !dps_cli_int_given ("--iters", &o.iters, DPS_UNSET_INT, &error)
           || !dps_cli_int_given ("--warmup_iters", &o.warmup, DPS_UNSET_INT, &error)
           || !dps_cli_int_given ("--blocking", &o.blocking, DPS_UNSET_INT, &error))
    ;
  else {
    if (o.check != DPS_UNSET_INT || o.iters != DPS_UNSET_INT || o.warmup != DPS_UNSET_INT || o.blocking != DPS_UNSET_INT)
      fprintf (stderr, "dpscale collective: nccl-tests' -c/-n/-w/-z (check, iterations, warm-up, blocking) do not "
               "change a prediction: ignored (NCCL channels are --channels, nodes --nodes)\n");
    if (o.compare)
      status = run_compare (&o, argc, argv);
    else if (check_opts (&o, argc, argv, &error))
      run_sizes (&o, &error);
  }
  opts_clear (&o);
  return error ? dps_cli_fail ("collective", error) : status;
}
