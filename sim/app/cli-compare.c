/* cli-compare.c — `dpscale collective --compare FILE...`: the model beside
 * each measured row of nccl-tests logs or published references, the error
 * per row, per file and over all files (see compare.h), as a table or CSV,
 * and a picture of predicted against measured bus bandwidth. */
#include "sim/app/cli.h"
#include "sim/app/cli-util.h"
#include "sim/app/compare.h"
#include "sim/base/error.h"
#include "sim/base/plot.h"
#include "sim/base/stats.h"
#include "sim/base/file.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char *
size_text (double b)
{
  static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
  int u = 0;
  while (b >= 1024 && u < 4 && fmod (b, 1024) == 0) {
    b /= 1024;
    u++;
  }
  return g_strdup_printf ("%.0f %s", b, units[u]);
}

static void
table_file (GString *o, const DpsCompareResult *r, const char *env)
{
  g_string_append_printf (o, "# %s: %s, %s on %d ranks (%d host%s) -> %d node%s of topology %s%s%s%s\n",
                          r->path, r->system, dps_coll_op_name (r->op), r->ranks, r->hosts, r->hosts > 1 ? "s" : "",
                          r->nodes, r->nodes > 1 ? "s" : "", r->topology, env ? ", " : "", env ? env : "",
                          r->degraded ? " (source: degraded system)" : "");
  g_string_append_printf (o, "# %12s %11s %11s %9s %9s  %-7s %-6s %8s\n", "size", "measured", "model", "measured",
                          "model", "algo", "proto", "error");
  g_string_append_printf (o, "# %12s %11s %11s %9s %9s  %-7s %-6s %8s\n", "(B)", "(us)", "(us)", "busbw", "busbw", "",
                          "", "(busbw)");
  for (guint i = 0; i < r->rows->len; i++) {
    const DpsCompareRow *w = &g_array_index (r->rows, DpsCompareRow, i);
    g_string_append_printf (o, "  %12.0f %11.2f %11.2f %9.2f %9.2f  %-7s %-6s %+7.1f%%\n", w->bytes, w->measured_s * 1e6,
                            w->predicted_s * 1e6, w->measured_busbw_GBps, w->predicted_busbw_GBps,
                            dps_algo_name (w->algo), dps_proto_name (w->proto), 100 * w->error);
  }
  double worst, wb;
  double med = dps_compare_median_abs (r, DPS_COMPARE_MIN_BYTES, &worst, &wb);
  double all = dps_compare_median_abs (r, 0, NULL, NULL);
  if (med >= 0) {
    g_autofree char *ws = size_text (wb);
    g_string_append_printf (o, "# median |error| %.1f%% over rows of 64 KiB and more (all rows %.1f%%); worst %+.1f%% at %s\n\n",
                            100 * med, 100 * all, 100 * worst, ws);
  } else
    g_string_append_printf (o, "# median |error| %.1f%% (no row of 64 KiB or more)\n\n", 100 * all);
}

static void
csv_rows (GString *o, const DpsCompareResult *r)
{
  g_autofree char *file = g_path_get_basename (r->path);
  for (guint i = 0; i < r->rows->len; i++) {
    const DpsCompareRow *w = &g_array_index (r->rows, DpsCompareRow, i);
    g_string_append_printf (o, "%s,%s,%s,%d,%d,%d,%.0f,%.4f,%.4f,%.4f,%.4f,%s,%s,%.4f\n", file, r->system,
                            dps_coll_op_name (r->op), r->ranks, r->hosts, r->nodes, w->bytes, w->measured_s * 1e6,
                            w->predicted_s * 1e6, w->measured_busbw_GBps, w->predicted_busbw_GBps,
                            dps_algo_name (w->algo), dps_proto_name (w->proto), 100 * w->error);
  }
}

/* Over several tables: all rows of 64 KiB and more, and each system's
 * median over them, then its median and worst over rows of 256 MiB and
 * more (a system is its "#% system" id: several scales count as one). */
static void
table_suite (GString *o, const DpsCompareResult *res, guint n)
{
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GHashTable) sys = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) g_array_unref);
  g_autoptr (GHashTable) big = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) g_array_unref);
  GPtrArray *order = g_ptr_array_new ();
  int width = 28;
  for (guint f = 0; f < n; f++)
    for (guint i = 0; i < res[f].rows->len; i++) {
      const DpsCompareRow *w = &g_array_index (res[f].rows, DpsCompareRow, i);
      if (w->bytes < DPS_COMPARE_MIN_BYTES)
        continue;
      double a = fabs (w->error);
      g_array_append_val (all, a);
      GArray *s = g_hash_table_lookup (sys, res[f].system);
      if (!s) {
        s = g_array_new (FALSE, FALSE, sizeof (double));
        g_hash_table_insert (sys, res[f].system, s);
        g_ptr_array_add (order, res[f].system);
        width = MAX (width, (int) strlen (res[f].system));
      }
      g_array_append_val (s, a);
      if (w->bytes >= 256.0 * 1024 * 1024) {
        GArray *b = g_hash_table_lookup (big, res[f].system);
        if (!b)
          g_hash_table_insert (big, res[f].system, b = g_array_new (FALSE, FALSE, sizeof (double)));
        g_array_append_val (b, a);
      }
    }
  if (!all->len) {
    g_ptr_array_free (order, TRUE);
    return;
  }
  g_string_append_printf (o, "# suite: %u table%s, %u system%s, %u rows of 64 KiB and more: median |error| %.1f%%, "
                          "90th percentile %.1f%%\n", n, n > 1 ? "s" : "", order->len, order->len > 1 ? "s" : "",
                          all->len, 100 * dps_quantile ((double *) all->data, all->len, 0.5),
                          100 * dps_quantile ((double *) all->data, all->len, 0.9));
  g_string_append_printf (o, "# %-*s %8s %13s %12s\n", width, "system", "median", "median>=256M", "worst>=256M");
  for (guint i = 0; i < order->len; i++) {
    const char *name = order->pdata[i];
    GArray *s = g_hash_table_lookup (sys, name);
    GArray *b = g_hash_table_lookup (big, name);
    g_autofree char *bm = NULL, *bw = NULL;
    if (b) {
      /* dps_quantile sorts them: the worst is then the last */
      bm = g_strdup_printf ("%.1f%%", 100 * dps_quantile ((double *) b->data, b->len, 0.5));
      bw = g_strdup_printf ("%.1f%%", 100 * dps_quantile_sorted ((double *) b->data, b->len, 1));
    }
    g_string_append_printf (o, "  %-*s %7.1f%% %13s %12s\n", width, name,
                            100 * dps_quantile ((double *) s->data, s->len, 0.5), b ? bm : "-", b ? bw : "-");
  }
  g_ptr_array_free (order, TRUE);
}

static const char csv_header[] = "file,system,op,ranks,hosts,nodes,size_bytes,measured_us,predicted_us,"
                                 "measured_busbw_GBps,predicted_busbw_GBps,algo,proto,error_pct\n";

static gint
cmp_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Writes the picture: busbw by size for one file, predicted against
 * measured over all rows for several. */
static gboolean
plot (const char *out, const DpsCompareResult *res, guint n, GError **error)
{
  g_autoptr (GString) csv = g_string_new (csv_header);
  for (guint f = 0; f < n; f++)
    csv_rows (csv, &res[f]);
  g_autofree char *tmpl = g_build_filename (g_get_tmp_dir (), "dpscale-compare-XXXXXX.csv", NULL);
  int fd = g_mkstemp (tmpl);
  if (fd < 0 || write (fd, csv->str, csv->len) != (gssize) csv->len) {
    if (fd >= 0) {
      close (fd);
      g_unlink (tmpl);
    }
    g_set_error (error, DPS_ERROR, DPS_ERROR_IO, "--plot: cannot write a temporary data file in %s", g_get_tmp_dir ());
    return FALSE;
  }
  close (fd);
  g_autofree char *title = n == 1 ? g_strdup_printf ("%s: model against measured (%s, %d GPUs)", res[0].system,
                                                     dps_coll_op_name (res[0].op), res[0].ranks)
                                  : g_strdup_printf ("collective model against %u nccl-tests tables", n);
  /* the systems, a series each in name order, as quoted text (a reference's
   * "#% system:" line is a file's text, never gnuplot code) */
  g_autoptr (GPtrArray) systems = g_ptr_array_new ();
  for (guint f = 0; f < n; f++) {
    gboolean seen = FALSE;
    for (guint i = 0; i < systems->len && !seen; i++)
      seen = g_str_equal (systems->pdata[i], res[f].system);
    if (!seen)
      g_ptr_array_add (systems, res[f].system);
  }
  g_ptr_array_sort (systems, cmp_names);
  g_autoptr (GString) vars = g_string_new (NULL);
  g_string_append_printf (vars, "nsystems=%u; array systems[%u] = [", systems->len, systems->len);
  for (guint i = 0; i < systems->len; i++) {
    g_autofree char *literal = dps_plot_literal (systems->pdata[i]);
    g_string_append_printf (vars, "%s%s", i ? ", " : "", literal);
  }
  g_string_append (vars, "]");
  gboolean ok = dps_plot_render (n == 1 ? "compare-sizes.gp" : "compare-suite.gp", tmpl, out, title,
                                 n == 1 ? NULL : vars->str, error);
  g_unlink (tmpl);
  return ok;
}

/* The --compare mode of `dpscale collective`: files are the logs or
 * references; topology, profile and mode as the command's flags. */
int
dps_cmd_collective_compare (char **files, const char *topology, const DpsProfile *profile, DpsNetMode mode,
                            DpsFormat format, const char *output, const char *plot_path)
{
  GError *error = NULL;
  g_autoptr (GArray) all = g_array_new (FALSE, TRUE, sizeof (DpsCompareResult));
  g_autoptr (GString) o = g_string_new (format == DPS_FORMAT_CSV ? csv_header : NULL);
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);   /* said unless an error is */
  for (guint f = 0; files[f] && !error; f++)
    for (guint k = 0; k < f && !error; k++)
      if (dps_same_file (files[k], files[f])) {   /* its rows would count twice */
        if (g_str_equal (files[k], files[f]))
          g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--compare: %s given twice", files[f]);
        else
          g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--compare: %s is %s again (given twice)", files[f], files[k]);
      }
  for (guint f = 0; files[f] && !error; f++) {
    char *died = NULL;
    g_autoptr (GPtrArray) tables = dps_reference_load_all (files[f], &died, &error);   /* a log may hold several runs */
    if (died)
      g_ptr_array_add (notes, died);
    for (guint t = 0; tables && t < tables->len && !error; t++) {
      const DpsReference *ref = tables->pdata[t];
      if (ref->op == DPS_OP_COUNT && tables->len > 1) {   /* alltoall_perf beside all_reduce_perf: said, left out */
        g_ptr_array_add (notes, g_strdup_printf ("%s:%d: %s, a test the model has no operation for: left out",
                                                 ref->path, ref->line, dps_reference_get (ref, "test")));
        continue;
      }
      DpsCompareResult r;
      if (!dps_compare_reference (ref, topology, profile, mode, &r, &error))
        break;
      if (r.note) {   /* once for a log of several tables */
        gboolean seen = FALSE;
        for (guint i = 0; i < notes->len && !seen; i++)
          seen = g_str_equal (notes->pdata[i], r.note);
        if (!seen)
          g_ptr_array_add (notes, g_strdup (r.note));
      }
      g_array_append_val (all, r);
      if (format == DPS_FORMAT_CSV)
        csv_rows (o, &r);
      else
        table_file (o, &r, dps_reference_get (ref, "nccl_env"));
    }
  }
  if (!error && !all->len)   /* every table a test the model has no operation for */
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "%s%s: no table of all_reduce_perf, all_gather_perf, "
                 "reduce_scatter_perf or broadcast_perf", files[0], files[1] ? " and the others" : "");
  for (guint i = 0; !error && i < notes->len; i++)
    dps_cli_note (notes->pdata[i]);
  DpsCompareResult *res = (DpsCompareResult *) (void *) all->data;
  guint n = all->len;
  if (!error && format != DPS_FORMAT_CSV && n > 1)
    table_suite (o, res, n);
  if (!error && plot_path)
    plot (plot_path, res, n, &error);
  if (!error)
    dps_cli_emit (output, o, &error);
  for (guint i = 0; i < n; i++)
    dps_compare_result_clear (&res[i]);
  return error ? dps_cli_fail ("collective", error) : 0;
}
