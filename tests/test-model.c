/* Unit tests of the model zoo (sim/model*.c): exact parameter counts of
 * published architectures, and the per-layer CSV loader. */
#include "sim/model.h"
#include "sim/model-gen.h"
#include "sim/base/error.h"

#include <math.h>
#include <string.h>

static DpsModel *
zoo (const char *name)
{
  g_autoptr (GError) e = NULL;
  DpsModel *m = dps_model_load (name, &e);
  g_assert_no_error (e);
  return m;
}

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
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (DpsModel) m = zoo (cases[i].name);
    if (m->n_params != cases[i].params)
      g_error ("%s: %" G_GINT64_FORMAT " parameters, want %" G_GINT64_FORMAT, cases[i].name, m->n_params, cases[i].params);
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
    g_autoptr (DpsModel) m = zoo (names[i]);
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
  g_autoptr (DpsModel) m = zoo ("gpt2-xl");
  double per_token = dps_model_fwd_flops (m) / 1024;
  double block_params = 48 * (4.0 * 1600 * 1600 + 2.0 * 1600 * 6400);
  double expect = 2 * block_params + 48 * 4.0 * 1024 * 1600 + 2.0 * 1600 * 50257;
  g_assert_cmpfloat (fabs (per_token - expect) / expect, <, 0.01);
}

/* A per-layer CSV: times scale with the batch they were measured at. */
static void
test_csv (void)
{
  const char *csv = "# exported by a profiler\n# batch: 32\nlayer,params,forward_ms,backward_ms,flops\n"
                    "conv1,9408,1.5,3.0,1e9\nfc,2049000,0.5,1.0,\n";
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load_csv_data ("m.csv", csv, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpint (dps_model_n_layers (m), ==, 2);
  g_assert_cmpint (m->n_params, ==, 9408 + 2049000);
  g_assert_cmpint (m->time_batch, ==, 32);
  g_assert_cmpfloat (dps_model_layer (m, 0)->fwd_time_s, ==, 1.5e-3);
  g_assert_cmpfloat (dps_model_layer (m, 1)->bwd_time_s, ==, 1e-3);
  g_assert_true (dps_model_has_times (m));
}

/* Setting times replaces the CSV's, layer by layer in order, with the
 * batch they are for: layer 1 gets the second pair (4 s, 8 s), batch 64. */
static void
test_set_times (void)
{
  const char *csv = "# batch: 32\nlayer,params,forward_ms,backward_ms\na,10,1.5,3.0\nb,20,0.5,1.0\n";
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load_csv_data ("m.csv", csv, -1, &e);
  g_assert_no_error (e);
  const double fwd[] = { 2, 4 }, bwd[] = { 3, 8 };
  dps_model_set_times (m, fwd, bwd, 64);
  g_assert_cmpint (m->time_batch, ==, 64);
  g_assert_cmpfloat (dps_model_layer (m, 0)->fwd_time_s, ==, 2);
  g_assert_cmpfloat (dps_model_layer (m, 0)->bwd_time_s, ==, 3);
  g_assert_cmpfloat (dps_model_layer (m, 1)->fwd_time_s, ==, 4);
  g_assert_cmpfloat (dps_model_layer (m, 1)->bwd_time_s, ==, 8);
}

/* Malformed CSV rows are refused with the file and the line. */
static void
test_csv_malformed (void)
{
  static const struct { const char *text, *expect; } cases[] = {
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
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) e = NULL;
    g_autoptr (DpsModel) m = dps_model_load_csv_data ("m.csv", cases[i].text, -1, &e);
    if (m)
      g_error ("case %zu accepted", i);
    if (!strstr (e->message, cases[i].expect))
      g_error ("case %zu: '%s' lacks '%s'", i, e->message, cases[i].expect);
  }
}

/* Model key files: errors name the key and line. */
static void
test_keyfile_malformed (void)
{
  static const struct { const char *text, *expect; } cases[] = {
    { "[model]\nname = x\narchitecture = rnn\n", "m.model:3: [model] architecture: unknown value 'rnn'" },
    { "[model]\nname = x\narchitecture = gpt2\nlayers = 2\nhidden = 100\nheads = 3\nvocab = 10\nseq = 8\n",
      "m.model:6: [model] heads: hidden (100) is not a multiple of heads (3)" },
    { "[model]\nname = x\narchitecture = mlp\nwidths = 10,-4\n", "m.model:4: [model] widths: '-4'" },
    { "[model]\nname = x\narchitecture = gpt2\nlayers = 2\n", "missing key hidden" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) e = NULL;
    g_autoptr (DpsModel) m = dps_model_load_keyfile_data ("m.model", cases[i].text, -1, &e);
    if (m)
      g_error ("case %zu accepted", i);
    if (!strstr (e->message, cases[i].expect))
      g_error ("case %zu: '%s' lacks '%s'", i, e->message, cases[i].expect);
  }
  g_autoptr (GError) e = NULL;
  g_assert_null (dps_model_load ("no-such-model", &e));
  g_assert_nonnull (strstr (e->message, "gpt2-xl"));   /* lists what is shipped */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/zoo/totals", test_totals);
  g_test_add_func ("/model/zoo/shipped", test_shipped);
  g_test_add_func ("/model/zoo/gpt2-xl-flops", test_flops);
  g_test_add_func ("/model/csv/valid", test_csv);
  g_test_add_func ("/model/csv/malformed", test_csv_malformed);
  g_test_add_func ("/model/set-times", test_set_times);
  g_test_add_func ("/model/keyfile/malformed", test_keyfile_malformed);
  return g_test_run ();
}
