/* Unit tests of the model generators (sim/model-gen.c): the parameter
 * totals of architectures the zoo does not ship, against the counts their
 * reference implementations print (sum(p.numel() for p in
 * model.parameters())), and the closed forms of the parts. */
#include "sim/model-gen.h"

/* Every layer's tensors add up to the total. */
static void
assert_total (const DpsModel *m, gint64 want)
{
  if (m->n_params != want)
    g_test_fail_printf ("%s: %" G_GINT64_FORMAT " parameters, want %" G_GINT64_FORMAT, m->name, m->n_params, want);
  gint64 sum = 0;
  for (int l = 0; l < dps_model_n_layers (m); l++)
    sum += dps_model_layer (m, l)->n_params;
  g_assert_cmpint (sum, ==, want);
}

/* torchvision resnet101 (blocks 3,4,23,3) 44,549,160 and resnet152
 * (3,8,36,3) 60,192,808; resnet50 with a 10-class head drops
 * 990 x 2048 weights and 990 biases from 25,557,032: 23,528,522. */
static void
test_resnet (void)
{
  static const int r101[] = { 3, 4, 23, 3 }, r152[] = { 3, 8, 36, 3 }, r50[] = { 3, 4, 6, 3 };
  g_autoptr (DpsModel) a = dps_model_gen_resnet ("resnet101", r101, 4, 224, 1000);
  g_autoptr (DpsModel) b = dps_model_gen_resnet ("resnet152", r152, 4, 224, 1000);
  g_autoptr (DpsModel) c = dps_model_gen_resnet ("resnet50-10", r50, 4, 224, 10);
  assert_total (a, 44549160);
  assert_total (b, 60192808);
  assert_total (c, 23528522);
}

/* torchvision vgg11 (configuration A) 132,863,336 and vgg19 (E)
 * 143,667,240; 0 stands for a max-pool ("M"). */
static void
test_vgg (void)
{
  static const int a[] = { 64, 0, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0 };
  static const int e[] = { 64, 64, 0, 128, 128, 0, 256, 256, 256, 256, 0,
                           512, 512, 512, 512, 0, 512, 512, 512, 512, 0 };
  g_autoptr (DpsModel) v11 = dps_model_gen_vgg ("vgg11", a, G_N_ELEMENTS (a), 224, 1000);
  g_autoptr (DpsModel) v19 = dps_model_gen_vgg ("vgg19", e, G_N_ELEMENTS (e), 224, 1000);
  assert_total (v11, 132863336);
  assert_total (v19, 143667240);
}

/* Hugging Face gpt2-medium (24 x 1024, 16 heads) 354,823,168 and
 * gpt2-large (36 x 1280, 20 heads) 774,030,080, head tied to wte; untied,
 * the head adds its own 50257 x 768 = 38,597,376 to gpt2's 124,439,808. */
static void
test_gpt2 (void)
{
  DpsTransformerShape s = { .kind = DPS_TF_GPT2, .layers = 24, .hidden = 1024, .heads = 16, .ffn = 4096,
                            .vocab = 50257, .seq = 1024, .max_positions = 1024 };
  g_autoptr (DpsModel) medium = dps_model_gen_transformer ("gpt2-medium", &s);
  assert_total (medium, 354823168);
  s.layers = 36, s.hidden = 1280, s.heads = 20, s.ffn = 5120;
  g_autoptr (DpsModel) large = dps_model_gen_transformer ("gpt2-large", &s);
  assert_total (large, 774030080);
  s.layers = 12, s.hidden = 768, s.heads = 12, s.ffn = 3072, s.tie = DPS_TIE_NO;
  g_autoptr (DpsModel) untied = dps_model_gen_transformer ("gpt2-untied", &s);
  assert_total (untied, 124439808 + 38597376);
}

/* TinyLlama-1.1B: 22 blocks of q, o 2048^2, k, v 2048 x 256 (4 kv heads
 * of 64), gate, up, down 3 x 2048 x 5632 and 2 norms = 44,044,288; x 22,
 * plus embed and lm_head 2 x 32000 x 2048 and the final norm 2048:
 * 1,100,048,384. */
static void
test_llama (void)
{
  DpsTransformerShape s = { .kind = DPS_TF_LLAMA, .layers = 22, .hidden = 2048, .heads = 32, .kv_heads = 4,
                            .ffn = 5632, .vocab = 32000, .seq = 2048, .max_positions = 2048 };
  g_autoptr (DpsModel) m = dps_model_gen_transformer ("tinyllama", &s);
  assert_total (m, 1100048384);
}

/* bert-base-uncased's BertModel (with the pooler) 109,482,240. */
static void
test_bert (void)
{
  DpsTransformerShape s = { .kind = DPS_TF_BERT, .layers = 12, .hidden = 768, .heads = 12, .ffn = 3072,
                            .vocab = 30522, .seq = 512, .max_positions = 512 };
  g_autoptr (DpsModel) m = dps_model_gen_transformer ("bert-base", &s);
  assert_total (m, 109482240);
}

/* An MLP's parameters are its weights and biases: 784 x 512 + 512 +
 * 512 x 256 + 256 + 256 x 10 + 10 = 535,818 in 3 layers of 2 tensors. */
static void
test_mlp (void)
{
  static const int widths[] = { 784, 512, 256, 10 };
  g_autoptr (DpsModel) m = dps_model_gen_mlp ("mlp", widths, 4);
  assert_total (m, 535818);
  g_assert_cmpint (dps_model_n_layers (m), ==, 3);
  g_assert_cmpint (dps_model_n_tensors (m), ==, 6);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model-gen/resnet", test_resnet);
  g_test_add_func ("/model-gen/vgg", test_vgg);
  g_test_add_func ("/model-gen/gpt2", test_gpt2);
  g_test_add_func ("/model-gen/llama", test_llama);
  g_test_add_func ("/model-gen/bert", test_bert);
  g_test_add_func ("/model-gen/mlp", test_mlp);
  return g_test_run ();
}
