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

/* --- the guard: inputs registered, outputs claimed, by device and inode --- */

typedef struct { guint64 dev, ino; } FileId;

static guint
id_hash (gconstpointer p)
{
  const FileId *f = p;
  return (guint) (f->ino * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) >> 32) ^ (guint) f->dev;
}

static gboolean
id_equal (gconstpointer a, gconstpointer b)
{
  const FileId *x = a, *y = b;
  return x->dev == y->dev && x->ino == y->ino;
}

/* an output path claimed up front: the flag, the path as given, the file
 * it writes (the given one, or one beside it: PREFIX.csv, the profile's
 * .csv) */
typedef struct { char *flag, *given, *path; } Claim;

static void
claim_free (gpointer p)
{
  Claim *c = p;
  g_free (c->flag);
  g_free (c->given);
  g_free (c->path);
  g_free (c);
}

static struct {
  gboolean    on;
  GHashTable *inputs;    /* FileId -> the path it was first read by */
  GHashTable *outputs;   /* FileId -> Claim */
  GHashTable *written;   /* FileId: files this process wrote */
  GArray     *rules;     /* DpsOutputRule */
} guard;

static FileId *
id_new (const struct stat *st)
{
  FileId *f = g_new (FileId, 1);
  f->dev = (guint64) st->st_dev;
  f->ino = (guint64) st->st_ino;
  return f;
}

/* Begins a command: forgets every input, claim and rule, and takes rules
 * (n_rules of them, their strings static) for its output flags.  Until
 * this is called nothing is registered: library users and tests read and
 * write freely. */
void
dps_file_guard_begin (const DpsOutputRule *rules, int n_rules)
{
  dps_file_guard_end ();
  guard.inputs = g_hash_table_new_full (id_hash, id_equal, g_free, g_free);
  guard.outputs = g_hash_table_new_full (id_hash, id_equal, g_free, claim_free);
  guard.written = g_hash_table_new_full (id_hash, id_equal, g_free, NULL);
  guard.rules = g_array_new (FALSE, FALSE, sizeof (DpsOutputRule));
  g_array_append_vals (guard.rules, rules, (guint) MAX (n_rules, 0));
  guard.on = TRUE;
}

/* Ends a command's guard: nothing is registered any more. */
void
dps_file_guard_end (void)
{
  g_clear_pointer (&guard.inputs, g_hash_table_unref);
  g_clear_pointer (&guard.outputs, g_hash_table_unref);
  g_clear_pointer (&guard.written, g_hash_table_unref);
  g_clear_pointer (&guard.rules, g_array_unref);
  guard.on = FALSE;
}

/* "FLAG GIVEN: is the input INPUT" or "...: writes PATH, the input
 * INPUT", "(the same file by another name)" where the names differ, and
 * why; flag may be NULL (a write's own check: its caller names the flag). */
static void
set_refusal (GError **error, const char *flag, const char *given, const char *path, const char *input)
{
  g_autofree char *head = flag ? g_strdup_printf ("%s %s", flag, given) : g_strdup (given);
  g_autofree char *what = g_str_equal (path, given) ? g_strdup_printf ("is the input %s", input)
                                                    : g_strdup_printf ("writes %s, the input %s", path, input);
  g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: %s%s: an output never replaces an input", head, what,
               g_str_equal (path, input) ? "" : " (the same file by another name)");
}

/* FALSE with a refusal where st (of path, written for flag as given) is a
 * registered input; else claims it for flag (when given) and TRUE. */
static gboolean
claim (const struct stat *st, const char *path, const char *flag, const char *given, GError **error)
{
  if (!guard.on || !S_ISREG (st->st_mode))
    return TRUE;
  FileId id = { (guint64) st->st_dev, (guint64) st->st_ino };
  const char *input = g_hash_table_lookup (guard.inputs, &id);
  if (input) {
    set_refusal (error, flag, given, path, input);
    return FALSE;
  }
  if (flag) {
    Claim *c = g_new (Claim, 1);
    *c = (Claim) { g_strdup (flag), g_strdup (given), g_strdup (path) };
    g_hash_table_replace (guard.outputs, id_new (st), c);
  }
  return TRUE;
}

/* An input read (st, by path): FALSE with a refusal where it is a claimed
 * output; else registered.  A file this process wrote is neither. */
static gboolean
register_input (const struct stat *st, const char *path, GError **error)
{
  if (!guard.on)
    return TRUE;
  FileId id = { (guint64) st->st_dev, (guint64) st->st_ino };
  if (g_hash_table_contains (guard.written, &id))
    return TRUE;
  const Claim *c = g_hash_table_lookup (guard.outputs, &id);
  if (c) {
    set_refusal (error, c->flag, c->given, c->path, path);
    return FALSE;
  }
  if (!g_hash_table_contains (guard.inputs, &id))
    g_hash_table_insert (guard.inputs, id_new (st), g_strdup (path));
  return TRUE;
}

/* After a write: path is this process's file now. */
static void
mark_written (const char *path)
{
  struct stat st;
  if (guard.on && g_stat (path, &st) == 0)
    g_hash_table_add (guard.written, id_new (&st));
}

/* The extensions dpscale reads or writes: a name ending in one a flag
 * does not write is a mistake (a PNG named cmp.pdf, a table named
 * m.calib); any other ending (.out, .tsv, none) is the user's. */
static const char *const known_exts[] = { "csv", "json", "txt", "png", "svg", "pdf", "eps", "ps", "jpg", "jpeg",
                                          "gif", "dat", "calib", "topo", "model", "log", "ref", "gz", "zip", NULL };

static gboolean
ext_in (const char *ext, const char *list)
{
  g_auto (GStrv) l = g_strsplit (list ? list : "", " ", -1);
  for (int i = 0; l[i]; i++)
    if (l[i][0] && g_ascii_strcasecmp (ext, l[i]) == 0)
      return TRUE;
  return FALSE;
}

/* FALSE with "FLAG PATH: ..." where path's extension is not one flag's
 * rule (dps_output_rule) allows; TRUE without a rule. */
static gboolean
check_extension (const char *path, const char *flag, GError **error)
{
  const DpsOutputRule *r = NULL;
  for (guint i = 0; guard.on && flag && i < guard.rules->len && !r; i++)
    if (g_str_equal (g_array_index (guard.rules, DpsOutputRule, i).flag, flag))
      r = &g_array_index (guard.rules, DpsOutputRule, i);
  if (!r)
    return TRUE;
  g_autofree char *base = g_path_get_basename (path);
  const char *dot = strrchr (base, '.');
  const char *ext = dot && dot != base && dot[1] ? dot + 1 : NULL;
  gboolean known = FALSE;
  for (int i = 0; ext && known_exts[i] && !known; i++)
    known = g_ascii_strcasecmp (ext, known_exts[i]) == 0;
  if ((ext && ext_in (ext, r->exts)) || (!r->strict && (!ext || !known)))
    return TRUE;
  if (r->prefix)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s %s: %s: give it without .%s", flag, path, r->what, ext);
  else if (ext)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s %s: .%s is not what %s writes: %s", flag, path, ext, flag,
                 r->what);
  else
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s %s: no extension, and %s writes %s", flag, path, flag,
                 r->what);
  return FALSE;
}

/* Whether a and b are one file (the same device and inode: a link or
 * another spelling counts); FALSE when either cannot be read. */
gboolean
dps_same_file (const char *a, const char *b)
{
  GStatBuf sa, sb;
  return g_stat (a, &sa) == 0 && g_stat (b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
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
 * file that grows or lies about its size.  Every loader reads through it:
 * under a command's guard the file is registered as an input, and one an
 * output flag claimed is refused ("-o m.csv: is the input m.csv: ...",
 * DPS_ERROR_INPUT). */
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
  if (!register_input (&st, path, error)) {
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
 * character device or FIFO (written in place).  Refused, the flag first
 * ("FLAG PATH: ..."; flag may be NULL): an empty path, a new path in a
 * missing directory, a directory, block device or socket (DPS_ERROR_IO),
 * an extension the flag's rule does not allow, a registered input (by
 * device and inode, whatever its name).  With a flag, a regular file is
 * claimed: reading it as an input later is refused.  Callers check their
 * outputs so before any long work. */
gboolean
dps_output_kind (const char *path, const char *flag, DpsOutputKind *kind, GError **error)
{
  const char *f = flag ? flag : "", *sp = flag ? " " : "";
  if (!path || !path[0]) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s%s'': an empty file name, not a file to write", f, sp);
    return FALSE;
  }
  struct stat st;
  if (g_stat (path, &st) != 0) {
    int e = errno;
    g_autofree char *dir = g_path_get_dirname (path);
    if (e == ENOENT && !g_file_test (dir, G_FILE_TEST_IS_DIR)) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s%s%s: its directory does not exist", f, sp, path);
      return FALSE;
    }
    if (e != ENOENT) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s%s%s: %s", f, sp, path, g_strerror (e));
      return FALSE;
    }
    *kind = DPS_OUTPUT_NEW;
    return check_extension (path, flag, error);
  }
  if (S_ISREG (st.st_mode))
    *kind = DPS_OUTPUT_REGULAR;
  else if (S_ISCHR (st.st_mode) || S_ISFIFO (st.st_mode)) {
    *kind = DPS_OUTPUT_STREAM;
    return TRUE;
  } else {
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s%s%s: is %s, not a file to write", f, sp, path,
                 kind_name (st.st_mode));
    return FALSE;
  }
  return check_extension (path, flag, error) && claim (&st, path, flag, path, error);
}

/* A file written beside an output flag's path (given): PREFIX.csv, a
 * profile's .csv and .png.  Refused as "FLAG GIVEN: writes PATH, ...":
 * a directory, block device or socket there, a registered input; else
 * claimed for flag. */
gboolean
dps_output_beside (const char *path, const char *flag, const char *given, GError **error)
{
  struct stat st;
  if (g_stat (path, &st) != 0)
    return TRUE;   /* new, in given's folder, which dps_output_kind checked */
  if (!S_ISREG (st.st_mode) && !S_ISCHR (st.st_mode) && !S_ISFIFO (st.st_mode)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s %s: writes %s, which is %s", flag, given, path,
                 kind_name (st.st_mode));
    return FALSE;
  }
  return claim (&st, path, flag, given, error);
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
 * there); on failure, or where path is a registered input, removes tmp and
 * sets an error naming path. */
gboolean
dps_replace_with (const char *tmp, const char *path, GError **error)
{
  struct stat st;
  if (g_stat (path, &st) == 0 && S_ISREG (st.st_mode)) {
    if (!claim (&st, path, NULL, path, error)) {   /* an input, at the last moment */
      g_unlink (tmp);
      return FALSE;
    }
    g_chmod (tmp, st.st_mode & 07777);
  }
  if (g_rename (tmp, path) != 0) {
    int e = errno;
    g_unlink (tmp);
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "%s: %s", path, g_strerror (e));
    return FALSE;
  }
  mark_written (path);
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
 * refused otherwise (an input, an empty path, a missing folder: again,
 * whatever was checked up front).  Errors read "FLAG PATH: reason" (flag
 * may be NULL), DPS_ERROR_INPUT for a refusal, DPS_ERROR_IO for a failed
 * write. */
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
    g_set_error (error, DPS_ERROR, local->code, "%s%s%s", flag ? flag : "", flag ? " " : "", local->message);
  return ok;
}
