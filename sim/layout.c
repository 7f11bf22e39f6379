/* layout.c — see layout.h. */
#include "sim/layout.h"

/* Whether GPUs first .. first + step (count - 1) all sit on one node. */
static gboolean
one_node (int first, int step, int count, int k)
{
  return first / k == (first + step * (count - 1)) / k;
}

/* "0-7" for consecutive GPUs, else "0, 8, 16" (up to 6, then "..."). */
static void
gpus (GString *out, int first, int step, int count)
{
  if (step == 1 && count > 2) {
    g_string_append_printf (out, "%d-%d", first, first + count - 1);
    return;
  }
  for (int i = 0; i < count && i < 6; i++)
    g_string_append_printf (out, "%s%d", i ? ", " : "", first + i * step);
  if (count > 6)
    g_string_append_printf (out, ", ... %d", first + (count - 1) * step);
}

/* One kind of group: n groups of count GPUs, the g-th starting at
 * first(g), members step apart. */
static void
kind (GString *out, const char *name, int n, int count, int step, const int *firsts, int k, int shown)
{
  int inside = 0;
  for (int g = 0; g < n; g++)
    inside += one_node (firsts[g], step, count, k);
  g_string_append_printf (out, "  %-24s %d group%s of %d GPU%s, %s\n", name, n, n == 1 ? "" : "s", count,
                          count == 1 ? "" : "s",
                          inside == n ? "each inside one node" : inside == 0 ? "each across nodes"
                                                                              : "some across nodes");
  for (int g = 0; g < n && g < shown; g++) {
    g_string_append (out, "    ");
    gpus (out, firsts[g], step, count);
    g_string_append_printf (out, "%s\n", one_node (firsts[g], step, count, k) ? "" : "  (across nodes)");
  }
  if (n > shown)
    g_string_append_printf (out, "    ... %d more\n", n - shown);
}

void
dps_layout_describe (GString *out, const DpsLayout *l, int gpus_per_node, int shown)
{
  int k = MAX (gpus_per_node, 1), n = l->tp * l->pp * l->dp;
  g_string_append_printf (out, "layout         tp %d x pp %d x dp %d = %d GPUs (Megatron's order: tensor parallel "
                          "innermost, then the pipeline, data parallel outermost)\n", l->tp, l->pp, l->dp, n);
  g_autofree int *firsts = g_new (int, MAX (n, 1));
  /* tensor-parallel groups: one per (stage, replica), consecutive GPUs */
  int m = 0;
  for (int d = 0; d < l->dp; d++)
    for (int s = 0; s < l->pp; s++)
      firsts[m++] = dps_layout_rank (l, 0, s, d);
  if (l->tp > 1)
    kind (out, "tensor-parallel groups", m, l->tp, 1, firsts, k, shown);
  /* pipelines: one per (tensor index, replica), a stage tp GPUs apart */
  m = 0;
  for (int d = 0; d < l->dp; d++)
    for (int t = 0; t < l->tp; t++)
      firsts[m++] = dps_layout_rank (l, t, 0, d);
  if (l->pp > 1) {
    kind (out, "pipelines", m, l->pp, l->tp, firsts, k, shown);   /* GPUs stage by stage */
    gboolean cross = l->tp * l->pp > k;
    g_string_append_printf (out, "    a send between neighbouring stages %s\n",
                            cross ? "crosses the network where a stage ends a node" : "stays inside a node");
  }
  /* data-parallel groups: one per (tensor index, stage), tp pp GPUs apart */
  m = 0;
  for (int s = 0; s < l->pp; s++)
    for (int t = 0; t < l->tp; t++)
      firsts[m++] = dps_layout_rank (l, t, s, 0);
  if (l->dp > 1)
    kind (out, "data-parallel groups", m, l->dp, l->tp * l->pp, firsts, k, shown);
  if (l->tp > k)
    g_string_append_printf (out, "note: tensor parallel %d spans nodes of %d GPUs: its collectives, on the critical "
                            "path of every block, cross the network\n", l->tp, k);
  else if (k % l->tp != 0)
    g_string_append_printf (out, "note: tensor parallel %d does not divide a node's %d GPUs: some groups span two "
                            "nodes\n", l->tp, k);
}
