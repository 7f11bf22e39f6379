/* Unit tests of sharded data parallelism in the real runner: the shard
 * layout (real/shard-layout.h), the padded networks (real/train-net.h)
 * and the step programs both replicas run (real/step-program.h). */
#include "real/shard-layout.h"
#include "real/step-program.h"
#include "real/train-net.h"
#include "real/tensor-parallel.h"
#include "sim/model-gen.h"

#include <string.h>

/* widths 12, 20, 20, 5: units of 12 x 20 + 20 = 260, 20 x 20 + 20 = 420
 * and 20 x 5 + 5 = 105 parameters */
static DpsModel *
tiny_mlp (void)
{
  const int widths[] = { 12, 20, 20, 5 };
  return dps_model_gen_mlp ("tiny-mlp", widths, 4);
}

/* 2 blocks, hidden 16, 2 heads, MLP 32, vocabulary 11, 6 tokens, 8
 * positions: units of (11 + 8) x 16 = 304 (embeddings), 2224 (a block:
 * 2 x 16 + 16 x 48 + 48 + 16 x 16 + 16 + 2 x 16 + 16 x 32 + 32 + 32 x 16
 * + 16) and 32 (ln_f; the head is tied to the embedding) */
static DpsModel *
tiny_gpt2 (void)
{
  DpsTransformerShape s = { .kind = DPS_TF_GPT2, .layers = 2, .hidden = 16, .heads = 2, .ffn = 32,
                            .vocab = 11, .seq = 6, .max_positions = 8 };
  return dps_model_gen_transformer ("tiny", &s);
}

/* Over 4 ranks each unit pads to a multiple of 4 (FSDP's FlatParameter):
 * 260 and 420 divide already, 105 becomes 108; the shards are 65, 105
 * and 27 elements, 197 a rank; rank 3's shard of the last unit starts at
 * 680 + 3 x 27 = 761 and holds the 3 padding elements. */
static void
test_layout_padding (void)
{
  g_autoptr (DpsModel) m = tiny_mlp ();
  g_autoptr (DpsShardLayout) l = dps_shard_layout_new (m, DPS_STRATEGY_FSDP, 4, 0, 3);
  const gint64 off[] = { 0, 260, 680, 788 }, shard[] = { 65, 105, 27 }, count[] = { 260, 420, 105 };
  g_assert_cmpint (l->n_units, ==, 3);
  g_assert_cmpint (l->shards, ==, 4);
  for (int u = 0; u < 3; u++) {
    g_assert_cmpint (l->off[u], ==, off[u]);
    g_assert_cmpint (l->count[u], ==, count[u]);
    g_assert_cmpint (l->shard[u], ==, shard[u]);
    g_assert_cmpint (l->padded[u] % 4, ==, 0);
  }
  g_assert_cmpint (l->total, ==, 788);
  g_assert_cmpint (l->shard_total, ==, 197);
  g_assert_cmpint (dps_shard_layout_mine (l, 2), ==, 761);
  /* DDP pads nothing: the flat array is the model's */
  g_autoptr (DpsShardLayout) d = dps_shard_layout_new (m, DPS_STRATEGY_DDP, 4, 0, 3);
  g_assert_cmpint (d->total, ==, m->n_params);
  g_assert_cmpint (d->shard_total, ==, 0);
}

/* HSDP over 8 ranks in groups of 2: rank 5 is shard 1 of group 2, and
 * holds what ranks 1, 3 and 7 hold; its peer (the lowest of them) is rank
 * 1.  FSDP's ranks hold one shard each (their own peers); ZeRO-2's hold
 * the whole parameters (rank 0 their peer). */
static void
test_layout_groups (void)
{
  g_autoptr (DpsModel) m = tiny_mlp ();
  g_autoptr (DpsShardLayout) h = dps_shard_layout_new (m, DPS_STRATEGY_HSDP, 8, 2, 5);
  g_assert_cmpint (h->groups, ==, 4);
  g_assert_cmpint (h->group, ==, 2);
  g_assert_cmpint (h->shard_index, ==, 1);
  g_assert_cmpint (dps_shard_layout_peer (h, 5), ==, 1);
  g_assert_cmpint (dps_shard_layout_peer (h, 6), ==, 0);
  g_autoptr (DpsShardLayout) f = dps_shard_layout_new (m, DPS_STRATEGY_FSDP, 8, 0, 5);
  g_assert_cmpint (f->shards, ==, 8);
  g_assert_cmpint (dps_shard_layout_peer (f, 5), ==, 5);
  g_autoptr (DpsShardLayout) z = dps_shard_layout_new (m, DPS_STRATEGY_ZERO2, 8, 0, 5);
  g_assert_cmpint (dps_shard_layout_peer (z, 5), ==, 0);
  g_assert_true (!dps_shard_layout_gathers (z) && dps_shard_layout_scatters (z));
}

/* Padding changes nothing a network computes: the same parameters at the
 * layout's offsets, zero in the padding, and after forward and backward
 * the same loss and gradients bit for bit (the same operations on the same
 * numbers), with zero gradients in the padding.  Both networks, over 3
 * ranks (every unit of the GPT-2 stack pads: 304 -> 306, 2224 -> 2226,
 * 32 -> 33). */
static void
check_padded (DpsModel *m)
{
  DpsTrainNet *a = dps_train_net_new (m, 2, 7, NULL), *b = dps_train_net_new_padded (dps_dev_cpu (), m, 2, 7, 3, NULL);
  g_autoptr (DpsShardLayout) l = dps_shard_layout_new (m, DPS_STRATEGY_FSDP, 3, 0, 0);
  g_assert_cmpint (b->n_params, ==, l->total);
  g_assert_cmpint (b->n_params, >, a->n_params);
  dps_train_net_batch (a, 3, 10);
  dps_train_net_batch (b, 3, 10);
  dps_train_net_forward (a);
  dps_train_net_forward (b);
  g_assert_cmpfloat (dps_train_net_loss_grad (a), ==, dps_train_net_loss_grad (b));
  dps_train_net_backward (a);
  dps_train_net_backward (b);
  gint64 unpadded = 0;
  for (int u = 0; u < l->n_units; u++) {
    g_assert_cmpint (memcmp (a->params + unpadded, b->params + l->off[u], 4 * l->count[u]), ==, 0);
    g_assert_cmpint (memcmp (a->grads + unpadded, b->grads + l->off[u], 4 * l->count[u]), ==, 0);
    for (gint64 i = l->count[u]; i < l->padded[u]; i++)
      g_assert_cmpfloat (b->params[l->off[u] + i], ==, 0);
    for (gint64 i = l->count[u]; i < l->padded[u]; i++)
      g_assert_cmpfloat (b->grads[l->off[u] + i], ==, 0);
    unpadded += l->count[u];
  }
  g_assert_cmpint (unpadded, ==, a->n_params);
  dps_train_net_free (a);
  dps_train_net_free (b);
}

static void
test_padded_nets (void)
{
  g_autoptr (DpsModel) g = tiny_gpt2 ();
  g_autoptr (DpsModel) m = tiny_mlp ();
  check_padded (g);
  check_padded (m);
}

/* A step program played as the two streams would run it: collectives
 * finish in the order issued (one communication stream or thread), a WAIT
 * for one finishes it and every one issued before it.  Checked: every
 * layer runs on parameters that are gathered and not freed; a gather never
 * writes a unit while a layer could read it; every unit's gradients are
 * reduced once per micro-step that reduces them, after the last backward
 * that writes them and before the next backward writes them again; every
 * op is issued once and waited for by the end.  Counts what it saw. */
typedef struct {
  int gathers_fwd, gathers_bwd, gathers_updated, scatters, shard_allreduces, allreduces, optimizers;
} Seen;

static void
play (const DpsShardLayout *l, const DpsStepProgram *p, int accum, Seen *seen)
{
  int U = l->n_units, n = p->n_ops;
  memset (seen, 0, sizeof *seen);
  /* per op: 0 not issued, 1 in flight, 2 finished */
  int *state = g_new0 (int, MAX (n, 1)), issued = 0;
  int *order = g_new (int, MAX (n, 1));
  /* per unit: parameters usable (gathered and waited for), the gather in
   * flight, the gradients' reduction in flight, backward writes pending
   * before the unit's gradients are complete in this micro-step */
  gboolean *usable = g_new (gboolean, U);
  int *gather = g_new (int, U), *reduce = g_new (int, U), *reduced = g_new0 (int, U);
  gboolean gathers = dps_shard_layout_gathers (l), scatters = dps_shard_layout_scatters (l);
  for (int u = 0; u < U; u++) {
    usable[u] = !gathers;
    gather[u] = reduce[u] = -1;
  }
  for (int i = 0; i < p->n_acts; i++) {
    const DpsStepAct *a = &p->acts[i];
    switch (a->kind) {
    case DPS_ACT_FORWARD:
    case DPS_ACT_BACKWARD:
      for (int u = 0; u < U; u++) {
        gboolean reads = u == a->arg || l->last_reader[u] == a->arg;
        if (!reads)
          continue;
        g_assert_true (usable[u]);
        g_assert_true (gather[u] < 0 || state[gather[u]] == 2);
        /* backward writes the unit's gradients: no reduction of them in flight */
        if (a->kind == DPS_ACT_BACKWARD)
          g_assert_true (reduce[u] < 0 || state[reduce[u]] == 2);
      }
      break;
    case DPS_ACT_ISSUE: {
      const DpsStepOp *op = &p->ops[a->arg];
      g_assert_cmpint (state[a->arg], ==, 0);
      state[a->arg] = 1;
      order[issued++] = a->arg;
      switch (op->kind) {
      case DPS_STEP_GATHER:
      case DPS_STEP_GATHER_BACKWARD:
        g_assert_true (gathers);
        g_assert_false (usable[op->index]);   /* not over parameters in use */
        gather[op->index] = a->arg;
        (*(op->kind == DPS_STEP_GATHER ? &seen->gathers_fwd : &seen->gathers_bwd))++;
        g_assert_cmpfloat (op->bytes, ==, 4.0 * l->padded[op->index]);
        break;
      case DPS_STEP_REDUCE_SCATTER:
        g_assert_true (scatters);
        reduce[op->index] = a->arg;
        reduced[op->index]++;
        seen->scatters++;
        break;
      case DPS_STEP_ALLREDUCE_SHARD:
        g_assert_cmpint (reduce[op->index], ==, a->arg - 1);   /* right after its reduce-scatter */
        reduce[op->index] = a->arg;
        seen->shard_allreduces++;
        g_assert_cmpfloat (op->bytes, ==, 4.0 * l->shard[op->index]);
        break;
      case DPS_STEP_GATHER_UPDATED:
        seen->gathers_updated++;
        break;
      case DPS_STEP_ALLREDUCE:
        g_assert_false (scatters);
        seen->allreduces++;
        break;
      default:
        g_assert_not_reached ();
      }
      break;
    }
    case DPS_ACT_WAIT:
    case DPS_ACT_WAIT_ALL: {
      int upto = a->kind == DPS_ACT_WAIT ? a->arg : (issued ? order[issued - 1] : -1);
      if (upto >= 0)
        g_assert_cmpint (state[upto], >=, 1);
      for (int k = 0; k < issued && upto >= 0; k++) {
        state[order[k]] = 2;
        if (order[k] == upto)
          break;
      }
      for (int u = 0; u < U; u++)
        if (gathers && gather[u] >= 0 && state[gather[u]] == 2) {
          usable[u] = TRUE;
          gather[u] = -1;
        }
      break;
    }
    case DPS_ACT_RELEASE:
      g_assert_true (usable[a->arg]);
      usable[a->arg] = FALSE;
      break;
    case DPS_ACT_ACCUMULATE:
      g_assert_true (reduce[a->arg] < 0 || state[reduce[a->arg]] == 2);
      break;
    case DPS_ACT_OPTIMIZER:
      for (int k = 0; k < issued; k++)
        if (p->ops[order[k]].kind != DPS_STEP_GATHER_UPDATED)
          g_assert_cmpint (state[order[k]], ==, 2);
      seen->optimizers++;
      break;
    default:
      break;
    }
  }
  g_assert_cmpint (issued, ==, n);
  for (int k = 0; k < n; k++)
    g_assert_cmpint (state[k], ==, 2);
  for (int u = 0; u < U; u++) {
    g_assert_cmpint (reduced[u], ==, scatters ? accum : 0);
    g_assert_true (!gathers || !usable[u]);   /* everything freed by the end of the step */
  }
  g_free (state);
  g_free (order);
  g_free (usable);
  g_free (gather);
  g_free (reduce);
  g_free (reduced);
}

static DpsStepProgram *
program (const DpsModel *m, const DpsShardLayout *l, int accum)
{
  DpsBuckets *b = dps_buckets_assign (m, 1000, 200, 4);
  DpsStepProgram *p = dps_step_program_new (l, b, accum);
  dps_buckets_free (b);
  return p;
}

/* FSDP on the MLP's 3 units: gathered before each forward (3), again
 * before each backward but the last unit's, which stays gathered from its
 * forward into its backward (2), reduce-scattered after each backward
 * (3); with 2 micro-steps twice as many.  One optimizer step. */
static void
test_program_fsdp (void)
{
  g_autoptr (DpsModel) m = tiny_mlp ();
  for (int accum = 1; accum <= 2; accum++) {
    g_autoptr (DpsShardLayout) l = dps_shard_layout_new (m, DPS_STRATEGY_FSDP, 4, 0, 1);
    g_autoptr (DpsStepProgram) p = program (m, l, accum);
    Seen s;
    play (l, p, accum, &s);
    g_assert_cmpint (s.gathers_fwd, ==, 3 * accum);
    g_assert_cmpint (s.gathers_bwd, ==, 2 * accum);
    g_assert_cmpint (s.scatters, ==, 3 * accum);
    g_assert_cmpint (s.allreduces + s.shard_allreduces + s.gathers_updated, ==, 0);
    g_assert_cmpint (s.optimizers, ==, 1);
    g_assert_false (p->local_accumulation);
  }
}

/* The GPT-2 stack's embeddings are read again by the tied head (the last
 * layer): they stay gathered from the first forward to the first layer's
 * backward, so only the blocks are gathered again for backward (2 of 4
 * units); HSDP in groups of 2 of 4 ranks all-reduces each reduce-scattered
 * shard across the groups (4 of each). */
static void
test_program_tied (void)
{
  g_autoptr (DpsModel) g = tiny_gpt2 ();
  g_autoptr (DpsShardLayout) l = dps_shard_layout_new (g, DPS_STRATEGY_HSDP, 4, 2, 2);
  g_assert_cmpint (l->last_reader[0], ==, 3);
  g_autoptr (DpsStepProgram) p = program (g, l, 1);
  Seen s;
  play (l, p, 1, &s);
  g_assert_cmpint (s.gathers_fwd, ==, 4);
  g_assert_cmpint (s.gathers_bwd, ==, 2);
  g_assert_cmpint (s.scatters, ==, 4);
  g_assert_cmpint (s.shard_allreduces, ==, 4);
  for (int accum = 2; accum <= 3; accum++) {
    g_autoptr (DpsStepProgram) q = program (g, l, accum);
    play (l, q, accum, &s);
    g_assert_cmpint (s.scatters, ==, 4 * accum);
  }
}

/* DDP all-reduces its buckets once a step (the last micro-step); ZeRO-1
 * the same, then gathers each unit's updated shards after its optimizer
 * step (one per unit); ZeRO-2 reduce-scatters each unit every micro-step
 * instead, then gathers the updated shards. */
static void
test_program_ddp_zero (void)
{
  g_autoptr (DpsModel) m = tiny_mlp ();
  DpsBuckets *b = dps_buckets_assign (m, 1000, 200, 4);
  int nb = dps_buckets_count (b);
  dps_buckets_free (b);
  g_assert_cmpint (nb, >, 1);
  const DpsStrategy kinds[] = { DPS_STRATEGY_DDP, DPS_STRATEGY_ZERO1, DPS_STRATEGY_ZERO2 };
  for (gsize k = 0; k < G_N_ELEMENTS (kinds); k++)
    for (int accum = 1; accum <= 2; accum++) {
      g_autoptr (DpsShardLayout) l = dps_shard_layout_new (m, kinds[k], 2, 0, 0);
      g_autoptr (DpsStepProgram) p = program (m, l, accum);
      Seen s;
      play (l, p, accum, &s);
      g_assert_cmpint (s.gathers_fwd + s.gathers_bwd, ==, 0);
      g_assert_cmpint (s.allreduces, ==, kinds[k] == DPS_STRATEGY_ZERO2 ? 0 : nb);
      g_assert_cmpint (s.scatters, ==, kinds[k] == DPS_STRATEGY_ZERO2 ? 3 * accum : 0);
      g_assert_cmpint (s.gathers_updated, ==, kinds[k] == DPS_STRATEGY_DDP ? 0 : 3);
      g_assert_cmpint (s.optimizers, ==, kinds[k] == DPS_STRATEGY_DDP ? 1 : 3);
      g_assert_true (p->local_accumulation == (kinds[k] != DPS_STRATEGY_ZERO2));
    }
}

/* The report's names read back to their kinds, each distinct. */
static void
test_coll_names (void)
{
  for (int k = 0; k < DPS_STEP_COLLS; k++) {
    DpsStepColl back;
    g_assert_true (dps_step_coll_parse (dps_step_coll_name ((DpsStepColl) k), &back));
    g_assert_cmpint (back, ==, k);
  }
  DpsStepColl x;
  g_assert_false (dps_step_coll_parse ("all-to-all", &x));
}

/* Tensor parallelism's split of the tiny GPT-2 stack (2 heads, MLP 32)
 * over 2 ranks (real/tensor-parallel.h): a block's c_attn 16 x 24 + 24,
 * c_proj 8 x 16 + 16 (its bias whole), c_fc 16 x 16 + 16, c_proj 16 x 16
 * + 16, LayerNorms whole: 2 x 16 + 384 + 24 + 128 + 16 + 2 x 16 + 256 +
 * 16 + 256 + 16 = 1160 a rank; the embeddings (304) and ln_f (32) whole:
 * 304 + 2 x 1160 + 32 = 2656 a rank, one head each.  Sliced tensor by
 * tensor and put back (dps_tp_unshard), any whole model comes back exactly;
 * rank 1's q columns of c_attn are the whole's columns 8-15, its k
 * columns 24-31.  A split the group does not divide is refused. */
static void
test_tp_split (void)
{
  g_autoptr (DpsModel) m = tiny_gpt2 ();
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) part = dps_tp_shard_model (m, 2, &e);
  g_assert_no_error (e);
  g_assert_cmpint (part->n_params, ==, 2656);
  g_assert_cmpint (part->heads, ==, 1);
  g_assert_cmpint (dps_model_n_tensors (part), ==, dps_model_n_tensors (m));
  int T = dps_model_n_tensors (m);
  g_autofree gint64 *foff = g_new (gint64, T), *poff = g_new (gint64, T);
  dps_train_net_layout (m, 1, foff, NULL);
  dps_train_net_layout (part, 1, poff, NULL);
  g_autofree float *whole = g_new (float, m->n_params), *back = g_new0 (float, m->n_params);
  g_autofree float *p0 = g_new (float, part->n_params), *p1 = g_new (float, part->n_params);
  for (gint64 i = 0; i < m->n_params; i++)
    whole[i] = (float) i;
  float *parts[] = { p0, p1 };
  for (int t = 0; t < T; t++) {
    const DpsTensor *x = dps_model_tensor (m, t);
    gint64 rows = x->rows > 0 ? x->rows : 1, cols = x->rows > 0 ? x->cols : x->numel;
    for (int r = 0; r < 2; r++)
      dps_tp_slice (dps_tp_split_of (x->name), whole + foff[t], rows, cols, 2, r, parts[r] + poff[t]);
  }
  dps_tp_unshard (m, part, 2, (const float *const *) parts, back);
  g_assert_cmpmem (back, sizeof (float) * m->n_params, whole, sizeof (float) * m->n_params);
  for (int t = 0; t < T; t++)
    if (g_str_equal (dps_model_tensor (m, t)->name, "h.0.attn.c_attn.weight")) {
      /* row 0 of rank 1's part: q columns 8-15, then k's 24-31 */
      g_assert_cmpfloat (p1[poff[t]], ==, whole[foff[t] + 8]);
      g_assert_cmpfloat (p1[poff[t] + 8], ==, whole[foff[t] + 24]);
    }
  g_autoptr (DpsModel) three = dps_tp_shard_model (m, 3, &e);
  g_assert_null (three);
  g_assert_nonnull (strstr (e->message, "3 does not divide tiny's 2 attention heads"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/shard/layout/padding", test_layout_padding);
  g_test_add_func ("/shard/layout/groups", test_layout_groups);
  g_test_add_func ("/shard/padded-nets", test_padded_nets);
  g_test_add_func ("/shard/program/fsdp", test_program_fsdp);
  g_test_add_func ("/shard/program/tied-embedding-hsdp", test_program_tied);
  g_test_add_func ("/shard/program/ddp-zero", test_program_ddp_zero);
  g_test_add_func ("/shard/coll-names", test_coll_names);
  g_test_add_func ("/shard/tp-split", test_tp_split);
  return g_test_run ();
}
