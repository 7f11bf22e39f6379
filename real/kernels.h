/* kernels — the elementwise, per-row and per-column math of the networks
 * the runner trains, written once for both backends: the CPU device
 * (dev-cpu.c) loops over rows calling these, the CUDA device (dev-cuda.cu)
 * runs one GPU thread per row, column or element calling the same
 * functions.  So the math tested on CPUs (tests/test-train-net.c checks
 * every gradient against numerical differences) is the math the GPU runs.
 *
 * Rows are contiguous; a per-column function owns column j of every row
 * (no two threads write the same element, and neighbouring threads read
 * neighbouring addresses). */
#pragma once

#include <math.h>

#ifdef __CUDACC__
#define DPS_HD __host__ __device__ static inline
#else
#define DPS_HD static inline
#endif

#define DPS_GELU_C 0.7978845608028654f   /* sqrt(2 / pi) */

/* y = LayerNorm(x) w + b over one row of d; the row's mean and 1/sd kept */
DPS_HD void
dps_k_layernorm_row (float *y, float *mean, float *rstd, const float *x, const float *w, const float *b, int d)
{
  double m = 0, v = 0;
  for (int j = 0; j < d; j++)
    m += x[j];
  m /= d;
  for (int j = 0; j < d; j++)
    v += (x[j] - m) * (x[j] - m);
  double s = 1 / sqrt (v / d + 1e-5);
  for (int j = 0; j < d; j++)
    y[j] = (float) ((x[j] - m) * s) * w[j] + b[j];
  *mean = (float) m;
  *rstd = (float) s;
}

/* dx += the input gradient of LayerNorm for one row, given dy */
DPS_HD void
dps_k_layernorm_back_row (float *dx, const float *dy, const float *x, float mean, float rstd, const float *w, int d)
{
  double sum = 0, sum_xh = 0;
  for (int j = 0; j < d; j++) {
    double xh = (x[j] - mean) * rstd, dxh = dy[j] * w[j];
    sum += dxh;
    sum_xh += dxh * xh;
  }
  sum /= d;
  sum_xh /= d;
  for (int j = 0; j < d; j++) {
    double xh = (x[j] - mean) * rstd;
    dx[j] += (float) (rstd * (dy[j] * w[j] - sum - xh * sum_xh));
  }
}

/* dw[j] += sum over rows of dy x-hat, db[j] += sum of dy: column j */
DPS_HD void
dps_k_layernorm_back_col (float *dw, float *db, const float *dy, const float *x, const float *mean, const float *rstd,
                          long rows, int d, int j)
{
  double sw = 0, sb = 0;
  for (long r = 0; r < rows; r++) {
    float g = dy[r * d + j];
    sw += g * ((x[r * d + j] - mean[r]) * rstd[r]);
    sb += g;
  }
  dw[j] += (float) sw;
  db[j] += (float) sb;
}

/* causal softmax of one row of scores over positions 0..t, zero after */
DPS_HD void
dps_k_softmax_causal_row (float *row, int t, int T)
{
  float mx = row[0];
  for (int u = 1; u <= t; u++)
    mx = row[u] > mx ? row[u] : mx;
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

/* softmax backward in place: da becomes a (da - sum_u a da), zero masked */
DPS_HD void
dps_k_softmax_causal_back_row (float *da, const float *a, int t, int T)
{
  double dot = 0;
  for (int u = 0; u <= t; u++)
    dot += a[u] * da[u];
  for (int u = 0; u <= t; u++)
    da[u] = a[u] * (float) (da[u] - dot);
  for (int u = t + 1; u < T; u++)
    da[u] = 0;
}

/* GPT-2's GELU (tanh form) and its derivative */
DPS_HD float
dps_k_gelu (float x)
{
  return 0.5f * x * (1 + tanhf (DPS_GELU_C * (x + 0.044715f * x * x * x)));
}

DPS_HD float
dps_k_gelu_grad (float x)
{
  float th = tanhf (DPS_GELU_C * (x + 0.044715f * x * x * x));
  return 0.5f * (1 + th) + 0.5f * x * (1 - th * th) * DPS_GELU_C * (1 + 3 * 0.044715f * x * x);
}

/* logits of one row become their gradient, (softmax - one-hot) / n;
 * returns the row's cross-entropy */
DPS_HD float
dps_k_xent_row (float *z, int target, int V, float inv_n)
{
  float mx = z[0];
  for (int j = 1; j < V; j++)
    mx = z[j] > mx ? z[j] : mx;
  double sum = 0;
  for (int j = 0; j < V; j++) {
    z[j] = expf (z[j] - mx);
    sum += z[j];
  }
  float loss = (float) -log (z[target] / sum);
  for (int j = 0; j < V; j++)
    z[j] = (float) (z[j] / sum) * inv_n;
  z[target] -= inv_n;
  return loss;
}

/* column j of the embedding gradients: every row's gradient into its
 * token's row of dwte and its position's row of dwpe */
DPS_HD void
dps_k_embed_back_col (float *dwte, float *dwpe, const float *dx, const int *tokens, long rows, int T, int d, int j)
{
  for (long r = 0; r < rows; r++) {
    dwte[(long) tokens[r] * d + j] += dx[r * d + j];
    dwpe[(r % T) * d + j] += dx[r * d + j];
  }
}

/* one parameter's Adam step; c1 = lr / (1 - beta1^t), c2 = 1 / (1 - beta2^t) */
DPS_HD void
dps_k_adam (float *p, float *m1, float *m2, float g, float c1, float c2)
{
  *m1 = 0.9f * *m1 + 0.1f * g;
  *m2 = 0.999f * *m2 + 0.001f * g * g;
  *p -= c1 * *m1 / (sqrtf (*m2 * c2) + 1e-8f);
}
