/* topo-routes — the routes inside a node's template (topo-private.h):
 * fewest hops, through switches and host bridges, and through a GPU only
 * on its way into the NIC next to it (PXN). */
#include "sim/topo-private.h"
#include "sim/base/error.h"

/* Breadth-first search on the template (node 0) from src: prev_link[v]
 * receives the link by which v is first reached (-1 for src, -2 for a
 * vertex not reached), transiting only switches and host bridges, or a GPU
 * attached to pass_nic (-1: none) on its way into it (PXN: data crosses
 * NVLink to the GPU next to the NIC).  queue holds t->tv vertices: those
 * reached, in the order they were taken from it; returns their count. */
static int
template_bfs (const DpsTopo *t, int src, int pass_nic, int *prev_link, int *queue)
{
  for (int i = 0; i < t->tv; i++)
    prev_link[i] = -2;
  int head = 0, tail = 0;
  queue[tail++] = src;
  prev_link[src] = -1;
  while (head < tail) {
    int v = queue[head++];
    DpsVertexKind vk = g_array_index (t->vertices, DpsVertex, v).kind;
    if (v != src && (vk == DPS_VX_NIC || vk == DPS_VX_GPU)) {
      /* a GPU may be passed through only on its way into its own NIC */
      gboolean pxn = FALSE;
      if (vk == DPS_VX_GPU && pass_nic >= 0)
        for (int i = t->adj_off[v]; i < t->adj_off[v + 1] && !pxn; i++)
          pxn = g_array_index (t->links, DpsLink, t->adj[i]).dst == pass_nic;
      if (!pxn)
        continue;
    }
    for (int i = t->adj_off[v]; i < t->adj_off[v + 1]; i++) {
      int l = t->adj[i];
      const DpsLink *lk = &g_array_index (t->links, DpsLink, l);
      if (prev_link[lk->dst] == -2) {
        prev_link[lk->dst] = l;
        queue[tail++] = lk->dst;
      }
    }
  }
  return tail;
}

/* The route template_bfs found from src to dst, appended to tr_data (its
 * start in *off); returns its hop count, or -1 when dst was not reached. */
static int
template_route (DpsTopo *t, const int *prev_link, int src, int dst, int *off)
{
  if (prev_link[dst] == -2)
    return -1;
  int path[DPS_ROUTE_MAX], n = 0;
  for (int v = dst; v != src && n < DPS_ROUTE_MAX; ) {
    int l = prev_link[v];
    path[n++] = l;
    v = g_array_index (t->links, DpsLink, l).src;
  }
  *off = (int) t->tr_data->len;
  for (int i = n - 1; i >= 0; i--)
    g_array_append_val (t->tr_data, path[i]);
  return n;
}

/* The routes inside a node's template: GPU to GPU, GPU to NIC and NIC to
 * GPU, into t's tr_data and offset tables; FALSE, error set, where one
 * cannot be reached. */
gboolean
dps_topo_build_template_routes (DpsTopo *t, GError **error)
{
  int k = t->k, nn = t->spec->n_nics;
  t->tr_data = g_array_new (FALSE, FALSE, sizeof (int));
  t->gg_off = g_new0 (int, k * k);
  t->gg_len = g_new0 (int, k * k);
  t->gn_off = g_new0 (int, k * MAX (nn, 1));
  t->gn_len = g_new0 (int, k * MAX (nn, 1));
  t->ng_off = g_new0 (int, k * MAX (nn, 1));
  t->ng_len = g_new0 (int, k * MAX (nn, 1));
  /* One search from each GPU that passes no GPU: its routes to the other
   * GPUs, and to the NICs.  A route into NIC n may pass a GPU next to n:
   * a search that may (pass_nic n) runs as this one until it takes the
   * first GPU next to n from its queue, so n keeps the route it was
   * reached by before that, else it is reached through that GPU (the
   * routes of a search per pair, checked equal on every shipped topology).
   * From each NIC one search, which may pass the GPUs next to it, for its
   * routes to the GPUs. */
  g_autofree int *prev = g_new (int, t->tv), *queue = g_new (int, t->tv), *pos = g_new (int, t->tv);
  /* for each NIC the GPUs next to it (the first link of theirs into it) */
  g_autofree int *in_gpu = g_new (int, MAX (nn, 1) * k), *in_link = g_new (int, MAX (nn, 1) * k),
                 *n_in = g_new0 (int, MAX (nn, 1));
  for (int n = 0; n < nn; n++)
    for (int g = 0; g < k; g++)
      for (int i = t->adj_off[g]; i < t->adj_off[g + 1]; i++)
        if (g_array_index (t->links, DpsLink, t->adj[i]).dst == t->nic_tv[n]) {
          in_gpu[n * k + n_in[n]] = g;
          in_link[n * k + n_in[n]++] = t->adj[i];
          break;
        }
  const char *name = t->spec->path ? t->spec->path : t->spec->name;
  for (int a = 0; a < k; a++) {
    int reached = template_bfs (t, a, -1, prev, queue);
    for (int i = 0; i < t->tv; i++)
      pos[i] = G_MAXINT;
    for (int i = 0; i < reached; i++)
      pos[queue[i]] = i;
    for (int b = 0; b < k; b++) {
      if (a == b)
        continue;
      int h = template_route (t, prev, a, b, &t->gg_off[a * k + b]);
      if (h < 0) {
        g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: GPU %d cannot reach GPU %d inside a node", name, a, b);
        return FALSE;
      }
      t->gg_len[a * k + b] = h;
    }
    for (int n = 0; n < nn; n++) {
      int v = t->nic_tv[n], first = -1;
      for (int i = 0; i < n_in[n]; i++) {
        int g = in_gpu[n * k + i];
        if (g != a && pos[g] < G_MAXINT && (first < 0 || pos[g] < pos[in_gpu[n * k + first]]))
          first = i;
      }
      int by = prev[v] >= 0 ? pos[g_array_index (t->links, DpsLink, prev[v]).src] : G_MAXINT;
      int h;
      if (first < 0 || by < pos[in_gpu[n * k + first]])
        h = template_route (t, prev, a, v, &t->gn_off[a * nn + n]);
      else if ((h = template_route (t, prev, a, in_gpu[n * k + first], &t->gn_off[a * nn + n])) >= 0) {
        g_array_append_val (t->tr_data, in_link[n * k + first]);
        h++;
      }
      if (h < 0) {
        g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: GPU %d cannot reach NIC %d", name, a, n);
        return FALSE;
      }
      t->gn_len[a * nn + n] = h;
    }
  }
  for (int n = 0; n < nn; n++) {
    template_bfs (t, t->nic_tv[n], t->nic_tv[n], prev, queue);
    for (int a = 0; a < k; a++) {
      int h = template_route (t, prev, t->nic_tv[n], a, &t->ng_off[n * k + a]);
      if (h < 0) {
        g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: GPU %d cannot reach NIC %d", name, a, n);
        return FALSE;
      }
      t->ng_len[n * k + a] = h;
    }
  }
  return TRUE;
}
