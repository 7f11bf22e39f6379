/* error — the GError domain of dpscale and the helpers that parse numbers
 * given by users (flags and files) strictly: no trailing junk, no NaN or
 * infinity, explicit ranges. */
#pragma once

#include <glib.h>

#define DPS_ERROR (dps_error_quark ())

typedef enum {
  DPS_ERROR_INPUT,    /* a malformed file or flag */
  DPS_ERROR_LIMIT,    /* a request beyond what dpscale accepts */
  DPS_ERROR_IO,       /* a file that cannot be read or written */
  DPS_ERROR_RUNTIME,  /* a launcher, library or device that failed */
  DPS_ERROR_UNSUPPORTED,
} DpsErrorCode;

GQuark   dps_error_quark (void);
gboolean dps_parse_double (const char *text, double *out);
gboolean dps_parse_int (const char *text, gint64 *out);
gboolean dps_parse_size (const char *text, guint64 *out_bytes);
char    *dps_format_size (guint64 bytes);

/* The most bytes of a file's text a message quotes (a cell, a line, a
 * value), and the most bytes of any message printed: a 200 KB line is
 * quoted as its first bytes and "...". */
#define DPS_QUOTE_MAX_BYTES 64
#define DPS_MESSAGE_MAX_BYTES 4096
char    *dps_one_line (const char *text, gssize len, gsize max_bytes);
char    *dps_quote (const char *text);

/* Sets a DPS_ERROR_INPUT error "NAME:LINE: message" ("NAME: message" where
 * line < 1), the message on one line of at most DPS_MESSAGE_MAX_BYTES
 * (dps_one_line), and returns FALSE, for parsers that point at the faulty
 * line. */
gboolean dps_set_error_at (GError **error, const char *name, int line, const char *fmt, ...) G_GNUC_PRINTF (4, 5);
