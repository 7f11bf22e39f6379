/* fuzz-files.h — the path side of the fuzz targets: each input also goes
 * through the loader users reach (a path, read by sim/base/file.c), and
 * once per process the files no loader may read are tried there: a device
 * that never ends, an empty device, a FIFO without a writer (a read would
 * block forever), a directory, a sparse file one byte over the 64 MiB
 * limit, a missing path.  Each must fail at once with a message; anything
 * else aborts, which libFuzzer reports as a crash. */
#pragma once

#include "sim/base/file.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Loads path; TRUE when it loaded, else FALSE with error set. */
typedef gboolean (*FuzzLoad) (const char *path, GError **error);

static char *fuzz_dir;

static void
fuzz_remove_dir (void)
{
  g_autoptr (GDir) d = g_dir_open (fuzz_dir, 0, NULL);
  const char *n;
  while (d && (n = g_dir_read_name (d))) {
    g_autofree char *p = g_build_filename (fuzz_dir, n, NULL);
    if (g_rmdir (p) != 0)
      g_unlink (p);
  }
  g_rmdir (fuzz_dir);
}

static void
fuzz_refused (FuzzLoad load, const char *path, const char *want)
{
  GError *e = NULL;
  gboolean ok = load (path, &e);
  if (ok || !e || !strstr (e->message, want)) {
    fprintf (stderr, "fuzz: loading %s: %s (want an error with '%s')\n", path, ok ? "loaded" : e ? e->message : "no error",
             want);
    abort ();
  }
  g_error_free (e);
}

/* Once per process: the special files through load (ext: the extension
 * the loader expects, ".topo"). */
static void
fuzz_special_files (FuzzLoad load, const char *ext)
{
  if (fuzz_dir)
    return;
  fuzz_dir = g_dir_make_tmp ("dpscale-fuzz-XXXXXX", NULL);
  if (!fuzz_dir)
    abort ();
  atexit (fuzz_remove_dir);
  g_autofree char *fifo = g_strconcat (fuzz_dir, "/fifo", ext, NULL), *big = g_strconcat (fuzz_dir, "/big", ext, NULL),
                  *sub = g_strconcat (fuzz_dir, "/dir", ext, NULL), *none = g_strconcat (fuzz_dir, "/none", ext, NULL);
  FILE *f = fopen (big, "w");
  if (mkfifo (fifo, 0600) != 0 || g_mkdir (sub, 0700) != 0 || !f || ftruncate (fileno (f), DPS_FILE_MAX_BYTES + 1) != 0)
    abort ();
  fclose (f);
  fuzz_refused (load, "/dev/zero", "character device");
  fuzz_refused (load, "/dev/null", "character device");
  fuzz_refused (load, fifo, "FIFO");
  fuzz_refused (load, sub, "directory");
  fuzz_refused (load, big, "larger than the 64 MiB");
  fuzz_refused (load, none, "No such file");
}

/* data written to a file and loaded through load, as a user's file is. */
static void
fuzz_through_path (FuzzLoad load, const char *ext, const unsigned char *data, size_t size)
{
  fuzz_special_files (load, ext);
  g_autofree char *path = g_strconcat (fuzz_dir, "/input", ext, NULL);
  if (!g_file_set_contents (path, (const char *) data, (gssize) size, NULL))
    abort ();
  GError *e = NULL;
  if (!load (path, &e)) {
    if (!e || !e->message[0])
      abort ();   /* a refusal always says why */
    g_error_free (e);
  }
}
