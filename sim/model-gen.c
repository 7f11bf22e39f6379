/* model-gen.c — see model-gen.h.
 *
 * FLOPs count a multiply-add as 2.  Transformer activations per token and
 * layer follow Korthikanti et al. 2022 ("Reducing activation recomputation
 * in large transformer models"): s b h (34 + 5 a s / h) bytes for a
 * sequence of s tokens, hidden size h and a heads, at 2 bytes an element.
 * Convolutions keep their output, the batch norm's and the ReLU's: 3 maps. */
#include "sim/model-gen.h"

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
    dps_model_add_tensor (m, "wte.weight", v, d);
    dps_model_add_tensor (m, "wpe.weight", s->max_positions, d);
    for (int i = 0; i < s->layers; i++) {
      g_snprintf (n, sizeof n, "h.%d", i);
      double mm = 3 * d * d + d * d + 2 * d * f;
      dps_model_add_layer (m, n, sq * (2 * mm + 4.0 * sq * d), act_block, io_block);
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
    dps_model_add_vector (m, "ln_f.weight", d);
    dps_model_add_vector (m, "ln_f.bias", d);
    if (!tied)
      dps_model_add_tensor (m, "lm_head.weight", v, d);
    break;
  case DPS_TF_BERT:
    dps_model_add_layer (m, "embeddings", 0, sq * d * 4.0, sq * d * 8.0);
    dps_model_add_tensor (m, "embeddings.word_embeddings.weight", v, d);
    dps_model_add_tensor (m, "embeddings.position_embeddings.weight", s->max_positions, d);
    dps_model_add_tensor (m, "embeddings.token_type_embeddings.weight", s->type_vocab ? s->type_vocab : 2, d);
    dps_model_add_vector (m, "embeddings.LayerNorm.weight", d);
    dps_model_add_vector (m, "embeddings.LayerNorm.bias", d);
    for (int i = 0; i < s->layers; i++) {
      g_snprintf (n, sizeof n, "encoder.layer.%d", i);
      double mm = 4 * d * d + 2 * d * f;
      dps_model_add_layer (m, n, sq * (2 * mm + 4.0 * sq * d), act_block, io_block);
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
    dps_model_add_tensor (m, "pooler.dense.weight", d, d);
    dps_model_add_vector (m, "pooler.dense.bias", d);
    break;
  case DPS_TF_LLAMA:
    dps_model_add_layer (m, "embed_tokens", 0, sq * d * 2.0, sq * d * 4.0);
    dps_model_add_tensor (m, "model.embed_tokens.weight", v, d);
    for (int i = 0; i < s->layers; i++) {
      g_snprintf (n, sizeof n, "model.layers.%d", i);
      double mm = 2 * d * q + 2 * d * kv + 3 * d * f;
      dps_model_add_layer (m, n, sq * (2 * mm + 4.0 * sq * q), act_block, io_block);
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
    g_snprintf (s, sizeof s, "fc%d.weight", i);
    dps_model_add_tensor (m, s, widths[i + 1], widths[i]);
    g_snprintf (s, sizeof s, "fc%d.bias", i);
    dps_model_add_vector (m, s, widths[i + 1]);
  }
  return m;
}
