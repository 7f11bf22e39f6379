/* cli-values.c — see cli-values.h. */
#include "sim/app/cli-values.h"
#include "sim/app/cli-flags.h"
#include "sim/topo-load.h"
#include "sim/coll-predict.h"
#include "sim/base/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

gboolean
dps_cli_strategy (const char *text, DpsStrategy *out, GError **error)
{
  if (dps_strategy_parse (text, out))
    return TRUE;
  g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--strategy: '%s' is not ddp, zero1, zero2, fsdp or hsdp (or "
               "PyTorch's NO_SHARD, SHARD_GRAD_OP, FULL_SHARD, HYBRID_SHARD)", text);
  return FALSE;
}

/* An int flag: not given (DPS_UNSET_INT) becomes fallback; given, it must
 * be in its declared range (cli-flags.c). */
gboolean
dps_cli_int_given (const char *flag, int *v, int fallback, GError **error)
{
  if (*v == DPS_UNSET_INT) {
    *v = fallback;
    return TRUE;
  }
  return dps_cli_flag_check (flag, *v, error);
}

/* A double flag: not given (dps_cli_unset ()) becomes fallback; given, it
 * must be in its declared range (cli-flags.c). */
gboolean
dps_cli_double_given (const char *flag, double *v, double fallback, GError **error)
{
  if (dps_cli_is_unset (*v)) {
    *v = fallback;
    return TRUE;
  }
  return dps_cli_flag_check (flag, *v, error);
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

gboolean
dps_cli_rank_order (const char *text, gboolean with_layout, DpsRankOrder *out, GError **error)
{
  *out = DPS_ORDER_TP_DP_PP;
  if (!text)
    return TRUE;
  g_autofree char *q = dps_quote (text);
  if (!dps_rank_order_parse (text, out)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--rank-order: '%s' is not tp-dp-pp or tp-pp-dp", q);
    return FALSE;
  }
  if (!with_layout) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--rank-order: only with --tp or --pp above 1");
    return FALSE;
  }
  return TRUE;
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

/* Parses "1,2,4,8" into a new GArray of gint64, each in flag's declared
 * range narrowed to [min, max]. */
gboolean
dps_cli_parse_int_list (const char *flag, const char *text, gint64 min, gint64 max,
                        GArray **out, GError **error)
{
  const DpsFlagDecl *d = dps_cli_flag_decl (flag);
  g_return_val_if_fail (d && d->whole, FALSE);
  min = MAX (min, (gint64) d->lo + (d->lo_open ? 1 : 0));
  max = MIN (max, (gint64) d->hi);
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
  *out = a;   /* never empty: dps_cli_split_list refuses an empty list */
  return TRUE;
}

/* The allowed algorithms or protocols: the flag where given, else the
 * environment variable NCCL would read, in NCCL's syntax either way
 * (dps_coll_list_mask), with a note on stderr where that was read and
 * accepted.
 * An empty variable counts as unset. */
static gboolean
mask_from (const char *flag, const char *flag_list, const char *var, gboolean algo, guint *mask, GError **error)
{
  const char *env = g_getenv (var);
  if (flag_list)
    return dps_coll_list_mask (flag, flag_list, algo, mask, error);
  if (!env || !env[0])
    return TRUE;
  if (!dps_coll_list_mask (var, env, algo, mask, error))
    return FALSE;
  /* as NCCL says "NCCL_ALGO set by environment to ^NVLS" */
  fprintf (stderr, "dpscale: %s=%s from the environment (%s overrides it)\n", var, env, flag);
  return TRUE;
}

const char *
dps_cli_algo_help (void)
{
  static gsize once = 0;
  static char *help;
  if (g_once_init_enter (&once)) {
    GString *dflt = g_string_new (NULL), *other = g_string_new (NULL);
    for (int i = DPS_ALGO_COUNT - 1; i >= 0; i--) {   /* ring first, as NCCL_ALGO lists them */
      const DpsCollAlgo *a = dps_coll_algo_nth (i);
      GString *to = a->nccl_default ? dflt : other;
      g_string_append_printf (to, "%s%s", to->len ? "," : "", a->name);
    }
    help = g_strdup_printf ("Collective algorithms allowed, as NCCL_ALGO: %s (NCCL's defaults), %s "
                            "(collnet also by NCCL_COLLNET_ENABLE=1)", dflt->str, other->str);
    g_string_free (dflt, TRUE);
    g_string_free (other, TRUE);
    g_once_init_leave (&once, 1);
  }
  return help;
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

gboolean
dps_cli_range_parse (const char *flag, const char *text, double *v, GError **error)
{
  double x;
  if (!dps_parse_double (text, &x)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: '%s' is not a number", flag, text);
    return FALSE;
  }
  if (!dps_cli_flag_check (flag, x, error))
    return FALSE;
  *v = x;
  return TRUE;
}

gboolean
dps_cli_steps (int steps, int min_steps, int warmup, GError **error)
{
  if (!dps_cli_flag_check ("--steps", steps, error) || !dps_cli_flag_check ("--warmup", warmup, error))
    return FALSE;
  if (steps < min_steps)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--steps: %d is out of range (%d to 100000)", steps, min_steps);
  else if (warmup >= steps)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--warmup: %d is out of range (0 to --steps - 1, %d)", warmup,
                 steps - 1);
  else
    return TRUE;
  return FALSE;
}

gboolean
dps_cli_micro_batches (int pp, int *micro, int batch, int grad_accum, GError **error)
{
  if (*micro != DPS_UNSET_INT && pp <= 1) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--micro-batches: only with --pp");
    return FALSE;
  }
  if (pp <= 1)
    return TRUE;
  if (!dps_cli_int_given ("--micro-batches", micro, 2 * pp, error))
    return FALSE;
  if (batch % *micro || grad_accum > 1) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--micro-batches: %d do not divide --batch %d (the pipeline's "
                 "micro-batches are the replica's batch; not with --grad-accum)", *micro, batch);
    return FALSE;
  }
  return TRUE;
}
