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

/* The quantity an error is about, carried in its code beside its kind
 * (DpsErrorCode), so that the command line names the flag that sets it
 * (dps_cli_name_flag) from data, not from the message's words.  Each
 * field's words open its messages ("GPU count: ...", "trace file PATH:
 * ..."): dps_field_words. */
typedef enum {
  DPS_FIELD_NONE, DPS_FIELD_GPUS, DPS_FIELD_BUCKET_CAP, DPS_FIELD_FIRST_BUCKET, DPS_FIELD_GRAD_ACCUM,
  DPS_FIELD_TRIALS, DPS_FIELD_POWERSGD_RANK, DPS_FIELD_GLOBAL_BATCH, DPS_FIELD_BATCH, DPS_FIELD_MODEL,
  DPS_FIELD_TOPOLOGY, DPS_FIELD_TRACE, DPS_FIELD_EMU_NODES, DPS_FIELD_EMU_LINK, DPS_FIELD_IMPORT,
  DPS_FIELD_GPU_REPLICAS, DPS_FIELD_EMU_REPLICAS, DPS_FIELD_SLOW_REPLICAS, DPS_FIELD_PRECISION, DPS_FIELD_OFFLOAD,
  DPS_FIELD_COUNT
} DpsField;

/* A field's words with their separator: "GPU count: ", "trace file ". */
const char *dps_field_words (DpsField field);
/* Sets a DPS_ERROR of kind about field: its words, then the message;
 * returns FALSE. */
gboolean    dps_set_field_error (GError **error, DpsField field, DpsErrorCode kind, const char *fmt, ...)
  G_GNUC_PRINTF (4, 5);
/* Marks an error set elsewhere (a file writer's) as about field. */
void        dps_error_set_field (GError *error, DpsField field);
/* A DPS_ERROR's kind and field (DPS_FIELD_NONE for any other error). */
DpsErrorCode dps_error_kind (const GError *error);
DpsField    dps_error_field (const GError *error);
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
