/* layout.c — see layout.h. */
#include "sim/layout.h"

const char *
dps_rank_order_name (DpsRankOrder o)
{
  return o == DPS_ORDER_TP_PP_DP ? "tp-pp-dp" : "tp-dp-pp";
}

gboolean
dps_rank_order_parse (const char *s, DpsRankOrder *out)
{
  for (int o = 0; o < DPS_ORDERS; o++)
    if (g_ascii_strcasecmp (s, dps_rank_order_name ((DpsRankOrder) o)) == 0) {
      *out = (DpsRankOrder) o;
      return TRUE;
    }
  return FALSE;
}

/* The ranks of group g (counting from 0; groups in the order of their
 * first ranks) of a kind, count of them, in member order (a pipeline stage
 * by stage) into r. */
static int
group_ranks (const DpsLayout *l, DpsGroupKind kind, int g, int *r)
{
  int n = 0;
  switch (kind) {
  case DPS_GROUP_TP:   /* one per (stage, replica), counted in the order of their first ranks */
    for (int t = 0; t < l->tp; t++)
      r[n++] = l->order == DPS_ORDER_TP_PP_DP ? dps_layout_rank (l, t, g % l->pp, g / l->pp)
                                              : dps_layout_rank (l, t, g / l->dp, g % l->dp);
    break;
  case DPS_GROUP_PP:   /* one per (tensor index, replica) */
    for (int s = 0; s < l->pp; s++)
      r[n++] = dps_layout_rank (l, g % l->tp, s, g / l->tp);
    break;
  case DPS_GROUP_DP:   /* one per (tensor index, stage) */
    for (int d = 0; d < l->dp; d++)
      r[n++] = dps_layout_rank (l, g % l->tp, g / l->tp, d);
    break;
  }
  return n;
}

static int
groups_of (const DpsLayout *l, DpsGroupKind kind)
{
  return kind == DPS_GROUP_TP ? l->pp * l->dp : kind == DPS_GROUP_PP ? l->tp * l->dp : l->tp * l->pp;
}

void
dps_layout_group_span (const DpsLayout *l, DpsGroupKind kind, int gpus_per_node, int *n_nodes, int *per_node,
                       gboolean *p2p_across)
{
  int k = MAX (gpus_per_node, 1);
  g_autofree int *r = g_new (int, MAX (MAX (l->tp, l->pp), l->dp));
  int n = group_ranks (l, kind, 0, r);
  g_autoptr (GHashTable) nodes = g_hash_table_new (NULL, NULL);
  int most = 0;
  for (int i = 0; i < n; i++) {
    int c = GPOINTER_TO_INT (g_hash_table_lookup (nodes, GINT_TO_POINTER (r[i] / k + 1))) + 1;
    g_hash_table_insert (nodes, GINT_TO_POINTER (r[i] / k + 1), GINT_TO_POINTER (c));
    most = MAX (most, c);
  }
  *n_nodes = (int) g_hash_table_size (nodes);
  *per_node = most;
  if (p2p_across) {
    *p2p_across = FALSE;
    for (int i = 0; i + 1 < n; i++)
      *p2p_across |= r[i] / k != r[i + 1] / k;
  }
}

/* Whether the ranks r[0..n) all sit on one node of k GPUs. */
static gboolean
inside (const int *r, int n, int k)
{
  for (int i = 1; i < n; i++)
    if (r[i] / k != r[0] / k)
      return FALSE;
  return TRUE;
}

/* "0-7" for consecutive GPUs, else "0, 8, 16" (up to 6, then "... last"). */
static void
list (GString *out, const int *r, int n)
{
  gboolean run = n > 2;
  for (int i = 1; i < n; i++)
    run &= r[i] == r[i - 1] + 1;
  if (run) {
    g_string_append_printf (out, "%d-%d", r[0], r[n - 1]);
    return;
  }
  for (int i = 0; i < n && i < 6; i++)
    g_string_append_printf (out, "%s%d", i ? ", " : "", r[i]);
  if (n > 6)
    g_string_append_printf (out, ", ... %d", r[n - 1]);
}

/* The groups of one kind: how many, of how many GPUs, which stay inside a
 * node, the first `shown` listed. */
static void
kind (GString *out, const DpsLayout *l, DpsGroupKind kind, const char *name, int k, int shown)
{
  int n = groups_of (l, kind), inside_n = 0, count = 0;
  g_autofree int *r = g_new (int, MAX (MAX (l->tp, l->pp), l->dp));
  for (int g = 0; g < n; g++) {
    count = group_ranks (l, kind, g, r);
    inside_n += inside (r, count, k);
  }
  g_string_append_printf (out, "  %-24s %d group%s of %d GPU%s, %s\n", name, n, n == 1 ? "" : "s", count,
                          count == 1 ? "" : "s",
                          inside_n == n ? "each inside one node" : inside_n == 0 ? "each across nodes"
                                                                                 : "some across nodes");
  for (int g = 0; g < n && g < shown; g++) {
    group_ranks (l, kind, g, r);
    g_string_append (out, "    ");
    list (out, r, count);
    g_string_append_printf (out, "%s\n", inside (r, count, k) ? "" : "  (across nodes)");
  }
  if (n > shown)
    g_string_append_printf (out, "    ... %d more\n", n - shown);
}

void
dps_layout_describe (GString *out, const DpsLayout *l, int gpus_per_node, int shown)
{
  int k = MAX (gpus_per_node, 1), n = l->tp * l->pp * l->dp;
  g_string_append_printf (out, "layout         tp %d x pp %d x dp %d = %d GPUs (ranks in order %s: tensor parallel "
                          "innermost, %s)\n", l->tp, l->pp, l->dp, n, dps_rank_order_name (l->order),
                          l->order == DPS_ORDER_TP_PP_DP ? "then the pipeline, data parallel outermost"
                                                         : "then data parallel, the pipeline outermost; Megatron's");
  if (l->tp > 1)
    kind (out, l, DPS_GROUP_TP, "tensor-parallel groups", k, shown);
  if (l->pp > 1) {
    kind (out, l, DPS_GROUP_PP, "pipelines", k, shown);   /* GPUs stage by stage */
    int nn, per;
    gboolean cross;
    dps_layout_group_span (l, DPS_GROUP_PP, k, &nn, &per, &cross);
    g_string_append_printf (out, "    a send between neighbouring stages %s\n",
                            cross ? "crosses the network where a stage ends a node" : "stays inside a node");
  }
  if (l->dp > 1)
    kind (out, l, DPS_GROUP_DP, "data-parallel groups", k, shown);
  if (l->tp > k)
    g_string_append_printf (out, "note: tensor parallel %d spans nodes of %d GPUs: its collectives, on the critical "
                            "path of every block, cross the network\n", l->tp, k);
  else if (k % l->tp != 0)
    g_string_append_printf (out, "note: tensor parallel %d does not divide a node's %d GPUs: some groups span two "
                            "nodes\n", l->tp, k);
}
