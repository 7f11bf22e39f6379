/* nccl-log.c — see nccl-log.h. */
#include "calibrate/nccl-log.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

#include <math.h>
#include <string.h>

/* Drops an MPI launcher's prefix: "[0] ", "[1,0]<stdout>:". */
static char *
strip_prefix (char *l)
{
  while (*l == ' ' || *l == '\t')
    l++;
  if (*l == '[') {
    char *e = strchr (l, ']');
    if (e) {
      l = e + 1;
      if (g_str_has_prefix (l, "<stdout>:") || g_str_has_prefix (l, "<stderr>:"))
        l += 9;
    }
  }
  return l;
}

static gboolean
is_wrong_field (const char *s, int *wrong)
{
  double v;
  if (g_str_equal (s, "N/A")) {
    *wrong = -1;
    return TRUE;
  }
  if (!dps_parse_double (s, &v) || v < 0)
    return FALSE;
  *wrong = v == floor (v) && v < 1e9 ? (int) v : (v > 0 ? 1 : 0);   /* "error" columns: 0e+00 is none */
  return TRUE;
}

/* Parses one log's text, appending its points to into; hints (may be NULL)
 * give the rank and host counts where the log has no "#  Rank" lines, allow
 * a table without its footer, and receive the test's operation. */
/* Whether a column header names both halves (out-of-place and in-place:
 * busbw twice), so that a row of one half's columns is a cut row. */
static gboolean
two_halves (const char *header)
{
  const char *b = strstr (header, "busbw");
  return b && strstr (b + 5, "busbw");
}

gboolean
dps_nccl_log_parse_hinted (const char *name, const char *text, gssize len, DpsNcclLogHints *hints,
                           DpsCalData *into, GError **error)
{
  if (len < 0)
    len = (gssize) strlen (text);
  if (memchr (text, 0, (gsize) len))
    return dps_set_error_at (error, name, 0, "binary data, not an nccl-tests log");
  g_autofree char *copy = g_strndup (text, (gsize) len);
  g_auto (GStrv) lines = g_strsplit (copy, "\n", -1);
  GHashTable *ranks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTable *hosts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (DpsCalPoint));
  gboolean footer = FALSE, header = FALSE, ok = FALSE, halves = FALSE;
  double ratio = 0;
  int last_line = 0;
  for (int i = 0; lines[i]; i++) {
    int ln = i + 1;
    char *l = g_strstrip (strip_prefix (lines[i]));
    if (!l[0])
      continue;
    if (l[0] == '#' && l[1] == '%')
      continue;   /* a reference file's facts (calibrate/reference.h), never the table's */
    if (l[0] == '#') {
      if (strstr (l, "Avg bus bandwidth"))
        footer = TRUE;
      if (strstr (l, "algbw") && strstr (l, "busbw")) {
        header = TRUE;
        halves = two_halves (l);
      }
      const char *cts = strstr (l, "Collective test starting:");
      if (cts && hints && !hints->test)
        hints->test = g_strstrip (g_strdup (cts + strlen ("Collective test starting:")));
      g_auto (GStrv) t = g_strsplit_set (l + 1, " \t", -1);
      /* "#  Rank  0 Group  0 Pid  123 on HOST device  0 [0x07] NAME" (older: no Group) */
      int n = 0;
      char *tok[16];
      for (int j = 0; t[j] && n < 16; j++)
        if (t[j][0])
          tok[n++] = t[j];
      if (n >= 4 && g_str_equal (tok[0], "Rank"))
        for (int j = 2; j + 1 < n; j++)
          if (g_str_equal (tok[j], "on")) {
            g_hash_table_add (ranks, g_strdup (tok[1]));
            g_hash_table_add (hosts, g_strdup (tok[j + 1]));
            break;
          }
      continue;
    }
    /* tables pasted without their '#': the same header, units and footer lines */
    if (strstr (l, "Avg bus bandwidth")) {
      footer = TRUE;
      continue;
    }
    if (!g_ascii_isdigit (l[0]) && ((strstr (l, "algbw") && strstr (l, "busbw")) || g_str_has_prefix (l, "(B)")
                                    || g_str_has_prefix (l, "Out of bounds") || g_str_has_prefix (l, "nThread")
                                    || strstr (l, "out-of-place"))) {
      if (strstr (l, "algbw") && strstr (l, "busbw")) {
        header = TRUE;
        halves = two_halves (l);
      }
      continue;
    }
    if (!header || g_str_has_prefix (l, "NCCL version"))
      continue;   /* banners before the table (NCCL INFO lines and the like) */
    if (footer)
      continue;
    g_auto (GStrv) t = g_strsplit_set (l, " \t", -1);
    char *tok[16];
    int n = 0;
    for (int j = 0; t[j]; j++)
      if (t[j][0]) {
        if (n == 16) {
          n = 17;
          break;
        }
        tok[n++] = t[j];
      }
    /* 13 or 12 columns (with and without root); a table without its in-place
     * half (as some authors paste it) has 9, 8 or 7 */
    gboolean oop_only = n >= 7 && n <= 9 && !halves;   /* under a header of both halves it is a cut row */
    if (n != 13 && n != 12 && !oop_only) {
      g_hash_table_unref (ranks);
      g_hash_table_unref (hosts);
      g_array_free (rows, TRUE);
      return dps_set_error_at (error, name, ln, "expected 12 or 13 columns (size count type redop [root] time algbw busbw "
                   "#wrong time algbw busbw #wrong), or 7 to 9 without the in-place half, got %d%s", n,
                   lines[i + 1] ? "" : " (the log is cut short)");
    }
    /* with a root column the time is column 5, else 4; in an out-of-place
     * table of 8 columns the last is busbw (printed with decimals) when the
     * root is there, #wrong when it is not */
    int o = n == 13 || n == 9 || (n == 8 && strchr (tok[7], '.')) ? 5 : 4;
    gint64 size, count;
    double t_oop, alg, bus, t_ip = 0;
    int wrong1 = -1, wrong2 = 0;
    if (!dps_parse_int (tok[0], &size) || size < 0 || !dps_parse_int (tok[1], &count) || count < 0
        || !dps_parse_double (tok[o], &t_oop) || !dps_parse_double (tok[o + 1], &alg)
        || !dps_parse_double (tok[o + 2], &bus)
        || (o + 3 < n && !is_wrong_field (tok[o + 3], &wrong1))
        || (!oop_only && (!dps_parse_double (tok[o + 4], &t_ip) || !is_wrong_field (tok[o + 7], &wrong2)))
        || t_oop < 0 || t_ip < 0) {
      g_hash_table_unref (ranks);
      g_hash_table_unref (hosts);
      g_array_free (rows, TRUE);
      return dps_set_error_at (error, name, ln, "not an nccl-tests result row: '%s'", l);
    }
    last_line = ln;
    if (hints && hints->redop[0] == 0)
      g_strlcpy (hints->redop, tok[3], sizeof hints->redop);
    if (size == 0 || t_oop <= 0)
      continue;
    if (alg > 0 && bus > 0 && ratio == 0)
      ratio = bus / alg;
    DpsCalPoint p = { .nodes = 1, .bytes = (double) size, .time_s = t_oop * 1e-6, .time_ip_s = t_ip * 1e-6,
                      .wrong = wrong1 < 0 || wrong2 < 0 ? -1 : wrong1 + wrong2 };
    g_array_append_val (rows, p);
  }
  int n_ranks = (int) g_hash_table_size (ranks), n_nodes = MAX (1, (int) g_hash_table_size (hosts));
  /* a header's counts stand for Rank lines that were not pasted, or only
   * some of them (a paste of the first 100 of 1024 ranks) */
  if (hints && hints->ranks > 0 && n_ranks < hints->ranks) {
    n_ranks = hints->ranks;
    n_nodes = MAX (hints->hosts, 1);
  }
  g_hash_table_unref (ranks);
  g_hash_table_unref (hosts);
  if (!header)
    dps_set_error_at (error, name, 0, "no nccl-tests table (no header line with algbw and busbw)");
  else if (rows->len == 0)
    dps_set_error_at (error, name, 0, "no result rows");
  else {
    /* every row whole (a cut one is refused above): a missing footer is
     * said, not refused (logs pasted or saved without their last lines) */
    if (!footer && hints)
      hints->footer_missing = last_line;
    if (n_ranks == 0 && ratio > 0 && ratio < 2)
      n_ranks = (int) lround (2 / (2 - ratio));   /* busbw / algbw = 2(n-1)/n */
    if (n_ranks < 1)
      dps_set_error_at (error, name, 0, "cannot tell the rank count: no '#  Rank' lines and no busbw/algbw ratio");
    else {
      for (guint i = 0; i < rows->len; i++) {
        DpsCalPoint *p = &g_array_index (rows, DpsCalPoint, i);
        p->ranks = n_ranks;
        p->nodes = n_nodes;
        g_array_append_val (into->points, *p);
      }
      ok = TRUE;
    }
  }
  g_array_free (rows, TRUE);
  return ok;
}

gboolean
dps_nccl_log_parse (const char *name, const char *text, gssize len, DpsCalData *into, GError **error)
{
  return dps_nccl_log_parse_hinted (name, text, len, NULL, into, error);
}

/* Loads the log at path into into; *warning (when not NULL) gets a new
 * one-line warning for a log whose rows are whole but whose footer is
 * missing ("FILE:LINE: no '# Avg bus bandwidth' footer ..."), else NULL. */
gboolean
dps_nccl_log_load_warn (const char *path, DpsCalData *into, char **warning, GError **error)
{
  gsize len;
  if (warning)
    *warning = NULL;
  g_autofree char *data = dps_read_file (path, "log", &len, error);
  if (!data)
    return FALSE;
  DpsNcclLogHints hints = { 0 };
  gboolean ok = dps_nccl_log_parse_hinted (path, data, (gssize) len, &hints, into, error);
  g_free (hints.test);
  if (!ok)
    return FALSE;
  if (hints.footer_missing && warning)
    *warning = g_strdup_printf ("%s:%d: no '# Avg bus bandwidth' footer after the last row: the log may be cut "
                                "short (its rows are whole: taken)", path, hints.footer_missing);
  g_autofree char *src = into->source ? g_strdup_printf ("%s %s", into->source, path) : g_strdup (path);
  g_free (into->source);
  into->source = g_steal_pointer (&src);
  return TRUE;
}

gboolean
dps_nccl_log_load (const char *path, DpsCalData *into, GError **error)
{
  return dps_nccl_log_load_warn (path, into, NULL, error);
}
