/* cli-flags — one declaration per numeric flag: its range, whether it is
 * a whole number, and its unit, the same for every command it appears in
 * (predict, sweep, advise, collective, topo, calibrate, run, validate).
 * Every command's numeric options are checked against it as they are
 * parsed (dps_cli_parse): an int or double option starts unset
 * (DPS_UNSET_INT, dps_cli_unset), so that 0 and -1 are values and are
 * checked; a list or text flag that holds numbers (sweep's --gpus LIST,
 * predict's --batch) is read through the same declaration
 * (cli-values.h).  What depends on another flag or on the machine (run's
 * 256 replicas, --warmup below --steps, emulated --nodes from 2) is each
 * command's own check, made before any work. */
#pragma once

#include <glib.h>

typedef struct {
  const char *flag;      /* "--batch" */
  double      lo, hi;
  gboolean    lo_open;   /* lo itself refused */
  gboolean    whole;     /* an integer */
  const char *unit;      /* what it counts */
} DpsFlagDecl;

/* flag's declaration ("--batch"), or NULL: not a numeric flag. */
const DpsFlagDecl *dps_cli_flag_decl (const char *flag);
/* Every declaration, *n of them, by name. */
const DpsFlagDecl *dps_cli_flag_decls (gsize *n);
/* Whether v is in flag's declared range; else FALSE with "FLAG: V is out
 * of range (LO to HI)" ("(at least LO)", "(more than LO, at most HI)", "a
 * whole number" for a fraction).  A flag without a declaration is a
 * programming error (g_return). */
gboolean dps_cli_flag_check (const char *flag, double v, GError **error);
/* The command running (dps_cli_parse sets it): a few commands hold a flag
 * to a narrower range than its declaration (collective's and run's
 * --gpus), which dps_cli_flag_check checks and quotes there. */
void     dps_cli_flag_command (const char *cmd);
/* Before parsing, every int and double option of entries must be declared
 * and start unset (a programming error otherwise: g_error); after, each
 * one given is checked (dps_cli_flag_check), and an int still at the
 * sentinel that args (the arguments before parsing) name was given as
 * it: refused too. */
void     dps_cli_flags_expect (const GOptionEntry *entries);
gboolean dps_cli_flags_check (const GOptionEntry *entries, char **args, GError **error);
/* Prints the declarations as a table, a line each: FLAG LO HI LO_OPEN
 * WHOLE UNIT (tab-separated; `dpscale --flags`, read by the tests). */
void     dps_cli_flags_print (void);
