/* maxflow.c — see maxflow.h. */
#include "sim/maxflow.h"

typedef struct { int to; double cap; } Edge;

struct DpsMaxflow {
  int     n;
  GArray *edges;   /* Edge; edge i and i^1 are each other's reverse */
  GArray **adj;    /* per vertex: edge indices */
  int    *level, *iter;
};

DpsMaxflow *
dps_maxflow_new (int n_vertices)
{
  DpsMaxflow *mf = g_new0 (DpsMaxflow, 1);
  mf->n = n_vertices;
  mf->edges = g_array_new (FALSE, FALSE, sizeof (Edge));
  mf->adj = g_new (GArray *, n_vertices);
  for (int i = 0; i < n_vertices; i++)
    mf->adj[i] = g_array_new (FALSE, FALSE, sizeof (int));
  mf->level = g_new (int, n_vertices);
  mf->iter = g_new (int, n_vertices);
  return mf;
}

void
dps_maxflow_free (DpsMaxflow *mf)
{
  if (!mf)
    return;
  for (int i = 0; i < mf->n; i++)
    g_array_free (mf->adj[i], TRUE);
  g_free (mf->adj);
  g_array_free (mf->edges, TRUE);
  g_free (mf->level);
  g_free (mf->iter);
  g_free (mf);
}

/* Adds a directed edge of the given capacity (and its empty reverse). */
void
dps_maxflow_add_edge (DpsMaxflow *mf, int from, int to, double capacity)
{
  g_return_if_fail (from >= 0 && from < mf->n && to >= 0 && to < mf->n);
  Edge fwd = { to, capacity }, rev = { from, 0 };
  int i = (int) mf->edges->len;
  g_array_append_val (mf->edges, fwd);
  g_array_append_val (mf->edges, rev);
  g_array_append_val (mf->adj[from], i);
  int j = i + 1;
  g_array_append_val (mf->adj[to], j);
}

static gboolean
bfs (DpsMaxflow *mf, int s, int t)
{
  for (int i = 0; i < mf->n; i++)
    mf->level[i] = -1;
  int *queue = g_new (int, mf->n);
  int head = 0, tail = 0;
  queue[tail++] = s;
  mf->level[s] = 0;
  while (head < tail) {
    int v = queue[head++];
    GArray *a = mf->adj[v];
    for (guint k = 0; k < a->len; k++) {
      Edge *e = &g_array_index (mf->edges, Edge, g_array_index (a, int, k));
      if (e->cap > 1e-9 && mf->level[e->to] < 0) {
        mf->level[e->to] = mf->level[v] + 1;
        queue[tail++] = e->to;
      }
    }
  }
  g_free (queue);
  return mf->level[t] >= 0;
}

static double
dfs (DpsMaxflow *mf, int v, int t, double pushed)
{
  if (v == t)
    return pushed;
  GArray *a = mf->adj[v];
  for (; mf->iter[v] < (int) a->len; mf->iter[v]++) {
    int ei = g_array_index (a, int, mf->iter[v]);
    Edge *e = &g_array_index (mf->edges, Edge, ei);
    if (e->cap > 1e-9 && mf->level[e->to] == mf->level[v] + 1) {
      double got = dfs (mf, e->to, t, MIN (pushed, e->cap));
      if (got > 0) {
        e->cap -= got;
        g_array_index (mf->edges, Edge, ei ^ 1).cap += got;
        return got;
      }
    }
  }
  return 0;
}

/* Returns the maximum flow from source to sink; consumes the capacities. */
double
dps_maxflow_solve (DpsMaxflow *mf, int source, int sink)
{
  double total = 0;
  while (bfs (mf, source, sink)) {
    for (int i = 0; i < mf->n; i++)
      mf->iter[i] = 0;
    double f;
    while ((f = dfs (mf, source, sink, G_MAXDOUBLE)) > 0)
      total += f;
  }
  return total;
}
