/* Unit tests of the model zoo (sim/model*.c): exact parameter counts of
 * published architectures, Hugging Face config.json files, and every
 * loader's refusals; the per-layer CSV loader's own in test-model-csv.c. */
#include "sim/model.h"
#include "sim/model-gen.h"
#include "sim/base/error.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "test-util.h"

/* Parameter totals as torchvision and Hugging Face report them
 * (sum(p.numel() for p in model.parameters())). */
static void
test_totals (void)
{
  static const struct { const char *name; gint64 params; int tensors; } cases[] = {
    { "resnet50", 25557032, 161 },      /* torchvision resnet50 */
    { "vgg16", 138357544, 32 },         /* torchvision vgg16: 13 conv + 3 fc, weight and bias each */
    { "bert-base", 109482240, -1 },     /* bert-base-uncased BertModel */
    { "bert-large", 335141888, -1 },    /* bert-large-uncased BertModel */
    { "gpt2", 124439808, 148 },         /* gpt2: 2 embeddings + 12 x 12 + ln_f (2) */
    { "gpt2-xl", 1557611200, 580 },     /* gpt2-xl: 2 + 48 x 12 + 2 */
    { "llama2-7b", 6738415616, 291 },   /* Llama-2-7b-hf: 1 + 32 x 9 + 2 */
    /* Meta-Llama-3-8B: a block is q 4096^2 + k, v 4096 x 1024 (8 kv heads of
     * 128) + o 4096^2 + 3 x 4096 x 14336 + 2 norms = 218,112,000; x 32, plus
     * embed and lm_head 2 x 128256 x 4096 and the norm 4096 */
    { "llama3-8b", 8030261248, 291 },
    /* Mistral-7B-v0.1: the same blocks; vocabulary 32000 */
    { "mistral-7b", 7241732096, 291 },
    /* Qwen2.5-7B: a block is q 3584^2 + 3584 + k, v 3584 x 512 + 512 each
     * (4 kv heads of 128) + o 3584^2 + 3 x 3584 x 18944 + 2 x 3584 =
     * 233,057,792; x 28, plus 2 x 152064 x 3584 and 3584; 1 + 28 x 12 + 2 */
    { "qwen2.5-7b", 7615616512, 339 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (DpsModel) m = test_zoo (cases[i].name);
    if (m->n_params != cases[i].params)
      g_test_fail_printf ("%s: %" G_GINT64_FORMAT " parameters, want %" G_GINT64_FORMAT, cases[i].name, m->n_params,
                          cases[i].params);
    if (cases[i].tensors > 0)
      g_assert_cmpint (dps_model_n_tensors (m), ==, cases[i].tensors);
    /* layers partition the tensors */
    gint64 sum = 0;
    for (int l = 0; l < dps_model_n_layers (m); l++)
      sum += dps_model_layer (m, l)->n_params;
    g_assert_cmpint (sum, ==, m->n_params);
  }
}

/* Every shipped model loads and has positive forward FLOPs. */
static void
test_shipped (void)
{
  g_auto (GStrv) names = dps_model_list_shipped ();
  g_assert_cmpint (g_strv_length (names), >=, 11);
  for (int i = 0; names[i]; i++) {
    g_autoptr (DpsModel) m = test_zoo (names[i]);
    g_assert_cmpfloat (dps_model_fwd_flops (m), >, 0);
    g_assert_cmpint (m->n_params, >, 0);
  }
}

/* GPT-2 XL forward FLOPs per token are about 2 x parameters (the 6N rule's
 * forward third) plus attention: 2 x 1.56e9 + 48 x 4 x 1024 x 1600 +
 * the tied LM head (2 x 1600 x 50257).  Checked within 1%. */
static void
test_flops (void)
{
  g_autoptr (DpsModel) m = test_zoo ("gpt2-xl");
  double per_token = dps_model_fwd_flops (m) / 1024;
  double block_params = 48 * (4.0 * 1600 * 1600 + 2.0 * 1600 * 6400);
  double expect = 2 * block_params + 48 * 4.0 * 1024 * 1600 + 2.0 * 1600 * 50257;
  g_assert_cmpfloat (fabs (per_token - expect) / expect, <, 0.01);
}

/* A per-layer CSV: times scale with the batch they were measured at. */
static void
test_no_such_model (void)
{
  g_autoptr (GError) e = NULL;
  g_assert_null (dps_model_load ("no-such-model", &e));
  g_assert_true (g_str_has_prefix (e->message, "model: no file 'no-such-model' and no shipped model of that name"));
  g_assert_nonnull (strstr (e->message, "gpt2-xl"));   /* lists what is shipped */
}

static DpsModel *
hf (const char *file)
{
  g_autoptr (GError) e = NULL;
  g_autofree char *path = g_build_filename (DPS_TEST_DATA, "hf", file, NULL);
  DpsModel *m = dps_model_load (path, &e);
  g_assert_no_error (e);
  return m;
}

static const DpsTensor *
find_tensor (const DpsModel *m, const char *name)
{
  for (int i = 0; i < dps_model_n_tensors (m); i++)
    if (g_str_equal (dps_model_tensor (m, i)->name, name))
      return dps_model_tensor (m, i);
  return NULL;
}

/* Hugging Face config.json files (tests/data/hf, as the Hub publishes them)
 * load, told by their content, to the published totals: the same numbers
 * and tensor counts as the zoo's key files for the same models, whose
 * formulas test_totals spells out.  Llama-3.2-1B adds a tied head and an
 * explicit head_dim: a block is q 2048 x 2048 + k, v 512 x 2048 (8 kv heads
 * of 64) + o + 3 x 2048 x 8192 + 2 x 2048 = 60,821,504; x 16, plus one
 * 128256 x 2048 embedding (the head shares it) and the norm: 1,235,814,400
 * in 1 + 16 x 9 + 1 tensors. */
static void
test_hf_totals (void)
{
  static const struct { const char *file, *zoo; gint64 params; int tensors; } cases[] = {
    { "gpt2.json", "gpt2", 124439808, 148 },
    { "bert-base-uncased.json", "bert-base", 109482240, 5 + 12 * 16 + 2 },
    { "Meta-Llama-3-8B.json", "llama3-8b", 8030261248, 291 },
    { "Mistral-7B-v0.1.json", "mistral-7b", 7241732096, 291 },
    { "Qwen2.5-7B.json", "qwen2.5-7b", 7615616512, 339 },
    { "Llama-3.2-1B.json", NULL, 1235814400, 146 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (DpsModel) m = hf (cases[i].file);
    if (m->n_params != cases[i].params)
      g_test_fail_printf ("%s: %" G_GINT64_FORMAT " parameters, want %" G_GINT64_FORMAT, cases[i].file, m->n_params,
                          cases[i].params);
    g_assert_cmpint (dps_model_n_tensors (m), ==, cases[i].tensors);
    if (!cases[i].zoo)
      continue;
    /* tensor for tensor (name, shape, order) the zoo's model */
    g_autoptr (DpsModel) z = test_zoo (cases[i].zoo);
    g_assert_cmpint (dps_model_n_tensors (z), ==, dps_model_n_tensors (m));
    for (int t = 0; t < dps_model_n_tensors (m); t++) {
      const DpsTensor *a = dps_model_tensor (m, t), *b = dps_model_tensor (z, t);
      g_assert_cmpstr (a->name, ==, b->name);
      g_assert_cmpint (a->numel, ==, b->numel);
      g_assert_cmpint (a->rows, ==, b->rows);
    }
  }
}

/* The per-tensor list where the architectures differ: GQA's k/v shapes
 * (out x in, as nn.Linear stores them), Qwen2's biases on q, k and v but not
 * o, heads tied or not, sequence length from the config capped at 8192. */
static void
test_hf_tensors (void)
{
  g_autoptr (DpsModel) l3 = hf ("Meta-Llama-3-8B.json");
  const DpsTensor *k = find_tensor (l3, "model.layers.0.self_attn.k_proj.weight");
  g_assert_nonnull (k);
  g_assert_cmpint (k->rows, ==, 8 * 128);
  g_assert_cmpint (k->cols, ==, 4096);
  g_assert_null (find_tensor (l3, "model.layers.0.self_attn.q_proj.bias"));
  g_assert_cmpstr (dps_model_tensor (l3, dps_model_n_tensors (l3) - 1)->name, ==, "lm_head.weight");
  g_assert_cmpint (l3->seq_len, ==, 8192);
  g_assert_cmpstr (l3->name, ==, "Meta-Llama-3-8B (LlamaForCausalLM)");   /* the file's name, the class */

  g_autoptr (DpsModel) q = hf ("Qwen2.5-7B.json");
  g_assert_cmpint (find_tensor (q, "model.layers.27.self_attn.q_proj.bias")->numel, ==, 3584);
  g_assert_cmpint (find_tensor (q, "model.layers.27.self_attn.k_proj.bias")->numel, ==, 512);
  g_assert_cmpint (find_tensor (q, "model.layers.27.self_attn.v_proj.bias")->numel, ==, 512);
  g_assert_null (find_tensor (q, "model.layers.27.self_attn.o_proj.bias"));
  g_assert_cmpint (q->seq_len, ==, 8192);   /* 131072 in the file: capped */

  g_autoptr (DpsModel) l32 = hf ("Llama-3.2-1B.json");
  g_assert_cmpint (find_tensor (l32, "model.layers.0.self_attn.q_proj.weight")->rows, ==, 32 * 64);
  g_assert_null (find_tensor (l32, "lm_head.weight"));

  /* GPT-2 untied: its head becomes a tensor of its own, 50257 x 768 more */
  const char *untied = "{\"model_type\": \"gpt2\", \"n_layer\": 12, \"n_embd\": 768, \"n_head\": 12, "
                       "\"n_inner\": null, \"vocab_size\": 50257, \"n_positions\": 1024, "
                       "\"tie_word_embeddings\": false}";
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) g = dps_model_load_hf_config_data ("c.json", untied, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpint (g->n_params, ==, 124439808 + 50257 * 768);
}

/* Configs dpscale cannot build are refused naming the file and the key;
 * malformed JSON with the file, line and column. */
/* Told by content: a config.json saved as x.model still loads as JSON. */
static void
test_hf_by_content (void)
{
  g_autofree char *dir = g_dir_make_tmp ("dps-hf-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "x.model", NULL);
  g_assert_true (g_file_set_contents (path, "\n  {\"model_type\": \"t5\"}", -1, NULL));
  g_autoptr (GError) e = NULL;
  g_assert_null (dps_model_load (path, &e));
  g_assert_nonnull (strstr (e->message, "model_type: 't5'"));
  g_assert_nonnull (strstr (e->message, "x.model"));
  g_unlink (path);
  g_rmdir (dir);
}

/* What PyTorch users set to fit: GPT-2 XL's 48 blocks (s = 1024 tokens,
 * h = 1600, a = 25 heads) keep 34 s h + 5 a s^2 bytes a sample each
 * (Korthikanti et al.); flash attention drops the 5 a s^2 of every block;
 * checkpointing keeps each block's input, 2 s h, plus one whole block
 * being recomputed; the embeddings and the head are not checkpointed. */
static void
test_kept_activations (void)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load ("gpt2-xl", &e);
  g_assert_no_error (e);
  double s = 1024, h = 1600, a = 25, block = 34 * s * h + 5 * a * s * s, all = dps_model_act_bytes (m);
  double rest = all - 48 * block;   /* the layers that are not blocks */
  g_assert_cmpfloat (rest, >, 0);
  g_assert_cmpfloat (dps_model_kept_act_bytes (m, FALSE, FALSE), ==, all);
  g_assert_cmpfloat (fabs (dps_model_kept_act_bytes (m, TRUE, FALSE) - (all - 48 * 5 * a * s * s)), <, 1);
  g_assert_cmpfloat (fabs (dps_model_kept_act_bytes (m, FALSE, TRUE) - (rest + 48 * 2 * s * h + block)), <, 1);
  g_assert_cmpfloat (fabs (dps_model_kept_act_bytes (m, TRUE, TRUE) - (rest + 48 * 2 * s * h + 34 * s * h)), <, 1);
}

/* Malformed inputs, each refused naming the file and, where it has them,
 * the line and column (JSON) or key (key files): one test path each. */
typedef struct { const char *text, *expect; } Refusal;
typedef DpsModel *(*Loader) (const char *name, const char *data, gssize len, GError **error);
typedef struct { const char *path, *file; Loader load; const Refusal *cases; gsize n; } Refusals;
typedef struct { const Refusals *group; const Refusal *r; } RefusalCase;

static const Refusal csv_refusals[] = {
  { "layer,params,forward_ms,backward_ms\nfc,10,1\n", "m.csv:2: 3 fields, the header has 4" },
  { "layer,params,forward_ms,backward_ms\nfc,ten,1,2\n", "m.csv:2: params: 'ten'" },
  { "layer,params,forward_ms,backward_ms\nfc,10,-1,2\n", "m.csv:2: forward_ms: '-1' is not a time" },
  { "layer,params,forward_ms,backward_ms\nfc,10,1,nan\n", "m.csv:2: backward_ms: 'nan'" },
  { "layer,params,forward_ms,colour\n", "m.csv:1: unknown column 'colour'" },
  { "layer,params\n", "m.csv:1: the header needs columns" },
  { "layer,params,forward_ms,backward_ms\n", "no layer rows" },
  { "", "no header" },
  { "# batch: zero\nlayer,params,forward_ms,backward_ms\n", "m.csv:1: '# batch: N'" },
  { "layer,params,forward_ms,backward_s\n", "same unit" },
  { "# step_ms: 3; optimizer soon; the layers\nlayer,params,forward_ms,backward_ms\n",
    "m.csv:1: '# step_ms: ... optimizer MS': 'soon' is not a time in ms" },
};

static const Refusal csv_ddp_refusals[] = {
  { "layer,params,tensors,forward_ms,backward_ms\nfc,21,4x4;4,1,2\n", "m.csv:2: tensors: 20 elements, params says 21" },
  { "layer,params,tensors,forward_ms,backward_ms\nfc,16,4xx4,1,2\n", "m.csv:2: tensors: '4xx4' is not a shape" },
  { "layer,params,tensors,forward_ms,backward_ms\nfc,0,0,1,2\n", "m.csv:2: tensors: '0'" },
  { "layer,params,tensors,n_tensors,forward_ms,backward_ms\nfc,20,4x4;4,3,1,2\n", "m.csv:2: n_tensors: 3, the tensors list has 2" },
  { "layer,params,n_tensors,forward_ms,backward_ms\nfc,2,3,1,2\n", "m.csv:2: n_tensors: '3'" },
  { "layer,params,tied_to,forward_ms,backward_ms\nhead,4,wte,1,2\n", "m.csv:2: tied_to: no earlier layer 'wte'" },
  { "layer,params,tied_to,forward_ms,backward_ms\nwte,4,,1,2\nhead,5,wte,1,2\n", "m.csv:3: tied_to: 5 parameters, 'wte' has only 4" },
  { "layer,params,activation_bytes,forward_ms,backward_ms\nfc,4,-1,1,2\n", "m.csv:2: activation_bytes: '-1'" },
  { "layer,params,forward_ms,backward_ms,logits\nfc,4,1,2,-5\n", "m.csv:2: logits: '-5' is not a count" },
  { "layer,params,forward_ms,backward_ms,logits\nfc,4,1,2,many\n", "m.csv:2: logits: 'many'" },
  { "# dtype: int8\nlayer,params,forward_ms,backward_ms\n", "m.csv:1: '# dtype: int8'" },
  { "#device:\nlayer,params,forward_ms,backward_ms\n", "m.csv:1: '# device:' names no device" },
  { "layer,params,params,forward_ms,backward_ms\n", "m.csv:1: column 'params' given twice" },
  { "name,forward_ms,backward_ms\n", "m.csv:1: the header needs columns layer (or name), params" },
  { "layer,params,forward_ms,backward_ms,kernels\nfc,4,1,2,gemm:1:8:4:4:0\n", "m.csv:2: kernels: 'gemm:1:8:4:4:0' is not KIND" },
  { "layer,params,forward_ms,backward_ms,kernels\nfc,4,1,2,fft:1:8:4:4:0:0\n", "m.csv:2: kernels: 'fft:1:8:4:4:0:0': the kind" },
  { "layer,params,forward_ms,backward_ms,kernels\nfc,4,1,2,gemm:0:8:4:4:0:0\n", "m.csv:2: kernels: 'gemm:0:8:4:4:0:0': the count" },
  { "layer,params,forward_ms,backward_ms,kernels\nfc,4,1,2,gemm:1:-8:4:4:0:0\n", "field 3 is not a number >= 0" },
  { "layer,params,forward_ms,backward_ms,kernels\nfc,4,1,2,memory:1:0:4:0:5:0\n", "score bytes past the bytes" },
  { "layer,params,forward_ms,backward_ms,kernels\nfc,4,1,2,gemm:1:8:4:4:0:0.5:2\n", "or 1 / rows past 1" },
  { "layer,params,forward_ms,backward_ms,kernels\nfc,4,1,2,gemm:1:8:4:4:0:0.5:0:1\n", "is not KIND" },
  { "layer,params,forward_ms,backward_ms,flops,kernels\nfc,4,1,2,9,gemm:1:8:4:4:0:0.5\n", "m.csv:2: flops: 9, the kernels sum to 8" },
  { "# input: many tokens\nlayer,params,forward_ms,backward_ms\n", "m.csv:1: '# input: N tokens': 'many'" },
};

static const Refusal keyfile_refusals[] = {
  { "[model]\nname = x\narchitecture = rnn\n", "m.model:3: [model] architecture: unknown value 'rnn'" },
  { "[model]\nname = x\narchitecture = gpt2\nlayers = 2\nhidden = 100\nheads = 3\nvocab = 10\nseq = 8\n",
    "m.model:6: [model] heads: hidden (100) is not a multiple of heads (3)" },
  { "[model]\nname = x\narchitecture = mlp\nwidths = 10,-4\n", "m.model:4: [model] widths: '-4'" },
  { "[model]\nname = x\narchitecture = gpt2\nlayers = 2\n", "missing key hidden" },
  /* a Llama's MLP width is its own (SwiGLU), not gpt2's 4 x hidden */
  { "[model]\nname = x\narchitecture = llama\nlayers = 2\nhidden = 64\nheads = 4\nvocab = 100\nseq = 16\n",
    "missing key ffn" },
};

static const Refusal hf_refusals[] = {
  { "{\"model_type\": \"mixtral\"}", "c.json: model_type: 'mixtral' is not one dpscale builds" },
  { "{\"hidden_size\": 8}", "c.json: no string key 'model_type'" },
  { "{\"model_type\": \"llama\", \"num_hidden_layers\": 2}", "c.json: no key 'hidden_size' (a llama config" },
  { "{\"model_type\": \"bert\", \"num_hidden_layers\": 2.5}", "c.json: num_hidden_layers: expected a whole number" },
  { "{\"model_type\": \"qwen2\", \"num_hidden_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 8, "
    "\"num_key_value_heads\": 3, \"intermediate_size\": 128, \"vocab_size\": 10, \"max_position_embeddings\": 16}",
    "num_attention_heads (8) is not a multiple of num_key_value_heads (3)" },
  { "{\"model_type\": \"gpt2\", \"n_layer\": 1, \"n_embd\": 8, \"n_head\": 2, \"vocab_size\": 10, "
    "\"n_positions\": 16, \"tie_word_embeddings\": \"yes\"}", "c.json: tie_word_embeddings: expected true or false" },
  { "{\"model_type\": \"gpt2\",\n \"n_layer\": }", "c.json:2:" },
  { "[1, 2]", "c.json: expected a JSON object" },
};

static const Refusals refusals[] = {
  { "/model/csv/malformed", "m.csv", dps_model_load_csv_data, csv_refusals, G_N_ELEMENTS (csv_refusals) },
  { "/model/csv/ddp-malformed", "m.csv", dps_model_load_csv_data, csv_ddp_refusals, G_N_ELEMENTS (csv_ddp_refusals) },
  { "/model/keyfile/malformed", "m.model", dps_model_load_keyfile_data, keyfile_refusals,
    G_N_ELEMENTS (keyfile_refusals) },
  { "/model/hf/malformed", "c.json", dps_model_load_hf_config_data, hf_refusals, G_N_ELEMENTS (hf_refusals) },
};

static void
test_refused (gconstpointer data)
{
  const RefusalCase *c = data;
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = c->group->load (c->group->file, c->r->text, -1, &e);
  g_assert_null (m);
  g_assert_nonnull (e);
  if (!strstr (e->message, c->r->expect))
    g_test_fail_printf ("'%s' lacks '%s'", e->message, c->r->expect);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/zoo/totals", test_totals);
  g_test_add_func ("/model/zoo/shipped", test_shipped);
  g_test_add_func ("/model/zoo/gpt2-xl-flops", test_flops);
  g_test_add_func ("/model/zoo/kept-activations", test_kept_activations);
  g_test_add_func ("/model/no-such-model", test_no_such_model);
  g_test_add_func ("/model/hf/totals", test_hf_totals);
  g_test_add_func ("/model/hf/tensors", test_hf_tensors);
  g_test_add_func ("/model/hf/by-content", test_hf_by_content);
  g_autoptr (GArray) cases = g_array_new (FALSE, FALSE, sizeof (RefusalCase));
  for (gsize g = 0; g < G_N_ELEMENTS (refusals); g++)
    for (gsize i = 0; i < refusals[g].n; i++)
      g_array_append_val (cases, ((RefusalCase) { &refusals[g], &refusals[g].cases[i] }));
  for (guint k = 0; k < cases->len; k++) {
    const RefusalCase *c = &g_array_index (cases, RefusalCase, k);
    g_autofree char *path = g_strdup_printf ("%s/%td", c->group->path, c->r - c->group->cases);
    g_test_add_data_func (path, c, test_refused);
  }
  return g_test_run ();
}
