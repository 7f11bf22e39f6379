/* file.c — see file.h. */
#include "sim/base/file.h"
#include "sim/base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

static const char *
kind_name (mode_t mode)
{
  if (S_ISDIR (mode))
    return "a directory";
  if (S_ISFIFO (mode))
    return "a FIFO";
  if (S_ISCHR (mode))
    return "a character device";
  if (S_ISBLK (mode))
    return "a block device";
  if (S_ISSOCK (mode))
    return "a socket";
  return "not a regular file";
}

/* What path is, in words ("a directory", "a FIFO", "a character device",
 * "a regular file", "nothing"), for messages. */
const char *
dps_path_kind (const char *path)
{
  struct stat st;
  if (g_stat (path, &st) != 0)
    return "nothing";
  return S_ISREG (st.st_mode) ? "a regular file" : kind_name (st.st_mode);
}

/* Reads a whole regular file of at most DPS_FILE_MAX_BYTES; returns a new
 * NUL-terminated buffer (g_free it) and its length in *len (may be NULL),
 * without a leading UTF-8 byte order mark.  Errors (DPS_ERROR_IO, or
 * DPS_ERROR_LIMIT for size) name the file: "PATH: is a directory, not a
 * WHAT", "PATH: is a FIFO, not a WHAT", "PATH: N bytes, more than ...".  The
 * type and size are checked on the opened file before any byte is read (the
 * open does not block on a FIFO), and the read stops at the limit even for a
 * file that grows or lies about its size. */
char *
dps_read_file (const char *path, const char *what, gsize *len, GError **error)
{
  int fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0);
  if (fd < 0) {
    int e = errno;
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s: %s", path, g_strerror (e));
    return NULL;
  }
  struct stat st;
  if (fstat (fd, &st) != 0) {
    int e = errno;
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s: %s", path, g_strerror (e));
    close (fd);
    return NULL;
  }
  if (!S_ISREG (st.st_mode)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s: is %s, not a %s", path, kind_name (st.st_mode), what);
    close (fd);
    return NULL;
  }
  if ((guint64) st.st_size > DPS_FILE_MAX_BYTES) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s: %" G_GUINT64_FORMAT " bytes, larger than the 64 MiB a %s may hold",
                 path, (guint64) st.st_size, what);
    close (fd);
    return NULL;
  }
  gsize cap = (gsize) st.st_size + 1, n = 0;
  char *data = g_malloc (cap + 1);
  for (;;) {
    if (n == cap) {
      if (cap > DPS_FILE_MAX_BYTES)
        break;
      cap = MIN (cap * 2, (gsize) DPS_FILE_MAX_BYTES + 1);
      data = g_realloc (data, cap + 1);
    }
    ssize_t got = read (fd, data + n, cap - n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      int e = errno;
      g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s: %s", path, g_strerror (e));
      g_free (data);
      close (fd);
      return NULL;
    }
    if (got == 0)
      break;
    n += (gsize) got;
  }
  close (fd);
  if (n > DPS_FILE_MAX_BYTES) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s: larger than the 64 MiB a %s may hold", path, what);
    g_free (data);
    return NULL;
  }
  data[n] = 0;
  if (n >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0) {
    memmove (data, data + 3, n - 3 + 1);
    n -= 3;
  }
  if (len)
    *len = n;
  return data;
}

/* Tells what writing path would meet: nothing yet, a regular file, or a
 * character device or FIFO (written in place).  A directory, block device or
 * socket is refused ("FLAG PATH: is a directory, not a file to write"), and
 * so is a new path in a missing directory, so that callers can check their
 * outputs before any long work. */
gboolean
dps_output_kind (const char *path, const char *flag, DpsOutputKind *kind, GError **error)
{
  struct stat st;
  if (g_stat (path, &st) != 0) {
    int e = errno;
    g_autofree char *dir = g_path_get_dirname (path);
    if (e != ENOENT || !g_file_test (dir, G_FILE_TEST_IS_DIR)) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s%s%s: %s", flag ? flag : "", flag ? " " : "", path,
                   e != ENOENT ? g_strerror (e) : "its directory does not exist");
      return FALSE;
    }
    *kind = DPS_OUTPUT_NEW;
    return TRUE;
  }
  if (S_ISREG (st.st_mode))
    *kind = DPS_OUTPUT_REGULAR;
  else if (S_ISCHR (st.st_mode) || S_ISFIFO (st.st_mode))
    *kind = DPS_OUTPUT_STREAM;
  else {
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s%s%s: is %s, not a file to write", flag ? flag : "",
                 flag ? " " : "", path, kind_name (st.st_mode));
    return FALSE;
  }
  return TRUE;
}

static gboolean
write_all (int fd, const char *data, gsize len)
{
  while (len > 0) {
    ssize_t put = write (fd, data, len);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0) {
      if (put == 0)
        errno = EIO;
      return FALSE;
    }
    data += put;
    len -= (gsize) put;
  }
  return TRUE;
}

static gboolean
write_in_place (const char *path, const char *data, gsize len)
{
  int fd = g_open (path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0);
  if (fd < 0)
    return FALSE;
  struct stat st;
  if (fstat (fd, &st) != 0 || !(S_ISCHR (st.st_mode) || S_ISFIFO (st.st_mode))) {
    close (fd);
    errno = EEXIST;  /* the path changed under us: write nothing */
    return FALSE;
  }
  int flags = fcntl (fd, F_GETFL);
  if (flags >= 0)
    fcntl (fd, F_SETFL, flags & ~O_NONBLOCK);
  gboolean ok = write_all (fd, data, len);
  int e = errno;
  if (close (fd) != 0 && ok) {
    ok = FALSE;
    e = errno;
  }
  errno = e;
  return ok;
}

/* Creates an empty temporary file beside path, named ".BASE.XXXXXXSUFFIX"
 * (suffix may be NULL), for a whole file to be renamed over path; returns
 * its name (g_free it).  Errors name path. */
char *
dps_temp_beside (const char *path, const char *suffix, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path), *base = g_path_get_basename (path);
  char *tmp = g_strdup_printf ("%s/.%s.XXXXXX%s", dir, base, suffix ? suffix : "");
  int fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0) {
    int e = errno;
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s: %s", path, g_strerror (e));
    g_free (tmp);
    return NULL;
  }
  close (fd);
  return tmp;
}

/* Renames the whole file tmp over path (keeping the mode of a regular file
 * there); on failure removes tmp and sets an error naming path. */
gboolean
dps_replace_with (const char *tmp, const char *path, GError **error)
{
  struct stat st;
  if (g_stat (path, &st) == 0 && S_ISREG (st.st_mode))
    g_chmod (tmp, st.st_mode & 07777);
  if (g_rename (tmp, path) != 0) {
    int e = errno;
    g_unlink (tmp);
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s: %s", path, g_strerror (e));
    return FALSE;
  }
  return TRUE;
}

static gboolean
write_replacing (const char *path, const char *data, gsize len, GError **error)
{
  g_autofree char *tmp = dps_temp_beside (path, NULL, error);
  if (!tmp)
    return FALSE;
  int fd = g_open (tmp, O_WRONLY | O_TRUNC | O_CLOEXEC, 0);
  gboolean ok = fd >= 0 && write_all (fd, data, len) && fsync (fd) == 0;
  int e = errno;
  if (fd >= 0 && close (fd) != 0 && ok) {
    ok = FALSE;
    e = errno;
  }
  if (!ok) {
    g_unlink (tmp);
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s: %s", path, g_strerror (e));
    return FALSE;
  }
  return dps_replace_with (tmp, path, error);
}

/* Writes len bytes of data to path as file.h says: whole or not at all for
 * a regular file or new path, in place for a character device or FIFO,
 * refused otherwise.  Errors read "FLAG PATH: reason" (flag may be NULL). */
gboolean
dps_write_file (const char *path, const char *flag, const char *data, gsize len, GError **error)
{
  DpsOutputKind kind;
  g_autoptr (GError) local = NULL;
  gboolean ok;
  if (!dps_output_kind (path, NULL, &kind, &local))
    ok = FALSE;
  else if (kind == DPS_OUTPUT_STREAM) {
    ok = write_in_place (path, data, len);
    if (!ok)
      g_set_error (&local, DPS_ERROR, DPS_ERROR_IO, "%s: %s", path, g_strerror (errno));
  } else
    ok = write_replacing (path, data, len, &local);
  if (!ok)
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s%s%s", flag ? flag : "", flag ? " " : "", local->message);
  return ok;
}
