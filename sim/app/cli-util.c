/* cli-util.c — see cli-util.h. */
#include "sim/app/cli-util.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"
#include "sim/base/file.h"
#include "sim/nccl-tune.h"
#include "real/train-net.h"
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

/* Each of the --topology names (NULL-ended) resolves to a file or a
 * shipped topology (dps_topo_find), checked before any work: a sweep or
 * validation is not refused after its first point or its calibration.
 * The error reads "topology: no file 'X' ..." (dps_cli_fail names it). */
gboolean
dps_cli_check_topologies (const char *const *names, GError **error)
{
  for (int i = 0; names && names[i]; i++) {
    g_autofree char *path = dps_topo_find (names[i], error);
    if (!path)
      return FALSE;
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

/* Parses a subcommand's options; on failure error holds GOption's one-line
 * message (unknown flag, missing or malformed value).  Begins the command's
 * guard of its files (sim/base/file.h: from here every input read is
 * registered) and checks its output flags' paths before any work
 * (cli_outputs): a refusal reads "FLAG PATH: ..." (exit status 2). */
gboolean
dps_cli_parse (const char *cmd, const char *summary, const char *description,
               GOptionEntry *entries, int *argc, char ***argv, GError **error)
{
  DpsOutputRule rules[G_N_ELEMENTS (cli_outputs)];
  int n_rules = 0;
  cli_cmd = cmd;
  for (gsize i = 0; i < G_N_ELEMENTS (cli_outputs); i++)
    if (g_str_equal (cli_outputs[i].cmd, cmd))
      rules[n_rules++] = cli_outputs[i].rule;
  dps_file_guard_begin (rules, n_rules);
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
  return ok && check_outputs (entries, error) && check_empty (entries, error);
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

/* A flag's absence is not its zero: numeric flags start at a sentinel a
 * user cannot give.  For an int that is DPS_UNSET_INT (G_MININT, which the
 * bounds below refuse anyway); for a double a NaN with a payload of its own
 * (a typed "nan" is a plain NaN, and is refused). */
#define UNSET_BITS G_GUINT64_CONSTANT (0x7ff80000d95e75e7)

double
dps_cli_unset (void)
{
  guint64 bits = UNSET_BITS;
  double v;
  memcpy (&v, &bits, sizeof v);
  return v;
}

gboolean
dps_cli_is_unset (double v)
{
  guint64 bits;
  memcpy (&bits, &v, sizeof v);
  return bits == UNSET_BITS;
}

/* An int flag: not given (DPS_UNSET_INT) becomes fallback; given, it must
 * be at least lo and at most hi, else "FLAG: V is out of range (LO to HI)"
 * ("(at least LO)" where hi is G_MAXINT). */
gboolean
dps_cli_strategy (const char *text, DpsStrategy *out, GError **error)
{
  if (dps_strategy_parse (text, out))
    return TRUE;
  g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--strategy: '%s' is not ddp, zero1, zero2, fsdp or hsdp (or "
               "PyTorch's NO_SHARD, SHARD_GRAD_OP, FULL_SHARD, HYBRID_SHARD)", text);
  return FALSE;
}

gboolean
dps_cli_int_given (const char *flag, int *v, int lo, int hi, int fallback, GError **error)
{
  if (*v == DPS_UNSET_INT) {
    *v = fallback;
    return TRUE;
  }
  if (*v < lo || *v > hi) {
    if (hi == G_MAXINT)
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: %d is out of range (at least %d)", flag, *v, lo);
    else
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: %d is out of range (%d to %d)", flag, *v, lo, hi);
    return FALSE;
  }
  return TRUE;
}

/* A double flag: not given (dps_cli_unset ()) becomes fallback; given, it
 * must be finite, above lo (or at least lo when lo_closed) and at most hi,
 * else "FLAG: V is out of range (more than LO, at most HI)". */
gboolean
dps_cli_double_given (const char *flag, double *v, double lo, gboolean lo_closed, double hi, double fallback,
                      GError **error)
{
  if (dps_cli_is_unset (*v)) {
    *v = fallback;
    return TRUE;
  }
  if (!isfinite (*v) || *v < lo || (!lo_closed && *v == lo) || *v > hi) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: %g is out of range (%s %.15g, at most %.15g)", flag, *v,
                 lo_closed ? "at least" : "more than", lo, hi);
    return FALSE;
  }
  return TRUE;
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
  double need = dps_train_net_bytes (m, batch) * ranks;
  double avail = dps_mem_available ();
  if (need > 0.8 * avail) {
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
static const struct { const char *quantity, *flag; } core_flags[] = {
  { "GPU count: ", "--gpus: " },
  { "bucket cap: ", "--bucket-cap-mb: " },
  { "first bucket: ", "--first-bucket-mb: " },
  { "gradient accumulation: ", "--grad-accum: " },
  { "trials: ", "--trials: " },
  { "PowerSGD rank: ", "--compress powersgd:R: " },
  { "global batch: ", "--global-batch: " },
  { "batch: ", "--batch: " },
  { "model: ", "--model: " },
  { "topology: ", "--topology: " },
  { "trace file ", "--trace " },
  { "emulated nodes: ", "--nodes: " },
  { "imported log: ", "--import: " },
  { "emulated nodes and link: ", "--nodes/--link-gbps: " },
  { "GPU replicas: ", "--backend gpu: " },
  { "emulated replicas: ", "--emulate: " },
};

/* The core names the quantity it refuses ("bucket cap: must be more than
 * 0"); the command line names the flag that sets it ("--bucket-cap-mb: must
 * be more than 0").  Rewrites error's message that way when it starts with one of
 * the core's quantities; any other message (or a NULL error) is left as it
 * is. */
void
dps_cli_name_flag (GError *error)
{
  if (!error || error->domain != DPS_ERROR)
    return;
  for (gsize i = 0; i < G_N_ELEMENTS (core_flags); i++)
    if (g_str_has_prefix (error->message, core_flags[i].quantity)) {
      char *m = g_strconcat (core_flags[i].flag, error->message + strlen (core_flags[i].quantity), NULL);
      g_free (error->message);
      error->message = m;
      return;
    }
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
  gboolean flag = error->domain == DPS_ERROR && error->code != DPS_ERROR_IO
                  && (g_str_has_prefix (error->message, "-") || g_str_has_prefix (error->message, "unknown option"));
  gboolean usage = error->domain == G_OPTION_ERROR || flag;
  int status = usage ? DPS_EXIT_USAGE : 1;
  g_autofree char *line = dps_one_line (error->message, -1, DPS_MESSAGE_MAX_BYTES);
  fprintf (stderr, "dpscale %s: %s\n", cmd, line);
  g_error_free (error);
  return status;
}

/* A flag's comma-separated list, its entries stripped of blanks: a new
 * vector (g_strfreev), or NULL with "FLAG: empty list" or "FLAG: an empty
 * entry in 'TEXT'" (every list flag reads its entries through here, so
 * that none takes '' or "8,,16" for something). */
char **
dps_cli_split_list (const char *flag, const char *text, GError **error)
{
  char **parts = g_strsplit (text ? text : "", ",", -1);
  for (int i = 0; parts[i]; i++)
    if (!g_strstrip (parts[i])[0]) {
      if (!parts[1])
        g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: empty list", flag);
      else
        g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: an empty entry in '%s'", flag, text);
      g_strfreev (parts);
      return NULL;
    }
  if (!parts[0]) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: empty list", flag);
    g_strfreev (parts);
    return NULL;
  }
  return parts;
}

/* Parses "1,2,4,8" into a new GArray of gint64, each in [min, max]. */
gboolean
dps_cli_parse_int_list (const char *flag, const char *text, gint64 min, gint64 max,
                        GArray **out, GError **error)
{
  g_auto (GStrv) parts = dps_cli_split_list (flag, text, error);
  if (!parts)
    return FALSE;
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

/* The allowed algorithms or protocols: the flag where given, else the
 * environment variable NCCL would read, in NCCL's syntax either way
 * (dps_nccl_list_mask), with a note on stderr where that was read and
 * accepted.
 * An empty variable counts as unset. */
static gboolean
mask_from (const char *flag, const char *flag_list, const char *var, gboolean algo, guint *mask, GError **error)
{
  const char *env = g_getenv (var);
  if (flag_list)
    return dps_nccl_list_mask (flag, flag_list, algo, mask, error);
  if (!env || !env[0])
    return TRUE;
  if (!dps_nccl_list_mask (var, env, algo, mask, error))
    return FALSE;
  /* as NCCL says "NCCL_ALGO set by environment to ^NVLS" */
  fprintf (stderr, "dpscale: %s=%s from the environment (%s overrides it)\n", var, env, flag);
  return TRUE;
}

/* --algo and --proto (NULL: not given) as bit masks, each flag winning over
 * the NCCL_ALGO or NCCL_PROTO of the environment, and NCCL_NVLS_ENABLE=0
 * dropping NVLS unless --algo is given (NCCL_PAT_ENABLE=0 PAT): NCCL's own
 * algorithms (ring, tree, NVLS, PAT, and CollNet where
 * NCCL_COLLNET_ENABLE=1) and every protocol where
 * neither says.  FALSE with error naming
 * the flag or variable on a name it does not know. */
gboolean
dps_cli_parse_masks (const char *algo_list, const char *proto_list, guint *algo_mask, guint *proto_mask,
                     GError **error)
{
  *algo_mask = DPS_NCCL_ALGOS;
  *proto_mask = DPS_ALL_PROTOS;
  if (!algo_list && g_strcmp0 (g_getenv ("NCCL_COLLNET_ENABLE"), "1") == 0)
    *algo_mask |= 1u << DPS_ALGO_COLLNET;
  if (!mask_from ("--algo", algo_list, "NCCL_ALGO", TRUE, algo_mask, error)
      || !mask_from ("--proto", proto_list, "NCCL_PROTO", FALSE, proto_mask, error))
    return FALSE;
  if (!algo_list && g_strcmp0 (g_getenv ("NCCL_NVLS_ENABLE"), "0") == 0 && *algo_mask != 1u << DPS_ALGO_NVLS)
    *algo_mask &= ~(1u << DPS_ALGO_NVLS);
  if (!algo_list && g_strcmp0 (g_getenv ("NCCL_PAT_ENABLE"), "0") == 0 && *algo_mask != 1u << DPS_ALGO_PAT)
    *algo_mask &= ~(1u << DPS_ALGO_PAT);
  return TRUE;
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
