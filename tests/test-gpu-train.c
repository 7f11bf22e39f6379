/* The CUDA device against the CPU device (real/dev-cuda.cu, real/dev-cpu.c):
 * the same network, weights and batch give the same loss, gradients and
 * Adam step on both, up to fp32 summation order (cuBLAS runs without TF32).
 * The CPU side's gradients are checked against numerical differences in
 * test-train-net.c, so agreeing with it checks the GPU's.  Exits 77 (skip)
 * where no GPU is present. */
#include "real/train-net.h"
#include "sim/model-gen.h"

#include <math.h>
#include <stdio.h>

static double
compare (DpsTrainNet *cpu, DpsTrainNet *gpu, const float *host_cpu, const float *dev_gpu)
{
  gint64 n = cpu->n_params;
  float *g = g_new (float, n);
  gpu->dev->download (gpu->dev, g, dev_gpu, sizeof (float) * n);
  double diff = 0, top = 0;
  for (gint64 i = 0; i < n; i++) {
    diff = MAX (diff, fabs (g[i] - host_cpu[i]));
    top = MAX (top, fabs (host_cpu[i]));
  }
  g_free (g);
  return top > 0 ? diff / top : diff;
}

static int
check (DpsDev *cuda, DpsModel *m, int batch)
{
  g_autoptr (GError) e = NULL;
  DpsTrainNet *c = dps_train_net_new (m, batch, 4, &e), *g = dps_train_net_new_on (cuda, m, batch, 4, &e);
  if (!c || !g) {
    fprintf (stderr, "%s: %s\n", m->name, e->message);
    return 1;
  }
  int bad = 0;
  dps_train_net_batch (c, 2, 0);
  dps_train_net_batch (g, 2, 0);
  dps_train_net_forward (c);
  dps_train_net_forward (g);
  double lc = dps_train_net_loss_grad (c), lg = dps_train_net_loss_grad (g);
  dps_train_net_backward (c);
  dps_train_net_backward (g);
  double dg = compare (c, g, c->grads, g->grads);
  dps_train_net_update (c, TRUE, 1e-3, 1, 1, NULL);
  dps_train_net_update (g, TRUE, 1e-3, 1, 1, NULL);
  double dp = compare (c, g, c->params, g->params);
  if (!cuda->sync (cuda, &e)) {
    fprintf (stderr, "%s: %s\n", m->name, e->message);
    return 1;
  }
  printf ("%s: loss cpu %.7g gpu %.7g; gradients max rel diff %.2g; after Adam, parameters %.2g\n", m->name, lc, lg,
          dg, dp);
  bad |= fabs (lc - lg) > 1e-5 * fabs (lc);
  bad |= !(dg < 1e-3);
  bad |= !(dp < 1e-5);
  dps_train_net_free (c);
  dps_train_net_free (g);
  return bad;
}

int
main (void)
{
  g_autoptr (GError) e = NULL;
  DpsDev *cuda = dps_dev_cuda (0, &e);
  if (!cuda) {
    printf ("skip: %s\n", e->message);
    return 77;
  }
  DpsTransformerShape s = { .kind = DPS_TF_GPT2, .layers = 2, .hidden = 64, .heads = 4, .ffn = 256,
                            .vocab = 97, .seq = 32, .max_positions = 32 };
  g_autoptr (DpsModel) gpt = dps_model_gen_transformer ("gpt2-tiny", &s);
  const int widths[] = { 256, 512, 512, 64 };
  g_autoptr (DpsModel) mlp = dps_model_gen_mlp ("mlp-tiny", widths, 4);
  int bad = check (cuda, gpt, 4) | check (cuda, mlp, 16);
  /* layer times from CUDA events: every layer takes time, and the step's
   * compute (sum of layers) exceeds the SGD step that only reads and
   * writes each parameter once */
  int L = dps_model_n_layers (gpt);
  double *f = g_new (double, L), *b = g_new (double, L), sgd = 0, cv = 0, sum = 0;
  if (!dps_train_net_layer_times_on (cuda, gpt, 4, 0.05, f, b, &sgd, &cv)) {
    printf ("FAIL: layer times on the GPU\n");
    bad = 1;
  }
  for (int l = 0; l < L; l++) {
    sum += f[l] + b[l];
    if (!(f[l] > 0 && b[l] > 0)) {
      printf ("FAIL: layer %d: forward %g s, backward %g s\n", l, f[l], b[l]);
      bad = 1;
    }
  }
  printf ("%s: GPU layer times: %d layers %.3f ms, SGD %.3f ms, cv %.3f\n", sum > sgd && sgd > 0 ? "ok" : "FAIL", L,
          sum * 1e3, sgd * 1e3, cv);
  bad |= !(sum > sgd && sgd > 0);
  g_free (f);
  g_free (b);
  return bad ? 1 : 0;
}
