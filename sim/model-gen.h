/* model-gen — compact generators for the model zoo: a few numbers give the
 * exact parameter list of a published architecture (as torchvision and
 * Hugging Face define them) and its per-layer costs. */
#pragma once

#include "sim/model.h"

typedef enum { DPS_TF_GPT2, DPS_TF_BERT, DPS_TF_LLAMA } DpsTransformerKind;

typedef struct {
  DpsTransformerKind kind;
  int layers, hidden, heads, ffn, vocab, seq, max_positions;
} DpsTransformerShape;

DpsModel *dps_model_gen_transformer (const char *name, const DpsTransformerShape *s);
DpsModel *dps_model_gen_resnet (const char *name, const int *blocks, int n_stages, int image, int classes);
DpsModel *dps_model_gen_vgg (const char *name, const int *config, int n, int image, int classes);
DpsModel *dps_model_gen_mlp (const char *name, const int *widths, int n);
