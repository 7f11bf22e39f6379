/* profile-measure.c — see profile-measure.h. */
#include "calibrate/profile-measure.h"
#include "sim/coll.h"
#include "sim/topo.h"

/* The group's name of a point: [measure.OP.RANKS.NODES]. */
static char *
group_name (const DpsCalPoint *pt)
{
  return g_strdup_printf ("measure.%s.%d.%d", dps_coll_op_name (pt->op), pt->ranks, pt->nodes);
}

/* The [measure.OP.R.N] group g: d's points of that operation, rank and
 * node count, in the order taken. */
static void
save_group (GKeyFile *k, const DpsCalData *d, const char *g)
{
  GArray *sz = g_array_new (FALSE, FALSE, sizeof (double)), *t = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *ti = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *wr = g_array_new (FALSE, FALSE, sizeof (int)), *ho = g_array_new (FALSE, FALSE, sizeof (int));
  GArray *es = g_array_new (FALSE, FALSE, sizeof (double)), *cvs = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *busy = g_array_new (FALSE, FALSE, sizeof (double));
  gboolean any_estimate = FALSE, any_cv = FALSE, any_busy = FALSE;
  int ranks = 0, nodes = 0;
  for (guint i = 0; i < d->points->len; i++) {
    const DpsCalPoint *pt = &g_array_index (d->points, DpsCalPoint, i);
    g_autofree char *pg = group_name (pt);
    if (!g_str_equal (pg, g))
      continue;
    ranks = pt->ranks;
    nodes = pt->nodes;
    double us = pt->time_s * 1e6, ius = pt->time_ip_s * 1e6;
    int h = pt->held_out;
    g_array_append_val (sz, pt->bytes);
    g_array_append_val (t, us);
    g_array_append_val (ti, ius);
    g_array_append_val (wr, pt->wrong);
    g_array_append_val (ho, h);
    double est = pt->estimate_s * 1e6;
    any_estimate |= est > 0;
    g_array_append_val (es, est);
    any_cv |= pt->cv > 0;
    g_array_append_val (cvs, pt->cv);
    double bus = pt->busy_time_s * 1e6;
    any_busy |= bus > 0;
    g_array_append_val (busy, bus);
  }
  g_key_file_set_integer (k, g, "ranks", ranks);
  g_key_file_set_integer (k, g, "nodes", nodes);
  g_key_file_set_double_list (k, g, "size_bytes", (double *) sz->data, sz->len);
  g_key_file_set_double_list (k, g, "time_us", (double *) t->data, t->len);
  g_key_file_set_double_list (k, g, "time_inplace_us", (double *) ti->data, ti->len);
  g_key_file_set_integer_list (k, g, "wrong", (int *) wr->data, wr->len);
  g_key_file_set_integer_list (k, g, "held_out", (int *) ho->data, ho->len);
  if (any_estimate)
    g_key_file_set_double_list (k, g, "nccl_estimate_us", (double *) es->data, es->len);
  if (any_cv)
    g_key_file_set_double_list (k, g, "cv", (double *) cvs->data, cvs->len);
  if (any_busy)
    g_key_file_set_double_list (k, g, "busy_us", (double *) busy->data, busy->len);
  g_array_free (busy, TRUE);
  g_array_free (es, TRUE);
  g_array_free (cvs, TRUE);
  g_array_free (sz, TRUE);
  g_array_free (t, TRUE);
  g_array_free (ti, TRUE);
  g_array_free (wr, TRUE);
  g_array_free (ho, TRUE);
}

/* See profile-measure.h. */
void
dps_profile_measures_save (const DpsCalData *d, GKeyFile *k)
{
  GHashTable *groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GPtrArray *order = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < d->points->len; i++) {
    const DpsCalPoint *pt = &g_array_index (d->points, DpsCalPoint, i);
    char *g = group_name (pt);
    if (!g_hash_table_contains (groups, g)) {
      g_hash_table_add (groups, g_strdup (g));
      g_ptr_array_add (order, g);
    } else
      g_free (g);
  }
  for (guint gi = 0; gi < order->len; gi++)
    save_group (k, d, order->pdata[gi]);
  g_ptr_array_unref (order);
  g_hash_table_unref (groups);
}

/* See profile-measure.h. */
gboolean
dps_profile_measure_load (const DpsKeyFile *kf, const char *g, DpsCalData *d, GError **error)
{
  static const char *const keys[] = { "ranks", "nodes", "size_bytes", "time_us", "time_inplace_us", "wrong",
                                       "held_out", "nccl_estimate_us", "cv", "busy_us", NULL };
  gint64 ranks, nodes;
  g_auto (GStrv) parts = g_strsplit (g, ".", 3);
  DpsCollOp op = DPS_OP_ALLREDUCE;
  if (!parts[1] || !dps_coll_op_parse (parts[1], &op) || !(DPS_CAL_OPS >> op & 1)) {
    dps_key_file_error (kf, g, NULL, error, "not a measured operation (allreduce, allgather, reducescatter)");
    return FALSE;
  }
  guint first = d->points->len;
  if (!dps_key_file_check_keys (kf, g, keys, error)
      || !dps_key_file_get_int (kf, g, "ranks", TRUE, 0, 1, DPS_TOPO_MAX_GPUS, &ranks, error)
      || !dps_key_file_get_int (kf, g, "nodes", TRUE, 0, 1, ranks, &nodes, error))
    return FALSE;
  gsize n[8];
  const char *names[] = { "size_bytes", "time_us", "time_inplace_us", "wrong", "held_out", "nccl_estimate_us", "cv",
                          "busy_us" };
  double *v[8] = { 0 };
  gboolean ok = TRUE;
  for (int i = 0; i < 8 && ok; i++) {
    v[i] = dps_key_file_get_doubles (kf, g, names[i], i < 2, &n[i], error);
    ok = v[i] != NULL;
    if (ok && i > 0 && n[i] && n[i] != n[0]) {
      dps_key_file_error (kf, g, names[i], error, "%zu entries, size_bytes has %zu", n[i], n[0]);
      ok = FALSE;
    }
  }
  for (gsize j = 0; ok && j < n[0]; j++) {
    if (v[0][j] < 0 || v[0][j] > 1e15 || v[1][j] <= 0 || v[1][j] > 1e12 || (n[3] && (v[3][j] < -1 || v[3][j] > 1e9))) {
      const char *key = v[0][j] < 0 || v[0][j] > 1e15 ? "size_bytes" : v[1][j] <= 0 || v[1][j] > 1e12 ? "time_us" : "wrong";
      dps_key_file_error (kf, g, key, error, "entry %zu is out of range", j + 1);
      ok = FALSE;
      break;
    }
    dps_cal_data_add (d, (int) ranks, (int) nodes, v[0][j], v[1][j] * 1e-6, n[2] ? v[2][j] * 1e-6 : 0,
                      n[3] ? (int) v[3][j] : -1);
    g_array_index (d->points, DpsCalPoint, d->points->len - 1).held_out = n[4] && v[4][j] != 0;
    g_array_index (d->points, DpsCalPoint, d->points->len - 1).estimate_s = n[5] ? v[5][j] * 1e-6 : 0;
    g_array_index (d->points, DpsCalPoint, d->points->len - 1).cv = n[6] ? CLAMP (v[6][j], 0, 10) : 0;
    g_array_index (d->points, DpsCalPoint, d->points->len - 1).busy_time_s = n[7] ? CLAMP (v[7][j], 0, 1e12) * 1e-6 : 0;
  }
  for (int i = 0; i < 8; i++)
    g_free (v[i]);
  for (guint j = first; j < d->points->len; j++)
    g_array_index (d->points, DpsCalPoint, j).op = op;
  return ok;
}
