/* fit-correction.c — a measured group's own shape on top of a model
 * (dps_fit_correction, fit.h). */
#include "calibrate/fit.h"

#include <math.h>

typedef struct {
  double bytes, log_factor;
  int    n;
} CorrPoint;

static gint
by_bytes (gconstpointer a, gconstpointer b)
{
  double x = ((const CorrPoint *) a)->bytes, y = ((const CorrPoint *) b)->bytes;
  return (x > y) - (x < y);
}

static gboolean
in_group (const DpsCalPoint *q, DpsCollOp op, int ranks, int nodes)
{
  return q->op == op && !q->held_out && q->ranks == ranks && MAX (q->nodes, 1) == MAX (nodes, 1) && q->time_s > 0;
}

void
dps_fit_correction (const DpsCalData *d, DpsCollOp op, int ranks, int nodes, double (*model) (double, void *),
                    void *data, DpsCollCorr *out)
{
  out->n = 0;
  g_autoptr (GArray) c = g_array_new (FALSE, FALSE, sizeof (CorrPoint));
  g_autoptr (GHashTable) sizes = g_hash_table_new (g_double_hash, g_double_equal);
  for (guint i = 0; i < d->points->len; i++) {
    const DpsCalPoint *q = &g_array_index (d->points, DpsCalPoint, i);
    if (!in_group (q, op, ranks, nodes) || !g_hash_table_add (sizes, (gpointer) &q->bytes))
      continue;
    CorrPoint cp = { q->bytes, 0, 0 };
    g_array_append_val (c, cp);
  }
  g_array_sort (c, by_bytes);
  int n = MIN ((int) c->len, DPS_COLL_MAX_CORR);
  g_autoptr (GHashTable) at = g_hash_table_new (g_double_hash, g_double_equal);   /* size -> its CorrPoint */
  for (int i = 0; i < n; i++)
    g_hash_table_insert (at, &g_array_index (c, CorrPoint, (guint) i).bytes, &g_array_index (c, CorrPoint, (guint) i));
  for (guint i = 0; i < d->points->len; i++) {
    const DpsCalPoint *q = &g_array_index (d->points, DpsCalPoint, i);
    CorrPoint *cp = in_group (q, op, ranks, nodes) ? g_hash_table_lookup (at, &q->bytes) : NULL;
    if (!cp)
      continue;
    double t = model (q->bytes, data);
    if (!(t > 0))
      return;
    cp->log_factor += log (q->time_s / t);
    cp->n++;
  }
  for (int i = 0; i < n; i++) {
    const CorrPoint *cp = &g_array_index (c, CorrPoint, (guint) i);
    out->bytes[i] = cp->bytes;
    out->factor[i] = exp (cp->log_factor / cp->n);
  }
  out->n = n;
}
