/* model-gen — compact generators for the model zoo: a few numbers give the
 * exact parameter list of a published architecture (as torchvision and
 * Hugging Face define them) and its per-layer costs. */
#pragma once

#include "sim/model.h"

typedef enum { DPS_TF_GPT2, DPS_TF_BERT, DPS_TF_LLAMA } DpsTransformerKind;

/* Whether the LM head shares the token embedding's weight: DEFAULT is the
 * architecture's own choice (GPT-2 tied, Llama untied; BERT has no head). */
typedef enum { DPS_TIE_DEFAULT, DPS_TIE_YES, DPS_TIE_NO } DpsTie;

/* The zero value of each optional field is the architecture's default:
 * kv_heads = heads (no grouped-query attention), head_dim = hidden / heads,
 * type_vocab = 2 (BERT's token types), no biases on a Llama's projections.
 * qkv_bias: q, k and v projections with biases (Qwen2); attn_bias: all
 * four (Llama's attention_bias); mlp_bias: gate, up and down. */
typedef struct {
  DpsTransformerKind kind;
  int layers, hidden, heads, ffn, vocab, seq, max_positions;
  int kv_heads, head_dim, type_vocab;
  DpsTie tie;
  gboolean qkv_bias, attn_bias, mlp_bias;
} DpsTransformerShape;

DpsModel *dps_model_gen_transformer (const char *name, const DpsTransformerShape *s);
DpsModel *dps_model_gen_resnet (const char *name, const int *blocks, int n_stages, int image, int classes);
DpsModel *dps_model_gen_vgg (const char *name, const int *config, int n, int image, int classes);
DpsModel *dps_model_gen_mlp (const char *name, const int *widths, int n);
