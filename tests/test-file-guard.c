/* Unit tests of the guard of a command's files (sim/base/file.c): an
 * input is known by its device and inode, whatever name it is read or
 * written by; an output is refused where it is an input, up front and at
 * write time; an input that an output flag claimed is refused when read;
 * what the command wrote itself is neither; empty paths, missing folders
 * and extensions a flag does not write are refused, naming the flag.
 * Before a command begins (library users, other tests) nothing is
 * registered. */
#include "sim/base/file.h"
#include "sim/base/error.h"

#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

static const DpsOutputRule rules[] = {
  { "-o", "csv json txt", FALSE, FALSE, "text" },
  { "--plot", "png svg", TRUE, FALSE, "a picture (.png or .svg)" },
  { "--prefix", "json", FALSE, TRUE, "a prefix" },
};

typedef struct { char *dir, *input, *sym, *hard; } Dir;

/* a folder with in.csv, a symlink sym.csv and a hard link hard.csv to it */
static void
dir_setup (Dir *d, gconstpointer unused)
{
  d->dir = g_dir_make_tmp ("dps-test-guard-XXXXXX", NULL);
  d->input = g_build_filename (d->dir, "in.csv", NULL);
  d->sym = g_build_filename (d->dir, "sym.csv", NULL);
  d->hard = g_build_filename (d->dir, "hard.csv", NULL);
  g_assert_true (g_file_set_contents (d->input, "a,b\n1,2\n", -1, NULL));
  g_assert_cmpint (symlink (d->input, d->sym), ==, 0);
  g_assert_cmpint (link (d->input, d->hard), ==, 0);
  dps_file_guard_begin (rules, G_N_ELEMENTS (rules));
}

static void
dir_teardown (Dir *d, gconstpointer unused)
{
  GDir *g = g_dir_open (d->dir, 0, NULL);
  const char *n;
  while (g && (n = g_dir_read_name (g))) {
    g_autofree char *p = g_build_filename (d->dir, n, NULL);
    g_unlink (p);
  }
  if (g)
    g_dir_close (g);
  g_rmdir (d->dir);
  g_free (d->dir);
  g_free (d->input);
  g_free (d->sym);
  g_free (d->hard);
  dps_file_guard_end ();
}

static void
assert_input_unchanged (const Dir *d)
{
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (d->input, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "a,b\n1,2\n");
}

/* read by one name, each other name is the same input: refused up front
 * and by the write, as DPS_ERROR_INPUT naming the flag and the path */
static void
test_input_any_name (Dir *d, gconstpointer unused)
{
  g_autofree char *data = dps_read_file (d->sym, "CSV file", NULL, NULL);
  g_assert_nonnull (data);
  const char *names[] = { d->input, d->sym, d->hard };
  for (int i = 0; i < 3; i++) {
    g_autoptr (GError) e = NULL;
    DpsOutputKind kind;
    g_assert_false (dps_output_kind (names[i], "-o", &kind, &e));
    g_assert_error (e, DPS_ERROR, DPS_ERROR_INPUT);
    g_autofree char *want = g_strdup_printf ("-o %s: is the input %s", names[i], d->sym);
    g_assert_true (g_str_has_prefix (e->message, want));
    g_clear_error (&e);
    g_assert_false (dps_write_file (names[i], "-o", "x\n", 2, &e));
    g_assert_error (e, DPS_ERROR, DPS_ERROR_INPUT);
    g_assert_true (g_str_has_prefix (e->message, want));
  }
  assert_input_unchanged (d);
}

/* claimed first (the flags are checked before the inputs are read), the
 * input's read is refused, naming the output flag */
static void
test_claimed_then_read (Dir *d, gconstpointer unused)
{
  g_autoptr (GError) e = NULL;
  DpsOutputKind kind;
  g_assert_true (dps_output_kind (d->hard, "-o", &kind, &e));
  g_assert_null (dps_read_file (d->input, "CSV file", NULL, &e));
  g_assert_error (e, DPS_ERROR, DPS_ERROR_INPUT);
  g_autofree char *want = g_strdup_printf ("-o %s: is the input %s (the same file by another name)", d->hard, d->input);
  g_assert_true (g_str_has_prefix (e->message, want));
  /* a file written beside a flag's path: "writes PATH, the input ..." */
  g_clear_error (&e);
  dps_file_guard_begin (rules, G_N_ELEMENTS (rules));
  g_autofree char *prefix = g_build_filename (d->dir, "in", NULL);
  g_assert_true (dps_output_beside (d->input, "--prefix", prefix, &e));
  g_assert_null (dps_read_file (d->sym, "CSV file", NULL, &e));
  g_autofree char *want2 = g_strdup_printf ("--prefix %s: writes %s, the input %s", prefix, d->input, d->sym);
  g_assert_true (g_str_has_prefix (e->message, want2));
}

/* what the command wrote it may read back (a sweep's CSV for its plot),
 * and write again */
static void
test_written_not_input (Dir *d, gconstpointer unused)
{
  g_autofree char *out = g_build_filename (d->dir, "out.csv", NULL);
  g_autoptr (GError) e = NULL;
  g_assert_true (dps_write_file (out, "-o", "x\n", 2, &e));
  g_autofree char *back = dps_read_file (out, "CSV file", NULL, &e);
  g_assert_no_error (e);
  g_assert_true (dps_write_file (out, "-o", "y\n", 2, &e));
  g_assert_no_error (e);
}

/* the paths no flag writes: empty, in a missing folder, an extension the
 * flag's rule does not allow (a picture's strictly, text's among those
 * dpscale knows, a prefix's own ending) */
static void
test_paths_refused (Dir *d, gconstpointer unused)
{
  g_autofree char *lost = g_build_filename (d->dir, "none", "x.csv", NULL);
  g_autofree char *pdf = g_build_filename (d->dir, "p.pdf", NULL);
  g_autofree char *bare = g_build_filename (d->dir, "p", NULL);
  g_autofree char *calib = g_build_filename (d->dir, "t.calib", NULL);
  g_autofree char *out = g_build_filename (d->dir, "t.out", NULL);
  g_autofree char *pcsv = g_build_filename (d->dir, "s.csv", NULL);
  g_autofree char *pjson = g_build_filename (d->dir, "s.json", NULL);
  struct { const char *path, *flag, *want; } no[] = {
    { "", "-o", "-o '': an empty file name" },
    { lost, "-o", "its directory does not exist" },
    { pdf, "--plot", ".pdf is not what --plot writes: a picture (.png or .svg)" },
    { bare, "--plot", "no extension, and --plot writes a picture" },
    { calib, "-o", ".calib is not what -o writes: text" },
    { pcsv, "--prefix", "a prefix: give it without .csv" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (no); i++) {
    g_autoptr (GError) e = NULL;
    DpsOutputKind kind;
    g_assert_false (dps_output_kind (no[i].path, no[i].flag, &kind, &e));
    g_assert_error (e, DPS_ERROR, DPS_ERROR_INPUT);
    g_test_message ("%s", e->message);
    g_assert_true (g_str_has_prefix (e->message, no[i].flag));
    g_assert_nonnull (strstr (e->message, no[i].want));
  }
  /* and what they write: an extension dpscale does not know is the user's */
  const char *yes[][2] = { { out, "-o" }, { bare, "-o" }, { pjson, "--prefix" }, { bare, "--prefix" } };
  for (gsize i = 0; i < G_N_ELEMENTS (yes); i++) {
    g_autoptr (GError) e = NULL;
    DpsOutputKind kind;
    g_assert_true (dps_output_kind (yes[i][0], yes[i][1], &kind, &e));
  }
}

/* before a command begins nothing is registered: a library user reads and
 * writes the same file */
static void
test_off_by_default (void)
{
  g_autofree char *dir = g_dir_make_tmp ("dps-test-guard-XXXXXX", NULL);
  g_autofree char *p = g_build_filename (dir, "f.csv", NULL);
  g_assert_true (g_file_set_contents (p, "x\n", -1, NULL));
  g_autofree char *data = dps_read_file (p, "file", NULL, NULL);
  g_autoptr (GError) e = NULL;
  g_assert_true (dps_write_file (p, "-o", "y\n", 2, &e));
  g_assert_no_error (e);
  g_unlink (p);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/file-guard/off-by-default", test_off_by_default);
  g_test_add ("/file-guard/input-by-any-name", Dir, NULL, dir_setup, test_input_any_name, dir_teardown);
  g_test_add ("/file-guard/claimed-then-read", Dir, NULL, dir_setup, test_claimed_then_read, dir_teardown);
  g_test_add ("/file-guard/written-not-input", Dir, NULL, dir_setup, test_written_not_input, dir_teardown);
  g_test_add ("/file-guard/paths-refused", Dir, NULL, dir_setup, test_paths_refused, dir_teardown);
  return g_test_run ();
}
