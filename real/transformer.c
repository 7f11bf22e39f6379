/* transformer.c — the GPT-2 transformer-block stack of the zoo (learned
 * token and position embeddings, pre-LayerNorm blocks of causal
 * multi-head attention and a GELU MLP, a final LayerNorm and an LM head
 * tied to the token embedding), trained on a synthetic next-token task,
 * forward and backward on a device (dev.h: OpenBLAS or CUDA); one kind of
 * DpsTrainNet (train-net.h).
 *
 * The model's layers are the zoo's: 0 the embeddings, 1..nb the blocks,
 * the last ln_f + lm_head (+ the loss).  The tied head's weight gradient
 * gets the head's part in the last layer's backward and the embedding's in
 * layer 0's, so its bucket is complete only at the end of backward, as in
 * DDP.  Conv1D weights are in x out (y = x W + b), as GPT-2 stores them.
 *
 * With tensor parallelism (tensor-parallel.h) the stack is one rank's of
 * a group: its heads and MLP columns, the row-parallel projections' partial
 * outputs and the split's input gradients all-reduced over the group
 * (DpsTrainNet's tp_allreduce), the bias of a row-parallel projection added
 * by rank 0 alone; its initial parameters are the whole stack's, drawn as
 * without the split, then sliced.
 *
 * Synthetic data: each sample is a sequence that follows a fixed rule,
 * token[t+1] = (5 token[t] + 3) mod vocab, from a random first token; the
 * target is the next token.  Learnable, so the loss falls from ln(vocab). */
#include "real/train-net.h"
#include "real/tensor-parallel.h"
#include "real/dev.h"
#include "sim/base/error.h"

#include <math.h>
#include <string.h>

enum { LN1_W, LN1_B, ATTN_W, ATTN_B, PROJ_W, PROJ_B, LN2_W, LN2_B, FC_W, FC_B, FCP_W, FCP_B, N_BLOCK_TENSORS };

static const char *const block_tensor[N_BLOCK_TENSORS] = {
  "ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias", "attn.c_proj.weight", "attn.c_proj.bias",
  "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight", "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias",
};

typedef struct {
  float *x;                  /* input (the residual stream), BT x d */
  float *ln1, *ln1_mean, *ln1_rstd;
  float *qkv;                /* BT x 3d */
  float *att;                /* softmax probabilities, B x H x T x T */
  float *atty;               /* attention output before the projection, BT x d */
  float *x2;                 /* residual after attention, BT x d */
  float *ln2, *ln2_mean, *ln2_rstd;
  float *fch, *fcg;          /* MLP hidden before and after GELU, BT x f */
} Block;

typedef struct {
  DpsTrainNet  base;
  int     nb, T, d, H, f, V, P;   /* blocks, sequence, hidden, heads, ffn, vocab, positions (H and f
                                   * this rank's under tensor parallelism) */
  int     da;                     /* attention's width here: H heads of d / (H tp) */
  gint64  wte, wpe, lnf_w, lnf_b; /* offsets in the flat arrays */
  gint64 (*off)[N_BLOCK_TENSORS]; /* per block */
  int    *tokens, *targets;       /* B x T, on the host */
  int    *dev_tokens, *dev_targets;
  Block  *blk;
  float  *out;                    /* output of the last block, BT x d */
  float  *lnf, *lnf_mean, *lnf_rstd;
  float  *probs;                  /* BT x V: softmax of the logits, then their gradient */
  float  *loss;                   /* BT per-token losses (device), loss_host their copy */
  float  *loss_host;
  float  *dres, *dtmp, *dqkv, *dfc, *datt;
  GPtrArray *buffers;             /* every device buffer, to free */
  gboolean oom;
  /* activation slots (dps_gpt2_slots): what a forward keeps for its
   * backward and the batch it ran on, one set a micro-batch in flight;
   * the fields above hold the slot in use */
  struct Slot {
    Block *blk;
    float *out, *lnf, *lnf_mean, *lnf_rstd, *probs, *loss;
    int   *tokens, *targets, *dev_tokens, *dev_targets;
  } *slots;
  int     n_slots;
} Gpt2;

static const DpsTrainNetOps gpt2_ops;
static float *stream (Gpt2 *n, int i);

/* a block tensor's rows (0: a vector) and elements, for hidden d,
 * attention width da and MLP f (this rank's, tensor-parallel.h) */
static gint64
block_rows (int k, gint64 d, gint64 da, gint64 f)
{
  const gint64 rows[N_BLOCK_TENSORS] = { 0, 0, d, 0, da, 0, 0, 0, d, 0, f, 0 };
  return rows[k];
}

static gint64
block_numel (int k, gint64 d, gint64 da, gint64 f)
{
  const gint64 numel[N_BLOCK_TENSORS] = { d, d, 3 * d * da, 3 * da, da * d, d, d, d, d * f, f, f * d, d };
  return numel[k];
}

static gboolean
find_tensor (const DpsModel *m, const gint64 *toff, const char *name, gint64 rows, gint64 numel, gint64 *off,
             GError **error)
{
  for (int t = 0; t < dps_model_n_tensors (m); t++) {
    const DpsTensor *x = dps_model_tensor (m, t);
    if (g_str_equal (x->name, name)) {
      if (x->numel != numel || (rows && x->rows != rows))
        break;
      *off = toff[t];
      return TRUE;
    }
  }
  g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED,
               "%s: not a GPT-2 stack the runner can train: tensor %s missing or of another shape", m->name, name);
  return FALSE;
}

static void
gpt2_free (DpsTrainNet *base)
{
  Gpt2 *n = (Gpt2 *) base;
  if (n->buffers) {
    for (guint i = 0; i < n->buffers->len; i++)
      base->dev->free (base->dev, n->buffers->pdata[i]);
    g_ptr_array_free (n->buffers, TRUE);
  }
  if (n->slots) {
    for (int k = 0; k < n->n_slots; k++) {
      g_free (n->slots[k].blk);
      g_free (n->slots[k].tokens);
      g_free (n->slots[k].targets);
    }
    g_free (n->slots);
  } else {
    g_free (n->blk);
    g_free (n->tokens);
    g_free (n->targets);
  }
  g_free (n->off);
  g_free (n->loss_host);
  g_free (n);
}

/* a zeroed device buffer of count elements of size each, kept for freeing */
static void *
buffer (Gpt2 *n, gsize count, gsize size)
{
  void *p = n->oom ? NULL : n->base.dev->alloc (n->base.dev, count * size);
  if (p)
    g_ptr_array_add (n->buffers, p);
  else
    n->oom = TRUE;
  return p;
}

#define FLOATS(count) ((float *) buffer (n, (count), sizeof (float)))

/* The stack's shape and its tensors' offsets, found by name in m (in
 * the flat layout padded to pad, dps_train_net_layout); FALSE, with the reason, for a model that is not a
 * GPT-2 stack.  Allocates only n->off. */
static gboolean
gpt2_layout (const DpsModel *m, Gpt2 *n, int pad, GError **error)
{
  int L = dps_model_n_layers (m);
  if (L < 3 || m->heads < 1 || m->seq_len < 1 || dps_model_n_tensors (m) < 2) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "%s: not a GPT-2 stack the runner can train", m->name);
    return FALSE;
  }
  const DpsTensor *wte = dps_model_tensor (m, 0), *wpe = dps_model_tensor (m, 1);
  n->nb = L - 2;
  n->T = m->seq_len;
  n->V = (int) wte->rows;
  n->d = (int) wte->cols;
  n->P = (int) wpe->rows;
  n->H = m->heads;
  gint64 *toff = g_new (gint64, dps_model_n_tensors (m));
  n->base.n_params = dps_train_net_layout (m, pad, toff, NULL);
  n->off = g_malloc0_n (MAX (n->nb, 1), sizeof *n->off);
  gint64 d = n->d;
  gboolean ok = g_str_equal (wpe->name, "wpe.weight") && wpe->cols == d && n->P >= n->T && n->V > 0;
  if (!ok)
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "%s: not a GPT-2 stack the runner can train", m->name);
  n->wte = toff[0];
  n->wpe = toff[1];
  /* the MLP's width from the first block's c_fc weight (d x f), the
   * attention's from its c_attn weight (d x 3 da) */
  for (int t = 0; ok && t < dps_model_n_tensors (m); t++) {
    if (g_str_equal (dps_model_tensor (m, t)->name, "h.0.mlp.c_fc.weight"))
      n->f = (int) dps_model_tensor (m, t)->cols;
    if (g_str_equal (dps_model_tensor (m, t)->name, "h.0.attn.c_attn.weight"))
      n->da = (int) (dps_model_tensor (m, t)->cols / 3);
  }
  if (ok && (n->f <= 0 || n->da <= 0 || n->da % n->H != 0)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "%s: no h.0.mlp.c_fc.weight, or no h.0.attn.c_attn.weight "
                 "of 3 x heads x head width columns", m->name);
    ok = FALSE;
  }
  gint64 f = n->f, da = n->da;
  for (int i = 0; ok && i < n->nb; i++)
    for (int k = 0; ok && k < N_BLOCK_TENSORS; k++) {
      char name[64];
      g_snprintf (name, sizeof name, "h.%d.%s", i, block_tensor[k]);
      ok = find_tensor (m, toff, name, block_rows (k, d, da, f), block_numel (k, d, da, f), &n->off[i][k], error);
    }
  ok = ok && find_tensor (m, toff, "ln_f.weight", 0, d, &n->lnf_w, error)
       && find_tensor (m, toff, "ln_f.bias", 0, d, &n->lnf_b, error);
  g_free (toff);
  return ok;
}

gboolean
dps_gpt2_check (const DpsModel *m, GError **error)
{
  Gpt2 n = { .off = NULL };
  gboolean ok = gpt2_layout (m, &n, 1, error);
  g_free (n.off);
  return ok;
}

/* A slot's buffers: a forward's activations and its batch, at the net's
 * batch. */
static void
slot_alloc (Gpt2 *n, struct Slot *sl)
{
  gsize BT = (gsize) n->base.batch * n->T, att = BT * n->H * n->T;
  gint64 d = n->d, da = n->da, f = n->f;
  sl->tokens = g_new0 (int, BT);
  sl->targets = g_new0 (int, BT);
  sl->dev_tokens = buffer (n, BT, sizeof (int));
  sl->dev_targets = buffer (n, BT, sizeof (int));
  sl->blk = g_new0 (Block, n->nb);
  for (int i = 0; i < n->nb; i++) {
    Block *b = &sl->blk[i];
    b->x = FLOATS (BT * d);
    b->ln1 = FLOATS (BT * d);
    b->ln1_mean = FLOATS (BT);
    b->ln1_rstd = FLOATS (BT);
    b->qkv = FLOATS (BT * 3 * da);
    b->att = FLOATS (att);
    b->atty = FLOATS (BT * da);
    b->x2 = FLOATS (BT * d);
    b->ln2 = FLOATS (BT * d);
    b->ln2_mean = FLOATS (BT);
    b->ln2_rstd = FLOATS (BT);
    b->fch = FLOATS (BT * f);
    b->fcg = FLOATS (BT * f);
  }
  sl->out = FLOATS (BT * d);
  sl->lnf = FLOATS (BT * d);
  sl->lnf_mean = FLOATS (BT);
  sl->lnf_rstd = FLOATS (BT);
  sl->probs = FLOATS (BT * n->V);
  sl->loss = FLOATS (BT);
}

static void
slot_use (Gpt2 *n, const struct Slot *sl)
{
  n->blk = sl->blk;
  n->out = sl->out;
  n->lnf = sl->lnf;
  n->lnf_mean = sl->lnf_mean;
  n->lnf_rstd = sl->lnf_rstd;
  n->probs = sl->probs;
  n->loss = sl->loss;
  n->tokens = sl->tokens;
  n->targets = sl->targets;
  n->dev_tokens = sl->dev_tokens;
  n->dev_targets = sl->dev_targets;
}

gboolean
dps_gpt2_slots (DpsTrainNet *base, int count, GError **error)
{
  Gpt2 *n = (Gpt2 *) base;
  g_return_val_if_fail (g_str_equal (base->kind, "gpt2") && count >= 1 && !n->slots, FALSE);
  n->slots = g_new0 (struct Slot, count);
  n->n_slots = count;
  /* the activations the net was built with are the first slot */
  n->slots[0] = (struct Slot) { n->blk, n->out, n->lnf, n->lnf_mean, n->lnf_rstd, n->probs, n->loss, n->tokens,
                                n->targets, n->dev_tokens, n->dev_targets };
  for (int k = 1; k < count; k++)
    slot_alloc (n, &n->slots[k]);
  if (n->oom) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%d micro-batches' activations at batch %d: out of %s memory",
                 count, base->batch, base->dev->name);
    return FALSE;
  }
  return TRUE;
}

float *
dps_gpt2_input (DpsTrainNet *base, int layer)
{
  Gpt2 *n = (Gpt2 *) base;
  g_return_val_if_fail (layer >= 1 && layer <= n->nb + 1, NULL);
  return stream (n, layer - 1);
}

float *
dps_gpt2_grad (DpsTrainNet *base)
{
  return ((Gpt2 *) base)->dres;
}

void
dps_gpt2_use_slot (DpsTrainNet *base, int slot)
{
  Gpt2 *n = (Gpt2 *) base;
  g_return_if_fail (slot >= 0 && slot < n->n_slots);
  slot_use (n, &n->slots[slot]);
}

/* Builds the stack of a "gpt2" zoo model (gpt2_layout) with GPT-2's
 * initialisation (weights of standard deviation 0.02, zero biases,
 * LayerNorms at identity) from seed; m is rank tp_rank's of a
 * tensor-parallel group of tp (dps_tp_shard_model; tp 1: the whole). */
DpsTrainNet *
dps_gpt2_new (DpsDev *dev, const DpsModel *m, int batch, guint32 seed, int pad, int tp, int tp_rank, GError **error)
{
  Gpt2 *n = g_new0 (Gpt2, 1);
  DpsTrainNet *base = &n->base;
  dps_train_net_init (base, &gpt2_ops, dev, "gpt2", dps_model_n_layers (m), batch);
  n->buffers = g_ptr_array_new ();
  if (!gpt2_layout (m, n, pad, error)) {
    gpt2_free (base);
    return NULL;
  }
  base->tp = tp;
  base->tp_rank = tp_rank;
  gint64 d = n->d, f = n->f, da = n->da;

  /* the initial parameters, drawn on the host: the whole stack's weights
   * in its order, each sliced to this rank's part */
  float *init = g_new0 (float, base->n_params);
  float *whole = g_new (float, MAX (3 * d * d, d * f * tp));
  GRand *r = g_rand_new_with_seed (seed);
  double a = 0.02 * sqrt (3.0);   /* uniform of standard deviation 0.02 */
  dps_train_net_uniform (init + n->wte, (gint64) n->V * d, a, r);
  dps_train_net_uniform (init + n->wpe, (gint64) n->P * d, a, r);
  for (int i = 0; i < n->nb; i++) {
    for (int k = 0; k < N_BLOCK_TENSORS; k++)
      if (block_rows (k, d, da, f)) {
        gint64 rows = block_rows (k, d, d, f * tp), all = block_numel (k, d, d, f * tp);
        dps_train_net_uniform (whole, all, a, r);
        dps_tp_slice (dps_tp_split_of (block_tensor[k]), whole, rows, all / rows, tp, tp_rank, init + n->off[i][k]);
      }
    for (int j = 0; j < d; j++)
      init[n->off[i][LN1_W] + j] = init[n->off[i][LN2_W] + j] = 1;
  }
  for (int j = 0; j < d; j++)
    init[n->lnf_w + j] = 1;
  g_rand_free (r);
  g_free (whole);

  gsize BT = (gsize) batch * n->T, att = BT * n->H * n->T;
  base->params = FLOATS (base->n_params);
  base->grads = FLOATS (base->n_params);
  n->loss_host = g_new0 (float, BT);
  struct Slot one;
  slot_alloc (n, &one);
  slot_use (n, &one);
  n->dres = FLOATS (BT * d);
  n->dtmp = FLOATS (BT * MAX (d, f));
  n->dqkv = FLOATS (BT * 3 * da);
  n->dfc = FLOATS (BT * f);
  n->datt = FLOATS (att);
  if (n->oom) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s at batch %d: out of %s memory", m->name, batch, dev->name);
    g_free (init);
    gpt2_free (base);
    return NULL;
  }
  dev->upload (dev, base->params, init, sizeof (float) * base->n_params);
  g_free (init);
  return base;
}

static void
gpt2_batch (DpsTrainNet *base, guint32 seed, gint64 sample0)
{
  Gpt2 *n = (Gpt2 *) base;
  for (int s = 0; s < base->batch; s++) {
    float u = dps_train_net_noise (seed, (guint64) (sample0 + s));
    int tok = MIN ((int) ((u + 1) / 2 * n->V), n->V - 1);
    for (int t = 0; t < n->T; t++) {
      n->tokens[s * n->T + t] = tok;
      tok = (int) ((5 * (gint64) tok + 3) % n->V);
      n->targets[s * n->T + t] = tok;
    }
  }
  gsize bytes = sizeof (int) * base->batch * n->T;
  base->dev->upload (base->dev, n->dev_tokens, n->tokens, bytes);
  base->dev->upload (base->dev, n->dev_targets, n->targets, bytes);
}

/* the input of block i, or the stack's output for i = nb */
static float *
stream (Gpt2 *n, int i)
{
  return i < n->nb ? n->blk[i].x : n->out;
}

/* y = x W + b: x rows x in, W in x out */
static void
linear (DpsDev *dev, float *y, const float *x, const float *w, const float *b, long rows, int in, int out)
{
  dev->fill_rows (dev, y, b, rows, out);
  dev->gemm (dev, FALSE, FALSE, (int) rows, out, in, 1.0f, x, in, w, out, 1.0f, y, out);
}

/* dW (+)= x^T dy, db (+)= sum of dy's rows, dx = dy W^T (when dx) */
static void
linear_back (DpsDev *dev, float *dx, float *dw, float *db, const float *dy, const float *x, const float *w, long rows,
             int in, int out, gboolean accumulate)
{
  dev->gemm (dev, TRUE, FALSE, in, out, (int) rows, 1.0f, x, in, dy, out, accumulate ? 1.0f : 0.0f, dw, out);
  dev->col_sum (dev, db, dy, rows, out, accumulate);
  if (dx)
    dev->gemm (dev, FALSE, TRUE, (int) rows, in, out, 1.0f, dy, out, w, out, 0.0f, dx, in);
}

/* A partial sum of the tensor-parallel group (rows x cols of x), summed
 * over it in place; nothing without tensor parallelism. */
static void
tp_sum (Gpt2 *n, float *x, long count)
{
  if (n->base.tp > 1)
    n->base.tp_allreduce (x, count, n->base.tp_data);
}

/* y = x W + b of a row-parallel projection: this rank's rows of W, its
 * partial sums over the group, the bias added once (by rank 0) */
static void
linear_rows (Gpt2 *n, float *y, const float *x, const float *w, const float *b, long rows, int in, int out)
{
  DpsDev *dev = n->base.dev;
  if (n->base.tp_rank == 0)
    linear (dev, y, x, w, b, rows, in, out);
  else
    dev->gemm (dev, FALSE, FALSE, (int) rows, out, in, 1.0f, x, in, w, out, 0.0f, y, out);
  tp_sum (n, y, rows * out);
}

static void
block_forward (Gpt2 *n, int i)
{
  DpsDev *dev = n->base.dev;
  Block *b = &n->blk[i];
  const float *p = n->base.params;
  const gint64 *o = n->off[i];
  int T = n->T, d = n->d, da = n->da, H = n->H, hd = da / H, f = n->f;
  long BT = (long) n->base.batch * T, TT = (long) T * T;
  float scale = (float) (1 / sqrt (hd));
  dev->layernorm (dev, b->ln1, b->ln1_mean, b->ln1_rstd, b->x, p + o[LN1_W], p + o[LN1_B], BT, d);
  linear (dev, b->qkv, b->ln1, p + o[ATTN_W], p + o[ATTN_B], BT, d, 3 * da);
  /* per sample, the heads as a batch: S = scale Q K^T, A = causal softmax(S), Y = A V */
  for (int s = 0; s < n->base.batch; s++) {
    const float *q = b->qkv + (long) s * T * 3 * da;
    dev->gemm_batched (dev, FALSE, TRUE, T, T, hd, scale, q, 3 * da, hd, q + da, 3 * da, hd, 0.0f,
                       b->att + s * H * TT, T, TT, H);
  }
  dev->softmax_causal (dev, b->att, BT * H, T);
  for (int s = 0; s < n->base.batch; s++) {
    const float *v = b->qkv + (long) s * T * 3 * da + 2 * da;
    dev->gemm_batched (dev, FALSE, FALSE, T, hd, T, 1.0f, b->att + s * H * TT, T, TT, v, 3 * da, hd, 0.0f,
                       b->atty + (long) s * T * da, da, hd, H);
  }
  linear_rows (n, b->x2, b->atty, p + o[PROJ_W], p + o[PROJ_B], BT, da, d);
  dev->axpy (dev, BT * d, 1.0f, b->x, b->x2);
  dev->layernorm (dev, b->ln2, b->ln2_mean, b->ln2_rstd, b->x2, p + o[LN2_W], p + o[LN2_B], BT, d);
  linear (dev, b->fch, b->ln2, p + o[FC_W], p + o[FC_B], BT, d, f);
  dev->gelu (dev, b->fcg, b->fch, BT * f);
  float *y = stream (n, i + 1);
  linear_rows (n, y, b->fcg, p + o[FCP_W], p + o[FCP_B], BT, f, d);
  dev->axpy (dev, BT * d, 1.0f, b->x2, y);
}

/* dres holds the gradient of the block's output; on return, of its input */
static void
block_backward (Gpt2 *n, int i)
{
  DpsDev *dev = n->base.dev;
  Block *b = &n->blk[i];
  const float *p = n->base.params;
  float *g = n->base.grads;
  const gint64 *o = n->off[i];
  gboolean acc = n->base.accumulate;
  int T = n->T, d = n->d, da = n->da, H = n->H, hd = da / H, f = n->f;
  long BT = (long) n->base.batch * T, TT = (long) T * T;
  float scale = (float) (1 / sqrt (hd));
  /* the MLP: y = x2 + proj(gelu(fc(ln2(x2)))) */
  linear_back (dev, n->dfc, g + o[FCP_W], g + o[FCP_B], n->dres, b->fcg, p + o[FCP_W], BT, f, d, acc);
  dev->gelu_back (dev, n->dfc, b->fch, BT * f);
  linear_back (dev, n->dtmp, g + o[FC_W], g + o[FC_B], n->dfc, b->ln2, p + o[FC_W], BT, d, f, acc);
  tp_sum (n, n->dtmp, BT * d);
  if (!acc) {
    dev->zero (dev, g + o[LN2_W], sizeof (float) * d);
    dev->zero (dev, g + o[LN2_B], sizeof (float) * d);
  }
  dev->layernorm_back (dev, n->dres, g + o[LN2_W], g + o[LN2_B], n->dtmp, b->x2, b->ln2_mean, b->ln2_rstd,
                       p + o[LN2_W], BT, d);
  /* attention: x2 = x + proj(attn(qkv(ln1(x)))); dres is now d x2 */
  linear_back (dev, n->dtmp, g + o[PROJ_W], g + o[PROJ_B], n->dres, b->atty, p + o[PROJ_W], BT, da, d, acc);
  /* dV = A^T dY, dA = dY V^T per sample and head */
  for (int s = 0; s < n->base.batch; s++) {
    long row0 = (long) s * T * 3 * da;
    const float *dy = n->dtmp + (long) s * T * da;
    dev->gemm_batched (dev, TRUE, FALSE, T, hd, T, 1.0f, b->att + s * H * TT, T, TT, dy, da, hd, 0.0f,
                       n->dqkv + row0 + 2 * da, 3 * da, hd, H);
    dev->gemm_batched (dev, FALSE, TRUE, T, T, hd, 1.0f, dy, da, hd, b->qkv + row0 + 2 * da, 3 * da, hd, 0.0f,
                       n->datt + s * H * TT, T, TT, H);
  }
  dev->softmax_causal_back (dev, n->datt, b->att, BT * H, T);
  /* S = scale Q K^T: dQ = scale dS K, dK = scale dS^T Q */
  for (int s = 0; s < n->base.batch; s++) {
    long row0 = (long) s * T * 3 * da;
    const float *q = b->qkv + row0;
    dev->gemm_batched (dev, FALSE, FALSE, T, hd, T, scale, n->datt + s * H * TT, T, TT, q + da, 3 * da, hd, 0.0f,
                       n->dqkv + row0, 3 * da, hd, H);
    dev->gemm_batched (dev, TRUE, FALSE, T, hd, T, scale, n->datt + s * H * TT, T, TT, q, 3 * da, hd, 0.0f,
                       n->dqkv + row0 + da, 3 * da, hd, H);
  }
  linear_back (dev, n->dtmp, g + o[ATTN_W], g + o[ATTN_B], n->dqkv, b->ln1, p + o[ATTN_W], BT, d, 3 * da, acc);
  tp_sum (n, n->dtmp, BT * d);
  if (!acc) {
    dev->zero (dev, g + o[LN1_W], sizeof (float) * d);
    dev->zero (dev, g + o[LN1_B], sizeof (float) * d);
  }
  dev->layernorm_back (dev, n->dres, g + o[LN1_W], g + o[LN1_B], n->dtmp, b->x, b->ln1_mean, b->ln1_rstd,
                       p + o[LN1_W], BT, d);
}

static void
gpt2_forward_layer (DpsTrainNet *base, int l)
{
  Gpt2 *n = (Gpt2 *) base;
  DpsDev *dev = base->dev;
  const float *p = base->params;
  long BT = (long) base->batch * n->T;
  if (l == 0)       /* token and position embeddings */
    dev->embed (dev, stream (n, 0), p + n->wte, p + n->wpe, n->dev_tokens, BT, n->T, n->d);
  else if (l <= n->nb)
    block_forward (n, l - 1);
  else {            /* ln_f and the tied head: logits = ln_f(out) wte^T, kept in probs */
    dev->layernorm (dev, n->lnf, n->lnf_mean, n->lnf_rstd, n->out, p + n->lnf_w, p + n->lnf_b, BT, n->d);
    dev->gemm (dev, FALSE, TRUE, (int) BT, n->V, n->d, 1.0f, n->lnf, n->d, p + n->wte, n->d, 0.0f, n->probs, n->V);
  }
}

/* Mean cross-entropy of the next tokens; probs becomes the gradient of
 * the logits, (softmax - one-hot) / (batch x sequence). */
static double
gpt2_loss_grad (DpsTrainNet *base)
{
  Gpt2 *n = (Gpt2 *) base;
  long BT = (long) base->batch * n->T;
  base->dev->xent (base->dev, n->probs, n->dev_targets, n->loss, BT, n->V);
  base->dev->download (base->dev, n->loss_host, n->loss, sizeof (float) * BT);
  double loss = 0;
  for (long r = 0; r < BT; r++)
    loss += n->loss_host[r];
  return loss / BT;
}

static void
gpt2_backward_layer (DpsTrainNet *base, int l)
{
  Gpt2 *n = (Gpt2 *) base;
  DpsDev *dev = base->dev;
  const float *p = base->params;
  float *g = base->grads;
  int d = n->d;
  long BT = (long) base->batch * n->T;
  if (l == base->n_layers - 1) {
    /* the head: dwte (+)= dlogits^T ln_f, d ln_f = dlogits wte */
    dev->gemm (dev, TRUE, FALSE, n->V, d, (int) BT, 1.0f, n->probs, n->V, n->lnf, d, base->accumulate ? 1.0f : 0.0f,
               g + n->wte, d);
    dev->gemm (dev, FALSE, FALSE, (int) BT, d, n->V, 1.0f, n->probs, n->V, p + n->wte, d, 0.0f, n->dtmp, d);
    if (!base->accumulate) {
      dev->zero (dev, g + n->lnf_w, sizeof (float) * d);
      dev->zero (dev, g + n->lnf_b, sizeof (float) * d);
    }
    dev->zero (dev, n->dres, sizeof (float) * BT * d);
    dev->layernorm_back (dev, n->dres, g + n->lnf_w, g + n->lnf_b, n->dtmp, n->out, n->lnf_mean, n->lnf_rstd,
                         p + n->lnf_w, BT, d);
  } else if (l >= 1)
    block_backward (n, l - 1);
  else {            /* embeddings: into the token and position rows */
    if (!base->accumulate)
      dev->zero (dev, g + n->wpe, sizeof (float) * n->P * d);
    dev->embed_back (dev, g + n->wte, g + n->wpe, n->dres, n->dev_tokens, BT, n->T, d);
  }
}

static const DpsTrainNetOps gpt2_ops = {
  gpt2_batch, gpt2_forward_layer, gpt2_loss_grad, gpt2_backward_layer, gpt2_free,
};
