/* main.c — the dpscale command: dispatch to a subcommand. */
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <locale.h>
#include <errno.h>

#include "sim/app/cli.h"
#include "sim/app/cli-util.h"
#include "sim/app/cli-flags.h"
#include "real/launch.h"
#include "dps-config.h"

typedef struct {
  const char *name;
  int       (*fn) (int argc, char **argv);
  gboolean    starts_processes;
} Command;

static const Command commands[] = {
  { "predict",    dps_cmd_predict,    FALSE },
  { "sweep",      dps_cmd_sweep,      FALSE },
  { "advise",     dps_cmd_advise,     FALSE },
  { "calibrate",  dps_cmd_calibrate,  TRUE },
  { "run",        dps_cmd_run,        TRUE },
  { "validate",   dps_cmd_validate,   TRUE },
  { "collective", dps_cmd_collective, FALSE },
  { "plot",       dps_cmd_plot,       FALSE },
  { "topo",       dps_cmd_topo,       FALSE },
};

static void
usage (FILE *out)
{
  fprintf (out,
           "Usage: dpscale COMMAND [OPTIONS]\n\n"
           "Predicts how data-, tensor- and pipeline-parallel training runs on a cluster,\n"
           "and measures this machine to check it.\n\n"
           "Commands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-12s %s\n", commands[i].name, dps_cli_summary (commands[i].name));
  fprintf (out, "\n'dpscale COMMAND --help' lists each command's options.\n");
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  if (argc < 2 || !strcmp (argv[1], "--help") || !strcmp (argv[1], "-h") || !strcmp (argv[1], "help")) {
    usage (argc < 2 ? stderr : stdout);
    return argc < 2 ? DPS_EXIT_USAGE : 0;
  }
  if (!strcmp (argv[1], "--flags")) {   /* the numeric flags' declarations, for the tests */
    dps_cli_flags_print ();
    return 0;
  }
  if (!strcmp (argv[1], "--version")) {
    printf ("dpscale %s (CUDA %s, NCCL %s)\n", DPS_VERSION, DPS_HAVE_CUDA ? "yes" : "no",
            DPS_HAVE_NCCL ? "yes" : "no");
    return 0;
  }
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (!strcmp (argv[1], commands[i].name)) {
      /* the commands that start mpirun or emulated nodes clean up after a
       * signal, then exit as the signal would have: 128 + its number */
      if (commands[i].starts_processes)
        dps_launch_trap_signals ();
      int status = commands[i].fn (argc - 1, argv + 1);
      if (dps_launch_stop_signal ())
        return 128 + dps_launch_stop_signal ();
      /* a result that did not reach standard output (a full disk, a closed
       * pipe) is a failure, not a success that printed nothing */
      if (fflush (stdout) != 0 || ferror (stdout)) {
        fprintf (stderr, "dpscale %s: standard output: %s\n", argv[1], g_strerror (errno));
        return status ? status : 1;
      }
      return status;
    }
  fprintf (stderr, "dpscale: unknown command '%s' (try 'dpscale --help')\n", argv[1]);
  return DPS_EXIT_USAGE;
}
