/* calib-plot.c — see calib-plot.h. */
#include "sim/app/calib-plot.h"
#include "sim/coll.h"
#include "sim/base/error.h"

#include <string.h>

char *
dps_calib_plot_series (const char *csv)
{
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  g_autoptr (GString) v = g_string_new ("groups=\"");
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (int i = 1; lines[0] && lines[i]; i++) {
    g_auto (GStrv) col = g_strsplit (lines[i], ",", -1);
    gint64 r;
    DpsCollOp op = DPS_OP_ALLREDUCE;
    if (!col[0] || !dps_parse_int (col[0], &r) || r < 1)
      continue;
    if (g_strv_length (col) >= 8 && !dps_coll_op_parse (g_strstrip (col[7]), &op))
      continue;
    char *key = g_strdup_printf ("%s/%" G_GINT64_FORMAT, dps_coll_op_name (op), r);
    if (!g_hash_table_add (seen, key))
      continue;
    g_string_append_printf (v, "%s%s", g_hash_table_size (seen) > 1 ? " " : "", key);
  }
  /* the column of the operation: 8, or none in a CSV written before it */
  g_auto (GStrv) head = g_strsplit (lines[0] ? lines[0] : "", ",", -1);
  g_string_append_printf (v, "\"; opcolumn=%d", g_strv_length (head) >= 8 ? 8 : 0);
  return g_string_free (g_steal_pointer (&v), FALSE);
}
