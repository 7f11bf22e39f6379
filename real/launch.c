/* launch.c — see launch.h. */
#include "real/launch.h"
#include "sim/base/error.h"

#include <gio/gio.h>
#include <glib-unix.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct {
  GMainLoop        *loop;
  GDataInputStream *in;
  DpsLineFn         fn;
  void             *data;
  GError           *error;
  gboolean          eof, exited, timed_out, stopped;
  GPtrArray        *said;        /* the lines that were not data and say something, for messages */
} Run;

/* A stop asked by a signal: the first SIGINT, SIGTERM or SIGHUP caught, and
 * a pipe that wakes the launch waiting on mpirun (a signal handler may only
 * write). */
static volatile sig_atomic_t stop_signal;
static int stop_pipe[2] = { -1, -1 };

static volatile sig_atomic_t held;   /* launches running and emulated clusters standing */

static void
on_stop_signal (int sig)
{
  int saved = errno;
  if (!held && !stop_signal) {
    /* nothing of ours outside this process: end as the signal would */
    signal (sig, SIG_DFL);
    raise (sig);
  }
  if (!stop_signal)
    stop_signal = sig;
  if (stop_pipe[1] >= 0) {
    ssize_t put = write (stop_pipe[1], "!", 1);   /* fails only when a wake-up is already pending */
    (void) put;
  }
  errno = saved;
}

/* From now on SIGINT, SIGTERM and SIGHUP do not kill this process at once
 * while a launch runs or an emulated cluster stands (dps_launch_hold): the
 * running mpirun and every process it started are stopped (as after a
 * timeout), later launches are refused, and the caller unwinds, removing
 * what it made (emulated nodes, temporary folders); the command then exits
 * with 128 + the signal (dps_launch_stop_signal).  With nothing of that
 * kind, the signal ends the process as usual.  For the commands that start
 * processes or namespaces; call once, early. */
void
dps_launch_trap_signals (void)
{
  if (stop_pipe[0] < 0 && g_unix_open_pipe (stop_pipe, FD_CLOEXEC, NULL)) {
    g_unix_set_fd_nonblocking (stop_pipe[0], TRUE, NULL);
    g_unix_set_fd_nonblocking (stop_pipe[1], TRUE, NULL);
  }
  struct sigaction sa = { .sa_handler = on_stop_signal, .sa_flags = SA_RESTART };
  sigemptyset (&sa.sa_mask);
  const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
  for (gsize i = 0; i < G_N_ELEMENTS (sigs); i++)
    sigaction (sigs[i], &sa, NULL);
}

/* Counts something that a signal must not leave behind (an emulated
 * cluster; launches count themselves): while any stands, a trapped signal
 * asks for an orderly stop instead of ending the process at once.
 * Pair every dps_launch_hold (TRUE) with a dps_launch_hold (FALSE). */
void
dps_launch_hold (gboolean hold)
{
  held += hold ? 1 : -1;
}

/* The signal that asked this process to stop, or 0. */
int
dps_launch_stop_signal (void)
{
  return stop_signal;
}

static gboolean
stop_error (GError **error)
{
  g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "stopped by %s: mpirun and its ranks were ended",
               stop_signal == SIGINT ? "SIGINT" : stop_signal == SIGTERM ? "SIGTERM" : stop_signal == SIGHUP ? "SIGHUP"
                                                                                                              : "a signal");
  return FALSE;
}

static void read_next (Run *r);

/* In the child before exec: its own process group, so that a stop reaches
 * mpirun and every rank it started; and SIGTERM when dpscale dies without
 * a word (SIGKILL, a crash), which mpirun passes on to its ranks before it
 * exits (Open MPI's mpirun forwards SIGTERM) instead of running on as an
 * orphan (and a watchdog, start_reaper, SIGKILLs the group if it has not
 * ended 5 s later).  prctl's signal follows the thread that forked: launches are made
 * from dpscale's main thread.  A dpscale already gone before the prctl
 * (the child's parent is then another process) ends the child at once.
 * data: dpscale's pid, as a pointer. */
static void
own_group (gpointer data)
{
  setpgid (0, 0);
  prctl (PR_SET_PDEATHSIG, SIGTERM);
  if (getppid () != (pid_t) GPOINTER_TO_INT (data))
    _exit (128 + SIGTERM);
}

/* Whether any process of process group pgid is still alive. */
static gboolean
group_alive (pid_t pgid)
{
  return kill (-pgid, 0) == 0;
}

/* The processes descended from root (from /proc): the ranks mpirun forked. */
static GArray *
descendants (pid_t root)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (pid_t)), *parents = g_array_new (FALSE, FALSE, sizeof (pid_t));
  GDir *d = g_dir_open ("/proc", 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d))) {
    if (!g_ascii_isdigit (name[0]))
      continue;
    g_autofree char *path = g_strdup_printf ("/proc/%s/stat", name), *stat = NULL;
    if (!g_file_get_contents (path, &stat, NULL, NULL))
      continue;
    const char *close = strrchr (stat, ')');
    int ppid = 0;
    char state;
    if (close && sscanf (close + 1, " %c %d", &state, &ppid) == 2) {
      pid_t pid = atoi (name);
      g_array_append_val (all, pid);
      g_array_append_val (parents, ppid);
    }
  }
  if (d)
    g_dir_close (d);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (pid_t));
  g_array_append_val (out, root);
  for (guint k = 0; k < out->len; k++)
    for (guint i = 0; i < all->len; i++)
      if (g_array_index (parents, pid_t, i) == g_array_index (out, pid_t, k))
        g_array_append_val (out, g_array_index (all, pid_t, i));
  g_array_remove_index (out, 0);
  g_array_free (all, TRUE);
  g_array_free (parents, TRUE);
  return out;
}

static gboolean
any_alive (GArray *pids)
{
  for (guint i = 0; i < pids->len; i++)
    if (kill (g_array_index (pids, pid_t, i), 0) == 0)
      return TRUE;
  return FALSE;
}

static void
signal_all (GArray *pids, int sig)
{
  for (guint i = 0; i < pids->len; i++)
    kill (g_array_index (pids, pid_t, i), sig);
}

static void
on_line (GObject *src, GAsyncResult *res, gpointer user)
{
  Run *r = user;
  gsize len;
  g_autoptr (GError) e = NULL;
  char *line = g_data_input_stream_read_line_finish_utf8 (r->in, res, &len, &e);
  if (!line) {
    r->eof = TRUE;
    if (r->exited)
      g_main_loop_quit (r->loop);
    return;
  }
  if (!r->error && !r->fn (line, r->data, &r->error)) {
    /* keep the lines that say something (Open MPI frames messages in dashes) */
    gboolean words = FALSE;
    for (const char *c = line; *c && !words; c++)
      words = g_ascii_isalnum (*c);
    if (words && r->said->len < 200)
      g_ptr_array_add (r->said, g_strstrip (g_strdup (line)));
  }
  g_free (line);
  read_next (r);
}

static void
read_next (Run *r)
{
  g_data_input_stream_read_line_async (r->in, G_PRIORITY_DEFAULT, NULL, on_line, r);
}

static void
on_child_exit (GObject *src, GAsyncResult *res, gpointer user)
{
  Run *r = user;
  g_subprocess_wait_finish (G_SUBPROCESS (src), res, NULL);
  r->exited = TRUE;
  if (r->eof)
    g_main_loop_quit (r->loop);
}

static gboolean
on_stop_pipe (gint fd, GIOCondition cond, gpointer user)
{
  Run *r = user;
  char buf[64];
  while (read (fd, buf, sizeof buf) > 0)
    ;
  if (stop_signal) {
    r->stopped = TRUE;
    g_main_loop_quit (r->loop);
  }
  return G_SOURCE_CONTINUE;
}

/* The cause of a failure as one line: the first lines that say something
 * (where Open MPI names the cause) and the last, joined by " / ", at most
 * about 600 characters. */
static char *
cause_lines (GPtrArray *said)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < said->len && s->len < 600; i++) {
    if (i >= 4 && i + 1 < said->len)
      continue;
    g_string_append_printf (s, "%s%s%s", s->len ? " / " : "", i > 4 ? "... / " : "", (const char *) said->pdata[i]);
  }
  return g_string_free (s, FALSE);
}

/* The watchdog of a launch's process group, for a dpscale that dies without
 * a word (SIGKILL, a crash): PR_SET_PDEATHSIG then sends mpirun SIGTERM,
 * but mpirun's own shutdown with emulated nodes once took past 15 s under
 * a whole suite's load (tests/test-signals.sh, 2026-12-07), and a child
 * deaf to SIGTERM would run on.  /bin/sh, deaf to the terminal's signals,
 * reads a socket whose other end only dpscale holds: a line, and it exits
 * (the launch is over); end of file (dpscale is gone), and it gives the
 * group REAPER_GRACE_TENTHS tenths of a second to end, then SIGKILLs what
 * is left of it. */
#define REAPER_GRACE_TENTHS "50"
static const char reaper_script[] =
  "trap '' INT TERM HUP\n"
  "read -r line && exit 0\n"
  "i=0\n"
  "while [ $i -lt " REAPER_GRACE_TENTHS " ] && kill -0 -\"$1\" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done\n"
  "kill -9 -\"$1\" 2>/dev/null\n"
  "exit 0\n";

/* Starts the watchdog of process group pgid (see reaper_script); returns
 * dpscale's end of its socket, or -1 (with *reaper NULL) where it could not
 * be started: the launch then runs without it. */
static int
start_reaper (pid_t pgid, GSubprocess **reaper)
{
  int sv[2];
  *reaper = NULL;
  if (pgid <= 0 || socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return -1;
  g_autoptr (GSubprocessLauncher) l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE
                                                                | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_take_stdin_fd (l, sv[1]);   /* closed here with the launcher */
  g_autofree char *group = g_strdup_printf ("%d", (int) pgid);
  const char *argv[] = { "/bin/sh", "-c", reaper_script, "dpscale-reaper", group, NULL };
  *reaper = g_subprocess_launcher_spawnv (l, argv, NULL);
  if (!*reaper) {
    close (sv[0]);
    return -1;
  }
  return sv[0];
}

/* The launch is over: the watchdog is told so and waited for. */
static void
release_reaper (int fd, GSubprocess *reaper)
{
  if (fd >= 0) {
    ssize_t put = send (fd, "done\n", 5, MSG_NOSIGNAL);   /* a watchdog already gone: nothing to tell */
    (void) put;
    close (fd);
  }
  if (reaper) {
    g_subprocess_wait (reaper, NULL, NULL);
    g_object_unref (reaper);
  }
}

/* Stops p (mpirun) and everything it started: SIGTERM lets mpirun stop its
 * ranks; SIGKILL whatever of it and its ranks is left after 3 s; returns
 * only once none of them runs. */
static void
stop_all (GSubprocess *p, Run *r, GMainContext *ctx)
{
  const char *id = g_subprocess_get_identifier (p);
  pid_t pid = id ? (pid_t) atoi (id) : 0;
  GArray *kids = pid > 0 ? descendants (pid) : g_array_new (FALSE, FALSE, sizeof (pid_t));
  g_subprocess_send_signal (p, SIGTERM);
  for (int i = 0; i < 300 && (!r->exited || any_alive (kids) || (pid > 0 && group_alive (pid))); i++) {
    while (g_main_context_iteration (ctx, FALSE))
      ;
    g_usleep (10000);
  }
  signal_all (kids, SIGKILL);
  if (pid > 0 && group_alive (pid))
    kill (-pid, SIGKILL);
  if (!r->exited) {
    g_subprocess_force_exit (p);
    g_subprocess_wait (p, NULL, NULL);
  }
  for (int i = 0; i < 200 && any_alive (kids); i++)
    g_usleep (10000);
  g_array_free (kids, TRUE);
}

static gboolean
on_timeout (gpointer user)
{
  Run *r = user;
  r->timed_out = TRUE;
  g_main_loop_quit (r->loop);
  return G_SOURCE_REMOVE;
}

/* Runs argv with extra_env ("NAME=value", may be NULL) added, giving each
 * line of its standard output and error to fn.  fn returns FALSE for a line
 * that is not data (kept for the error message); setting its error stops
 * the reading.  Fails when the program cannot start, exits non-zero (the
 * message quotes its first non-data lines, where the cause is, and its
 * last), outlives timeout_s or a signal asks to stop (see
 * dps_launch_trap_signals; it is killed, with its process group and every
 * process it started); refused at once after such a signal. */
gboolean
dps_launch_lines (const char *const *argv, const char *const *extra_env, double timeout_s,
                  DpsLineFn fn, void *data, GError **error)
{
  g_autoptr (GSubprocessLauncher) l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                                                | G_SUBPROCESS_FLAGS_STDERR_MERGE
                                                                | G_SUBPROCESS_FLAGS_STDIN_INHERIT);
  for (int i = 0; extra_env && extra_env[i]; i++) {
    g_auto (GStrv) kv = g_strsplit (extra_env[i], "=", 2);
    g_subprocess_launcher_setenv (l, kv[0], kv[1] ? kv[1] : "", TRUE);
  }
  g_subprocess_launcher_set_child_setup (l, own_group, GINT_TO_POINTER ((int) getpid ()), NULL);
  if (stop_signal)
    return stop_error (error);
  g_autoptr (GError) e = NULL;
  held++;
  g_autoptr (GSubprocess) p = g_subprocess_launcher_spawnv (l, argv, &e);
  if (!p) {
    held--;
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "cannot start %s: %s", argv[0], e->message);
    return FALSE;
  }
  const char *id = g_subprocess_get_identifier (p);
  GSubprocess *reaper;
  int reaper_fd = start_reaper (id ? (pid_t) atoi (id) : 0, &reaper);
  g_autoptr (GMainContext) ctx = g_main_context_new ();
  g_main_context_push_thread_default (ctx);
  Run r = { .loop = g_main_loop_new (ctx, FALSE), .fn = fn, .data = data,
            .said = g_ptr_array_new_with_free_func (g_free) };
  r.in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (p));
  read_next (&r);
  g_subprocess_wait_async (p, NULL, on_child_exit, &r);
  /* milliseconds in a guint: past 49 days (and for a timeout that is not
   * a number) as long as a guint holds, never a wrap to an instant stop */
  double ms = timeout_s * 1000;
  GSource *t = g_timeout_source_new (ms > 0 && ms < G_MAXUINT ? (guint) ms : G_MAXUINT);
  g_source_set_callback (t, on_timeout, &r, NULL);
  g_source_attach (t, ctx);
  GSource *sig = stop_pipe[0] >= 0 ? g_unix_fd_source_new (stop_pipe[0], G_IO_IN) : NULL;
  if (sig) {
    g_source_set_callback (sig, (GSourceFunc) (void (*) (void)) on_stop_pipe, &r, NULL);
    g_source_attach (sig, ctx);
  }
  if (!stop_signal)   /* a signal just before the source existed */
    g_main_loop_run (r.loop);
  else
    r.stopped = TRUE;
  g_source_destroy (t);
  g_source_unref (t);
  if (sig) {
    g_source_destroy (sig);
    g_source_unref (sig);
  }
  gboolean ok = TRUE;
  if (r.stopped) {
    stop_all (p, &r, ctx);
    ok = stop_error (error);
  } else if (r.timed_out) {
    stop_all (p, &r, ctx);
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "%s did not finish within %.0f s and was stopped "
                 "(a hung collective or a rank that died)", argv[0], timeout_s);
    ok = FALSE;
  } else if (r.error) {
    g_propagate_error (error, g_steal_pointer (&r.error));
    ok = FALSE;
  } else if (!g_subprocess_get_successful (p)) {
    int status = g_subprocess_get_if_exited (p) ? g_subprocess_get_exit_status (p) : -1;
    g_autofree char *cause = cause_lines (r.said);
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "%s failed (exit status %d)%s%s", argv[0], status,
                 *cause ? ": " : "", cause);
    ok = FALSE;
  }
  release_reaper (reaper_fd, reaper);
  g_clear_error (&r.error);
  g_ptr_array_unref (r.said);
  held--;
  g_object_unref (r.in);
  g_main_loop_unref (r.loop);
  g_main_context_pop_thread_default (ctx);
  return ok;
}

/* The path of a helper program installed beside the running dpscale
 * (or NULL when absent).  A new string. */
char *
dps_helper_path (const char *name)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  if (self) {
    g_autofree char *dir = g_path_get_dirname (self);
    char *p = g_build_filename (dir, name, NULL);
    if (g_file_test (p, G_FILE_TEST_IS_EXECUTABLE))
      return p;
    g_free (p);
  }
  return g_find_program_in_path (name);
}

char *
dps_launch_python (void)
{
  const char *env = g_getenv ("DPS_PYTHON");
  if (env && env[0])
    return g_strdup (env);
  if (g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup ("/usr/bin/python3");
  return g_find_program_in_path ("python3");
}

/* mpirun's command line for ranks copies of program on this machine:
 * oversubscribed when ranks exceed cores, unbound, ranks yielding when idle
 * (they share few cores).  NULL when mpirun is not installed. */
GPtrArray *
dps_mpirun_argv (int ranks, const char *program)
{
  char *mpirun = g_find_program_in_path ("mpirun");
  if (!mpirun)
    return NULL;
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (a, mpirun);
  g_ptr_array_add (a, g_strdup ("-np"));
  g_ptr_array_add (a, g_strdup_printf ("%d", ranks));
  const char *fixed[] = { "--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1" };
  for (gsize i = 0; i < G_N_ELEMENTS (fixed); i++)
    g_ptr_array_add (a, g_strdup (fixed[i]));
  g_ptr_array_add (a, g_strdup (program));
  return a;
}

/* Environment for mpirun ("NAME=value", NULL-terminated; static): Open MPI
 * refuses root unless told it may, and its launcher refuses to start
 * without ssh or rsh on the PATH even when every rank is on this machine
 * and neither is used (seen on a bare Debian 12: "plm_rsh_component.c(335)
 * Not found"); there it is given the path of `false`, which it never calls
 * for local ranks.  An agent the user set, or that emulated nodes pass with --mca,
 * takes precedence. */
const char *const *
dps_mpirun_env (void)
{
  static const char *env[4];
  static gsize done;
  if (g_once_init_enter (&done)) {
    int n = 0;
    if (getuid () == 0) {
      env[n++] = "OMPI_ALLOW_RUN_AS_ROOT=1";
      env[n++] = "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1";
    }
    g_autofree char *ssh = g_find_program_in_path ("ssh"), *rsh = g_find_program_in_path ("rsh");
    if (!ssh && !rsh && !g_getenv ("OMPI_MCA_plm_rsh_agent")) {
      g_autofree char *no = g_find_program_in_path ("false");
      env[n++] = g_strconcat ("OMPI_MCA_plm_rsh_agent=", no ? no : "/bin/false", NULL);   /* kept for the process */
    }
    env[n] = NULL;
    g_once_init_leave (&done, 1);
  }
  return env;
}
