/* The room under a control group's memory limits, on cgroup trees built in
 * a temporary folder: each case states the room it expects as
 * limit - usage + inactive file pages at the tightest level. */
#include "sim/base/sysmem.h"

#include <glib/gstdio.h>

#define GB 1e9

static void
put (const char *root, const char *dir, const char *name, const char *text)
{
  g_autofree char *d = g_build_filename (root, dir, NULL), *p = g_build_filename (d, name, NULL);
  g_mkdir_with_parents (d, 0755);
  g_assert_true (g_file_set_contents (p, text, -1, NULL));
}

static char *
tree (void)
{
  GError *e = NULL;
  char *root = g_dir_make_tmp ("dps-sysmem-XXXXXX", &e);
  g_assert_no_error (e);
  return root;
}

static void
rm_tree (const char *root)
{
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
  g_assert_true (system (cmd) == 0);
}

/* cgroup v2: the job's group allows 6 GB and uses 2 GB of which 0.5 GB is
 * inactive cache: 4.5 GB; its parent allows 16 GB and uses 12.5: 3.5 GB,
 * the least; the root says "max".  With the parent unlimited: 4.5 GB. */
static void
test_v2 (void)
{
  g_autofree char *root = tree ();
  put (root, "", "cgroup.controllers", "cpu memory\n");
  put (root, "", "memory.max", "max\n");
  put (root, "user", "memory.max", "16000000000\n");
  put (root, "user", "memory.current", "12500000000\n");
  put (root, "user/job", "memory.max", "6000000000\n");
  put (root, "user/job", "memory.current", "2000000000\n");
  put (root, "user/job", "memory.stat", "anon 1500000000\ninactive_file 500000000\nactive_file 0\n");
  g_assert_cmpfloat_with_epsilon (dps_mem_cgroup_room (root, "0::/user/job\n"), 3.5 * GB, 1);
  put (root, "user", "memory.max", "max\n");
  g_assert_cmpfloat_with_epsilon (dps_mem_cgroup_room (root, "0::/user/job\n"), 4.5 * GB, 1);
  /* a container sees its group as "/"... or a path not under its mount:
   * the mount's root is read (unlimited here) */
  g_assert_cmpfloat (dps_mem_cgroup_room (root, "0::/elsewhere/c1\n"), ==, G_MAXDOUBLE);
  rm_tree (root);
}

/* cgroup v1 (this project's CI machine): memory.limit_in_bytes of 8 GB with
 * 7 GB used and 1 GB of inactive cache: 2 GB; v1's "no limit" (a number
 * near 2^63) is none; a v2 line beside it without cgroup.controllers at
 * the mount is not read. */
static void
test_v1 (void)
{
  g_autofree char *root = tree ();
  put (root, "memory", "memory.limit_in_bytes", "9223372036854771712\n");
  put (root, "memory", "memory.usage_in_bytes", "30000000000\n");
  put (root, "memory/api/x1", "memory.limit_in_bytes", "8000000000\n");
  put (root, "memory/api/x1", "memory.usage_in_bytes", "7000000000\n");
  put (root, "memory/api/x1", "memory.stat", "cache 1\ntotal_inactive_file 1000000000\n");
  const char *pc = "9:name=systemd:/\n4:memory:/api/x1\n3:cpuset:/\n0::/\n";
  g_assert_cmpfloat_with_epsilon (dps_mem_cgroup_room (root, pc), 2 * GB, 1);
  put (root, "memory/api/x1", "memory.limit_in_bytes", "9223372036854771712\n");
  g_assert_cmpfloat (dps_mem_cgroup_room (root, pc), ==, G_MAXDOUBLE);
  rm_tree (root);
}

/* Over its limit (usage above it, no cache): no room, never negative; and
 * no cgroup text at all: no limit. */
static void
test_edges (void)
{
  g_autofree char *root = tree ();
  put (root, "", "cgroup.controllers", "memory\n");
  put (root, "j", "memory.max", "1000\n");
  put (root, "j", "memory.current", "5000\n");
  g_assert_cmpfloat (dps_mem_cgroup_room (root, "0::/j\n"), ==, 0);
  g_assert_cmpfloat (dps_mem_cgroup_room (root, NULL), ==, G_MAXDOUBLE);
  g_assert_cmpfloat (dps_mem_cgroup_room (root, "garbage\n::\n"), ==, G_MAXDOUBLE);
  rm_tree (root);
  /* this process: some memory, never more than the physical */
  g_assert_cmpfloat (dps_mem_available (), >, 0);
  /* the one guard the refusals share: a byte fits, an exabyte does not,
   * and what is available comes back for the message */
  double avail = 0;
  g_assert_true (dps_mem_fits (1, &avail));
  g_assert_cmpfloat (avail, >, 0);
  g_assert_false (dps_mem_fits (1e18, NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sysmem/v2", test_v2);
  g_test_add_func ("/sysmem/v1", test_v1);
  g_test_add_func ("/sysmem/edges", test_edges);
  return g_test_run ();
}
