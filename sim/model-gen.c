/* model-gen.c — see model-gen.h.
 *
 * FLOPs count a multiply-add as 2.  Transformer activations per token and
 * layer follow Korthikanti et al. 2022 ("Reducing activation recomputation
 * in large transformer models"): s b h (34 + 5 a s / h) bytes for a
 * sequence of s tokens, hidden size h and a heads, at 2 bytes an element.
 * Convolutions keep their output, the batch norm's and the ReLU's: 3 maps.
 *
 * Kernels (model.h): what each layer launches in PyTorch eager training
 * (AMP, no torch.compile), counted per token or per output element:
 * - a linear layer reads its input and writes its output (the bias is
 *   the GEMM's epilogue); attention's two batched GEMMs per head read Q,
 *   K, V and the probabilities and write the scores and the output;
 * - memory-bound passes, each reading and writing its tensor: LayerNorm
 *   2 elements per element, dropout 2.5 (its mask), a residual add 3,
 *   GELU on the FFN 2, softmax 2 and its dropout 2.5 on a x s scores per
 *   token; RMSNorm as Hugging Face writes it (pow, mean, rsqrt, two
 *   multiplies: 5 passes) and SwiGLU 3 per FFN element;
 * - a training batch norm reads its input twice (statistics, then
 *   normalise) and writes once: 3; ReLU 2; the block's add 3. */
#include "sim/model-gen.h"

/* The work of one transformer block on sq tokens: its linear layers
 * (mm weight elements, 2 x mm FLOPs and gemm_io activation elements per
 * token; mm_over_k: their weight elements each over its input features,
 * so that mm_over_k / mm is the FLOP-weighted mean of 1 / K; of it,
 * row_over_k from the two GEMMs Megatron splits along K, attention's
 * output projection and the MLP's second: hidden x K weights over K, 2
 * hidden), attention over sq positions (the scores written and the
 * probabilities read: a s^2 each), and mem_per_token elements of memory-bound passes per token, of
 * which ffn_per_token (in n_ffn passes: the MLP's activation, split with
 * its columns) and score_per_token (in n_score passes: softmax, its
 * dropout) over the scores. */
static void
block_kernels (DpsModel *m, gint64 sq, gint64 d, int heads, double mm, double gemm_io, int n_gemm, double mm_over_k,
               double row_over_k, double mem_per_token, int n_mem, double ffn_per_token, int n_ffn,
               double score_per_token, int n_score)
{
  dps_model_add_kernel (m, DPS_KERNEL_GEMM, sq * 2.0 * mm, sq * gemm_io, mm, n_gemm);
  dps_model_kernel_set_inv_k (m, mm_over_k / mm);
  dps_model_kernel_set_inv_k_row (m, row_over_k / mm);
  dps_model_kernel_set_inv_rows (m, 1.0 / sq);
  dps_model_add_kernel (m, DPS_KERNEL_ATTENTION, 4.0 * sq * sq * d, 4.0 * sq * d + 2.0 * heads * sq * sq, 0, 2);
  dps_model_kernel_set_score_bytes (m, 2.0 * heads * sq * sq);
  dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, sq * (mem_per_token - score_per_token - ffn_per_token), 0,
                        n_mem - n_score - n_ffn);
  dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, sq * ffn_per_token, 0, n_ffn);
  dps_model_kernel_set_tp_split (m);
  dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, sq * score_per_token, 0, n_score);
  dps_model_kernel_set_score_bytes (m, sq * score_per_token);
}

/* What a transformer block's activations hold beyond their total: its
 * attention's score and probability matrices (5 a s^2 bytes per sample of
 * Korthikanti et al.'s 34 s h + 5 a s^2: the scores, the softmax and the
 * dropout mask), and its input (2 s h bytes: what checkpointing keeps). */
static void
block_memory (DpsModel *m, int layer, gint64 sq, gint64 d, int heads)
{
  DpsLayer *l = &g_array_index (m->layers, DpsLayer, layer);
  l->attn_act_bytes = 5.0 * heads * sq * sq;
  l->input_bytes = 2.0 * sq * d;
}

/* The final norm, the vocabulary projection and the loss (log-softmax
 * and its gather over the logits: 3 elements per logit); the layer's
 * logits, sq x v a sample, are what the loss holds memory for. */
static void
lm_head_kernels (DpsModel *m, gint64 sq, gint64 d, gint64 v)
{
  g_array_index (m->layers, DpsLayer, m->layers->len - 1).logits = (double) sq * v;
  dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, sq * 2.0 * d, 0, 1);
  dps_model_add_kernel (m, DPS_KERNEL_GEMM, sq * 2.0 * d * v, sq * (double) (d + v), (double) d * v, 1);
  dps_model_kernel_set_inv_k (m, 1.0 / d);
  dps_model_kernel_set_inv_rows (m, 1.0 / sq);
  dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, sq * 3.0 * v, 0, 3);
  dps_model_kernel_set_tp_split (m);   /* over the vocabulary (Megatron's vocab-parallel cross entropy) */
}

/* Transformer blocks as GPT-2 (Conv1D with biases, learned positions, tied
 * head), BERT (HF BertModel with pooler) and Llama (RMSNorm, SwiGLU, untied
 * head; Mistral and Qwen2 are the same blocks, Qwen2 with q/k/v biases)
 * define them.  Grouped-query attention: k and v project to kv_heads x
 * head_dim.  A tied head adds FLOPs but no tensor (parameters() lists a
 * shared weight once); an untied one adds lm_head.weight last. */
DpsModel *
dps_model_gen_transformer (const char *name, const DpsTransformerShape *s)
{
  DpsModel *m = dps_model_new (name);
  gint64 d = s->hidden, f = s->ffn, v = s->vocab, sq = s->seq;
  gint64 hd = s->head_dim ? s->head_dim : s->hidden / s->heads;
  gint64 q = s->heads * hd, kv = (s->kv_heads ? s->kv_heads : s->heads) * hd;
  gboolean tied = s->tie == DPS_TIE_YES || (s->tie == DPS_TIE_DEFAULT && s->kind == DPS_TF_GPT2);
  m->seq_len = s->seq;
  m->heads = s->heads;
  double act_block = sq * d * 34.0 + 5.0 * s->heads * sq * sq;
  double io_block = sq * d * 16.0;
  char n[128];
  switch (s->kind) {
  case DPS_TF_GPT2:
    dps_model_add_layer (m, "embeddings", 0, sq * d * 2.0, sq * d * 4.0);
    /* two gathers, their sum, dropout */
    dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, sq * d * 9.5, 0, 4);
    dps_model_add_tensor (m, "wte.weight", v, d);
    dps_model_add_tensor (m, "wpe.weight", s->max_positions, d);
    for (int i = 0; i < s->layers; i++) {
      g_snprintf (n, sizeof n, "h.%d", i);
      double mm = 3 * d * d + d * d + 2 * d * f;
      block_memory (m, dps_model_add_layer (m, n, sq * (2 * mm + 4.0 * sq * d), act_block, io_block), sq, d, s->heads);
      /* c_attn, c_proj, c_fc, c_proj; ln x 2, softmax, dropout x 3, residual x 2, GELU */
      block_kernels (m, sq, d, s->heads, mm, 8.0 * d + 2.0 * f, 4, 5.0 * d + f, 2.0 * d,
                     15.0 * d + 2.0 * f + 4.5 * s->heads * sq, 10, 2.0 * f, 1, 4.5 * s->heads * sq, 2);
#define T(suffix, r, c) g_snprintf (n, sizeof n, "h.%d." suffix, i), dps_model_add_tensor (m, n, r, c)
#define V(suffix, k) g_snprintf (n, sizeof n, "h.%d." suffix, i), dps_model_add_vector (m, n, k)
      V ("ln_1.weight", d); V ("ln_1.bias", d);
      T ("attn.c_attn.weight", d, 3 * d); V ("attn.c_attn.bias", 3 * d);
      T ("attn.c_proj.weight", d, d); V ("attn.c_proj.bias", d);
      V ("ln_2.weight", d); V ("ln_2.bias", d);
      T ("mlp.c_fc.weight", d, f); V ("mlp.c_fc.bias", f);
      T ("mlp.c_proj.weight", f, d); V ("mlp.c_proj.bias", d);
    }
    dps_model_add_layer (m, "ln_f+lm_head", sq * 2.0 * d * v, sq * v * 2.0, sq * v * 4.0);
    lm_head_kernels (m, sq, d, v);
    dps_model_add_vector (m, "ln_f.weight", d);
    dps_model_add_vector (m, "ln_f.bias", d);
    if (!tied)
      dps_model_add_tensor (m, "lm_head.weight", v, d);
    break;
  case DPS_TF_BERT:
    dps_model_add_layer (m, "embeddings", 0, sq * d * 4.0, sq * d * 8.0);
    /* three gathers, two adds, LayerNorm, dropout */
    dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, sq * d * 16.5, 0, 7);
    dps_model_add_tensor (m, "embeddings.word_embeddings.weight", v, d);
    dps_model_add_tensor (m, "embeddings.position_embeddings.weight", s->max_positions, d);
    dps_model_add_tensor (m, "embeddings.token_type_embeddings.weight", s->type_vocab ? s->type_vocab : 2, d);
    dps_model_add_vector (m, "embeddings.LayerNorm.weight", d);
    dps_model_add_vector (m, "embeddings.LayerNorm.bias", d);
    for (int i = 0; i < s->layers; i++) {
      g_snprintf (n, sizeof n, "encoder.layer.%d", i);
      double mm = 4 * d * d + 2 * d * f;
      block_memory (m, dps_model_add_layer (m, n, sq * (2 * mm + 4.0 * sq * d), act_block, io_block), sq, d, s->heads);
      /* query, key, value, output, intermediate, output; as GPT-2's block */
      block_kernels (m, sq, d, s->heads, mm, 10.0 * d + 2.0 * f, 6, 5.0 * d + f, 2.0 * d,
                     15.0 * d + 2.0 * f + 4.5 * s->heads * sq, 10, 2.0 * f, 1, 4.5 * s->heads * sq, 2);
#undef T
#undef V
#define T(suffix, r, c) g_snprintf (n, sizeof n, "encoder.layer.%d." suffix, i), dps_model_add_tensor (m, n, r, c)
#define V(suffix, k) g_snprintf (n, sizeof n, "encoder.layer.%d." suffix, i), dps_model_add_vector (m, n, k)
      T ("attention.self.query.weight", d, d); V ("attention.self.query.bias", d);
      T ("attention.self.key.weight", d, d); V ("attention.self.key.bias", d);
      T ("attention.self.value.weight", d, d); V ("attention.self.value.bias", d);
      T ("attention.output.dense.weight", d, d); V ("attention.output.dense.bias", d);
      V ("attention.output.LayerNorm.weight", d); V ("attention.output.LayerNorm.bias", d);
      T ("intermediate.dense.weight", f, d); V ("intermediate.dense.bias", f);
      T ("output.dense.weight", d, f); V ("output.dense.bias", d);
      V ("output.LayerNorm.weight", d); V ("output.LayerNorm.bias", d);
    }
    dps_model_add_layer (m, "pooler", 2.0 * d * d, d * 2.0, d * 4.0);
    dps_model_add_kernel (m, DPS_KERNEL_GEMM, 2.0 * d * d, 2.0 * d, (double) d * d, 1);
    dps_model_kernel_set_inv_k (m, 1.0 / d);
    dps_model_kernel_set_inv_rows (m, 1);
    dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, 2.0 * d, 0, 1);
    dps_model_add_tensor (m, "pooler.dense.weight", d, d);
    dps_model_add_vector (m, "pooler.dense.bias", d);
    break;
  case DPS_TF_LLAMA:
    dps_model_add_layer (m, "embed_tokens", 0, sq * d * 2.0, sq * d * 4.0);
    dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, sq * d * 2.0, 0, 1);
    dps_model_add_tensor (m, "model.embed_tokens.weight", v, d);
    for (int i = 0; i < s->layers; i++) {
      g_snprintf (n, sizeof n, "model.layers.%d", i);
      double mm = 2 * d * q + 2 * d * kv + 3 * d * f;
      block_memory (m, dps_model_add_layer (m, n, sq * (2 * mm + 4.0 * sq * q), act_block, io_block), sq, d, s->heads);
      /* q, k, v, o, gate, up, down; RMSNorm x 2 (5 passes each), rotary
       * embeddings on q and k, softmax, residual x 2, SwiGLU; attention
       * over the q heads' width */
      block_kernels (m, sq, q, s->heads, mm, 8.0 * d + 4.0 * f, 7, (double) q + 2.0 * kv + 2.0 * d + 2.0 * f,
                     2.0 * d, 34.0 * d + 3.0 * f + 2.0 * s->heads * sq, 20, 3.0 * f, 2, 2.0 * s->heads * sq, 1);
#undef T
#undef V
#define T(suffix, r, c) g_snprintf (n, sizeof n, "model.layers.%d." suffix, i), dps_model_add_tensor (m, n, r, c)
#define V(suffix, k) g_snprintf (n, sizeof n, "model.layers.%d." suffix, i), dps_model_add_vector (m, n, k)
#define B(suffix, k, on) do { if (on) V (suffix, k); } while (0)
      gboolean qkv_b = s->qkv_bias || s->attn_bias, mlp_b = s->mlp_bias;
      T ("self_attn.q_proj.weight", q, d); B ("self_attn.q_proj.bias", q, qkv_b);
      T ("self_attn.k_proj.weight", kv, d); B ("self_attn.k_proj.bias", kv, qkv_b);
      T ("self_attn.v_proj.weight", kv, d); B ("self_attn.v_proj.bias", kv, qkv_b);
      T ("self_attn.o_proj.weight", d, q); B ("self_attn.o_proj.bias", d, s->attn_bias);
      T ("mlp.gate_proj.weight", f, d); B ("mlp.gate_proj.bias", f, mlp_b);
      T ("mlp.up_proj.weight", f, d); B ("mlp.up_proj.bias", f, mlp_b);
      T ("mlp.down_proj.weight", d, f); B ("mlp.down_proj.bias", d, mlp_b);
      V ("input_layernorm.weight", d); V ("post_attention_layernorm.weight", d);
#undef B
#undef T
#undef V
    }
    dps_model_add_layer (m, "norm+lm_head", sq * 2.0 * d * v, sq * v * 2.0, sq * v * 4.0);
    lm_head_kernels (m, sq, d, v);
    dps_model_add_vector (m, "model.norm.weight", d);
    if (!tied)
      dps_model_add_tensor (m, "lm_head.weight", v, d);
    break;
  }
  return m;
}

/* torchvision's ResNet with bottleneck blocks (v1.5: stride on the 3x3). */
DpsModel *
dps_model_gen_resnet (const char *name, const int *blocks, int n_stages, int image, int classes)
{
  DpsModel *m = dps_model_new (name);
  char n[128];
  int h = image / 2;   /* after the 7x7 stride-2 stem */
  dps_model_add_layer (m, "conv1+bn1", 2.0 * 3 * 64 * 49 * h * h, 3.0 * 64 * h * h * 2, 64.0 * h * h * 4);
  double map = 64.0 * h * h;
  dps_model_add_kernel (m, DPS_KERNEL_CONV, 2.0 * 3 * 64 * 49 * h * h, 3.0 * image * image + map, 3 * 64 * 49, 1);
  /* batch norm, ReLU, the 3x3 max pool (reads the map, writes a quarter) */
  dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, map * (3 + 2 + 1.25), 0, 4);
  dps_model_add_tensor (m, "conv1.weight", 64, 3 * 49);
  dps_model_add_vector (m, "bn1.weight", 64);
  dps_model_add_vector (m, "bn1.bias", 64);
  h /= 2;               /* max pool */
  int cin = 64;
  for (int s = 0; s < n_stages; s++) {
    int w = 64 << s, cout = 4 * w;
    for (int b = 0; b < blocks[s]; b++) {
      int stride = (b == 0 && s > 0) ? 2 : 1;
      int ho = h / stride;
      double fl = 2.0 * cin * w * h * h + 2.0 * w * w * 9 * ho * ho + 2.0 * w * cout * ho * ho;
      if (b == 0)
        fl += 2.0 * cin * cout * ho * ho;
      double act = 3.0 * (w * (double) h * h + w * (double) ho * ho + cout * (double) ho * ho) * 2;
      g_snprintf (n, sizeof n, "layer%d.%d", s + 1, b);
      dps_model_add_layer (m, n, fl, act, act / 3 * 2);
      double in = (double) cin * h * h, m1 = (double) w * h * h, m2 = (double) w * ho * ho, out = (double) cout * ho * ho;
      /* conv1 1x1, conv2 3x3 (the stride), conv3 1x1, the downsampling 1x1 */
      dps_model_add_kernel (m, DPS_KERNEL_CONV, 2.0 * cin * w * h * h + 2.0 * w * w * 9 * ho * ho + 2.0 * w * cout * ho * ho,
                            in + m1 + m1 + m2 + m2 + out, (double) cin * w + 9.0 * w * w + (double) w * cout, 3);
      if (b == 0)
        dps_model_add_kernel (m, DPS_KERNEL_CONV, 2.0 * cin * cout * ho * ho, in + out, (double) cin * cout, 1);
      /* batch norm + ReLU after conv1 and conv2, batch norm after conv3
       * (and the downsampling), the add and its ReLU */
      dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, 5 * m1 + 5 * m2 + 3 * out + (b == 0 ? 3 * out : 0) + 5 * out, 0,
                            b == 0 ? 8 : 7);
#define T(suffix, r, c) g_snprintf (n, sizeof n, "layer%d.%d." suffix, s + 1, b), dps_model_add_tensor (m, n, r, c)
#define V(suffix, k) g_snprintf (n, sizeof n, "layer%d.%d." suffix, s + 1, b), dps_model_add_vector (m, n, k)
      T ("conv1.weight", w, cin); V ("bn1.weight", w); V ("bn1.bias", w);
      T ("conv2.weight", w, w * 9); V ("bn2.weight", w); V ("bn2.bias", w);
      T ("conv3.weight", cout, w); V ("bn3.weight", cout); V ("bn3.bias", cout);
      if (b == 0) {
        T ("downsample.0.weight", cout, cin); V ("downsample.1.weight", cout); V ("downsample.1.bias", cout);
      }
#undef T
#undef V
      cin = cout;
      h = ho;
    }
  }
  dps_model_add_layer (m, "avgpool+fc", 2.0 * cin * classes, (cin + classes) * 2.0, cin * h * h * 2.0);
  dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, (double) cin * h * h + cin, 0, 1);
  dps_model_add_kernel (m, DPS_KERNEL_GEMM, 2.0 * cin * classes, (double) cin + classes, (double) cin * classes, 1);
  dps_model_kernel_set_inv_k (m, 1.0 / cin);
  dps_model_kernel_set_inv_rows (m, 1);
  dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, 3.0 * classes, 0, 2);
  dps_model_add_tensor (m, "fc.weight", classes, cin);
  dps_model_add_vector (m, "fc.bias", classes);
  return m;
}

/* torchvision's VGG (no batch norm): config lists conv widths, 0 = max pool;
 * classifier 512*7*7 -> 4096 -> 4096 -> classes. */
DpsModel *
dps_model_gen_vgg (const char *name, const int *config, int n_cfg, int image, int classes)
{
  DpsModel *m = dps_model_new (name);
  char n[128];
  int h = image, cin = 3, idx = 0;
  for (int i = 0; i < n_cfg; i++) {
    if (config[i] == 0) {
      h /= 2;
      idx++;
      continue;
    }
    int c = config[i];
    g_snprintf (n, sizeof n, "features.%d", idx);
    dps_model_add_layer (m, n, 2.0 * cin * c * 9 * h * h, 2.0 * c * h * h * 2, 2.0 * c * h * h * 2);
    double map = (double) c * h * h;
    dps_model_add_kernel (m, DPS_KERNEL_CONV, 2.0 * cin * c * 9 * h * h, (double) cin * h * h + map, 9.0 * cin * c, 1);
    /* ReLU, and the max pool after it where one follows (reads the map, writes a quarter) */
    gboolean pool = i + 1 < n_cfg && config[i + 1] == 0;
    dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, map * (2 + (pool ? 1.25 : 0)), 0, pool ? 2 : 1);
    g_snprintf (n, sizeof n, "features.%d.weight", idx);
    dps_model_add_tensor (m, n, c, cin * 9);
    g_snprintf (n, sizeof n, "features.%d.bias", idx);
    dps_model_add_vector (m, n, c);
    idx += 2;   /* conv, relu */
    cin = c;
  }
  int dims[] = { cin * 7 * 7, 4096, 4096, classes };
  for (int i = 0; i < 3; i++) {
    g_snprintf (n, sizeof n, "classifier.%d", 3 * i);
    dps_model_add_layer (m, n, 2.0 * dims[i] * dims[i + 1], dims[i + 1] * 2.0 * 2, dims[i + 1] * 4.0);
    dps_model_add_kernel (m, DPS_KERNEL_GEMM, 2.0 * dims[i] * dims[i + 1], (double) dims[i] + dims[i + 1],
                          (double) dims[i] * dims[i + 1], 1);
    dps_model_kernel_set_inv_k (m, 1.0 / dims[i]);
    dps_model_kernel_set_inv_rows (m, 1);
    /* ReLU and dropout */
    dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, 4.5 * dims[i + 1], 0, 2);
    g_snprintf (n, sizeof n, "classifier.%d.weight", 3 * i);
    dps_model_add_tensor (m, n, dims[i + 1], dims[i]);
    g_snprintf (n, sizeof n, "classifier.%d.bias", 3 * i);
    dps_model_add_vector (m, n, dims[i + 1]);
  }
  return m;
}

/* A stack of Linear layers with biases: widths[0] inputs, widths[n-1]
 * outputs; a ReLU after each but the last. */
DpsModel *
dps_model_gen_mlp (const char *name, const int *widths, int n)
{
  DpsModel *m = dps_model_new (name);
  char s[64];
  for (int i = 0; i + 1 < n; i++) {
    g_snprintf (s, sizeof s, "fc%d", i);
    dps_model_add_layer (m, s, 2.0 * widths[i] * widths[i + 1], 2.0 * widths[i + 1] * 2,
                         (widths[i] + widths[i + 1]) * 2.0);
    dps_model_add_kernel (m, DPS_KERNEL_GEMM, 2.0 * widths[i] * widths[i + 1], (double) widths[i] + widths[i + 1],
                          (double) widths[i] * widths[i + 1], 1);
    dps_model_kernel_set_inv_k (m, 1.0 / widths[i]);
    dps_model_kernel_set_inv_rows (m, 1);
    if (i + 2 < n)
      dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, 2.0 * widths[i + 1], 0, 1);
    g_snprintf (s, sizeof s, "fc%d.weight", i);
    dps_model_add_tensor (m, s, widths[i + 1], widths[i]);
    g_snprintf (s, sizeof s, "fc%d.bias", i);
    dps_model_add_vector (m, s, widths[i + 1]);
  }
  return m;
}
