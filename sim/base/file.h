/* file — reading inputs and writing outputs safely.
 *
 * Inputs: only regular files are read (a FIFO would block forever, /dev/zero
 * never ends, a directory has no text), at most DPS_FILE_MAX_BYTES of them,
 * checked before reading and bounded while reading; a UTF-8 byte order mark
 * at the start is dropped, so every loader sees the text alone.
 *
 * Outputs: a regular file (or a new path) is replaced whole: written to a
 * temporary file beside it, flushed to disk, then renamed over it, so it is
 * either the old file or the whole new one.  A character device or a FIFO
 * (/dev/null, /dev/stdout, a pipe) is written in place and never replaced;
 * a directory, block device or socket is refused.  Every failed write (a
 * full disk included) is an error and leaves no temporary file.
 *
 * An output never replaces an input.  Once a command has begun
 * (dps_file_guard_begin), every file dps_read_file reads is registered by
 * its device and inode, so that another name for it (a symlink, a hard
 * link) is the same input; every output path a command checks up front
 * (dps_output_kind with its flag, dps_output_beside) is claimed the same
 * way.  An output that is a registered input, or an input read that is a
 * claimed output, is refused (DPS_ERROR_INPUT, "FLAG PATH: ..."), up front
 * and again at write time; so are an empty path, a path in a missing
 * folder, and a name whose extension the flag does not write (the rules
 * dps_file_guard_begin is given).  Files this process wrote are neither
 * inputs nor claimed. */
#pragma once

#include <glib.h>

#define DPS_FILE_MAX_BYTES (64u << 20)

typedef enum {
  DPS_OUTPUT_NEW,      /* nothing there yet */
  DPS_OUTPUT_REGULAR,  /* a regular file, replaced whole */
  DPS_OUTPUT_STREAM,   /* a character device or FIFO, written in place */
} DpsOutputKind;

/* What a flag writes: a file of one of exts ("csv json txt"; strict: of
 * those alone, else also of an extension dpscale neither reads nor writes,
 * or none), or a prefix (files PREFIX.csv, ...: it may end in exts alone
 * of the extensions dpscale knows); what, for messages ("a picture (.png
 * or .svg)"). */
typedef struct {
  const char *flag;
  const char *exts;
  gboolean    strict, prefix;
  const char *what;
} DpsOutputRule;

void          dps_file_guard_begin (const DpsOutputRule *rules, int n_rules);
void          dps_file_guard_end (void);
const char   *dps_path_kind (const char *path);
gboolean      dps_same_file (const char *a, const char *b);
char         *dps_read_file (const char *path, const char *what, gsize *len, GError **error);
gboolean      dps_output_kind (const char *path, const char *flag, DpsOutputKind *kind, GError **error);
gboolean      dps_output_beside (const char *path, const char *flag, const char *given, GError **error);
gboolean      dps_write_file (const char *path, const char *flag, const char *data, gsize len, GError **error);
char         *dps_temp_beside (const char *path, const char *suffix, GError **error);
gboolean      dps_replace_with (const char *tmp, const char *path, GError **error);
