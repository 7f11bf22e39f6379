/* step-program.c — see step-program.h. */
#include "real/step-program.h"

#include <string.h>

static const char *const op_names[DPS_STEP_COLLS] = {
  [DPS_STEP_ALLREDUCE] = "all-reduce",
  [DPS_STEP_GATHER] = "all-gather",
  [DPS_STEP_GATHER_BACKWARD] = "all-gather-backward",
  [DPS_STEP_GATHER_UPDATED] = "all-gather-updated",
  [DPS_STEP_REDUCE_SCATTER] = "reduce-scatter",
  [DPS_STEP_ALLREDUCE_SHARD] = "all-reduce-shard",
};
G_STATIC_ASSERT (G_N_ELEMENTS (op_names) == DPS_STEP_COLLS);

const char *
dps_step_coll_name (DpsStepColl kind)
{
  g_return_val_if_fail (kind >= 0 && kind < DPS_STEP_COLLS, "?");
  return op_names[kind];
}

gboolean
dps_step_coll_parse (const char *name, DpsStepColl *out)
{
  for (int k = 0; k < DPS_STEP_COLLS; k++)
    if (g_str_equal (name, op_names[k])) {
      *out = (DpsStepColl) k;
      return TRUE;
    }
  return FALSE;
}

/* The program being written, and where each unit's parameters stand:
 * gathered (waited for), or a gather issued and not yet waited for. */
typedef struct {
  const DpsShardLayout *l;
  GArray   *acts, *ops;
  gboolean *gathered;
  int      *pending;     /* the unit's gather not waited for yet, or -1 */
  int       micro;
  DpsStepPhase  phase;
} Builder;

static void
act (Builder *b, DpsStepActKind kind, int arg)
{
  DpsStepAct a = { kind, arg, b->micro, b->phase };
  g_array_append_val (b->acts, a);
}

static int
issue (Builder *b, DpsStepColl kind, int index, double bytes)
{
  DpsStepOp op = { kind, index, b->micro, bytes };
  g_array_append_val (b->ops, op);
  act (b, DPS_ACT_ISSUE, (int) b->ops->len - 1);
  return (int) b->ops->len - 1;
}

/* unit u's gather, issued now unless it already was (a prefetch) */
static void
prefetch (Builder *b, int u, DpsStepColl kind)
{
  if (!b->gathered[u] && b->pending[u] < 0)
    b->pending[u] = issue (b, kind, u, 4.0 * b->l->padded[u]);
}

/* unit u's parameters before a layer reads them */
static void
need (Builder *b, int u, DpsStepColl kind)
{
  if (b->gathered[u])
    return;
  prefetch (b, u, kind);
  act (b, DPS_ACT_WAIT, b->pending[u]);
  b->pending[u] = -1;
  b->gathered[u] = TRUE;
}

static void
release (Builder *b, int u)
{
  if (b->l->count[u] > 0 && b->gathered[u]) {
    act (b, DPS_ACT_RELEASE, u);
    b->gathered[u] = FALSE;
  }
}

/* whether layer reads unit u's parameters (its own; or u's, tied to it) */
static gboolean
reads (const DpsShardLayout *l, int layer, int u)
{
  return u == layer || l->last_reader[u] == layer;
}

/* The backward gathers for layer: every unit it reads */
static void
prefetch_backward (Builder *b, int layer)
{
  for (int u = 0; layer >= 0 && u <= layer; u++)
    if (reads (b->l, layer, u))
      prefetch (b, u, DPS_STEP_GATHER_BACKWARD);
}

DpsStepProgram *
dps_step_program_new (const DpsShardLayout *l, const DpsBuckets *buckets, int grad_accum)
{
  int U = l->n_units, nb = dps_buckets_count (buckets), K = MAX (grad_accum, 1);
  gboolean gathers = dps_shard_layout_gathers (l), scatters = dps_shard_layout_scatters (l);
  gboolean across = l->strategy == DPS_STRATEGY_HSDP && l->groups > 1;
  Builder b = { .l = l, .acts = g_array_new (FALSE, FALSE, sizeof (DpsStepAct)),
                .ops = g_array_new (FALSE, FALSE, sizeof (DpsStepOp)), .gathered = g_new (gboolean, U),
                .pending = g_new (int, U) };
  int *chain = g_new (int, U);   /* the last op reducing the unit's gradients in the micro-step before */
  for (int u = 0; u < U; u++) {
    b.gathered[u] = !gathers || l->count[u] == 0;   /* nothing to gather */
    b.pending[u] = -1;
    chain[u] = -1;
  }
  for (int k = 0; k < K; k++) {
    b.micro = k;
    b.phase = DPS_STEP_IN_FORWARD;
    act (&b, DPS_ACT_BATCH, k);
    for (int layer = 0; layer < U; layer++) {
      for (int u = 0; u <= layer; u++)
        if (reads (l, layer, u))
          need (&b, u, DPS_STEP_GATHER);
      if (layer + 1 < U)
        prefetch (&b, layer + 1, DPS_STEP_GATHER);
      act (&b, DPS_ACT_FORWARD, layer);
      /* freed after the last layer that reads it, but for what the last
       * layer reads: its backward comes next */
      for (int u = 0; gathers && layer < U - 1 && u <= layer; u++)
        if (l->last_reader[u] == layer)
          release (&b, u);
    }
    act (&b, DPS_ACT_LOSS, 0);
    b.phase = DPS_STEP_IN_BACKWARD;
    int next = 0;
    for (int layer = U - 1; layer >= 0; layer--) {
      for (int u = 0; u <= layer; u++)
        if (reads (l, layer, u)) {
          need (&b, u, DPS_STEP_GATHER_BACKWARD);
          /* the first backward to write the unit's gradients waits until
           * the micro-step before has reduced them */
          if (chain[u] >= 0) {
            act (&b, DPS_ACT_WAIT, chain[u]);
            chain[u] = -1;
          }
        }
      prefetch_backward (&b, layer - 1);
      act (&b, DPS_ACT_BACKWARD, layer);
      /* the unit's gradients are complete: every layer reading it has run
       * its backward (a unit is read by itself and later layers only) */
      if (scatters && l->count[layer] > 0) {
        if (k > 0)
          act (&b, DPS_ACT_ACCUMULATE, layer);
        chain[layer] = issue (&b, DPS_STEP_REDUCE_SCATTER, layer, 4.0 * l->padded[layer]);
        if (across)
          chain[layer] = issue (&b, DPS_STEP_ALLREDUCE_SHARD, layer, 4.0 * l->shard[layer]);
      }
      if (gathers)
        release (&b, layer);
      /* DDP: a ready bucket launches once every lower-numbered one has */
      while (!scatters && k == K - 1 && next < nb && dps_buckets_get (buckets, next)->ready_layer >= layer) {
        issue (&b, DPS_STEP_ALLREDUCE, next, dps_buckets_get (buckets, next)->bytes);
        next++;
      }
    }
  }
  b.phase = DPS_STEP_IN_SYNC;
  act (&b, DPS_ACT_WAIT_ALL, 0);
  b.phase = DPS_STEP_IN_OPTIMIZER;
  if (l->strategy == DPS_STRATEGY_ZERO1 || l->strategy == DPS_STRATEGY_ZERO2) {
    for (int u = 0; u < U; u++)
      if (l->count[u] > 0) {
        act (&b, DPS_ACT_OPTIMIZER, u);
        issue (&b, DPS_STEP_GATHER_UPDATED, u, 4.0 * l->padded[u]);
      }
    b.phase = DPS_STEP_IN_GATHER;
    act (&b, DPS_ACT_WAIT_ALL, 0);
  } else
    act (&b, DPS_ACT_OPTIMIZER, -1);
  g_free (chain);
  g_free (b.gathered);
  g_free (b.pending);
  DpsStepProgram *p = g_new0 (DpsStepProgram, 1);
  p->n_acts = (int) b.acts->len;
  p->acts = (DpsStepAct *) g_array_free (b.acts, FALSE);
  p->n_ops = (int) b.ops->len;
  p->ops = (DpsStepOp *) g_array_free (b.ops, FALSE);
  p->local_accumulation = !scatters;
  return p;
}

void
dps_step_program_free (DpsStepProgram *p)
{
  if (!p)
    return;
  g_free (p->acts);
  g_free (p->ops);
  g_free (p);
}
