/* sweep-plot.c — see sweep-plot.h.
 *
 * PREFIX.dat holds the CSV's rows (columns unchanged, header dropped) in
 * blocks, one per series in the order each first appears, its rows by GPU
 * count, two blank lines apart: gnuplot's "index i" is series i + 1.  Each
 * block opens with a comment "# series N: NAME".  The plot is drawn from
 * it, so what the picture groups can be checked in the file. */
#include "sim/app/sweep-plot.h"
#include "sim/app/cli-util.h"
#include "sim/base/plot.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

#include <glib/gstdio.h>
#include <string.h>

/* The columns that tell series apart, with how the legend names a value. */
static const struct { const char *column, *before, *after; } series_columns[] = {
  { "model", "", "" }, { "topology", "", "" }, { "strategy", "", "" }, { "tp", "tp ", "" }, { "pp", "pp ", "" },
  { "bucket_cap_MiB", "cap ", " MiB" },
  { "batch_per_replica", "batch ", "" }, { "grad_accum", "accum ", "" },
};

static void
gstring_free (gpointer s)
{
  g_string_free (s, TRUE);
}

/* Orders rows by their GPU count (column *data). */
static gint
by_gpus (gconstpointer a, gconstpointer b, gpointer data)
{
  int c = *(const int *) data;
  double x = g_ascii_strtod ((*(char *const *const *) a)[c], NULL);
  double y = g_ascii_strtod ((*(char *const *const *) b)[c], NULL);
  return (x > y) - (x < y);
}

/* Splits CSV text into its header's fields and its rows' fields (names
 * hold no commas: dpscale writes them without).  FALSE with error on a
 * file with no rows or a row whose width is not the header's. */
static gboolean
split_rows (const char *path, const char *text, GStrv *header, GPtrArray *rows, GError **error)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  int width = 0;
  for (int i = 0; lines[i]; i++) {
    if (!lines[i][0])
      continue;
    char **f = g_strsplit (lines[i], ",", -1);
    if (!*header) {
      *header = f;
      width = (int) g_strv_length (f);
      continue;
    }
    if ((int) g_strv_length (f) != width) {
      g_strfreev (f);
      return dps_set_error_at (error, path, i + 1, "%d fields, the header has %d", (int) g_strv_length (f), width);
    }
    g_ptr_array_add (rows, f);
  }
  if (rows->len == 0)
    return dps_set_error_at (error, path, 0, "no rows to plot");
  return TRUE;
}

/* Reads the sweep CSV at csv_path, writes PREFIX.dat (the series' blocks)
 * and PREFIX.png and PREFIX.svg drawn from it with plots/sweep.gp under
 * title; appends ", FILE" to wrote for each file written.  The series'
 * names (the CSV's cells) and the title reach gnuplot as quoted text
 * (dps_plot_literal).  The three go together: FALSE with error on an
 * unreadable CSV or a failed gnuplot, and none of them is left. */
gboolean
dps_sweep_plot (const char *csv_path, const char *prefix, const char *title, GString *wrote, GError **error)
{
  g_autofree char *text = dps_read_file (csv_path, "CSV file", NULL, error);
  if (!text)
    return FALSE;
  g_auto (GStrv) header = NULL;
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  if (!split_rows (csv_path, text, &header, rows, error))
    return FALSE;
  /* each series' line runs left to right whatever order --gpus gave (a
   * stable sort: series keep the order they first appear in) */
  for (int j = 0; header[j]; j++)
    if (g_str_equal (header[j], "gpus"))
      g_ptr_array_sort_with_data (rows, by_gpus, &j);
  /* the series columns present and varying across the rows */
  int cols[G_N_ELEMENTS (series_columns)], labels[G_N_ELEMENTS (series_columns)], n_cols = 0;
  for (gsize k = 0; k < G_N_ELEMENTS (series_columns); k++)
    for (int j = 0; header[j]; j++)
      if (g_str_equal (header[j], series_columns[k].column)) {
        const char *first = ((char **) rows->pdata[0])[j];
        for (guint r = 1; r < rows->len; r++)
          if (!g_str_equal (((char **) rows->pdata[r])[j], first)) {
            cols[n_cols] = j, labels[n_cols++] = (int) k;
            break;
          }
      }
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) blocks = g_ptr_array_new_with_free_func (gstring_free);
  for (guint r = 0; r < rows->len; r++) {
    char **f = rows->pdata[r];
    g_autoptr (GString) name = g_string_new (NULL);
    for (int c = 0; c < n_cols; c++) {
      if (c)
        g_string_append (name, ", ");
      g_string_append_printf (name, "%s%s%s", series_columns[labels[c]].before, f[cols[c]],
                              series_columns[labels[c]].after);
    }
    if (!n_cols)
      g_string_append (name, "predicted throughput");
    guint s = 0;
    while (s < names->len && !g_str_equal (names->pdata[s], name->str))
      s++;
    if (s == names->len) {
      g_ptr_array_add (names, g_strdup (name->str));
      g_ptr_array_add (blocks, g_string_new (NULL));
    }
    g_autofree char *line = g_strjoinv (",", f);
    g_string_append_printf (blocks->pdata[s], "%s\n", line);
  }
  g_autoptr (GString) dat = g_string_new ("# dpscale sweep plot data: the rows of ");
  g_string_append_printf (dat, "%s, one block per series (gnuplot index = series - 1)\n# columns: ", csv_path);
  g_autofree char *cols_line = g_strjoinv (",", header);
  g_string_append_printf (dat, "%s\n", cols_line);
  g_autoptr (GString) vars = g_string_new (NULL);
  g_string_append_printf (vars, "nseries=%u; array series[%u] = [", names->len, names->len);
  for (guint s = 0; s < names->len; s++) {
    g_string_append_printf (dat, "%s# series %u: %s\n%s", s ? "\n\n" : "", s + 1, (char *) names->pdata[s],
                            ((GString *) blocks->pdata[s])->str);
    g_autofree char *literal = dps_plot_literal (names->pdata[s]);   /* text, never code */
    g_string_append_printf (vars, "%s%s", s ? ", " : "", literal);
  }
  g_string_append (vars, "]");
  g_autofree char *dat_path = g_strconcat (prefix, ".dat", NULL);
  g_autofree char *png = g_strconcat (prefix, ".png", NULL);
  g_autofree char *svg = g_strconcat (prefix, ".svg", NULL);
  if (!dps_cli_emit (dat_path, dat, error))
    return FALSE;
  if (!dps_plot_render ("sweep.gp", dat_path, png, title, vars->str, error)
      || !dps_plot_render ("sweep.gp", dat_path, svg, title, vars->str, error)) {
    g_unlink (dat_path);
    g_unlink (png);
    return FALSE;
  }
  g_string_append_printf (wrote, ", %s, %s, %s", dat_path, png, svg);
  return TRUE;
}
