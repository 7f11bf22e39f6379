/* netemu.c — see netemu.h. */
#include "real/netemu.h"
#include "real/launch.h"
#include "sim/base/error.h"

#include <glib/gstdio.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Emulated clusters are numbered 1 to NETEMU_IDS (subnet 10.213.ID, bridge
 * dpsbID, namespaces dpsIDnK): an id is a run's while it holds the lock of
 * LOCK_DIR/dpscale-netemu-ID.lock (flock, released by the kernel when the
 * process ends however it ends), so two runs never share an id and the
 * namespaces of an id whose lock nobody holds are a dead run's leftovers.
 * The lock file names the run's remote-shell folder, for the same reason.
 * Lock files stay (removing one could hand its id to two runs at once). */
#define NETEMU_IDS 250
#define LOCK_DIR (g_file_test ("/run", G_FILE_TEST_IS_DIR) ? "/run" : "/tmp")

static char *
lock_path (int id)
{
  return g_strdup_printf ("%s/dpscale-netemu-%d.lock", LOCK_DIR, id);
}

struct DpsNetEmu {
  int    id, nodes, ranks_per_node, created, lock_fd;
  gboolean held;
  char   net[32];          /* "10.213.X" */
  char   bridge[16];
  char  *dir, *agent, *hostfile;
  gboolean bridge_made;
};

/* Runs a command; FALSE with its message on failure. */
static gboolean
sh (GError **error, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
sh (GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *cmd = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_autofree char *err = NULL;
  int status = 0;
  const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, NULL)
      || !g_spawn_check_wait_status (status, NULL)) {
    if (error)
      g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "emulated network: '%s' failed: %s", cmd,
                   err && *err ? g_strstrip (err) : "no message");
    return FALSE;
  }
  return TRUE;
}

/* The kernel's timer frequency (CONFIG_HZ) from its configuration in
 * /boot, or Debian's 250 where that is not readable. */
static long
kernel_hz (void)
{
  struct utsname u;
  g_autofree char *text = NULL;
  long hz = 250;
  if (uname (&u) == 0) {
    g_autofree char *path = g_strdup_printf ("/boot/config-%s", u.release);
    if (g_file_get_contents (path, &text, NULL, NULL)) {
      const char *p = strstr (text, "\nCONFIG_HZ=");
      if (p && atol (p + 11) >= 24 && atol (p + 11) <= 10000)
        hz = atol (p + 11);
    }
  }
  return hz;
}

/* Removes what was made (quietly: parts may be missing after a failure). */
void
dps_netemu_free (DpsNetEmu *e)
{
  if (!e)
    return;
  for (int k = 0; k < e->created; k++) {
    sh (NULL, "ip netns del dps%dn%d", e->id, k);
    sh (NULL, "ip link del dps%dr%d 2>/dev/null || true", e->id, k);
  }
  if (e->bridge_made)
    sh (NULL, "ip link del %s", e->bridge);
  if (e->agent)
    g_unlink (e->agent);
  if (e->hostfile)
    g_unlink (e->hostfile);
  if (e->dir)
    g_rmdir (e->dir);
  if (e->lock_fd >= 0) {
    /* nothing of the id is left: its lock file goes (held while removed,
     * so no other run holds a lock on a file no longer there), then the
     * lock */
    g_autofree char *path = lock_path (e->id);
    g_unlink (path);
    close (e->lock_fd);
  }
  if (e->held)
    dps_launch_hold (FALSE);
  g_free (e->agent);
  g_free (e->hostfile);
  g_free (e->dir);
  g_free (e);
}

/* The lock of id, held (an open descriptor) or -1 when another run holds it
 * or it cannot be opened.  A lock file is removed by the run that holds
 * it (as it ends, or as it clears a dead run's id), so a lock taken on a
 * file that is no longer the path's is nobody's: taken again, on the
 * path's file. */
static int
lock_id (int id)
{
  g_autofree char *path = lock_path (id);
  for (int tries = 0; tries < 8; tries++) {
    int fd = g_open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
      return -1;
    if (flock (fd, LOCK_EX | LOCK_NB) != 0) {
      close (fd);
      return -1;
    }
    struct stat held, named;
    if (fstat (fd, &held) == 0 && stat (path, &named) == 0 && held.st_ino == named.st_ino
        && held.st_dev == named.st_dev)
      return fd;
    close (fd);   /* removed while we waited: try the path's new file */
  }
  return -1;
}

/* With id's lock held: removes what a dead run of that id left (its
 * namespaces, veths, bridge, and the remote-shell folder its lock file
 * names), then records dir (may be NULL) as this run's. */
static void
clear_id (int id, int fd, const char *dir)
{
  sh (NULL, "for n in $(ip netns list | awk '{print $1}' | grep -x 'dps%dn[0-9]*'); do ip netns del $n; done;"
            " for l in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -x 'dps%dr[0-9]*\\|dpsb%d');"
            " do ip link del $l; done; true", id, id, id);
  char old[4096] = { 0 };
  ssize_t n = pread (fd, old, sizeof old - 1, 0);
  if (n > 0) {
    g_strchomp (old);
    g_autofree char *base = g_path_get_basename (old);
    if (g_str_has_prefix (base, "dpscale-net-") && g_file_test (old, G_FILE_TEST_IS_DIR)) {
      const char *files[] = { "agent.sh", "hosts" };
      for (gsize i = 0; i < G_N_ELEMENTS (files); i++) {
        g_autofree char *f = g_build_filename (old, files[i], NULL);
        g_unlink (f);
      }
      g_rmdir (old);
    }
  }
  if (ftruncate (fd, 0) == 0 && dir) {
    ssize_t put = pwrite (fd, dir, strlen (dir), 0);
    (void) put;
  }
}

/* Clears id where no run holds it: what its dead run left, then its lock
 * file. */
static void
clear_dead (int id)
{
  int fd = lock_id (id);
  if (fd < 0)
    return;
  clear_id (id, fd, NULL);
  g_autofree char *path = lock_path (id);
  g_unlink (path);
  close (fd);
}

/* Whether a dpscale that numbered its cluster as before the locks (its pid
 * % 9000 + 100, no lock file) still runs: such a cluster is left alone. */
static gboolean
old_scheme_alive (int id)
{
  GDir *d = g_dir_open ("/proc", 0, NULL);
  const char *name;
  gboolean alive = FALSE;
  while (d && !alive && (name = g_dir_read_name (d))) {
    if (!g_ascii_isdigit (name[0]) || atoi (name) % 9000 + 100 != id)
      continue;
    g_autofree char *path = g_strdup_printf ("/proc/%s/comm", name), *comm = NULL;
    alive = g_file_get_contents (path, &comm, NULL, NULL) && g_str_has_prefix (comm, "dpscale\n");
  }
  if (d)
    g_dir_close (d);
  return alive;
}

/* Removes the namespaces, links and folders of emulated clusters whose run
 * is gone (any id, also of older numbering schemes: every dps namespace or
 * link whose id's lock is free). */
static void
clear_stale (void)
{
  g_autofree char *out = NULL;
  const char *argv[] = { "/bin/sh", "-c", "ip netns list; ip -o link show | awk -F': ' '{print $2}'", NULL };
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, NULL, NULL))
    return;
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  for (int i = 0; lines[i]; i++) {
    const char *l = lines[i];
    if (!g_str_has_prefix (l, "dps"))
      continue;
    const char *digits = l + 3 + (l[3] == 'b');
    char *end = NULL;
    long id = g_ascii_isdigit (*digits) ? strtol (digits, &end, 10) : 0;
    if (id < 1 || id > 1000000 || g_hash_table_contains (seen, GINT_TO_POINTER (id)))
      continue;
    g_hash_table_add (seen, GINT_TO_POINTER (id));
    g_autofree char *lock = lock_path ((int) id);
    if (!g_file_test (lock, G_FILE_TEST_EXISTS) && old_scheme_alive ((int) id))
      continue;
    clear_dead ((int) id);
  }
  /* lock files of dead runs with nothing else left */
  GDir *d = g_dir_open (LOCK_DIR, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d))) {
    long id;
    char tail[8];
    if (sscanf (name, "dpscale-netemu-%ld%7s", &id, tail) == 2 && g_str_equal (tail, ".lock") && id >= 1
        && id <= 1000000 && !g_hash_table_contains (seen, GINT_TO_POINTER (id)))
      clear_dead ((int) id);
  }
  if (d)
    g_dir_close (d);
}

/* Builds nodes namespaces of ranks_per_node slots joined at link_gbps
 * (Gbit/s each way per node).  Errors: not root, ip or tc missing, a
 * command that fails (everything made so far is removed). */
DpsNetEmu *
dps_netemu_new (int nodes, int ranks_per_node, double link_gbps, GError **error)
{
  if (geteuid () != 0) {
    dps_set_field_error (error, DPS_FIELD_EMU_NODES, DPS_ERROR_UNSUPPORTED,
                 "need root (network namespaces and tc); skipped");
    return NULL;
  }
  if (nodes < 2 || nodes > 64 || ranks_per_node < 1 || !(link_gbps > 0) || link_gbps > 1000) {
    dps_set_field_error (error, DPS_FIELD_EMU_LINK, DPS_ERROR_INPUT, "need 2 to 64 nodes and 0 < Gbit/s <= 1000");
    return NULL;
  }
  g_autofree char *ip = g_find_program_in_path ("ip"), *tc = g_find_program_in_path ("tc");
  g_autofree char *us = g_find_program_in_path ("unshare");
  if (!ip || !tc || !us) {
    dps_set_field_error (error, DPS_FIELD_EMU_NODES, DPS_ERROR_UNSUPPORTED, "need ip, tc and unshare (Debian: iproute2, util-linux)");
    return NULL;
  }
  g_autoptr (DpsNetEmu) e = g_new0 (DpsNetEmu, 1);
  e->lock_fd = -1;
  dps_launch_hold (TRUE);   /* from here a signal lets the caller remove what is made */
  e->held = TRUE;
  clear_stale ();
  for (int id = 1; id <= NETEMU_IDS && e->lock_fd < 0; id++)
    if ((e->lock_fd = lock_id (id)) >= 0)
      e->id = id;
  if (e->lock_fd < 0) {
    dps_set_field_error (error, DPS_FIELD_EMU_NODES, DPS_ERROR_RUNTIME, "all %d emulated-cluster ids are in use (%s/dpscale-netemu-*.lock)",
                 NETEMU_IDS, LOCK_DIR);
    return NULL;
  }
  e->dir = g_dir_make_tmp ("dpscale-net-XXXXXX", NULL);
  if (!e->dir) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "emulated network: cannot make a temporary folder");
    return NULL;
  }
  clear_id (e->id, e->lock_fd, e->dir);
  e->nodes = nodes;
  e->ranks_per_node = ranks_per_node;
  g_snprintf (e->net, sizeof e->net, "10.213.%d", e->id);
  g_snprintf (e->bridge, sizeof e->bridge, "dpsb%d", e->id);
  /* tbf's bucket must hold what the rate brings in one timer tick, rate/HZ
   * (tc-tbf(8): "the minimum buffer size can be calculated by dividing the
   * rate by HZ"), and at least one 64 KiB GSO packet.  With 1 ms at HZ 250
   * (a quarter of that) 4 emulated nodes in a ring ran 16 MiB all-reduces
   * at 87% of 1 Gbit/s and at 63% of 0.5 Gbit/s; with rate/HZ (4 ms) at
   * 91% of 1 Gbit/s.  At that minimum a late tick overflows the bucket and
   * its tokens are lost, the more so the more links run at once: on a
   * 2-core VM (HZ 250, 2026-12-04) 2 nodes ran 16 MiB at 93% and 4 nodes
   * at 85%, so that 4 nodes predicted from 2 came out 10-12% fast
   * (tests/test-transfer-emulated.sh, median 10.1-10.3%).  Two ticks' worth
   * keeps the rate through one late tick: 4 nodes at 92-94%, predicted
   * within 0.8-1.3% (worst 3.3-4.6%); four ticks 1.4% (1.5%).  On a
   * busier day of the same VM (2026-12-05) two ticks lost more: 16 MiB on
   * 4 nodes came out 10.1-15.9% slower than predicted in three runs alone
   * and 20.5% inside the suite, where four ticks gave 8.6-12.7% (1 and
   * 4 MiB within 1.7% either way): four ticks, then, 2 MB at 1 Gbit/s and
   * HZ 250, which a back-to-back all-reduce never finds full. */
  double rate_Bps = link_gbps * 1e9 / 8;
  long burst = MAX (65536L, (long) (4 * rate_Bps / kernel_hz ()));
  if (!sh (error, "ip link add %s type bridge && ip addr add %s.254/24 dev %s && ip link set %s up", e->bridge,
           e->net, e->bridge, e->bridge))
    return NULL;
  e->bridge_made = TRUE;
  for (int k = 0; k < nodes; k++) {
    e->created = k + 1;
    if (!sh (error, "ip netns add dps%dn%d && ip link add dps%dr%d type veth peer name dps%dp%d"
                    " && ip link set dps%dp%d netns dps%dn%d && ip link set dps%dr%d master %s up"
                    " && ip netns exec dps%dn%d ip addr add %s.%d/24 dev dps%dp%d"
                    " && ip netns exec dps%dn%d ip link set dps%dp%d up && ip netns exec dps%dn%d ip link set lo up"
                    " && tc qdisc add dev dps%dr%d root tbf rate %.0fbit burst %ld latency 100ms"
                    " && ip netns exec dps%dn%d tc qdisc add dev dps%dp%d root tbf rate %.0fbit burst %ld latency 100ms",
             e->id, k, e->id, k, e->id, k, e->id, k, e->id, k, e->id, k, e->bridge, e->id, k, e->net, k + 1, e->id, k,
             e->id, k, e->id, k, e->id, k, e->id, k, link_gbps * 1e9, burst, e->id, k, e->id, k, link_gbps * 1e9, burst))
      return NULL;
  }
  /* the remote shell of mpirun: host 10.213.X.(k+1) is namespace k */
  e->agent = g_build_filename (e->dir, "agent.sh", NULL);
  g_autofree char *agent = g_strdup_printf (
    "#!/bin/sh\n# dpscale: enter the emulated node's namespace under its own host name\n"
    "while [ $# -gt 0 ] && [ \"${1#-}\" != \"$1\" ]; do shift; done\n"
    "host=$1; shift\nk=$(( ${host##*.} - 1 ))\n"
    "exec ip netns exec dps%dn$k unshare --uts sh -c \"hostname node$k; $*\"\n", e->id);
  GString *hosts = g_string_new (NULL);
  for (int k = 0; k < nodes; k++)
    g_string_append_printf (hosts, "%s.%d slots=%d\n", e->net, k + 1, ranks_per_node);
  e->hostfile = g_build_filename (e->dir, "hosts", NULL);
  gboolean ok = g_file_set_contents (e->agent, agent, -1, NULL) && g_chmod (e->agent, 0755) == 0
                && g_file_set_contents (e->hostfile, hosts->str, -1, NULL);
  g_string_free (hosts, TRUE);
  if (!ok) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "emulated network: cannot write %s", e->dir);
    return NULL;
  }
  return g_steal_pointer (&e);
}

int
dps_netemu_nodes (const DpsNetEmu *e)
{
  return e->nodes;
}

/* mpirun's command line for ranks copies of program spread evenly over
 * the emulated nodes. */
GPtrArray *
dps_netemu_mpirun_argv (const DpsNetEmu *e, int ranks, const char *program)
{
  char *mpirun = g_find_program_in_path ("mpirun");
  if (!mpirun)
    return NULL;
  g_autofree char *cidr = g_strdup_printf ("%s.0/24", e->net);
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (a, mpirun);
  const char *fixed[] = { "--hostfile", e->hostfile, "--mca", "plm_rsh_agent", e->agent, "--mca", "routed", "direct",
                          "--mca", "oob_tcp_if_include", cidr, "--mca", "btl_tcp_if_include", cidr,
                          "--mca", "btl", "vader,tcp,self", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1" };
  g_ptr_array_add (a, g_strdup ("-np"));
  g_ptr_array_add (a, g_strdup_printf ("%d", ranks));
  for (gsize i = 0; i < G_N_ELEMENTS (fixed); i++)
    g_ptr_array_add (a, g_strdup (fixed[i]));
  /* Open MPI's TCP transport over one socket per pair of ranks delivers
   * half the link to an exchange both ways at once (2 nodes, 16 MiB:
   * 256 ms where 1 Gbit/s each way takes 134; with two sockets 143), and
   * its default all-reduce from 4 ranks is pairwise (recursive halving:
   * 292 ms on 4 nodes where the ring takes 221).  Two sockets a pair, and
   * the ring all-reduce, the algorithm the model costs for a ring library;
   * a user's own OMPI_MCA_ settings of these stand. */
  const char *tuned[][2] = { { "btl_tcp_links", "2" },
                             { "coll_tuned_use_dynamic_rules", "1" },
                             { "coll_tuned_allreduce_algorithm", "4" } };
  for (gsize i = 0; i < G_N_ELEMENTS (tuned); i++) {
    g_autofree char *var = g_strconcat ("OMPI_MCA_", tuned[i][0], NULL);
    if (g_getenv (var))
      continue;
    g_ptr_array_add (a, g_strdup ("--mca"));
    g_ptr_array_add (a, g_strdup (tuned[i][0]));
    g_ptr_array_add (a, g_strdup (tuned[i][1]));
  }
  /* the same number of ranks on every node */
  g_ptr_array_add (a, g_strdup ("--map-by"));
  g_ptr_array_add (a, g_strdup_printf ("ppr:%d:node", MAX (1, ranks / e->nodes)));
  g_ptr_array_add (a, g_strdup (program));
  return a;
}

/* mpirun's command line on this machine (net NULL) or over emulated nodes. */
GPtrArray *
dps_launcher_argv (const DpsNetEmu *net, int ranks, const char *program)
{
  return net ? dps_netemu_mpirun_argv (net, ranks, program) : dps_mpirun_argv (ranks, program);
}
