/* topo-rings.c — see topo-rings.h. */
#include "sim/topo-rings.h"

#include <string.h>

static gboolean
find_ring (int k, int *order, gboolean *used, int depth, const gboolean *adj)
{
  if (depth == k)
    return adj[order[k - 1] * k + order[0]];
  for (int g = 0; g < k; g++) {
    if (!used[g] && adj[order[depth - 1] * k + g]) {
      used[g] = TRUE;
      order[depth] = g;
      if (find_ring (k, order, used, depth + 1, adj))
        return TRUE;
      used[g] = FALSE;
    }
  }
  return FALSE;
}

/* Every Hamiltonian cycle over the links of cap (cycles through GPU 0,
 * one direction each), at most max of them. */
static void
all_cycles (int k, const int *cap, int *order, gboolean *used, int depth, GArray *out, guint max)
{
  if (out->len / (guint) k >= max)
    return;
  if (depth == k) {
    if (cap[order[k - 1] * k + order[0]] > 0 && order[1] < order[k - 1])
      g_array_append_vals (out, order, (guint) k);
    return;
  }
  for (int g = 1; g < k; g++)
    if (!used[g] && cap[order[depth - 1] * k + g] > 0) {
      used[g] = TRUE;
      order[depth] = g;
      all_cycles (k, cap, order, used, depth + 1, out, max);
      used[g] = FALSE;
    }
}

/* The most cycles of cyc (from first on) that the links' counts carry at
 * once: depth-first, each link's count taken down by the cycles through it. */
static int
most_cycles (int k, int *cap, const GArray *cyc, guint first, int *pick, int n, int *best, int *best_pick, int goal)
{
  if (n > *best) {
    *best = n;
    memcpy (best_pick, pick, sizeof (int) * (gsize) n);
  }
  guint m = cyc->len / (guint) k;
  for (guint c = first; c < m && *best < goal; c++) {
    const int *o = &g_array_index (cyc, int, c * (guint) k);
    gboolean fits = TRUE;
    for (int i = 0; i < k && fits; i++)
      fits = cap[o[i] * k + o[(i + 1) % k]] > 0;
    if (!fits)
      continue;
    for (int i = 0; i < k; i++) {
      cap[o[i] * k + o[(i + 1) % k]]--;
      cap[o[(i + 1) % k] * k + o[i]]--;
    }
    pick[n] = (int) c;
    most_cycles (k, cap, cyc, c + 1, pick, n + 1, best, best_pick, goal);
    for (int i = 0; i < k; i++) {
      cap[o[i] * k + o[(i + 1) % k]]++;
      cap[o[(i + 1) % k] * k + o[i]]++;
    }
  }
  return *best;
}

/* The rings of a mesh as NCCL builds them: NCCL runs one channel per
 * NVLink and direction (the graph it dumps for four V100s with two links
 * a pair has 6 ring channels, NVIDIA/nccl issue #713), so the node holds
 * as many rings as cycles over distinct links fit, each run both ways.
 * The cycles are the most that the links' counts carry together (DGX-1's
 * hybrid cube mesh, 6 links a GPU: 3 cycles, 6 rings).  Up to 8 GPUs (all
 * cycles are listed); 0 when the mesh has no cycle. */
static int
mesh_rings (const DpsTopoSpec *s, int k, int *rings)
{
  if (k < 3 || k > 8)
    return 0;
  int *cap = g_new0 (int, k * k);
  for (int i = 0; i < s->n_mesh; i++) {
    cap[s->mesh[i].a * k + s->mesh[i].b] += s->mesh[i].count;
    cap[s->mesh[i].b * k + s->mesh[i].a] += s->mesh[i].count;
  }
  int degree = G_MAXINT;
  for (int a = 0; a < k; a++) {
    int d = 0;
    for (int b = 0; b < k; b++)
      d += cap[a * k + b];
    degree = MIN (degree, d);
  }
  GArray *cyc = g_array_new (FALSE, FALSE, sizeof (int));
  int order[8] = { 0 }, pick[DPS_TOPO_MAX_RINGS], best_pick[DPS_TOPO_MAX_RINGS], best = 0;
  gboolean used[8] = { TRUE };
  all_cycles (k, cap, order, used, 1, cyc, 4096);
  most_cycles (k, cap, cyc, 0, pick, 0, &best, best_pick, MIN (degree / 2, DPS_TOPO_MAX_RINGS / 2));
  for (int c = 0; c < best; c++) {
    const int *o = &g_array_index (cyc, int, (guint) best_pick[c] * (guint) k);
    for (int i = 0; i < k; i++) {
      rings[(2 * c) * k + i] = o[i];
      rings[(2 * c + 1) * k + i] = o[(k - i) % k];   /* the same cycle the other way */
    }
  }
  g_array_free (cyc, TRUE);
  g_free (cap);
  return 2 * best;
}

/* The intra-node rings of spec's node of k GPUs into rings (room for
 * DPS_TOPO_MAX_RINGS of k each): the file's order, else in a mesh the
 * rings over its links (mesh_rings; a search for one cycle beyond 8 GPUs),
 * else 0..k-1.  Returns how many. */
int
dps_topo_find_rings (const DpsTopoSpec *s, int k, int *rings)
{
  for (int i = 0; i < k; i++)
    rings[i] = s->ring ? s->ring[i] : i;
  if (s->ring || s->intra != DPS_INTRA_NVLINK_MESH || k < 3 || k > 16)
    return 1;
  int n = mesh_rings (s, k, rings);
  if (n > 0)
    return n;
  gboolean *adj = g_new0 (gboolean, k * k);
  for (int i = 0; i < s->n_mesh; i++)
    adj[s->mesh[i].a * k + s->mesh[i].b] = adj[s->mesh[i].b * k + s->mesh[i].a] = TRUE;
  gboolean *used = g_new0 (gboolean, k);
  int *order = g_new (int, k);
  order[0] = 0;
  used[0] = TRUE;
  if (find_ring (k, order, used, 1, adj))
    memcpy (rings, order, sizeof (int) * (gsize) k);
  g_free (adj);
  g_free (used);
  g_free (order);
  return 1;
}
