/* error.c — see error.h. */
#include "sim/base/error.h"

#include <stdarg.h>

#include <math.h>
#include <errno.h>
#include <string.h>

G_DEFINE_QUARK (dps-error-quark, dps_error)

/* A number's text past its leading blanks, or NULL where there is none. */
static const char *
number_start (const char *text)
{
  while (text && g_ascii_isspace (*text))
    text++;
  return text && *text ? text : NULL;
}

/* Whether a strtod/strtoll that began at text and stopped at end read a
 * number in range with nothing but blanks after it. */
static gboolean
number_end (const char *text, const char *end)
{
  if (end == text || errno == ERANGE)
    return FALSE;
  while (g_ascii_isspace (*end))
    end++;
  return !*end;
}

/* Parses a whole string as a finite double (surrounding blanks allowed).
 * Returns FALSE for empty text, junk, NaN, infinity or overflow. */
gboolean
dps_parse_double (const char *text, double *out)
{
  text = number_start (text);
  if (!text)
    return FALSE;
  char *end = NULL;
  errno = 0;
  double v = g_ascii_strtod (text, &end);
  if (!number_end (text, end) || !isfinite (v))
    return FALSE;
  *out = v;
  return TRUE;
}

/* Parses a whole string as a decimal integer that fits in 63 bits. */
gboolean
dps_parse_int (const char *text, gint64 *out)
{
  text = number_start (text);
  if (!text)
    return FALSE;
  char *end = NULL;
  errno = 0;
  gint64 v = g_ascii_strtoll (text, &end, 10);
  if (!number_end (text, end))
    return FALSE;
  *out = v;
  return TRUE;
}

/* Parses a byte count as nccl-tests does: a number with an optional suffix
 * K, M, G or T (powers of 1024; a trailing B or iB is accepted).
 * "8", "128K", "8G", "1.5M", "64MiB".  At most 2^50 bytes. */
gboolean
dps_parse_size (const char *text, guint64 *out_bytes)
{
  if (!text)
    return FALSE;
  g_autofree char *s = g_strstrip (g_strdup (text));
  gsize n = strlen (s);
  guint64 mult = 1;
  if (n > 2 && g_ascii_strcasecmp (s + n - 2, "iB") == 0)
    s[n -= 2] = 0;
  else if (n > 1 && (s[n - 1] == 'B' || s[n - 1] == 'b'))
    s[--n] = 0;
  if (n > 0) {
    switch (g_ascii_toupper (s[n - 1])) {
    case 'K': mult = 1ull << 10; break;
    case 'M': mult = 1ull << 20; break;
    case 'G': mult = 1ull << 30; break;
    case 'T': mult = 1ull << 40; break;
    default: break;
    }
    if (mult > 1)
      s[--n] = 0;
  }
  double v;
  if (!dps_parse_double (s, &v) || v < 0)
    return FALSE;
  double bytes = v * (double) mult;
  if (bytes > (double) (1ull << 50) || bytes != floor (bytes))
    return FALSE;
  *out_bytes = (guint64) bytes;
  return TRUE;
}

/* Formats a byte count with a binary suffix ("8", "1K", "1.5M").
 * Returns a new string (g_free it). */
char *
dps_format_size (guint64 bytes)
{
  static const char *suffix[] = { "", "K", "M", "G", "T" };
  int i = 0;
  double v = (double) bytes;
  while (v >= 1024 && i < 4 && fmod (v, 1024) == 0) {
    v /= 1024;
    i++;
  }
  return g_strdup_printf ("%g%s", v, suffix[i]);
}

/* Text fit for a one-line message: len bytes of text (len < 0: up to its
 * NUL) with each control character written as an escape (\n, \t, \xNN)
 * and invalid UTF-8 as \xNN, cut after at most max_bytes of it (at a
 * character's boundary) with "..." after.  A new string. */
char *
dps_one_line (const char *text, gssize len, gsize max_bytes)
{
  gsize n = len < 0 ? strlen (text) : (gsize) len;
  GString *o = g_string_sized_new (MIN (n, max_bytes) + 8);
  const char *p = text, *end = text + n;
  while (p < end) {
    if (o->len >= max_bytes) {
      g_string_append (o, "...");
      break;
    }
    guchar c = (guchar) *p;
    gunichar u = c < 0x80 ? c : g_utf8_get_char_validated (p, end - p);
    if (c == '\n')
      g_string_append (o, "\\n");
    else if (c == '\t')
      g_string_append (o, "\\t");
    else if (c < 0x20 || c == 0x7f || u == (gunichar) -1 || u == (gunichar) -2) {
      g_string_append_printf (o, "\\x%02x", c);
      p++;
      continue;
    } else if (c >= 0x80) {
      const char *next = g_utf8_next_char (p);
      if (o->len + (gsize) (next - p) > max_bytes) {
        g_string_append (o, "...");
        break;
      }
      g_string_append_len (o, p, next - p);
      p = next;
      continue;
    } else
      g_string_append_c (o, (char) c);
    p++;
  }
  return g_string_free (o, FALSE);
}

/* A file's text as a message quotes it: dps_one_line with at most
 * DPS_QUOTE_MAX_BYTES.  A new string. */
char *
dps_quote (const char *text)
{
  return dps_one_line (text, -1, DPS_QUOTE_MAX_BYTES);
}

gboolean
dps_set_error_at (GError **error, const char *name, int line, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_autofree char *msg = dps_one_line (text, -1, DPS_MESSAGE_MAX_BYTES);
  if (line > 0)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s:%d: %s", name, line, msg);
  else
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: %s", name, msg);
  return FALSE;
}

/* The code of a DPS_ERROR: its kind in the low byte, its field above. */
#define FIELD_SHIFT 8

const char *
dps_field_words (DpsField field)
{
  static const char *const words[DPS_FIELD_COUNT] = {
    [DPS_FIELD_NONE] = "", [DPS_FIELD_GPUS] = "GPU count: ", [DPS_FIELD_BUCKET_CAP] = "bucket cap: ",
    [DPS_FIELD_FIRST_BUCKET] = "first bucket: ", [DPS_FIELD_GRAD_ACCUM] = "gradient accumulation: ",
    [DPS_FIELD_TRIALS] = "trials: ", [DPS_FIELD_POWERSGD_RANK] = "PowerSGD rank: ",
    [DPS_FIELD_GLOBAL_BATCH] = "global batch: ", [DPS_FIELD_BATCH] = "batch: ", [DPS_FIELD_MODEL] = "model: ",
    [DPS_FIELD_TOPOLOGY] = "topology: ", [DPS_FIELD_TRACE] = "trace file ", [DPS_FIELD_EMU_NODES] = "emulated nodes: ",
    [DPS_FIELD_EMU_LINK] = "emulated nodes and link: ", [DPS_FIELD_IMPORT] = "imported log: ",
    [DPS_FIELD_GPU_REPLICAS] = "GPU replicas: ", [DPS_FIELD_EMU_REPLICAS] = "emulated replicas: ",
    [DPS_FIELD_SLOW_REPLICAS] = "slow replicas: ", [DPS_FIELD_PRECISION] = "precision: ",
    [DPS_FIELD_OFFLOAD] = "offload: ",
  };
  g_return_val_if_fail (field >= 0 && field < DPS_FIELD_COUNT && words[field], "");
  return words[field];
}

gboolean
dps_set_field_error (GError **error, DpsField field, DpsErrorCode kind, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, DPS_ERROR, (int) kind | (int) field << FIELD_SHIFT, "%s%s", dps_field_words (field), msg);
  return FALSE;
}

void
dps_error_set_field (GError *error, DpsField field)
{
  if (error && error->domain == DPS_ERROR)
    error->code = (int) dps_error_kind (error) | (int) field << FIELD_SHIFT;
}

DpsErrorCode
dps_error_kind (const GError *error)
{
  return (DpsErrorCode) (error->code & ((1 << FIELD_SHIFT) - 1));
}

DpsField
dps_error_field (const GError *error)
{
  return error->domain == DPS_ERROR ? (DpsField) (error->code >> FIELD_SHIFT) : DPS_FIELD_NONE;
}
