/* cli-flags.c — see cli-flags.h. */
#include "sim/app/cli-flags.h"
#include "sim/app/cli-values.h"
#include "sim/base/error.h"
#include "sim/strategy.h"
#include "sim/topo.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* By name.  Bounds are what the quantity can mean, not what a machine can
 * hold: a flag's zero or -1 is refused where it means nothing. */
static const DpsFlagDecl decls[] = {
  /* flag                   lo   hi                          lo_open whole  unit */
  { "--batch",              1,   1 << 20,                    FALSE, TRUE,  "samples a replica" },
  { "--blocking",           0,   1,                          FALSE, TRUE,  "0 or 1" },
  { "--bucket-cap-mb",      0,   1e6,                        TRUE,  FALSE, "MiB" },
  { "--channels",           1,   64,                         FALSE, TRUE,  "NCCL channels" },
  { "--check",              0,   1,                          FALSE, TRUE,  "0 or 1" },
  { "--contention",         0,   10,                         FALSE, FALSE, "fraction slower while overlapping" },
  { "--critical-batch",     0,   1e12,                       TRUE,  FALSE, "samples" },
  { "--efficiency",         0,   1,                          TRUE,  FALSE, "fraction of peak" },
  { "--first-bucket-mb",    0,   1e6,                        FALSE, FALSE, "MiB (0: no first bucket)" },
  { "--gap-ms",             0,   10000,                      FALSE, FALSE, "ms (or 'step')" },
  { "--global-batch",       1,   1e9,                        FALSE, TRUE,  "samples a step" },
  { "--gpu-spread",         0,   1,                          FALSE, FALSE, "coefficient of variation" },
  { "--gpus",               1,   DPS_SIM_MAX_GPUS,           FALSE, TRUE,  "GPUs (replicas, ranks)" },
  { "--grad-accum",         1,   4096,                       FALSE, TRUE,  "micro-steps a step" },
  { "--iters",              1,   G_MAXINT,                   FALSE, TRUE,  "iterations" },
  { "--jitter",             0,   10,                         FALSE, FALSE, "coefficient of variation" },
  { "--limit-all-gathers",  0,   1024,                       FALSE, TRUE,  "all-gathers in flight (0: no limit)" },
  { "--link-gbps",          0,   1e6,                        TRUE,  FALSE, "Gbit/s" },
  { "--loader-rate",        0,   1e12,                       TRUE,  FALSE, "samples/s" },
  { "--lr",                 0,   1e6,                        TRUE,  FALSE, "learning rate" },
  { "--micro-batches",      1,   1e6,                        FALSE, TRUE,  "micro-batches a step" },
  { "--nodes",              1,   G_MAXINT,                   FALSE, TRUE,  "nodes" },
  { "--os-noise-ms",        0,   1e6,                        FALSE, FALSE, "ms" },
  { "--per-node",           1,   DPS_TOPO_MAX_GPUS_PER_NODE, FALSE, TRUE,  "GPUs a node" },
  { "--pp",                 1,   1024,                       FALSE, TRUE,  "pipeline stages" },
  { "--price-per-gpu-hour", 0,   1e6,                        TRUE,  FALSE, "USD" },
  { "--seed",               0,   G_MAXINT,                   FALSE, TRUE,  "seed" },
  { "--seq-len",            1,   1 << 21,                    FALSE, TRUE,  "tokens a sample" },
  { "--shard-group",        1,   DPS_SIM_MAX_GPUS,           FALSE, TRUE,  "GPUs a shard group" },
  { "--slow-factor",        0,   1000,                       TRUE,  FALSE, "times slower" },
  { "--slow-replicas",      0,   DPS_SIM_MAX_GPUS,           FALSE, TRUE,  "replicas" },
  { "--stepfactor",         1,   1e6,                        TRUE,  FALSE, "ratio of sizes" },
  { "--steps",              1,   100000,                     FALSE, TRUE,  "steps" },
  { "--steps-to-target",    0,   1e15,                       TRUE,  FALSE, "steps" },
  { "--timeout",            0,   1e7,                        TRUE,  FALSE, "s (past 49 days, 49: a timer's guint ms)" },
  { "--tp",                 1,   1024,                       FALSE, TRUE,  "GPUs a tensor-parallel group" },
  { "--trials",             1,   100000,                     FALSE, TRUE,  "trials" },
  { "--vpp",                1,   DPS_PIPE_MAX_VPP,           FALSE, TRUE,  "virtual stages a GPU" },
  { "--warmup",             0,   99999,                      FALSE, TRUE,  "steps (below --steps)" },
  { "--warmup_iters",       0,   G_MAXINT,                   FALSE, TRUE,  "iterations" },
};

/* Commands whose own range for a flag is narrower than its
 * declaration's: the range checked and quoted there. */
static const struct {
  const char *cmd, *flag;
  double      lo, hi;
} narrower[] = {
  { "collective", "--gpus", 2, DPS_CLI_MAX_COLLECTIVE_GPUS },   /* one rank moves nothing between GPUs */
  { "run", "--gpus", 1, DPS_CLI_MAX_MACHINE_RANKS },
};

static const char *flag_cmd;   /* the command whose flags are checked */

void
dps_cli_flag_command (const char *cmd)
{
  flag_cmd = cmd;
}

const DpsFlagDecl *
dps_cli_flag_decl (const char *flag)
{
  for (gsize i = 0; i < G_N_ELEMENTS (decls); i++)
    if (g_str_equal (decls[i].flag, flag))
      return &decls[i];
  return NULL;
}

const DpsFlagDecl *
dps_cli_flag_decls (gsize *n)
{
  *n = G_N_ELEMENTS (decls);
  return decls;
}

gboolean
dps_cli_flag_check (const char *flag, double v, GError **error)
{
  const DpsFlagDecl *decl = dps_cli_flag_decl (flag);
  g_return_val_if_fail (decl, FALSE);
  DpsFlagDecl own = *decl;
  for (gsize i = 0; flag_cmd && i < G_N_ELEMENTS (narrower); i++)
    if (g_str_equal (narrower[i].cmd, flag_cmd) && g_str_equal (narrower[i].flag, flag)) {
      own.lo = narrower[i].lo;
      own.hi = narrower[i].hi;
    }
  const DpsFlagDecl *d = &own;
  gboolean in = isfinite (v) && (d->lo_open ? v > d->lo : v >= d->lo) && v <= d->hi;
  if (in && (!d->whole || v == floor (v)))
    return TRUE;
  if (in)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: %.15g is not a whole number", flag, v);
  else if (d->whole && d->hi == G_MAXINT)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: %.15g is out of range (at least %.15g)", flag, v, d->lo);
  else if (d->whole)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: %.15g is out of range (%.15g to %.15g)", flag, v, d->lo,
                 d->hi);
  else
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: %.15g is out of range (%s %.15g, at most %.15g)", flag, v,
                 d->lo_open ? "more than" : "at least", d->lo, d->hi);
  return FALSE;
}

static gboolean
numeric (const GOptionEntry *e)
{
  return e->arg == G_OPTION_ARG_INT || e->arg == G_OPTION_ARG_DOUBLE;
}

static gboolean
unset (const GOptionEntry *e, double *v)
{
  if (e->arg == G_OPTION_ARG_INT) {
    int x = *(const int *) e->arg_data;
    *v = x;
    return x == DPS_UNSET_INT;
  }
  *v = *(const double *) e->arg_data;
  return dps_cli_is_unset (*v);
}

void
dps_cli_flags_expect (const GOptionEntry *entries)
{
  for (const GOptionEntry *e = entries; e->long_name; e++) {
    if (!numeric (e))
      continue;
    g_autofree char *flag = g_strconcat ("--", e->long_name, NULL);
    double v;
    if (!dps_cli_flag_decl (flag))
      g_error ("%s: a numeric option without a declaration in sim/app/cli-flags.c", flag);
    if (!unset (e, &v))
      g_error ("%s: starts at %g, not unset: its absence would read as that value", flag, v);
  }
}

/* Whether args (before parsing, NULL-ended) name e: --long, --long=V, -s,
 * -sV (until "--"). */
static gboolean
named (const GOptionEntry *e, char **args)
{
  g_autofree char *lng = g_strconcat ("--", e->long_name, NULL);
  gsize n = strlen (lng);
  for (int i = 1; args && args[i] && strcmp (args[i], "--") != 0; i++)
    if ((g_str_has_prefix (args[i], lng) && (args[i][n] == 0 || args[i][n] == '='))
        || (e->short_name && args[i][0] == '-' && args[i][1] == e->short_name))
      return TRUE;
  return FALSE;
}

gboolean
dps_cli_flags_check (const GOptionEntry *entries, char **args, GError **error)
{
  for (const GOptionEntry *e = entries; e->long_name; e++) {
    double v;
    /* given: off the sentinel, or an int given as the sentinel itself
     * (-2147483648), a value like any other */
    if (!numeric (e) || (unset (e, &v) && !(e->arg == G_OPTION_ARG_INT && named (e, args))))
      continue;
    g_autofree char *flag = g_strconcat ("--", e->long_name, NULL);
    if (!dps_cli_flag_check (flag, v, error))
      return FALSE;
  }
  return TRUE;
}

void
dps_cli_flags_print (void)
{
  printf ("# flag\tlo\thi\tlo_open\twhole\tunit\n");
  for (gsize i = 0; i < G_N_ELEMENTS (decls); i++)
    printf ("%s\t%.17g\t%.17g\t%d\t%d\t%s\n", decls[i].flag, decls[i].lo, decls[i].hi, decls[i].lo_open,
            decls[i].whole, decls[i].unit);
}
