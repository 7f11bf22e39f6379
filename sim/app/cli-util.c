/* cli-util.c — see cli-util.h. */
#include "sim/app/cli-util.h"
#include "sim/app/cli-flags.h"
#include "sim/base/json-util.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"
#include "sim/base/file.h"
#include "sim/coll-predict.h"
#include "real/train-net.h"
#include "real/tensor-parallel.h"
#include "sim/base/sysmem.h"

#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Every output flag of every command: what it writes (sim/base/file.h's
 * rule: the extensions it takes, a prefix or a file), whether "-" is
 * standard output, and the files written beside it (suffixes of a prefix,
 * or of a file's name without its extension).  dps_cli_parse checks and
 * claims each given one before any work, so that no output replaces an
 * input (by any name), and none is empty, in a missing folder or named
 * with an extension the flag does not write. */
typedef struct {
  const char   *cmd, *long_name;
  DpsOutputRule rule;
  gboolean      stdout_ok;
  const char   *beside;
} CliOutput;

#define TEXT_OUT(cmd) { cmd, "output", { "-o", "csv json txt", FALSE, FALSE, "text (a table, CSV or JSON)" }, TRUE, NULL }
#define TRACE_OUT(cmd) { cmd, "trace", { "--trace", "json", FALSE, FALSE, "a Chrome trace (.json)" }, FALSE, NULL }
#define PLOT_OUT(cmd) { cmd, "plot", { "--plot", "png svg", TRUE, FALSE, "a picture (.png or .svg)" }, FALSE, NULL }
static const CliOutput cli_outputs[] = {
  TEXT_OUT ("predict"), TRACE_OUT ("predict"), PLOT_OUT ("predict"),
  TEXT_OUT ("advise"),
  { "sweep", "output", { "-o", "json", FALSE, TRUE, "a prefix (PREFIX.csv, .dat, .png and .svg are written; the "
                         "file itself with --format json)" }, FALSE, ".csv .dat .png .svg" },
  TEXT_OUT ("collective"), PLOT_OUT ("collective"),
  { "calibrate", "output", { "-o", "calib", FALSE, FALSE, "a profile (.calib; its .csv and .png beside it)" }, FALSE,
    ".csv .png" },
  { "run", "output", { "-o", "csv", FALSE, FALSE, "the per-step CSV (.csv)" }, TRUE, NULL },
  TRACE_OUT ("run"),
  { "run", "save-params", { "--save-params", "", FALSE, FALSE, "the parameters (raw fp32)" }, TRUE, NULL },
  { "validate", "output", { "-o", "", FALSE, TRUE, "a prefix (PREFIX.csv, -timeline.csv and their pictures are "
                            "written)" }, FALSE,
    ".csv .png .svg -breakdown.png -breakdown.svg -timeline.csv -timeline.png -timeline.svg" },
  { "plot", "output", { "-o", "", FALSE, TRUE, "a prefix (PREFIX.png and PREFIX.svg are written)" }, FALSE,
    ".png .svg .dat" },
};

static const char *cli_cmd;   /* the command running: whose rows apply */

static const CliOutput *
cli_output (const char *flag)
{
  for (gsize i = 0; cli_cmd && i < G_N_ELEMENTS (cli_outputs); i++)
    if (g_str_equal (cli_outputs[i].cmd, cli_cmd) && g_str_equal (cli_outputs[i].rule.flag, flag))
      return &cli_outputs[i];
  return NULL;
}

/* Checks and claims the files written beside path for flag (its row's
 * beside: suffixes of path as a prefix, or of path without its
 * extension). */
static gboolean
check_beside (const CliOutput *o, const char *path, GError **error)
{
  if (!o || !o->beside)
    return TRUE;
  g_autofree char *stem = g_strdup (path), *ext = g_strconcat (".", o->rule.exts, NULL);
  if (!o->rule.prefix && o->rule.exts[0] && g_str_has_suffix (stem, ext))
    stem[strlen (stem) - strlen (ext)] = 0;   /* p.calib: p.csv, p.png */
  g_auto (GStrv) suffixes = g_strsplit (o->beside, " ", -1);
  for (int i = 0; suffixes[i]; i++) {
    g_autofree char *p = g_strconcat (stem, suffixes[i], NULL);
    if (!dps_output_beside (p, o->rule.flag, path, error))
      return FALSE;
  }
  return TRUE;
}

/* Checks an output file flag's path as dps_cli_parse does (see
 * cli_outputs): the path, and the files the command writes beside it
 * (a profile's .csv and .png).  "-" passes where it is standard output. */
gboolean
dps_cli_check_output (const char *flag, const char *path, GError **error)
{
  const CliOutput *o = cli_output (flag);
  DpsOutputKind kind;
  if (o && o->stdout_ok && path && g_str_equal (path, "-"))
    return TRUE;
  if (!dps_output_kind (path, flag, &kind, error))
    return FALSE;
  return kind == DPS_OUTPUT_STREAM || check_beside (o, path, error);
}

/* The given output flags among entries, checked (cli_outputs); and no
 * two of them naming one file (the second would replace the first). */
static gboolean
check_outputs (GOptionEntry *entries, GError **error)
{
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) flags = g_ptr_array_new ();
  for (gsize i = 0; i < G_N_ELEMENTS (cli_outputs); i++) {
    const CliOutput *o = &cli_outputs[i];
    if (!g_str_equal (o->cmd, cli_cmd))
      continue;
    for (GOptionEntry *e = entries; e->long_name; e++) {
      if (!g_str_equal (e->long_name, o->long_name)
          || (e->arg != G_OPTION_ARG_FILENAME && e->arg != G_OPTION_ARG_STRING))
        continue;
      const char *v = *(char **) e->arg_data;
      if (v && !(o->rule.prefix ? dps_cli_check_prefix (o->rule.flag, v, error)
                                : dps_cli_check_output (o->rule.flag, v, error)))
        return FALSE;
      if (!v || g_str_equal (v, "-") || g_str_has_prefix (v, "/dev/"))
        continue;
      char *canon = g_canonicalize_filename (v, NULL);
      for (guint k = 0; k < paths->len; k++)
        if (g_str_equal (canon, g_ptr_array_index (paths, k))) {
          g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s %s: also %s's path (one would replace the other)",
                       o->rule.flag, v, (const char *) g_ptr_array_index (flags, k));
          g_free (canon);
          return FALSE;
        }
      g_ptr_array_add (paths, canon);
      g_ptr_array_add (flags, (gpointer) o->rule.flag);
    }
  }
  return TRUE;
}

/* A string or path flag given as "" or blanks: never its absence, never a
 * value any command takes (a name, a path, a list); refused by the flag
 * (output paths by check_outputs, first, in its own words). */
static gboolean
check_empty (GOptionEntry *entries, GError **error)
{
  for (GOptionEntry *e = entries; e->long_name; e++) {
    gboolean array = e->arg == G_OPTION_ARG_FILENAME_ARRAY || e->arg == G_OPTION_ARG_STRING_ARRAY;
    if (e->arg != G_OPTION_ARG_FILENAME && e->arg != G_OPTION_ARG_STRING && !array)
      continue;
    const char *one[] = { *(char **) e->arg_data, NULL };
    const char *const *vs = array ? *(const char *const **) e->arg_data : one;
    for (int i = 0; vs && vs[i]; i++) {
      const char *v = vs[i];
      if (v[strspn (v, " \t\n")])
        continue;
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--%s: empty %s", e->long_name,
                   e->arg == G_OPTION_ARG_FILENAME || e->arg == G_OPTION_ARG_FILENAME_ARRAY ? "path" : "value");
      return FALSE;
    }
  }
  return TRUE;
}

/* Each command's one-line summary: `dpscale --help` lists them and each
 * command's own --help starts with its. */
static const struct { const char *cmd, *summary; } cli_summaries[] = {
  { "predict", "one training configuration (DDP, ZeRO, FSDP, HSDP, TP/PP): step time, efficiency, memory, cost" },
  { "sweep", "many configurations (GPUs, strategies, buckets, topologies, batches): a table, a CSV and a plot" },
  { "advise", "the parallel layout and DDP/FSDP settings with the most throughput per dollar" },
  { "calibrate", "measure this machine (or import nccl-tests logs) and write a calibration profile" },
  { "run", "real data-parallel training (DDP, ZeRO, FSDP, HSDP) on this machine: per-step times" },
  { "validate", "calibrate, run and predict over replica counts: the error, in numbers and a plot" },
  { "collective", "time one collective on a cluster, in nccl-tests' layout" },
  { "plot", "render a dpscale CSV (sweep, validation, calibration, timeline, collective): PNG and SVG" },
  { "topo", "check and describe a topology file" },
};

const char *
dps_cli_summary (const char *cmd)
{
  for (gsize i = 0; i < G_N_ELEMENTS (cli_summaries); i++)
    if (g_str_equal (cli_summaries[i].cmd, cmd))
      return cli_summaries[i].summary;
  g_return_val_if_reached ("");
}

/* Parses a subcommand's options; on failure error holds GOption's one-line
 * message (unknown flag, missing or malformed value).  Begins the command's
 * guard of its files (sim/base/file.h: from here every input read is
 * registered) and checks its output flags' paths before any work
 * (cli_outputs): a refusal reads "FLAG PATH: ..." (exit status 2). */
gboolean
dps_cli_parse (const char *cmd, const char *description, GOptionEntry *entries, int *argc, char ***argv,
               GError **error)
{
  DpsOutputRule rules[G_N_ELEMENTS (cli_outputs)];
  int n_rules = 0;
  cli_cmd = cmd;
  dps_cli_flag_command (cmd);
  for (gsize i = 0; i < G_N_ELEMENTS (cli_outputs); i++)
    if (g_str_equal (cli_outputs[i].cmd, cmd))
      rules[n_rules++] = cli_outputs[i].rule;
  dps_file_guard_begin (rules, n_rules);
  g_autofree char *param = g_strdup_printf ("- %s", dps_cli_summary (cmd));
  GOptionContext *ctx = g_option_context_new (param);
  g_autofree char *prg = g_strdup_printf ("dpscale %s", cmd);
  g_set_prgname (prg);
  dps_cli_flags_expect (entries);
  g_auto (GStrv) before = g_strdupv (*argv);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (description)
    g_option_context_set_description (ctx, description);
  gboolean ok = g_option_context_parse (ctx, argc, argv, error);
  g_option_context_free (ctx);
  if (ok && *argc > 1 && (*argv)[1][0] == '-' && (*argv)[1][1]) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option %s", (*argv)[1]);
    return FALSE;
  }
  return ok && dps_cli_flags_check (entries, before, error) && check_outputs (entries, error)
         && check_empty (entries, error);
}

const DpsCliAlias dps_cli_nodes_alias[] = { { "-n", "--nodes" }, { NULL, NULL } };

/* Rewrites, in place and before dps_cli_parse, each old spelling of
 * aliases (ended by a { NULL } entry) in argv[1..argc-1] to its new one:
 * "--ranks 4", "--ranks=4", "-n 4" and "-n4" all become --gpus 4, and each
 * old spelling used prints one line on stderr, once however often it is
 * given ("dpscale run: --ranks is deprecated: use --gpus").  Stops at "--".
 * The rewritten arguments live until the process ends. */
void
dps_cli_deprecated (const char *cmd, const DpsCliAlias *aliases, int argc, char **argv)
{
  guint64 warned = 0;
  for (int i = 1; i < argc && strcmp (argv[i], "--") != 0; i++)
    for (int a = 0; aliases[a].old_flag && a < 64; a++) {
      const char *old = aliases[a].old_flag, *arg = argv[i];
      size_t n = strlen (old);
      gboolean is_long = old[1] == '-';
      if (strncmp (arg, old, n) != 0 || (arg[n] && is_long && arg[n] != '='))
        continue;
      if (!arg[n])
        argv[i] = (char *) aliases[a].new_flag;
      else {   /* "--ranks=4", or "-n4"; kept for the process's life (argv's) */
        static GPtrArray *kept;
        if (!kept)
          kept = g_ptr_array_new ();
        argv[i] = g_strconcat (aliases[a].new_flag, "=", arg + n + (is_long ? 1 : 0), NULL);
        g_ptr_array_add (kept, argv[i]);
      }
      if (!(warned & (G_GUINT64_CONSTANT (1) << a)))
        fprintf (stderr, "dpscale %s: %s is deprecated: use %s\n", cmd, old, aliases[a].new_flag);
      warned |= G_GUINT64_CONSTANT (1) << a;
      break;
    }
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
  if (gpus > DPS_SIM_MAX_GPUS || nodes > DPS_SIM_MAX_GPUS / k) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s: at most %d GPUs are simulated (%d nodes of %d)",
                 gpus ? "--gpus" : "--nodes", DPS_SIM_MAX_GPUS, DPS_SIM_MAX_GPUS / k, k);
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

/* As dps_cli_topology, with a calibration profile (may be NULL): the
 * topology dps_profile_apply_spec gives (without --topology the profile's
 * cluster or machine; a named one with the profile's fitted figures),
 * sized; its notes shown once. */
DpsTopo *
dps_cli_topology_calibrated (const char *name, const DpsProfile *profile, int nodes, int gpus, int *n_gpus,
                             GError **error)
{
  g_autofree char *note = NULL;
  g_autoptr (DpsTopoSpec) spec = dps_profile_apply_spec (profile, name, DPS_DEFAULT_TOPOLOGY, nodes, gpus, &note,
                                                         error);
  dps_cli_note (note);
  /* a topology file's GPU (a calibrated machine's collectives are its own) */
  if (spec && (name || !profile) && !dps_topo_spec_gpu_arch (spec)) {
    g_autofree char *unknown = g_strdup_printf ("GPU '%s': its architecture is not known from its name: NCCL's Hopper "
                                                "tables are used ([gpu] arch says it)", spec->gpu.model);
    dps_cli_note (unknown);
  }
  return spec ? size_topology (spec, nodes, gpus, n_gpus, error) : NULL;
}

/* Shows each line of note on stderr ("dpscale: note: ..."), once per
 * process: a sweep's hundred points say a thing once. */
void
dps_cli_note (const char *note)
{
  static GHashTable *said;
  if (!note)
    return;
  if (!said)
    said = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto (GStrv) lines = g_strsplit (note, "\n", -1);
  for (int i = 0; lines[i]; i++)
    if (lines[i][0] && g_hash_table_add (said, g_strdup (lines[i])))
      fprintf (stderr, "dpscale: note: %s\n", lines[i]);
}

/* Writes text to path as dps_write_file does (a regular file whole or not
 * at all, a device or FIFO in place), or to standard output when path is
 * NULL or "-"; errors read "-o PATH: reason". */
gboolean
dps_cli_emit (const char *path, const GString *text, GError **error)
{
  if (!path || g_str_equal (path, "-")) {
    fwrite (text->str, 1, text->len, stdout);
    fflush (stdout);
    return TRUE;
  }
  return dps_write_file (path, "-o", text->str, text->len, error);
}

/* Before any work: whether ranks CPU replicas of m at batch can train at
 * all here (the runner knows the model; their bytes fit in 80% of the free
 * memory) and in time (one step's compute, 3 x forward FLOPs, under a
 * minute even at 100 GFLOP/s, more than one core of this kind reaches), so
 * that a calibration or validation doomed by its flags is refused at once,
 * not after minutes.  Errors name --model. */
gboolean
dps_cli_check_cpu_model (const DpsModel *m, int batch, int ranks, GError **error)
{
  g_autoptr (GError) why = NULL;
  if (!dps_train_net_check (m, &why)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--model: %s", why->message);
    return FALSE;
  }
  double need = dps_train_net_bytes (m, batch) * ranks, avail;
  if (!dps_mem_fits (need, &avail)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT,
                 "--model: %d replica%s of %s at batch %d need about %.1f GB, %.1f GB is free (a smaller model or --batch)",
                 ranks, ranks > 1 ? "s" : "", m->name, batch, need / 1e9, avail / 1e9);
    return FALSE;
  }
  double step_s = 3 * dps_model_fwd_flops (m) * batch / 100e9;
  if (step_s > 60) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT,
                 "--model: one step of %s at batch %d is %.3g TFLOP, %.0f s of a core even at 100 GFLOP/s: "
                 "too long for CPU replicas (a smaller model or --batch)", m->name, batch,
                 3 * dps_model_fwd_flops (m) * batch / 1e12, step_s);
    return FALSE;
  }
  return TRUE;
}

/* For an output prefix (or stem) whose files get suffixes: FALSE, with
 * "FLAG PATH: is a character device, not a prefix of files", when the path
 * itself is a device, FIFO, directory or socket, so that no x.csv or x.png
 * is created beside a device file; and as dps_output_kind refuses it
 * (empty, in a missing folder, ending in an extension the prefix takes
 * none of, an input), or where a file the command writes under it
 * (cli_outputs: PREFIX.csv, ...) is an input, which they are claimed
 * against. */
gboolean
dps_cli_check_prefix (const char *flag, const char *prefix, GError **error)
{
  DpsOutputKind kind;
  if (!dps_output_kind (prefix, flag, &kind, error))
    return FALSE;
  if (kind == DPS_OUTPUT_STREAM) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s %s: is %s, not a prefix of files", flag, prefix,
                 dps_path_kind (prefix));
    return FALSE;
  }
  return check_beside (cli_output (flag), prefix, error);
}

/* The quantities the core refuses by name, and the flags that set them. */
/* The flag that sets each quantity the core refuses by field
 * (error.h), with its separator as the field's words have theirs. */
static const char *const field_flags[DPS_FIELD_COUNT] = {
  [DPS_FIELD_GPUS] = "--gpus: ", [DPS_FIELD_BUCKET_CAP] = "--bucket-cap-mb: ",
  [DPS_FIELD_FIRST_BUCKET] = "--first-bucket-mb: ", [DPS_FIELD_GRAD_ACCUM] = "--grad-accum: ",
  [DPS_FIELD_TRIALS] = "--trials: ", [DPS_FIELD_POWERSGD_RANK] = "--compress powersgd:R: ",
  [DPS_FIELD_GLOBAL_BATCH] = "--global-batch: ", [DPS_FIELD_BATCH] = "--batch: ", [DPS_FIELD_MODEL] = "--model: ",
  [DPS_FIELD_TOPOLOGY] = "--topology: ", [DPS_FIELD_TRACE] = "--trace ", [DPS_FIELD_EMU_NODES] = "--nodes: ",
  [DPS_FIELD_EMU_LINK] = "--nodes/--link-gbps: ", [DPS_FIELD_IMPORT] = "--import: ",
  [DPS_FIELD_GPU_REPLICAS] = "--backend gpu: ", [DPS_FIELD_EMU_REPLICAS] = "--emulate: ",
  [DPS_FIELD_SLOW_REPLICAS] = "--slow-replicas: ", [DPS_FIELD_PRECISION] = "--precision: ",
  [DPS_FIELD_OFFLOAD] = "--offload: ",
};
G_STATIC_ASSERT (G_N_ELEMENTS (field_flags) == DPS_FIELD_COUNT);

/* The core names the quantity it refuses ("bucket cap: must be more than
 * 0") and says which in the error's field; the command line names the
 * flag that sets it ("--bucket-cap-mb: must be more than 0").  Rewrites
 * error's message that way when it carries a field and still opens with
 * the field's words (a message a caller prefixed with its own words is
 * left as it is, as is any other error or a NULL one). */
void
dps_cli_name_flag (GError *error)
{
  DpsField f = error ? dps_error_field (error) : DPS_FIELD_NONE;
  if (f == DPS_FIELD_NONE || !field_flags[f] || !g_str_has_prefix (error->message, dps_field_words (f)))
    return;
  char *m = g_strconcat (field_flags[f], error->message + strlen (dps_field_words (f)), NULL);
  g_free (error->message);
  error->message = m;
}

void
dps_cli_emit_as (DpsFormat format, const GString *table, const GString *csv, JsonBuilder *json)
{
  if (format == DPS_FORMAT_CSV) {
    dps_cli_emit (NULL, csv, NULL);
    return;
  }
  if (format != DPS_FORMAT_JSON) {
    dps_cli_emit (NULL, table, NULL);
    return;
  }
  json_builder_end_object (json);
  g_autoptr (GString) j = g_string_new (NULL);
  dps_json_append (j, json);
  dps_cli_emit (NULL, j, NULL);
}

/* Prints "dpscale CMD: message" on stderr (one line of at most
 * DPS_MESSAGE_MAX_BYTES, dps_one_line), frees error, returns the exit
 * status: 2 for usage errors (an unknown or malformed flag), 1 for the rest
 * (bad files, failed writes, unsupported requests).  A quantity the core
 * refused is named by its flag (dps_cli_name_flag). */
int
dps_cli_fail (const char *cmd, GError *error)
{
  dps_cli_name_flag (error);
  gboolean flag = error->domain == DPS_ERROR && dps_error_kind (error) != DPS_ERROR_IO
                  && (g_str_has_prefix (error->message, "-") || g_str_has_prefix (error->message, "unknown option"));
  gboolean usage = error->domain == G_OPTION_ERROR || flag;
  int status = usage ? DPS_EXIT_USAGE : 1;
  g_autofree char *line = dps_one_line (error->message, -1, DPS_MESSAGE_MAX_BYTES);
  fprintf (stderr, "dpscale %s: %s\n", cmd, line);
  g_error_free (error);
  return status;
}

/* Appends v as a CSV field that a spreadsheet reads back as written: a
 * whole number in full ("70553600000", never "7.05536e+10"), any other in
 * fixed notation with 9 significant digits and no trailing zeros
 * ("0.102745936", "0.0000153"); nothing, an empty field, for a value not
 * computed (have FALSE) or not finite. */
void
dps_csv_num (GString *o, double v, gboolean have)
{
  if (!have || !isfinite (v))
    return;
  if (v == floor (v) && fabs (v) < 9e15) {
    g_string_append_printf (o, "%.0f", v == 0 ? 0.0 : v);   /* no "-0" */
    return;
  }
  int decimals = CLAMP (8 - (int) floor (log10 (fabs (v))), 0, 24);
  gsize start = o->len;
  g_string_append_printf (o, "%.*f", decimals, v);
  if (strchr (o->str + start, '.')) {
    while (o->str[o->len - 1] == '0')
      g_string_truncate (o, o->len - 1);
    if (o->str[o->len - 1] == '.')
      g_string_truncate (o, o->len - 1);
  }
}

/* With --tp or --pp, whether the CPU runner can split model (a GPT-2
 * stack with a block a stage, whose heads and MLP width the group
 * divides), before any rank starts (run and validate). */
gboolean
dps_cli_layout_splits (const DpsModel *model, int tp, int pp, GError **error)
{
  if (pp > 1) {
    int blocks = dps_model_n_layers (model) - 2;
    if (!dps_gpt2_check (model, error) || blocks < pp) {
      g_autoptr (GError) e = *error;
      *error = NULL;
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--pp: %s", e ? e->message
                   : "more stages than the model's blocks");
      return FALSE;
    }
  }
  if (tp <= 1)
    return TRUE;
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) part = dps_tp_shard_model (model, tp, &e);
  if (!part)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--tp: %s",
                 g_str_has_prefix (e->message, "--tp: ") ? e->message + 6 : e->message);
  return part != NULL;
}
