/* nccl-log.c — see nccl-log.h. */
#include "calibrate/nccl-log.h"
#include "sim/coll.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

#include <math.h>
#include <string.h>

/* Length of an RFC 3339 time stamp and the blanks after it at l, as
 * `kubectl logs --timestamps` and log collectors put before each line
 * ("2024-05-01T12:00:00.123456789Z "), else 0. */
static size_t
timestamp_len (const char *l)
{
  static const char shape[] = "dddd-dd-ddTdd:dd:dd";
  size_t i = 0;
  for (; shape[i]; i++) {
    gboolean ok = shape[i] == 'd' ? g_ascii_isdigit (l[i]) : shape[i] == 'T' ? (l[i] == 'T' || l[i] == ' ') : l[i] == shape[i];
    if (!ok)
      return 0;
  }
  if (l[i] == '.' || l[i] == ',')
    for (i++; g_ascii_isdigit (l[i]); i++)
      ;
  if (l[i] == 'Z')
    i++;
  else if ((l[i] == '+' || l[i] == '-') && g_ascii_isdigit (l[i + 1]) && g_ascii_isdigit (l[i + 2])) {
    i += 3;
    if (l[i] == ':')
      i++;
    while (g_ascii_isdigit (l[i]))
      i++;
  }
  if (l[i] != ' ' && l[i] != '\t')
    return 0;
  while (l[i] == ' ' || l[i] == '\t')
    i++;
  return i;
}

/* Drops what launchers and log collectors put before each line, in the
 * order they stack: a time stamp (above), Slurm's `srun --label` task
 * number ("12: "; a table row has no colon after its first number) and
 * MPI's "[0] " or "[1,0]<stdout>:". */
static char *
strip_prefix (char *l)
{
  while (*l == ' ' || *l == '\t')
    l++;
  l += timestamp_len (l);
  const char *d = l;
  while (g_ascii_isdigit (*d))
    d++;
  if (d > l && d[0] == ':' && (d[1] == ' ' || d[1] == '\t'))
    for (l = (char *) d + 1; *l == ' ' || *l == '\t'; l++)
      ;
  for (char *e; *l == '[' && (e = strchr (l, ']'));) {   /* "[1,0]<stdout>:[0] " has two */
    l = e + 1;
    if (g_str_has_prefix (l, "<stdout>:") || g_str_has_prefix (l, "<stderr>:"))
      l += 9;
    while (*l == ' ' || *l == '\t')
      l++;
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
  /* older logs print the largest error ("2e-07": float rounding, not a
   * wrong result) where newer ones count wrong elements */
  if (strpbrk (s, ".eE"))
    *wrong = v >= 1e-2;
  else
    *wrong = v < 1e9 ? (int) v : 1;
  return TRUE;
}

/* Whether a column header names both halves (out-of-place and in-place:
 * busbw twice), so that a row of one half's columns is a cut row. */
static gboolean
two_halves (const char *header)
{
  const char *b = strstr (header, "busbw");
  return b && strstr (b + 5, "busbw");
}

/* The blank-separated fields of l: at most max of them in tok, pointing
 * into *owner (the caller frees it); their count, or max + 1 where l has
 * more. */
static int
fields (const char *l, GStrv *owner, char **tok, int max)
{
  *owner = g_strsplit_set (l, " \t", -1);
  int n = 0;
  for (int j = 0; (*owner)[j]; j++)
    if ((*owner)[j][0]) {
      if (n == max)
        return max + 1;
      tok[n++] = (*owner)[j];
    }
  return n;
}

/* What a log's lines have said so far. */
typedef struct {
  const char      *name;
  DpsNcclLogHints *hints;
  GHashTable      *ranks, *hosts;   /* the "#  Rank" lines' rank ids (-> their line) and host names */
  GHashTable      *seen;            /* row key -> its line */
  GArray          *rows;            /* DpsCalPoint, ranks and nodes not yet set */
  int              wrong_rows, wrong_line, repeat_rows, repeat_line, repeat_of, last_line, zero_rows, zero_line;
  int              rank_twice, rank_line, rank_first;   /* a rank listed twice: its line, its first */
  gboolean         footer, header, halves;
  double           ratio, ratio_alg;   /* busbw / algbw of the row of the largest algbw, that algbw */
} Parse;

static void
parse_clear (Parse *ps)
{
  g_hash_table_unref (ps->ranks);
  g_hash_table_unref (ps->hosts);
  g_hash_table_unref (ps->seen);
  g_array_free (ps->rows, TRUE);
}

/* A column header line: the table starts, with one half or two. */
static void
header_line (Parse *ps, const char *l)
{
  ps->header = TRUE;
  ps->halves = two_halves (l);
}

/* A '#' line: the footer, the header, the test's name, or a Rank line
 * ("#  Rank  0 Group  0 Pid  123 on HOST device  0 [0x07] NAME"; older:
 * no Group). */
static void
comment_line (Parse *ps, const char *l, int ln)
{
  if (strstr (l, "Avg bus bandwidth"))
    ps->footer = TRUE;
  if (strstr (l, "algbw") && strstr (l, "busbw"))
    header_line (ps, l);
  const char *cts = strstr (l, "Collective test starting:");
  if (cts && ps->hints && !ps->hints->test)
    ps->hints->test = g_strstrip (g_strdup (cts + strlen ("Collective test starting:")));
  g_auto (GStrv) t = NULL;
  char *tok[16];
  int n = fields (l + 1, &t, tok, 16);
  n = MIN (n, 16);   /* the first 16 of a longer line */
  if (n >= 4 && g_str_equal (tok[0], "Rank"))
    for (int j = 2; j + 1 < n; j++)
      if (g_str_equal (tok[j], "on")) {
        int first = GPOINTER_TO_INT (g_hash_table_lookup (ps->ranks, tok[1]));
        if (first && !ps->rank_twice) {   /* the count would be one short */
          ps->rank_twice = (int) g_ascii_strtoll (tok[1], NULL, 10) + 1;
          ps->rank_line = ln;
          ps->rank_first = first;
        }
        if (!first)
          g_hash_table_insert (ps->ranks, g_strdup (tok[1]), GINT_TO_POINTER (ln));
        g_hash_table_add (ps->hosts, g_strdup (tok[j + 1]));
        /* "... device  0 [0x07] NVIDIA H100 80GB HBM3": the name after the bus id */
        const char *bus = strstr (l, "] ");
        if (bus && ps->hints && !ps->hints->device && strstr (l, "device"))
          ps->hints->device = g_strstrip (g_strdup (bus + 2));
        break;
      }
}

/* Whether l is a line of the table that is not a row: a header, units or
 * footer pasted without its '#' (a header also starts the table). */
static gboolean
bare_table_line (Parse *ps, const char *l)
{
  if (strstr (l, "Avg bus bandwidth")) {
    ps->footer = TRUE;
    return TRUE;
  }
  if (g_ascii_isdigit (l[0]))
    return FALSE;
  gboolean head = strstr (l, "algbw") && strstr (l, "busbw");
  if (head)
    header_line (ps, l);
  return head || g_str_has_prefix (l, "(B)") || g_str_has_prefix (l, "Out of bounds")
         || g_str_has_prefix (l, "nThread") || strstr (l, "out-of-place");
}

/* Whether l is NCCL's own debug output ("host:pid:tid [dev] NCCL INFO ...",
 * NCCL WARN, TRACE), which NCCL_DEBUG=INFO interleaves with the table. */
static gboolean
nccl_debug_line (const char *l)
{
  return strstr (l, " NCCL INFO ") || strstr (l, " NCCL WARN ") || strstr (l, " NCCL TRACE ")
         || g_str_has_prefix (l, "NCCL INFO ") || g_str_has_prefix (l, "NCCL WARN ");
}

/* Whether l is a whole result row of both halves (12 or 13 columns) whose
 * type and operation are nccl-tests' own, so that a table pasted without
 * its header lines (a log's tail) starts there: size count type redop
 * [root] time ...  */
static gboolean
headless_row (const char *l)
{
  static const char *const types[] = { "int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float",
                                       "double", "bfloat16", "f8e4m3", "f8e5m2", NULL };
  static const char *const ops[] = { "sum", "prod", "min", "max", "avg", "none", "mulsum", NULL };
  if (!g_ascii_isdigit (l[0]))
    return FALSE;
  g_auto (GStrv) t = NULL;
  char *tok[13];
  int n = fields (l, &t, tok, 13);
  return (n == 12 || n == 13) && g_strv_contains (types, tok[2]) && g_strv_contains (ops, tok[3]);
}

/* Whether l (stripped) is one of the lines a run of a test starts with
 * before its table: its banners, Rank lines and column header. */
static gboolean
run_start_line (const char *l)
{
  if (strstr (l, "algbw") && strstr (l, "busbw"))
    return TRUE;
  if (g_str_has_prefix (l, "NCCL version"))
    return TRUE;
  if (l[0] != '#')
    return FALSE;
  const char *w = l + 1;
  while (*w == ' ' || *w == '\t')
    w++;
  return g_str_has_prefix (w, "nccl-tests version") || g_str_has_prefix (w, "Collective test starting")
         || g_str_has_prefix (w, "nThread") || g_str_has_prefix (w, "Using devices")
         || (g_str_has_prefix (w, "Rank") && (w[4] == ' ' || w[4] == '\t'));
}

/* The operation a test's name says ("all_gather_perf_mpi"); DPS_OP_COUNT
 * for one of nccl-tests' other tests (alltoall_perf, sendrecv_perf,
 * reduce_perf, ...: not modelled); -1 for no name or another. */
int
dps_nccl_test_op (const char *test)
{
  if (!test)
    return -1;
  if (strstr (test, "all_reduce"))
    return DPS_OP_ALLREDUCE;
  if (strstr (test, "all_gather"))
    return DPS_OP_ALLGATHER;
  if (strstr (test, "reduce_scatter"))
    return DPS_OP_REDUCE_SCATTER;
  if (strstr (test, "broadcast"))
    return DPS_OP_BROADCAST;
  if (strstr (test, "_perf"))
    return DPS_OP_COUNT;
  return -1;
}

/* The operation of the table hints describe (DPS_OP_COUNT: a test not
 * modelled): its test's name; else, its
 * rank count n known (> 1) and its busbw / algbw read from a row of at
 * least 1 GB/s (printed to two decimals: within 1%), the nearest of 2(n-1)/n
 * (an all-reduce), (n-1)/n (an all-gather when its redop is "none", else
 * a reduce-scatter) and 1 (a broadcast), where it is within 1% and the
 * next nearest at least twice as far; else its redop ("none": an
 * all-gather, else an all-reduce). */
DpsCollOp
dps_nccl_log_op (const DpsNcclLogHints *h, int ranks)
{
  int op = dps_nccl_test_op (h->test);
  if (op >= 0)
    return (DpsCollOp) op;
  gboolean none = g_str_equal (h->redop, "none");
  if (ranks > 1 && h->ratio > 0 && h->ratio_algbw >= 1) {
    double n = ranks, want[3] = { 2 * (n - 1) / n, (n - 1) / n, 1 }, d[3];
    DpsCollOp ops[3] = { DPS_OP_ALLREDUCE, none ? DPS_OP_ALLGATHER : DPS_OP_REDUCE_SCATTER, DPS_OP_BROADCAST };
    int best = 0;
    for (int i = 0; i < 3; i++) {
      d[i] = fabs (h->ratio / want[i] - 1);
      if (d[i] < d[best])
        best = i;
    }
    double next = G_MAXDOUBLE;
    for (int i = 0; i < 3; i++)
      if (i != best)
        next = MIN (next, d[i]);
    if (d[best] < 0.01 && next >= 2 * d[best])
      return ops[best];
  }
  return none ? DPS_OP_ALLGATHER : DPS_OP_ALLREDUCE;
}

/* One result row (line ln, next the line after it or NULL): kept, or left
 * out (wrong results, a repeat, size 0), or refused. */
static gboolean
row_line (Parse *ps, char *l, int ln, const char *next, GError **error)
{
  g_auto (GStrv) t = NULL;
  char *tok[16];
  int n = fields (l, &t, tok, 16);   /* 17: more than 16 */
  /* 13 or 12 columns (with and without root); a table without its in-place
   * half (as some authors paste it) has 9, 8 or 7 */
  gboolean oop_only = n >= 7 && n <= 9 && !ps->halves;   /* under a header of both halves it is a cut row */
  if (n != 13 && n != 12 && !oop_only)
    return dps_set_error_at (error, ps->name, ln, "expected 12 or 13 columns (size count type redop [root] time algbw "
                             "busbw #wrong time algbw busbw #wrong), or 7 to 9 without the in-place half, got %d%s", n,
                             next ? "" : " (the log is cut short)");
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
    g_autofree char *q = dps_quote (l);
    return dps_set_error_at (error, ps->name, ln, "not an nccl-tests result row: '%s'", q);
  }
  ps->last_line = ln;
  if (ps->hints && ps->hints->redop[0] == 0)
    g_strlcpy (ps->hints->redop, tok[3], sizeof ps->hints->redop);
  if (size == 0 || t_oop <= 0) {   /* nothing timed: left out, and said (hints) */
    if (!ps->zero_rows++)
      ps->zero_line = ln;
    return TRUE;
  }
  /* a row of wrong results times a broken collective; a row repeated (the
   * same size, type, operation and root) would weigh twice: both are left
   * out of the fit, and the caller is told (hints) */
  if (wrong1 > 0 || wrong2 > 0) {
    if (!ps->wrong_rows++)
      ps->wrong_line = ln;
    return TRUE;
  }
  char *key = g_strdup_printf ("%s %s %s %s", tok[0], tok[2], tok[3], o == 5 ? tok[4] : "");
  int first = GPOINTER_TO_INT (g_hash_table_lookup (ps->seen, key));
  if (first) {
    g_free (key);
    if (!ps->repeat_rows++) {
      ps->repeat_line = ln;
      ps->repeat_of = first;
    }
    return TRUE;
  }
  g_hash_table_insert (ps->seen, key, GINT_TO_POINTER (ln));
  if (alg > ps->ratio_alg && bus > 0) {
    ps->ratio = bus / alg;   /* from the row of most digits: they are printed to two decimals */
    ps->ratio_alg = alg;
  }
  DpsCalPoint p = { .nodes = 1, .bytes = (double) size, .time_s = t_oop * 1e-6, .time_ip_s = t_ip * 1e-6,
                    .wrong = wrong1 < 0 || wrong2 < 0 ? -1 : wrong1 + wrong2 };
  g_array_append_val (ps->rows, p);
  return TRUE;
}

/* The rows' rank and node counts (the Rank lines, the hints' counts, or
 * the busbw/algbw ratio), appended to into; what was left out told in the
 * hints. */
static gboolean
finish (Parse *ps, DpsCalData *into, GError **error)
{
  if (ps->rank_twice)
    return dps_set_error_at (error, ps->name, ps->rank_line, "rank %d is listed twice (first on line %d): "
                             "the rank count cannot be told", ps->rank_twice - 1, ps->rank_first);
  int n_ranks = (int) g_hash_table_size (ps->ranks), n_nodes = MAX (1, (int) g_hash_table_size (ps->hosts));
  DpsNcclLogHints *hints = ps->hints;
  /* a header's counts stand for Rank lines that were not pasted, or only
   * some of them (a paste of the first 100 of 1024 ranks) */
  if (hints && hints->ranks > 0 && n_ranks < hints->ranks) {
    n_ranks = hints->ranks;
    n_nodes = MAX (hints->hosts, 1);
  }
  if (hints) {
    hints->wrong_rows = ps->wrong_rows;
    hints->wrong_line = ps->wrong_line;
    hints->repeat_rows = ps->repeat_rows;
    hints->repeat_line = ps->repeat_line;
    hints->repeat_of = ps->repeat_of;
    hints->zero_rows = ps->zero_rows;
    hints->zero_line = ps->zero_line;
  }
  if (!ps->header && hints && hints->start_line > 0) {
    hints->no_table = TRUE;   /* a later run that died before its table: not an error of the log */
    return FALSE;
  }
  if (!ps->header)
    return dps_set_error_at (error, ps->name, 0, "no nccl-tests table (no header line with algbw and busbw)");
  if (ps->rows->len == 0 && ps->wrong_rows)
    return dps_set_error_at (error, ps->name, ps->wrong_line, "every result row has a non-zero #wrong count: nothing to fit");
  if (ps->rows->len == 0)
    return dps_set_error_at (error, ps->name, 0, "no result rows");
  /* every row whole (a cut one is refused above): a missing footer is
   * said, not refused (logs pasted or saved without their last lines) */
  if (!ps->footer && hints)
    hints->footer_missing = ps->last_line;
  if (hints) {
    hints->ratio = ps->ratio;
    hints->ratio_algbw = ps->ratio_alg;
  }
  DpsCollOp op = hints ? dps_nccl_log_op (hints, 0) : DPS_OP_ALLREDUCE;   /* by its test line, else its redop */
  gboolean halves = op == DPS_OP_ALLGATHER || op == DPS_OP_REDUCE_SCATTER;
  if (n_ranks == 0 && halves && ps->ratio > 0 && ps->ratio < 1)
    n_ranks = (int) lround (1 / (1 - ps->ratio));   /* all-gather, reduce-scatter: busbw / algbw = (n-1)/n */
  else if (n_ranks == 0 && !halves && ps->ratio > 0 && ps->ratio < 2)
    n_ranks = (int) lround (2 / (2 - ps->ratio));   /* busbw / algbw = 2(n-1)/n */
  if (n_ranks < 1)
    return dps_set_error_at (error, ps->name, 0, "cannot tell the rank count: no '#  Rank' lines and no busbw/algbw ratio");
  for (guint i = 0; i < ps->rows->len; i++) {
    DpsCalPoint *p = &g_array_index (ps->rows, DpsCalPoint, i);
    p->ranks = n_ranks;
    p->nodes = n_nodes;
    g_array_append_val (into->points, *p);
  }
  return TRUE;
}

/* Parses one log's text, appending its points to into; hints (may be NULL)
 * give the rank and host counts where the log has no "#  Rank" lines, allow
 * a table without its footer, and receive the test's operation. */
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
  Parse ps = { .name = name, .hints = hints,
               .ranks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
               .hosts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
               .seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
               .rows = g_array_new (FALSE, TRUE, sizeof (DpsCalPoint)) };
  gboolean ok = TRUE;
  int first = MIN (hints ? MAX (hints->start_line, 0) : 0, (int) g_strv_length (lines));
  if (hints)
    hints->next_line = 0;
  for (int i = first; lines[i] && ok; i++) {
    char *l = g_strstrip (strip_prefix (lines[i]));
    if (!l[0] || (l[0] == '#' && l[1] == '%'))
      continue;   /* blank, or a reference file's facts (calibrate/reference.h), never the table's */
    if (ps.last_line && run_start_line (l)) {
      if (hints)
        hints->next_line = i;   /* the next run of a log of several: this table ends here */
      break;
    }
    if (l[0] == '#')
      comment_line (&ps, l, i + 1);
    else if (nccl_debug_line (l))
      ;   /* NCCL_DEBUG's lines, before, inside or after the table */
    else if (!ps.header && !ps.footer && headless_row (l))
      ok = row_line (&ps, l, i + 1, lines[i + 1], error), ps.header = ps.halves = TRUE;   /* a table without its header */
    else if (bare_table_line (&ps, l) || !ps.header || g_str_has_prefix (l, "NCCL version") || ps.footer)
      ;   /* banners before the table, the lines after it */
    else
      ok = row_line (&ps, l, i + 1, lines[i + 1], error);
  }
  ok = ok && finish (&ps, into, error);
  parse_clear (&ps);
  return ok;
}

gboolean
dps_nccl_log_parse (const char *name, const char *text, gssize len, DpsCalData *into, GError **error)
{
  return dps_nccl_log_parse_hinted (name, text, len, NULL, into, error);
}

/* Loads the log at path into into; *warning (when not NULL) gets a new
 * string of one-line warnings, one a line, else NULL: for a log whose rows
 * are whole but whose footer is missing ("FILE:LINE: no '# Avg bus
 * bandwidth' footer ..."), for rows of wrong results and for repeated rows
 * (both left out of the fit, "FILE:LINE: ..."). */
gboolean
dps_nccl_log_load_warn (const char *path, DpsCalData *into, char **device, char **warning, GError **error)
{
  gsize len;
  if (warning)
    *warning = NULL;
  if (device)
    *device = NULL;
  g_autofree char *data = dps_read_file (path, "log", &len, error);
  if (!data)
    return FALSE;
  g_autoptr (GString) w = g_string_new (NULL);
  g_autoptr (GString) others = g_string_new (NULL);
  g_autofree char *first_device = NULL;
  int kept = 0, start = 0;
  do {
    /* one table at a time (a log of several runs), kept when calibration fits its operation */
    DpsNcclLogHints hints = { .start_line = start };
    if (!dps_nccl_log_header_counts (path, data, len, &hints, error))
      return FALSE;
    g_autoptr (DpsCalData) one = dps_cal_data_new ("nccl-tests");
    gboolean ok = dps_nccl_log_parse_hinted (path, data, (gssize) len, &hints, one, error);
    g_autofree char *test = hints.test;
    if (ok && hints.device && !first_device)
      first_device = g_strdup (hints.device);
    else if (ok && hints.device && first_device && g_strcmp0 (hints.device, first_device) != 0)
      /* runs of two machines in one log: one datasheet fits them both */
      g_string_append_printf (w, "%s:%d: its GPUs are %s, the first table's %s: import each machine's log on its "
                              "own\n", path, start + 1, hints.device, first_device);
    if (ok && device && !*device)
      *device = g_steal_pointer (&hints.device);   /* the first table's Rank line */
    g_free (hints.device);
    if (!ok && hints.no_table) {   /* a last run that died before its table: the tables before it stand */
      g_string_append_printf (w, "%s:%d: a run with no table after it: left out\n", path, start + 1);
      break;
    }
    if (!ok)
      return FALSE;
    DpsCollOp op = dps_nccl_log_op (&hints, g_array_index (one->points, DpsCalPoint, 0).ranks);
    if (op == DPS_OP_COUNT || !(DPS_CAL_OPS >> op & 1)) {
      const char *what = op == DPS_OP_COUNT ? test : dps_coll_op_name (op);
      g_string_append_printf (w, "%s:%d: a table of %s, left out: the fit is of all-reduce, all-gather and "
                              "reduce-scatter\n", path, start + 1, what);
      g_string_append_printf (others, "%s%s", others->len ? ", " : "", what);
      start = hints.next_line;
      continue;
    }
    kept++;
    for (guint i = 0; i < one->points->len; i++)
      g_array_index (one->points, DpsCalPoint, i).op = op;
    g_array_append_vals (into->points, one->points->data, one->points->len);
    if (hints.wrong_rows)
      g_string_append_printf (w, "%s:%d: %d row%s with a non-zero #wrong count (the first here): left out of the fit\n",
                              path, hints.wrong_line, hints.wrong_rows, hints.wrong_rows == 1 ? "" : "s");
    if (hints.zero_rows)
      g_string_append_printf (w, "%s:%d: %d row%s of size 0 or time 0 (the first here): nothing timed, left out of the fit\n",
                              path, hints.zero_line, hints.zero_rows, hints.zero_rows == 1 ? "" : "s");
    if (hints.repeat_rows)
      g_string_append_printf (w, "%s:%d: repeats the row of line %d (%d repeated row%s): left out of the fit\n", path,
                              hints.repeat_line, hints.repeat_of, hints.repeat_rows, hints.repeat_rows == 1 ? "" : "s");
    if (hints.footer_missing)
      g_string_append_printf (w, "%s:%d: no '# Avg bus bandwidth' footer after the last row: the log may be cut "
                              "short (its rows are whole: taken)\n", path, hints.footer_missing);
    start = hints.next_line;
  } while (start > 0);
  if (!kept)
    return dps_set_error_at (error, path, 0, "no all-reduce, all-gather or reduce-scatter table (%s here): import "
                             "all_reduce_perf's, all_gather_perf's or reduce_scatter_perf's output",
                             others->str);
  if (w->len && warning) {
    g_string_truncate (w, w->len - 1);
    *warning = g_strdup (w->str);
  }
  g_autofree char *src = into->source ? g_strdup_printf ("%s %s", into->source, path) : g_strdup (path);
  g_free (into->source);
  into->source = g_steal_pointer (&src);
  return TRUE;
}

gboolean
dps_nccl_log_load (const char *path, DpsCalData *into, GError **error)
{
  return dps_nccl_log_load_warn (path, into, NULL, NULL, error);
}
