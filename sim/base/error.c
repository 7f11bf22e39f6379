/* error.c — see error.h. */
#include "sim/base/error.h"

#include <math.h>
#include <errno.h>

G_DEFINE_QUARK (dps-error-quark, dps_error)

/* Parses a whole string as a finite double (surrounding blanks allowed).
 * Returns FALSE for empty text, junk, NaN, infinity or overflow. */
gboolean
dps_parse_double (const char *text, double *out)
{
  if (!text)
    return FALSE;
  while (g_ascii_isspace (*text))
    text++;
  if (!*text)
    return FALSE;
  char *end = NULL;
  errno = 0;
  double v = g_ascii_strtod (text, &end);
  if (end == text || errno == ERANGE || !isfinite (v))
    return FALSE;
  while (g_ascii_isspace (*end))
    end++;
  if (*end)
    return FALSE;
  *out = v;
  return TRUE;
}

/* Parses a whole string as a decimal integer that fits in 63 bits. */
gboolean
dps_parse_int (const char *text, gint64 *out)
{
  if (!text)
    return FALSE;
  while (g_ascii_isspace (*text))
    text++;
  if (!*text)
    return FALSE;
  char *end = NULL;
  errno = 0;
  gint64 v = g_ascii_strtoll (text, &end, 10);
  if (end == text || errno == ERANGE)
    return FALSE;
  while (g_ascii_isspace (*end))
    end++;
  if (*end)
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

gboolean
dps_set_error_at (GError **error, const char *name, int line, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (line > 0)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s:%d: %s", name, line, msg);
  else
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: %s", name, msg);
  return FALSE;
}
