/* Unit tests of reading and writing files (sim/base/file.c) and of JSON
 * that never holds NaN or infinity (sim/base/json-util.c). */
#include "sim/base/file.h"
#include "sim/base/error.h"
#include "sim/base/json-util.h"

#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

static char *
scratch (void)
{
  return g_dir_make_tmp ("dps-test-file-XXXXXX", NULL);
}

static void
remove_all (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *n;
  while (d && (n = g_dir_read_name (d))) {
    g_autofree char *p = g_build_filename (dir, n, NULL);
    g_unlink (p);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
}

/* A FIFO with no writer would block a plain read forever: it is refused at
 * once, by type, naming the file.  So are /dev/zero (it never ends) and a
 * directory. */
static void
test_read_not_regular (void)
{
  g_autofree char *dir = scratch ();
  g_autofree char *fifo = g_build_filename (dir, "fifo", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  const char *paths[] = { fifo, "/dev/zero", dir };
  const char *kinds[] = { "is a FIFO, not a topology", "is a character device", "is a directory" };
  for (int i = 0; i < 3; i++) {
    g_autoptr (GError) e = NULL;
    g_assert_null (dps_read_file (paths[i], "topology", NULL, &e));
    g_assert_error (e, DPS_ERROR, DPS_ERROR_IO);
    g_assert_true (g_str_has_prefix (e->message, paths[i]));
    g_assert_nonnull (strstr (e->message, kinds[i]));
  }
  remove_all (dir);
}

/* A sparse file one byte over 64 MiB is refused by its size, before any
 * byte is read (DPS_ERROR_LIMIT); one of exactly 64 MiB is read whole. */
static void
test_read_size_limit (void)
{
  g_autofree char *dir = scratch ();
  g_autofree char *big = g_build_filename (dir, "big", NULL);
  int fd = g_open (big, O_WRONLY | O_CREAT, 0600);
  g_assert_cmpint (ftruncate (fd, DPS_FILE_MAX_BYTES + 1), ==, 0);
  g_autoptr (GError) e = NULL;
  g_assert_null (dps_read_file (big, "file", NULL, &e));
  g_assert_error (e, DPS_ERROR, DPS_ERROR_LIMIT);
  g_assert_nonnull (strstr (e->message, "67108865 bytes, larger than the 64 MiB"));
  g_assert_cmpint (ftruncate (fd, DPS_FILE_MAX_BYTES), ==, 0);
  close (fd);
  gsize n = 0;
  g_autofree char *data = dps_read_file (big, "file", &n, NULL);
  g_assert_nonnull (data);
  g_assert_cmpuint (n, ==, DPS_FILE_MAX_BYTES);
  remove_all (dir);
}

/* A UTF-8 byte order mark (EF BB BF) is not text: "\xef\xbb\xbf[system]\n"
 * reads as "[system]\n", 9 bytes; a mark later in the file stays. */
static void
test_read_bom (void)
{
  g_autofree char *dir = scratch ();
  g_autofree char *p = g_build_filename (dir, "bom", NULL);
  g_assert_true (g_file_set_contents (p, "\xef\xbb\xbf[system]\n\xef\xbb\xbf", -1, NULL));
  gsize n = 0;
  g_autofree char *data = dps_read_file (p, "file", &n, NULL);
  g_assert_cmpuint (n, ==, 12);
  g_assert_true (memcmp (data, "[system]\n\xef\xbb\xbf", 12) == 0);
  remove_all (dir);
}

/* A regular file is replaced whole and keeps its mode (0640 stays 0640);
 * no temporary file is left beside it; a missing folder is refused up front
 * by dps_output_kind and by the write, with the flag first. */
static void
test_write_regular (void)
{
  g_autofree char *dir = scratch ();
  g_autofree char *p = g_build_filename (dir, "out.csv", NULL);
  g_assert_true (g_file_set_contents (p, "old old old\n", -1, NULL));
  g_chmod (p, 0640);
  g_autoptr (GError) e = NULL;
  g_assert_true (dps_write_file (p, "-o", "new\n", 4, &e));
  g_assert_no_error (e);
  g_autofree char *back = NULL;
  g_assert_true (g_file_get_contents (p, &back, NULL, NULL));
  g_assert_cmpstr (back, ==, "new\n");
  struct stat st;
  g_assert_cmpint (g_stat (p, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0640);
  GDir *d = g_dir_open (dir, 0, NULL);
  int files = 0;
  while (g_dir_read_name (d))
    files++;
  g_dir_close (d);
  g_assert_cmpint (files, ==, 1);
  g_autofree char *lost = g_build_filename (dir, "none", "x.csv", NULL);
  DpsOutputKind kind;
  g_assert_false (dps_output_kind (lost, "-o", &kind, &e));
  g_assert_true (g_str_has_prefix (e->message, "-o "));
  g_assert_nonnull (strstr (e->message, "its directory does not exist"));
  g_clear_error (&e);
  g_assert_false (dps_write_file (dir, "--trace", "x", 1, &e));
  g_assert_nonnull (strstr (e->message, "is a directory, not a file to write"));
  remove_all (dir);
}

/* /dev/null is a character device: it is written in place (the write
 * succeeds) and stays a character device; /dev/full fails with ENOSPC and
 * stays a device too.  (Only root could replace them; the CLI catalogue
 * checks that on private copies.) */
static void
test_write_device (void)
{
  g_autoptr (GError) e = NULL;
  DpsOutputKind kind;
  g_assert_true (dps_output_kind ("/dev/null", NULL, &kind, &e));
  g_assert_cmpint (kind, ==, DPS_OUTPUT_STREAM);
  g_assert_true (dps_write_file ("/dev/null", "-o", "x\n", 2, &e));
  g_assert_no_error (e);
  if (g_file_test ("/dev/full", G_FILE_TEST_EXISTS)) {
    g_assert_false (dps_write_file ("/dev/full", "-o", "x\n", 2, &e));
    g_assert_cmpstr (e->message, ==, "-o /dev/full: No space left on device");
  }
  struct stat st;
  g_assert_cmpint (g_stat ("/dev/null", &st), ==, 0);
  g_assert_true (S_ISCHR (st.st_mode));
}

/* JSON holds no NaN or infinity (no reader accepts json-glib's "nan.0"):
 * they become null, finite numbers stay. */
static void
test_json_finite (void)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "nan");
  json_builder_add_double_value (b, NAN);
  json_builder_set_member_name (b, "list");
  json_builder_begin_array (b);
  json_builder_add_double_value (b, INFINITY);
  json_builder_add_double_value (b, 1.5);
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autofree char *text = dps_json_builder_to_text (b, FALSE);
  g_assert_cmpstr (text, ==, "{\"nan\":null,\"list\":[null,1.5]}");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/file/read/not-regular", test_read_not_regular);
  g_test_add_func ("/file/read/size-limit", test_read_size_limit);
  g_test_add_func ("/file/read/bom", test_read_bom);
  g_test_add_func ("/file/write/regular", test_write_regular);
  g_test_add_func ("/file/write/device", test_write_device);
  g_test_add_func ("/json/finite-only", test_json_finite);
  return g_test_run ();
}
