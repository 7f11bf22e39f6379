/* Unit tests of nccl-tests import (calibrate/nccl-log.c): the layouts
 * real logs come in, their rank and node counts, what is refused and
 * what only warned about, and that the fit reads the imported points. */
#include "calibrate/fit.h"
#include "calibrate/nccl-log.h"
#include "calibrate/reference.h"
#include "sim/coll-types.h"
#include "sim/coll-predict.h"
#include "sim/base/error.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "test-util.h"

static char *
data_path (const char *name)
{
  return g_build_filename (DPS_TEST_DATA, name, NULL);
}

/* The text of a file of tests/data. */
static char *
data_text (const char *name)
{
  g_autofree char *path = data_path (name);
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* nccl-tests logs: the current layout (root column, #wrong) and the older
 * one (no root, an error column, MPI "[0]" prefixes).  Rank and node
 * counts come from the "Rank ... on HOST" lines; times are microseconds. */
static void
test_import (void)
{
  g_autoptr (GError) e = NULL;
  g_autofree char *p1 = data_path ("nccl-tests-1x8.log"), *p2 = data_path ("nccl-tests-2x8-old.log");
  g_autoptr (DpsCalData) d = dps_cal_data_new ("nccl-tests");
  g_assert_true (dps_nccl_log_load (p1, d, &e));
  g_assert_no_error (e);
  g_assert_cmpint (d->points->len, ==, 14);
  DpsCalPoint *first = &g_array_index (d->points, DpsCalPoint, 0);
  g_assert_cmpint (first->ranks, ==, 8);
  g_assert_cmpint (first->nodes, ==, 1);
  g_assert_cmpfloat (first->bytes, ==, 8);
  g_assert_cmpint (first->wrong, ==, 0);
  /* the log's 70.00 us for 8 bytes: 2 x 7 x 5 us (+ a negligible 0.0000 us of bandwidth) */
  g_assert_cmpfloat (REL (first->time_s, 70e-6), <, 1e-3);
  g_assert_true (dps_nccl_log_load (p2, d, &e));
  DpsCalPoint *second = &g_array_index (d->points, DpsCalPoint, 14);
  g_assert_cmpint (second->ranks, ==, 16);
  g_assert_cmpint (second->nodes, ==, 2);
  /* fitting both logs recovers what generated them */
  DpsFit f;
  g_assert_true (dps_fit_levels (d, &f, &e));
  g_assert_cmpint (f.n_groups, ==, 2);
  g_assert_cmpfloat (REL (f.group[0].bw_Bps[0], 200e9), <, 0.01);
  g_assert_cmpfloat (REL (f.group[0].alpha_s[0], 5e-6), <, 0.01);
}

/* Without "Rank" lines, busbw / algbw = 2(n-1)/n gives n. */
static void
test_import_ratio (void)
{
  const char *log = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
                    "     1048576        262144     float     sum      -1   100.00   10.49   18.35      0   100.00   10.49   18.35      0\n"
                    "# Avg bus bandwidth    : 18.35\n";
  g_autoptr (DpsCalData) d = dps_cal_data_new ("nccl-tests");
  g_assert_true (dps_nccl_log_parse ("x.log", log, -1, d, NULL));
  g_assert_cmpint (g_array_index (d->points, DpsCalPoint, 0).ranks, ==, 8);
}

/* Tables as authors paste them: the out-of-place half only (8 columns
 * with root: size count type redop root time algbw busbw), a banner line
 * ("NCCL version ...") between the Rank lines and the table, a reference
 * file's '#%' facts (one names "algbw" and "busbw" without being the
 * header), and only the first of the Rank lines: the header's 16 ranks
 * on 2 hosts stand, the time is the out-of-place one. */
static void
test_import_pasted (void)
{
  const char *ref = "#% system: test (a busbw and algbw figure named in a note)\n"
                    "#% test: all_reduce_perf\n#% ranks: 16\n#% nodes: 2\n"
                    "#  Rank  0 Group  0 Pid 1 on host1 device  0 [0x00] NVIDIA H100\n"
                    "NCCL version 2.21.5+cuda12.4\n"
                    "#       size         count      type   redop    root     time   algbw   busbw\n"
                    "     1048576        262144     float     sum      -1   100.00   10.49   19.66\n"
                    "     2097152        524288     float     sum      -1   150.00   13.98   26.21\n";
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsReference) r = dps_reference_parse ("pasted.ref", ref, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpint (r->ranks, ==, 16);
  g_assert_cmpint (r->hosts, ==, 2);
  g_assert_cmpint (r->data->points->len, ==, 2);
  DpsCalPoint *p = &g_array_index (r->data->points, DpsCalPoint, 1);
  g_assert_cmpfloat (p->bytes, ==, 2097152);
  g_assert_cmpfloat (REL (p->time_s, 150e-6), <, 1e-12);
}

/* A log's tail as kubectl or a job's output gives it: no header lines,
 * NCCL_DEBUG=INFO's lines before, between and after the rows, the footer.
 * The rows of both halves (13 columns, a type and an operation of
 * nccl-tests') start the table; the NCCL lines are skipped wherever they
 * are; busbw / algbw = 1.75 gives 8 ranks.  A line of 13 fields whose type
 * is not nccl-tests' does not start a table. */
static void
test_import_tail (void)
{
  const char *tail = "worker-0:60:109 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1\n"
                     "     1048576        262144     float     sum      -1    32.18   32.59   57.02      0    31.90   32.87   57.52      0\n"
                     "worker-1:61:113 [1] NCCL INFO comm 0xbae114ae20b0 rank 5 nranks 8 cudaDev 1 - Init COMPLETE\n"
                     "     2097152        524288     float     sum      -1    35.89   58.43  102.26      0    35.50   59.07  103.38      0\n"
                     "worker-0:61:113 [1] NCCL INFO comm 0xbae114ae20b0 rank 1 nranks 8 cudaDev 1 - Destroy COMPLETE\n"
                     "# Out of bounds values : 0 OK\n"
                     "# Avg bus bandwidth    : 79.64\n";
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsCalData) d = dps_cal_data_new ("nccl-tests");
  g_assert_true (dps_nccl_log_parse ("tail.log", tail, -1, d, &e));
  g_assert_no_error (e);
  g_assert_cmpint (d->points->len, ==, 2);
  DpsCalPoint *p = &g_array_index (d->points, DpsCalPoint, 1);
  g_assert_cmpint (p->ranks, ==, 8);
  g_assert_cmpfloat (p->bytes, ==, 2097152);
  g_assert_cmpfloat (REL (p->time_s, 35.89e-6), <, 1e-12);
  const char *other = "1 2 apples sum -1 3 4 5 6 7 8 9 10\n# Avg bus bandwidth    : 5\n";
  g_autoptr (DpsCalData) d2 = dps_cal_data_new ("nccl-tests");
  g_assert_false (dps_nccl_log_parse ("other.log", other, -1, d2, &e));
  g_assert_nonnull (strstr (e->message, "no nccl-tests table"));
}

/* What launchers and collectors put before each line: Slurm's `srun
 * --label` ("0: "), an RFC 3339 time stamp (`kubectl logs --timestamps`),
 * MPI's "[1,0]<stdout>:", alone or stacked, give the very rows of the bare
 * log; its first Rank line's device comes out in the hints.  A row whose
 * first number has a colon after it ("1048576: ...") is not a label but a
 * broken row. */
static void
test_import_prefixes (void)
{
  g_autofree char *text = data_text ("nccl-tests-2x8-old.log");
  g_autoptr (DpsCalData) bare = dps_cal_data_new ("nccl-tests");
  DpsNcclLogHints h0 = { 0 };
  g_assert_true (dps_nccl_log_parse_hinted ("bare.log", text, -1, &h0, bare, NULL));
  g_assert_cmpstr (h0.device, ==, "Tesla V100-SXM2-32GB");
  g_free (h0.test);
  g_free (h0.device);
  static const char *const prefixes[] = { "0: ", "12:\t", "2024-05-01T12:00:00.123456789Z ",
                                          "2024-05-01 12:00:00,5+02:00 3: [1,0]<stdout>:", NULL };
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (int k = 0; prefixes[k]; k++) {
    GString *t = g_string_new (NULL);
    for (int i = 0; lines[i]; i++)
      if (lines[i][0])
        g_string_append_printf (t, "%s%s\n", prefixes[k], lines[i]);
    g_autoptr (DpsCalData) d = dps_cal_data_new ("nccl-tests");
    g_autoptr (GError) e = NULL;
    DpsNcclLogHints h = { 0 };
    gboolean ok = dps_nccl_log_parse_hinted ("prefixed.log", t->str, -1, &h, d, &e);
    g_string_free (t, TRUE);
    g_assert_no_error (e);
    g_assert_true (ok);
    g_assert_cmpstr (h.device, ==, "Tesla V100-SXM2-32GB");
    g_free (h.test);
    g_free (h.device);
    g_assert_cmpint (d->points->len, ==, bare->points->len);
    for (guint i = 0; i < d->points->len; i++) {
      DpsCalPoint *a = &g_array_index (d->points, DpsCalPoint, i), *b = &g_array_index (bare->points, DpsCalPoint, i);
      g_assert_cmpfloat (a->bytes, ==, b->bytes);
      g_assert_cmpfloat (a->time_s, ==, b->time_s);
      g_assert_cmpint (a->ranks, ==, 16);
      g_assert_cmpint (a->nodes, ==, 2);
    }
  }
  const char *colon = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
                      "1048576: 262144 float sum -1 100.00 10.49 18.35 0 100.00 10.49 18.35 0\n"
                      "# Avg bus bandwidth    : 18.35\n";
  g_autoptr (DpsCalData) d = dps_cal_data_new ("nccl-tests");
  g_autoptr (GError) e = NULL;
  g_assert_false (dps_nccl_log_parse ("colon.log", colon, -1, d, &e));
  g_assert_nonnull (strstr (e->message, "colon.log:2:"));
}

/* A log of several runs, as a script that runs all_reduce_perf and then
 * reduce_scatter_perf and all_gather_perf into one file leaves it: each
 * table is read on its own, with its own Rank lines (8 ranks on one host,
 * then 16 on two), and its operation told without a test line by
 * busbw / algbw against its ranks: 2(n-1)/n = 1.75 an all-reduce, (n-1)/n
 * = 0.9375 with redop sum a reduce-scatter, with redop none an all-gather.
 * Calibration keeps the all-reduce and says which tables it left out, by
 * their lines; a log of no all-reduce is refused. */
static void
test_import_runs (void)
{
  g_autofree char *ar = data_text ("nccl-tests-1x8.log");
  GString *ranks16 = g_string_new ("# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor)\n#\n# Using devices\n");
  for (int r = 0; r < 16; r++)
    g_string_append_printf (ranks16, "#  Rank %2d Group  0 Pid %d on node%02d device  %d [0x07] NVIDIA H100 80GB HBM3\n",
                            r, 100 + r, r / 8, r % 8);
  g_string_append (ranks16, "#\n#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n");
  g_autofree char *tail = g_string_free (ranks16, FALSE);
  g_autofree char *log = g_strconcat (ar, tail,
                                      "1048576 16384 float sum -1 100.00 10.49 9.83 0 100.00 10.49 9.83 0\n"
                                      "# Avg bus bandwidth : 9.83\n#\n", tail,
                                      "1048576 16384 float none -1 90.00 11.65 10.92 0 90.00 11.65 10.92 0\n"
                                      "# Avg bus bandwidth : 10.92\n", NULL);
  g_autofree char *dir = g_dir_make_tmp ("dpscale-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "runs.log", NULL);
  g_assert_true (g_file_set_contents (path, log, -1, NULL));
  g_autoptr (GError) e = NULL;
  g_autoptr (GPtrArray) t = dps_reference_load_all (path, NULL, &e);
  g_assert_no_error (e);
  g_assert_cmpint (t->len, ==, 3);
  const int op[3] = { DPS_OP_ALLREDUCE, DPS_OP_REDUCE_SCATTER, DPS_OP_ALLGATHER }, ranks[3] = { 8, 16, 16 };
  const int hosts[3] = { 1, 2, 2 }, rows[3] = { 14, 1, 1 };
  /* the 1x8 log's 33 lines, then a run of 16 ranks: 21 lines before its row, the row, footer and '#' */
  const int line[3] = { 1, 34, 58 };
  for (int i = 0; i < 3; i++) {
    const DpsReference *r = t->pdata[i];
    g_assert_cmpint (r->op, ==, op[i]);
    g_assert_cmpint (r->ranks, ==, ranks[i]);
    g_assert_cmpint (r->hosts, ==, hosts[i]);
    g_assert_cmpint (r->data->points->len, ==, rows[i]);
    g_assert_cmpint (r->line, ==, line[i]);
  }
  /* a fourth run that died before its table: left out, said; the three stand */
  g_autofree char *died = g_strconcat (log, "# nccl-tests version 2.17.6\n# nThread 1 nGpus 1\n", NULL);
  g_assert_true (g_file_set_contents (path, died, -1, NULL));
  g_autofree char *note = NULL;
  g_autoptr (GPtrArray) t4 = dps_reference_load_all (path, &note, &e);
  g_assert_no_error (e);
  g_assert_cmpint (t4->len, ==, 3);
  g_autofree char *want_note = g_strdup_printf ("%s:81: a run with no table after it: left out", path);
  g_assert_cmpstr (note, ==, want_note);
  g_autoptr (DpsCalData) d = dps_cal_data_new ("nccl-tests");
  g_autofree char *warning = NULL;
  g_assert_true (dps_nccl_log_load_warn (path, d, NULL, &warning, &e));
  /* calibration takes every table of all-reduce, all-gather and
   * reduce-scatter, each point marked with its operation */
  g_assert_cmpint (d->points->len, ==, 16);
  for (guint i = 0; i < d->points->len; i++)
    g_assert_cmpint (g_array_index (d->points, DpsCalPoint, i).op, ==,
                     i < 14 ? DPS_OP_ALLREDUCE : i == 14 ? DPS_OP_REDUCE_SCATTER : DPS_OP_ALLGATHER);
  g_assert_nonnull (strstr (warning, want_note));
  g_assert_null (strstr (warning, "a table of"));
  /* an all-gather's table alone is calibration data too */
  const char *gather = strstr (log, "# nThread 1 nGpus 1 minBytes 8 maxBytes 8");
  gather = strstr (gather + 1, "# nThread 1 nGpus 1 minBytes 8 maxBytes 8");
  g_assert_true (g_file_set_contents (path, gather, -1, NULL));
  g_autoptr (DpsCalData) d2 = dps_cal_data_new ("nccl-tests");
  g_assert_true (dps_nccl_log_load_warn (path, d2, NULL, NULL, &e));
  g_assert_no_error (e);
  g_assert_cmpint (d2->points->len, ==, 1);
  g_assert_cmpint (g_array_index (d2->points, DpsCalPoint, 0).op, ==, DPS_OP_ALLGATHER);
  /* a broadcast's (busbw = algbw on 16 ranks) is left out, and alone refused */
  g_autofree char *bcast = g_strconcat (tail, "1048576 262144 float sum 0 100.00 10.49 10.49 0 100.00 10.49 10.49 0\n"
                                        "# Avg bus bandwidth : 10.49\n", NULL);
  g_assert_true (g_file_set_contents (path, bcast, -1, NULL));
  g_autoptr (DpsCalData) d3 = dps_cal_data_new ("nccl-tests");
  g_assert_false (dps_nccl_log_load_warn (path, d3, NULL, NULL, &e));
  g_autofree char *want = g_strdup_printf ("%s: no all-reduce, all-gather or reduce-scatter table (broadcast here)",
                                           path);
  g_assert_nonnull (e);
  g_assert_nonnull (strstr (e->message, want));
  g_unlink (path);
  g_rmdir (dir);
  /* busbw / algbw = 1 on 8 ranks: a broadcast when read from a row of 5 GB/s,
   * but from one of 0.01 (printed 0.01 and 0.01: the ratio could be 0.3 to 3)
   * the redop decides; on 64 ranks 0.992 is as near (n-1)/n = 0.984 as 1:
   * the redop decides too */
  DpsNcclLogHints h = { .ratio = 1, .ratio_algbw = 5, .redop = "sum" };
  g_assert_cmpint (dps_nccl_log_op (&h, 8), ==, DPS_OP_BROADCAST);
  h.ratio_algbw = 0.01;
  g_assert_cmpint (dps_nccl_log_op (&h, 8), ==, DPS_OP_ALLREDUCE);
  h.ratio = 0.992;
  h.ratio_algbw = 5;
  g_assert_cmpint (dps_nccl_log_op (&h, 64), ==, DPS_OP_ALLREDUCE);
}

/* Truncated and malformed logs are refused with the file and line. */
static void
test_import_bad (void)
{
  static const struct { const char *file, *expect; } cases[] = {
    { "nccl-tests-truncated.log", "nccl-tests-truncated.log:30: expected 12 or 13 columns" },
    { "nccl-tests-malformed.log", "nccl-tests-malformed.log:21: not an nccl-tests result row" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree char *p = data_path (cases[i].file);
    g_autoptr (DpsCalData) d = dps_cal_data_new ("nccl-tests");
    g_autoptr (GError) e = NULL;
    if (dps_nccl_log_load (p, d, &e))
      g_test_fail_printf ("%s: loaded", cases[i].file);
    else if (!strstr (e->message, cases[i].expect))
      g_test_fail_printf ("'%s' lacks '%s'", e->message, cases[i].expect);
  }
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsCalData) d = dps_cal_data_new ("nccl-tests");
  g_assert_false (dps_nccl_log_parse ("empty.log", "", -1, d, &e));
  g_assert_nonnull (strstr (e->message, "no nccl-tests table"));
  g_clear_error (&e);
  /* a row of the out-of-place half alone under a header of both halves is
   * a cut row, refused */
  const char *cut = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
                    "8 2 float sum -1 10.0 0.00 0.00 0 10.0 0.00 0.00 0\n"
                    "16 4 float sum -1 10.0 0.00 0.00\n";
  g_assert_false (dps_nccl_log_parse ("cut.log", cut, -1, d, &e));
  g_assert_nonnull (strstr (e->message, "cut.log:3: expected 12 or 13 columns"));
}

/* A log whose rows are whole but whose footer is missing loads, with a
 * warning naming the file and the last row's line. */
static void
test_import_no_footer (void)
{
  g_autofree char *dir = g_dir_make_tmp ("dpscale-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "nofooter.log", NULL);
  const char *log = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
                    "1048576 262144 float sum -1 100.00 10.49 18.35 0 100.00 10.49 18.35 0\n"
                    "2097152 524288 float sum -1 150.00 13.98 24.47 0 150.00 13.98 24.47 0\n";
  g_assert_true (g_file_set_contents (path, log, -1, NULL));
  g_autoptr (DpsCalData) d = dps_cal_data_new ("nccl-tests");
  g_autoptr (GError) e = NULL;
  g_autofree char *warning = NULL;
  g_assert_true (dps_nccl_log_load_warn (path, d, NULL, &warning, &e));
  g_assert_no_error (e);
  g_assert_cmpint (d->points->len, ==, 2);
  g_assert_nonnull (warning);
  g_autofree char *want = g_strdup_printf ("%s:3: no '# Avg bus bandwidth' footer", path);
  g_assert_nonnull (strstr (warning, want));
  g_unlink (path);
  g_rmdir (dir);
}

/* A published reference whose paste holds only some of its Rank lines
 * (tests/reference/README.md: 2 of 16 here, as a thread pastes the first
 * 100 of 1024) imports at its header's counts, '#% ranks:' and '#%
 * nodes:', as `collective --compare` reads it: 16 ranks on 2 nodes, not
 * the 2 ranks of 1 host the Rank lines alone give; nodes times '#%
 * gpus_per_node:' where no ranks are given.  A count that is not one is
 * refused, naming the file and line. */
static void
test_import_header_counts (void)
{
  g_autofree char *dir = g_dir_make_tmp ("dpscale-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "partial.ref", NULL);
  const char *rows = "#  Rank  0 Group  0 Pid  1 on   hostA device  0 [0x07] NVIDIA H100 80GB HBM3\n"
                     "#  Rank  1 Group  0 Pid  2 on   hostA device  1 [0x08] NVIDIA H100 80GB HBM3\n"
                     "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
                     "1048576 262144 float sum -1 100.00 10.49 19.66 0 100.00 10.49 19.66 0\n"
                     "# Avg bus bandwidth : 19.66\n";
  const char *heads[] = { "#% ranks: 16\n#% nodes: 2\n", "#% nodes: 2\n#% gpus_per_node: 8\n" };
  for (gsize i = 0; i < G_N_ELEMENTS (heads); i++) {
    g_autofree char *text = g_strconcat ("#% system: test\n", heads[i], rows, NULL);
    g_assert_true (g_file_set_contents (path, text, -1, NULL));
    g_autoptr (DpsCalData) d = dps_cal_data_new ("nccl-tests");
    g_autoptr (GError) e = NULL;
    g_assert_true (dps_nccl_log_load_warn (path, d, NULL, NULL, &e));
    g_assert_no_error (e);
    g_assert_cmpint (d->points->len, ==, 1);
    g_assert_cmpint (g_array_index (d->points, DpsCalPoint, 0).ranks, ==, 16);
    g_assert_cmpint (g_array_index (d->points, DpsCalPoint, 0).nodes, ==, 2);
    g_autoptr (DpsReference) r = dps_reference_load (path, &e);
    g_assert_no_error (e);
    g_assert_cmpint (r->ranks, ==, 16);
    g_assert_cmpint (r->hosts, ==, 2);
  }
  g_autofree char *bad = g_strconcat ("#% system: test\n#% ranks: many\n", rows, NULL);
  g_assert_true (g_file_set_contents (path, bad, -1, NULL));
  g_autoptr (DpsCalData) d = dps_cal_data_new ("nccl-tests");
  g_autoptr (GError) e = NULL;
  g_assert_false (dps_nccl_log_load_warn (path, d, NULL, NULL, &e));
  g_autofree char *want = g_strdup_printf ("%s:2: '#%% ranks: many' is not a count", path);
  g_assert_nonnull (e);
  g_assert_nonnull (strstr (e->message, want));
  g_unlink (path);
  g_rmdir (dir);
}

/* A reference's nccl_env narrows what NCCL may choose as NCCL does:
 * NCCL_COLLNET_ENABLE=1 adds CollNet before NCCL_ALGO narrows (whatever
 * the order of the words), NCCL_NVLS_ENABLE=0 drops NVLS, and NCCL_ALGO's
 * CollNetDirect and CollNetChain name dpscale's one collnet;
 * NCCL_PAT_ENABLE=0 drops PAT, which NCCL_ALGO names PAT. */
static void
test_nccl_env (void)
{
  const guint T = 1u << DPS_ALGO_TREE, R = 1u << DPS_ALGO_RING, N = 1u << DPS_ALGO_NVLS, C = 1u << DPS_ALGO_COLLNET;
  const guint P = 1u << DPS_ALGO_PAT;
  g_assert_cmpuint (DPS_NCCL_ALGOS, ==, T | R | N | P);
  const struct { const char *env; guint algos; } cases[] = {
    { "none stated", T | R | N | P },
    { "NCCL_COLLNET_ENABLE=1", T | R | N | C | P },
    { "NCCL_ALGO=^NVLS NCCL_COLLNET_ENABLE=1", T | R | C | P },
    { "NCCL_COLLNET_ENABLE=1 NCCL_ALGO=Ring", R },
    { "NCCL_COLLNET_ENABLE=0", T | R | N | P },
    { "NCCL_ALGO=CollNetChain,Ring", R | C },
    { "NCCL_ALGO=collnetdirect NCCL_NVLS_ENABLE=0", C },
    { "NCCL_NVLS_ENABLE=0, NCCL_COLLNET_ENABLE=1", T | R | C | P },
    { "NCCL_PAT_ENABLE=0", T | R | N },
    { "NCCL_ALGO=PAT,Ring", R | P },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    guint a = DPS_NCCL_ALGOS, p = 7;
    g_autoptr (GError) e = NULL;
    g_assert_true (dps_nccl_env_masks (cases[i].env, &a, &p, &e));
    g_assert_no_error (e);
    if (a != cases[i].algos)
      g_test_fail_printf ("nccl_env '%s': algorithms 0x%x, want 0x%x", cases[i].env, a, cases[i].algos);
  }
}

/* PAT came with NCCL 2.23: a table of an older NCCL (its header's nccl,
 * the log's "NCCL version" line or nccl-tests' nccl-library code) leaves
 * it out of what NCCL may choose; a newer or unstated one keeps it. */
static void
test_nccl_version (void)
{
  const char *ranks = "#  Rank  0 Group  0 Pid 1 on host1 device  0 [0x00] NVIDIA H100\n"
                      "#  Rank  1 Group  0 Pid 1 on host2 device  0 [0x00] NVIDIA H100\n";
  const char *table = "\n#       size         count      type   redop    root     time   algbw   busbw\n"
                      "     1048576        131072     float    none      -1   100.00   10.49    5.24\n";
  const struct { const char *head, *line; gboolean pat; } cases[] = {
    { "#% nccl: 2.18.1+cuda12.2", "", FALSE },
    { "#% nccl: 2.23.4", "", TRUE },
    { "#% nccl: unknown", "NCCL version 2.21.5+cuda12.4", FALSE },
    { "", "NCCL version 2.26.5+cuda12.9", TRUE },
    { "", "# nccl-tests version 2.17.6 nccl-headers=22203 nccl-library=22203", FALSE },
    { "", "# nccl-tests version 2.17.6 nccl-headers=22809 nccl-library=22809", TRUE },
    { "", "", TRUE },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree char *text = g_strconcat ("#% test: all_gather_perf\n", cases[i].head, "\n", ranks, cases[i].line,
                                         table, NULL);
    g_autoptr (GError) e = NULL;
    g_autoptr (DpsReference) r = dps_reference_parse ("v.ref", text, -1, &e);
    g_assert_no_error (e);
    g_assert_cmpint (r->ranks, ==, 2);
    g_assert_cmpint (r->hosts, ==, 2);
    if (!!(r->algo_mask & (1u << DPS_ALGO_PAT)) != cases[i].pat)
      g_test_fail_printf ("'%s' '%s': PAT %s", cases[i].head, cases[i].line, cases[i].pat ? "left out" : "kept");
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/calibrate/import/variants", test_import);
  g_test_add_func ("/calibrate/import/ratio", test_import_ratio);
  g_test_add_func ("/calibrate/import/pasted", test_import_pasted);
  g_test_add_func ("/calibrate/import/tail", test_import_tail);
  g_test_add_func ("/calibrate/import/prefixes", test_import_prefixes);
  g_test_add_func ("/calibrate/import/runs", test_import_runs);
  g_test_add_func ("/calibrate/import/bad", test_import_bad);
  g_test_add_func ("/calibrate/import/no-footer", test_import_no_footer);
  g_test_add_func ("/calibrate/import/header-counts", test_import_header_counts);
  g_test_add_func ("/calibrate/import/nccl-env", test_nccl_env);
  g_test_add_func ("/calibrate/import/nccl-version", test_nccl_version);
  return g_test_run ();
}
