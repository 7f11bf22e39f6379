/* transformer.c — the GPT-2 transformer-block stack of the zoo (learned
 * token and position embeddings, pre-LayerNorm blocks of causal
 * multi-head attention and a GELU MLP, a final LayerNorm and an LM head
 * tied to the token embedding), trained on a synthetic next-token task,
 * forward and backward with OpenBLAS; one kind of DpsTrainNet (train-net.h).
 *
 * The model's layers are the zoo's: 0 the embeddings, 1..nb the blocks,
 * the last ln_f + lm_head (+ the loss).  The tied head's weight gradient
 * gets the head's part in the last layer's backward and the embedding's in
 * layer 0's, so its bucket is complete only at the end of backward, as in
 * DDP.  Conv1D weights are in x out (y = x W + b), as GPT-2 stores them.
 *
 * Synthetic data: each sample is a sequence that follows a fixed rule,
 * token[t+1] = (5 token[t] + 3) mod vocab, from a random first token; the
 * target is the next token.  Learnable, so the loss falls from ln(vocab). */
#include "train-net.h"
#include "error.h"

#include <cblas.h>
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
  int     nb, T, d, H, f, V, P;   /* blocks, sequence, hidden, heads, ffn, vocab, positions */
  gint64  wte, wpe, lnf_w, lnf_b; /* offsets in the flat arrays */
  gint64 (*off)[N_BLOCK_TENSORS]; /* per block */
  int    *tokens, *targets;       /* B x T */
  Block  *blk;
  float  *out;                    /* output of the last block, BT x d */
  float  *lnf, *lnf_mean, *lnf_rstd;
  float  *probs;                  /* BT x V: softmax of the logits, then their gradient */
  float  *dres, *dtmp, *dqkv, *dfc, *datt;
} Gpt2;

static const DpsTrainNetOps gpt2_ops;

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
  if (n->blk)
    for (int i = 0; i < n->nb; i++) {
      Block *b = &n->blk[i];
      float *all[] = { b->x, b->ln1, b->ln1_mean, b->ln1_rstd, b->qkv, b->att, b->atty, b->x2,
                       b->ln2, b->ln2_mean, b->ln2_rstd, b->fch, b->fcg };
      for (gsize k = 0; k < G_N_ELEMENTS (all); k++)
        g_free (all[k]);
    }
  g_free (n->blk);
  g_free (n->off);
  g_free (n->tokens);
  g_free (n->targets);
  g_free (n->out);
  g_free (n->lnf);
  g_free (n->lnf_mean);
  g_free (n->lnf_rstd);
  g_free (n->probs);
  g_free (n->dres);
  g_free (n->dtmp);
  g_free (n->dqkv);
  g_free (n->dfc);
  g_free (n->datt);
  g_free (base->params);
  g_free (base->grads);
  g_free (n);
}

/* Builds the stack of a "gpt2" zoo model: its tensors found by name (their
 * offsets in definition order), GPT-2's initialisation (weights of
 * standard deviation 0.02, zero biases, LayerNorms at identity) from seed. */
DpsTrainNet *
dps_gpt2_new (const DpsModel *m, int batch, guint32 seed, GError **error)
{
  int L = dps_model_n_layers (m);
  if (L < 3 || m->heads < 1 || m->seq_len < 1 || dps_model_n_tensors (m) < 2) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "%s: not a GPT-2 stack the runner can train", m->name);
    return NULL;
  }
  const DpsTensor *wte = dps_model_tensor (m, 0), *wpe = dps_model_tensor (m, 1);
  Gpt2 *n = g_new0 (Gpt2, 1);
  DpsTrainNet *base = &n->base;
  base->ops = &gpt2_ops;
  base->kind = "gpt2";
  base->n_layers = L;
  base->batch = batch;
  n->nb = L - 2;
  n->T = m->seq_len;
  n->V = (int) wte->rows;
  n->d = (int) wte->cols;
  n->P = (int) wpe->rows;
  n->H = m->heads;
  gint64 *toff = g_new (gint64, dps_model_n_tensors (m) + 1);
  toff[0] = 0;
  for (int t = 0; t < dps_model_n_tensors (m); t++)
    toff[t + 1] = toff[t] + dps_model_tensor (m, t)->numel;
  base->n_params = toff[dps_model_n_tensors (m)];
  n->off = g_malloc0_n (MAX (n->nb, 1), sizeof *n->off);
  gint64 d = n->d;
  gboolean ok = g_str_equal (wpe->name, "wpe.weight") && wpe->cols == d && n->P >= n->T && d % n->H == 0
                && n->V > 0;
  if (!ok)
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "%s: not a GPT-2 stack the runner can train", m->name);
  n->wte = toff[0];
  n->wpe = toff[1];
  /* the MLP's width from the first block's c_fc weight (d x f) */
  for (int t = 0; ok && t < dps_model_n_tensors (m); t++)
    if (g_str_equal (dps_model_tensor (m, t)->name, "h.0.mlp.c_fc.weight"))
      n->f = (int) dps_model_tensor (m, t)->cols;
  if (ok && n->f <= 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "%s: no h.0.mlp.c_fc.weight", m->name);
    ok = FALSE;
  }
  gint64 f = n->f;
  const gint64 rows[N_BLOCK_TENSORS] = { 0, 0, d, 0, d, 0, 0, 0, d, 0, f, 0 };
  const gint64 numel[N_BLOCK_TENSORS] = { d, d, 3 * d * d, 3 * d, d * d, d, d, d, d * f, f, f * d, d };
  for (int i = 0; ok && i < n->nb; i++)
    for (int k = 0; ok && k < N_BLOCK_TENSORS; k++) {
      char name[64];
      g_snprintf (name, sizeof name, "h.%d.%s", i, block_tensor[k]);
      ok = find_tensor (m, toff, name, rows[k], numel[k], &n->off[i][k], error);
    }
  ok = ok && find_tensor (m, toff, "ln_f.weight", 0, d, &n->lnf_w, error)
       && find_tensor (m, toff, "ln_f.bias", 0, d, &n->lnf_b, error);
  g_free (toff);
  if (!ok) {
    gpt2_free (base);
    return NULL;
  }

  base->params = g_new0 (float, base->n_params);
  base->grads = g_new0 (float, base->n_params);
  GRand *r = g_rand_new_with_seed (seed);
  double a = 0.02 * sqrt (3.0);   /* uniform of standard deviation 0.02 */
  dps_train_net_uniform (base->params + n->wte, (gint64) n->V * d, a, r);
  dps_train_net_uniform (base->params + n->wpe, (gint64) n->P * d, a, r);
  for (int i = 0; i < n->nb; i++) {
    for (int k = 0; k < N_BLOCK_TENSORS; k++)
      if (rows[k])
        dps_train_net_uniform (base->params + n->off[i][k], numel[k], a, r);
    for (int j = 0; j < d; j++)
      base->params[n->off[i][LN1_W] + j] = base->params[n->off[i][LN2_W] + j] = 1;
  }
  for (int j = 0; j < d; j++)
    base->params[n->lnf_w + j] = 1;
  g_rand_free (r);

  gsize BT = (gsize) batch * n->T;
  n->tokens = g_new0 (int, BT);
  n->targets = g_new0 (int, BT);
  n->blk = g_new0 (Block, n->nb);
  for (int i = 0; i < n->nb; i++) {
    Block *b = &n->blk[i];
    b->x = g_new0 (float, BT * d);
    b->ln1 = g_new0 (float, BT * d);
    b->ln1_mean = g_new0 (float, BT);
    b->ln1_rstd = g_new0 (float, BT);
    b->qkv = g_new0 (float, BT * 3 * d);
    b->att = g_new0 (float, BT * n->H * n->T);
    b->atty = g_new0 (float, BT * d);
    b->x2 = g_new0 (float, BT * d);
    b->ln2 = g_new0 (float, BT * d);
    b->ln2_mean = g_new0 (float, BT);
    b->ln2_rstd = g_new0 (float, BT);
    b->fch = g_new0 (float, BT * f);
    b->fcg = g_new0 (float, BT * f);
  }
  n->out = g_new0 (float, BT * d);
  n->lnf = g_new0 (float, BT * d);
  n->lnf_mean = g_new0 (float, BT);
  n->lnf_rstd = g_new0 (float, BT);
  n->probs = g_new0 (float, BT * n->V);
  n->dres = g_new0 (float, BT * d);
  n->dtmp = g_new0 (float, BT * MAX (d, f));
  n->dqkv = g_new0 (float, BT * 3 * d);
  n->dfc = g_new0 (float, BT * f);
  n->datt = g_new0 (float, (gsize) n->T * n->T);
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
}

/* the input of block i, or the stack's output for i = nb */
static float *
stream (Gpt2 *n, int i)
{
  return i < n->nb ? n->blk[i].x : n->out;
}

/* y = LayerNorm(x) w + b over rows of d, keeping each row's mean and
 * 1/standard deviation for backward */
static void
layernorm (float *y, float *mean, float *rstd, const float *x, const float *w, const float *b, gsize rows, int d)
{
  for (gsize r = 0; r < rows; r++) {
    const float *xr = x + r * d;
    double m = 0, v = 0;
    for (int j = 0; j < d; j++)
      m += xr[j];
    m /= d;
    for (int j = 0; j < d; j++)
      v += (xr[j] - m) * (xr[j] - m);
    double s = 1 / sqrt (v / d + 1e-5);
    for (int j = 0; j < d; j++)
      y[r * d + j] = (float) ((xr[j] - m) * s) * w[j] + b[j];
    mean[r] = (float) m;
    rstd[r] = (float) s;
  }
}

/* dx += LayerNorm backward of dy; dw, db += their gradients */
static void
layernorm_back (float *dx, float *dw, float *db, const float *dy, const float *x, const float *mean,
                const float *rstd, const float *w, gsize rows, int d)
{
  for (gsize r = 0; r < rows; r++) {
    const float *xr = x + r * d, *g = dy + r * d;
    double sum = 0, sum_xh = 0;
    for (int j = 0; j < d; j++) {
      double xh = (xr[j] - mean[r]) * rstd[r], dxh = g[j] * w[j];
      sum += dxh;
      sum_xh += dxh * xh;
      dw[j] += (float) (g[j] * xh);
      db[j] += g[j];
    }
    sum /= d;
    sum_xh /= d;
    for (int j = 0; j < d; j++) {
      double xh = (xr[j] - mean[r]) * rstd[r];
      dx[r * d + j] += (float) (rstd[r] * (g[j] * w[j] - sum - xh * sum_xh));
    }
  }
}

/* y = x W + b: x rows x in, W in x out */
static void
linear (float *y, const float *x, const float *w, const float *b, gsize rows, int in, int out)
{
  for (gsize r = 0; r < rows; r++)
    memcpy (y + r * out, b, sizeof (float) * out);
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) rows, out, in, 1.0f, x, in, w, out, 1.0f, y, out);
}

/* dW (+)= x^T dy, db (+)= sum of dy's rows, dx = dy W^T (when dx) */
static void
linear_back (float *dx, float *dw, float *db, const float *dy, const float *x, const float *w, gsize rows, int in,
             int out, gboolean accumulate)
{
  cblas_sgemm (CblasRowMajor, CblasTrans, CblasNoTrans, in, out, (int) rows, 1.0f, x, in, dy, out,
               accumulate ? 1.0f : 0.0f, dw, out);
  if (!accumulate)
    memset (db, 0, sizeof (float) * out);
  for (gsize r = 0; r < rows; r++)
    for (int j = 0; j < out; j++)
      db[j] += dy[r * out + j];
  if (dx)
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, (int) rows, in, out, 1.0f, dy, out, w, out, 0.0f, dx, in);
}

#define GELU_C 0.7978845608028654   /* sqrt(2 / pi) */

static void
block_forward (Gpt2 *n, int i)
{
  Block *b = &n->blk[i];
  const float *p = n->base.params;
  const gint64 *o = n->off[i];
  int T = n->T, d = n->d, H = n->H, hd = d / H, f = n->f;
  gsize BT = (gsize) n->base.batch * T;
  float scale = (float) (1 / sqrt (hd));
  layernorm (b->ln1, b->ln1_mean, b->ln1_rstd, b->x, p + o[LN1_W], p + o[LN1_B], BT, d);
  linear (b->qkv, b->ln1, p + o[ATTN_W], p + o[ATTN_B], BT, d, 3 * d);
  for (int s = 0; s < n->base.batch; s++)
    for (int h = 0; h < H; h++) {
      const float *q = b->qkv + (gsize) s * T * 3 * d + h * hd, *k = q + d, *v = q + 2 * d;
      float *a = b->att + ((gsize) s * H + h) * T * T;
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, T, T, hd, scale, q, 3 * d, k, 3 * d, 0.0f, a, T);
      for (int t = 0; t < T; t++) {   /* causal softmax of row t over positions 0..t */
        float *row = a + (gsize) t * T, mx = row[0];
        for (int u = 1; u <= t; u++)
          mx = MAX (mx, row[u]);
        double sum = 0;
        for (int u = 0; u <= t; u++) {
          row[u] = expf (row[u] - mx);
          sum += row[u];
        }
        for (int u = 0; u <= t; u++)
          row[u] = (float) (row[u] / sum);
        for (int u = t + 1; u < T; u++)
          row[u] = 0;
      }
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, T, hd, T, 1.0f, a, T, v, 3 * d, 0.0f,
                   b->atty + (gsize) s * T * d + h * hd, d);
    }
  linear (b->x2, b->atty, p + o[PROJ_W], p + o[PROJ_B], BT, d, d);
  for (gsize j = 0; j < BT * d; j++)
    b->x2[j] += b->x[j];
  layernorm (b->ln2, b->ln2_mean, b->ln2_rstd, b->x2, p + o[LN2_W], p + o[LN2_B], BT, d);
  linear (b->fch, b->ln2, p + o[FC_W], p + o[FC_B], BT, d, f);
  for (gsize j = 0; j < BT * f; j++) {
    float x = b->fch[j];
    b->fcg[j] = 0.5f * x * (1 + tanhf ((float) GELU_C * (x + 0.044715f * x * x * x)));
  }
  float *y = stream (n, i + 1);
  linear (y, b->fcg, p + o[FCP_W], p + o[FCP_B], BT, f, d);
  for (gsize j = 0; j < BT * d; j++)
    y[j] += b->x2[j];
}

/* dres holds the gradient of the block's output; on return, of its input */
static void
block_backward (Gpt2 *n, int i)
{
  Block *b = &n->blk[i];
  const float *p = n->base.params;
  float *g = n->base.grads;
  const gint64 *o = n->off[i];
  gboolean acc = n->base.accumulate;
  int T = n->T, d = n->d, H = n->H, hd = d / H, f = n->f;
  gsize BT = (gsize) n->base.batch * T;
  float scale = (float) (1 / sqrt (hd));
  /* the MLP: y = x2 + proj(gelu(fc(ln2(x2)))) */
  linear_back (n->dfc, g + o[FCP_W], g + o[FCP_B], n->dres, b->fcg, p + o[FCP_W], BT, f, d, acc);
  for (gsize j = 0; j < BT * f; j++) {
    float x = b->fch[j], u = (float) GELU_C * (x + 0.044715f * x * x * x), th = tanhf (u);
    float du = (float) GELU_C * (1 + 3 * 0.044715f * x * x);
    n->dfc[j] *= 0.5f * (1 + th) + 0.5f * x * (1 - th * th) * du;
  }
  linear_back (n->dtmp, g + o[FC_W], g + o[FC_B], n->dfc, b->ln2, p + o[FC_W], BT, d, f, acc);
  if (!acc) {
    memset (g + o[LN2_W], 0, sizeof (float) * d);
    memset (g + o[LN2_B], 0, sizeof (float) * d);
  }
  layernorm_back (n->dres, g + o[LN2_W], g + o[LN2_B], n->dtmp, b->x2, b->ln2_mean, b->ln2_rstd, p + o[LN2_W], BT, d);
  /* attention: x2 = x + proj(attn(qkv(ln1(x)))); dres is now d x2 */
  linear_back (n->dtmp, g + o[PROJ_W], g + o[PROJ_B], n->dres, b->atty, p + o[PROJ_W], BT, d, d, acc);
  for (int s = 0; s < n->base.batch; s++)
    for (int h = 0; h < H; h++) {
      gsize row0 = (gsize) s * T * 3 * d + h * hd;
      const float *q = b->qkv + row0, *k = q + d, *v = q + 2 * d;
      float *dq = n->dqkv + row0, *dk = dq + d, *dv = dq + 2 * d;
      const float *a = b->att + ((gsize) s * H + h) * T * T, *dy = n->dtmp + (gsize) s * T * d + h * hd;
      /* dV = A^T dY; dA = dY V^T */
      cblas_sgemm (CblasRowMajor, CblasTrans, CblasNoTrans, T, hd, T, 1.0f, a, T, dy, d, 0.0f, dv, 3 * d);
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, T, T, hd, 1.0f, dy, d, v, 3 * d, 0.0f, n->datt, T);
      /* softmax backward: dS = A (dA - sum_u A dA), zero where masked */
      for (int t = 0; t < T; t++) {
        const float *ar = a + (gsize) t * T;
        float *dr = n->datt + (gsize) t * T;
        double dot = 0;
        for (int u = 0; u <= t; u++)
          dot += ar[u] * dr[u];
        for (int u = 0; u <= t; u++)
          dr[u] = ar[u] * (float) (dr[u] - dot);
        for (int u = t + 1; u < T; u++)
          dr[u] = 0;
      }
      /* S = scale Q K^T: dQ = scale dS K, dK = scale dS^T Q */
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, T, hd, T, scale, n->datt, T, k, 3 * d, 0.0f, dq, 3 * d);
      cblas_sgemm (CblasRowMajor, CblasTrans, CblasNoTrans, T, hd, T, scale, n->datt, T, q, 3 * d, 0.0f, dk, 3 * d);
    }
  linear_back (n->dtmp, g + o[ATTN_W], g + o[ATTN_B], n->dqkv, b->ln1, p + o[ATTN_W], BT, d, 3 * d, acc);
  if (!acc) {
    memset (g + o[LN1_W], 0, sizeof (float) * d);
    memset (g + o[LN1_B], 0, sizeof (float) * d);
  }
  layernorm_back (n->dres, g + o[LN1_W], g + o[LN1_B], n->dtmp, b->x, b->ln1_mean, b->ln1_rstd, p + o[LN1_W], BT, d);
}

static void
gpt2_forward_layer (DpsTrainNet *base, int l)
{
  Gpt2 *n = (Gpt2 *) base;
  const float *p = base->params;
  int T = n->T, d = n->d;
  gsize BT = (gsize) base->batch * T;
  if (l == 0) {   /* token and position embeddings */
    float *x = stream (n, 0);
    for (gsize r = 0; r < BT; r++) {
      const float *te = p + n->wte + (gsize) n->tokens[r] * d, *pe = p + n->wpe + (gsize) (r % T) * d;
      for (int j = 0; j < d; j++)
        x[r * d + j] = te[j] + pe[j];
    }
  } else if (l <= n->nb)
    block_forward (n, l - 1);
  else {          /* ln_f and the tied head: logits = ln_f(out) wte^T, kept in probs */
    layernorm (n->lnf, n->lnf_mean, n->lnf_rstd, n->out, p + n->lnf_w, p + n->lnf_b, BT, d);
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, (int) BT, n->V, d, 1.0f, n->lnf, d, p + n->wte, d, 0.0f,
                 n->probs, n->V);
  }
}

/* Mean cross-entropy of the next tokens; probs becomes the gradient of
 * the logits, (softmax - one-hot) / (batch x sequence). */
static double
gpt2_loss_grad (DpsTrainNet *base)
{
  Gpt2 *n = (Gpt2 *) base;
  gsize BT = (gsize) base->batch * n->T;
  double loss = 0;
  for (gsize r = 0; r < BT; r++) {
    float *z = n->probs + r * n->V, mx = z[0];
    for (int j = 1; j < n->V; j++)
      mx = MAX (mx, z[j]);
    double sum = 0;
    for (int j = 0; j < n->V; j++) {
      z[j] = expf (z[j] - mx);
      sum += z[j];
    }
    int y = n->targets[r];
    loss -= log (z[y] / sum);
    for (int j = 0; j < n->V; j++)
      z[j] = (float) (z[j] / sum / BT);
    z[y] -= 1.0f / BT;
  }
  return loss / BT;
}

static void
gpt2_backward_layer (DpsTrainNet *base, int l)
{
  Gpt2 *n = (Gpt2 *) base;
  const float *p = base->params;
  float *g = base->grads;
  int T = n->T, d = n->d;
  gsize BT = (gsize) base->batch * T;
  if (l == base->n_layers - 1) {
    /* the head: dwte (+)= dlogits^T ln_f, d ln_f = dlogits wte */
    cblas_sgemm (CblasRowMajor, CblasTrans, CblasNoTrans, n->V, d, (int) BT, 1.0f, n->probs, n->V, n->lnf, d,
                 base->accumulate ? 1.0f : 0.0f, g + n->wte, d);
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) BT, d, n->V, 1.0f, n->probs, n->V, p + n->wte, d,
                 0.0f, n->dtmp, d);
    if (!base->accumulate) {
      memset (g + n->lnf_w, 0, sizeof (float) * d);
      memset (g + n->lnf_b, 0, sizeof (float) * d);
    }
    memset (n->dres, 0, sizeof (float) * BT * d);
    layernorm_back (n->dres, g + n->lnf_w, g + n->lnf_b, n->dtmp, n->out, n->lnf_mean, n->lnf_rstd, p + n->lnf_w, BT,
                    d);
  } else if (l >= 1)
    block_backward (n, l - 1);
  else {          /* embeddings: scatter into the token and position rows */
    if (!base->accumulate)
      memset (g + n->wpe, 0, sizeof (float) * n->P * d);
    for (gsize r = 0; r < BT; r++) {
      float *te = g + n->wte + (gsize) n->tokens[r] * d, *pe = g + n->wpe + (gsize) (r % T) * d;
      for (int j = 0; j < d; j++) {
        te[j] += n->dres[r * d + j];
        pe[j] += n->dres[r * d + j];
      }
    }
  }
}

static const DpsTrainNetOps gpt2_ops = {
  gpt2_batch, gpt2_forward_layer, gpt2_loss_grad, gpt2_backward_layer, gpt2_free,
};
