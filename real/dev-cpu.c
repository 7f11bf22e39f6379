/* dev-cpu.c — the CPU device: OpenBLAS for matrix products, loops over the
 * rows, columns and elements of kernels.h for the rest. */
#include "real/dev.h"
#include "real/kernels.h"

#include <cblas.h>
#include <string.h>
#include <time.h>

static void *
cpu_alloc (DpsDev *d, gsize bytes)
{
  (void) d;
  return g_try_malloc0 (MAX (bytes, 1));
}

static void
cpu_free (DpsDev *d, void *p)
{
  (void) d;
  g_free (p);
}

static void
cpu_zero (DpsDev *d, void *p, gsize bytes)
{
  (void) d;
  memset (p, 0, bytes);
}

static void
cpu_copy (DpsDev *d, void *dst, const void *src, gsize bytes)
{
  (void) d;
  memcpy (dst, src, bytes);
}

static void
cpu_gemm (DpsDev *d, gboolean ta, gboolean tb, int M, int N, int K, float alpha, const float *A, int lda,
          const float *B, int ldb, float beta, float *C, int ldc)
{
  (void) d;
  cblas_sgemm (CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda,
               B, ldb, beta, C, ldc);
}

static void
cpu_gemm_batched (DpsDev *d, gboolean ta, gboolean tb, int M, int N, int K, float alpha, const float *A, int lda,
                  long sA, const float *B, int ldb, long sB, float beta, float *C, int ldc, long sC, int count)
{
  for (int i = 0; i < count; i++)
    cpu_gemm (d, ta, tb, M, N, K, alpha, A + i * sA, lda, B + i * sB, ldb, beta, C + i * sC, ldc);
}

static void
cpu_fill_rows (DpsDev *d, float *y, const float *row, long rows, int cols)
{
  (void) d;
  for (long r = 0; r < rows; r++)
    memcpy (y + r * cols, row, sizeof (float) * cols);
}

static void
cpu_col_sum (DpsDev *d, float *s, const float *x, long rows, int cols, gboolean add)
{
  (void) d;
  if (!add)
    memset (s, 0, sizeof (float) * cols);
  for (long r = 0; r < rows; r++)
    for (int j = 0; j < cols; j++)
      s[j] += x[r * cols + j];
}

static void
cpu_axpy (DpsDev *d, long n, float a, const float *x, float *y)
{
  (void) d;
  cblas_saxpy ((int) n, a, x, 1, y, 1);
}

static void
cpu_relu (DpsDev *d, float *y, long n)
{
  (void) d;
  for (long i = 0; i < n; i++)
    y[i] = y[i] > 0 ? y[i] : 0;
}

static void
cpu_relu_back (DpsDev *d, float *dx, const float *x, long n)
{
  (void) d;
  for (long i = 0; i < n; i++)
    dx[i] = x[i] > 0 ? dx[i] : 0;
}

static void
cpu_gelu (DpsDev *d, float *y, const float *x, long n)
{
  (void) d;
  for (long i = 0; i < n; i++)
    y[i] = dps_k_gelu (x[i]);
}

static void
cpu_gelu_back (DpsDev *d, float *dx, const float *x, long n)
{
  (void) d;
  for (long i = 0; i < n; i++)
    dx[i] *= dps_k_gelu_grad (x[i]);
}

static void
cpu_layernorm (DpsDev *d, float *y, float *mean, float *rstd, const float *x, const float *w, const float *b,
               long rows, int dim)
{
  (void) d;
  for (long r = 0; r < rows; r++)
    dps_k_layernorm_row (y + r * dim, mean + r, rstd + r, x + r * dim, w, b, dim);
}

static void
cpu_layernorm_back (DpsDev *d, float *dx, float *dw, float *db, const float *dy, const float *x, const float *mean,
                    const float *rstd, const float *w, long rows, int dim)
{
  (void) d;
  for (long r = 0; r < rows; r++)
    dps_k_layernorm_back_row (dx + r * dim, dy + r * dim, x + r * dim, mean[r], rstd[r], w, dim);
  for (int j = 0; j < dim; j++)
    dps_k_layernorm_back_col (dw, db, dy, x, mean, rstd, rows, dim, j);
}

static void
cpu_softmax_causal (DpsDev *d, float *a, long rows, int T)
{
  (void) d;
  for (long r = 0; r < rows; r++)
    dps_k_softmax_causal_row (a + r * T, (int) (r % T), T);
}

static void
cpu_softmax_causal_back (DpsDev *d, float *da, const float *a, long rows, int T)
{
  (void) d;
  for (long r = 0; r < rows; r++)
    dps_k_softmax_causal_back_row (da + r * T, a + r * T, (int) (r % T), T);
}

static void
cpu_embed (DpsDev *d, float *x, const float *wte, const float *wpe, const int *tokens, long rows, int T, int dim)
{
  (void) d;
  for (long r = 0; r < rows; r++)
    for (int j = 0; j < dim; j++)
      x[r * dim + j] = wte[(long) tokens[r] * dim + j] + wpe[(r % T) * dim + j];
}

static void
cpu_embed_back (DpsDev *d, float *dwte, float *dwpe, const float *dx, const int *tokens, long rows, int T, int dim)
{
  (void) d;
  for (int j = 0; j < dim; j++)
    dps_k_embed_back_col (dwte, dwpe, dx, tokens, rows, T, dim, j);
}

static void
cpu_xent (DpsDev *d, float *z, const int *targets, float *loss, long rows, int V)
{
  (void) d;
  for (long r = 0; r < rows; r++)
    loss[r] = dps_k_xent_row (z + r * V, targets[r], V, 1.0f / rows);
}

static void
cpu_mse (DpsDev *d, float *dy, const float *y, const float *t, float *loss, long n, int batch)
{
  (void) d;
  for (long i = 0; i < n; i++) {
    float e = y[i] - t[i];
    loss[i] = 0.5f * e * e;
    dy[i] = e / batch;
  }
}

static void
cpu_adam (DpsDev *d, float *p, float *m1, float *m2, const float *g, long n, float gscale, float c1, float c2)
{
  (void) d;
  for (long i = 0; i < n; i++)
    dps_k_adam (p + i, m1 + i, m2 + i, g[i] * gscale, c1, c2);
}

static gboolean
cpu_sync (DpsDev *d, GError **error)
{
  (void) d;
  (void) error;
  return TRUE;
}

static double cpu_marks[DPS_DEV_MARKS];

static void
cpu_mark (DpsDev *d, int slot)
{
  (void) d;
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  cpu_marks[CLAMP (slot, 0, DPS_DEV_MARKS - 1)] = ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double
cpu_between (DpsDev *d, int a, int b)
{
  (void) d;
  return cpu_marks[CLAMP (b, 0, DPS_DEV_MARKS - 1)] - cpu_marks[CLAMP (a, 0, DPS_DEV_MARKS - 1)];
}

static DpsDev cpu_dev = {
  .name = "cpu",
  .alloc = cpu_alloc,
  .free = cpu_free,
  .zero = cpu_zero,
  .upload = cpu_copy,
  .download = cpu_copy,
  .gemm = cpu_gemm,
  .gemm_batched = cpu_gemm_batched,
  .fill_rows = cpu_fill_rows,
  .col_sum = cpu_col_sum,
  .axpy = cpu_axpy,
  .relu = cpu_relu,
  .relu_back = cpu_relu_back,
  .gelu = cpu_gelu,
  .gelu_back = cpu_gelu_back,
  .layernorm = cpu_layernorm,
  .layernorm_back = cpu_layernorm_back,
  .softmax_causal = cpu_softmax_causal,
  .softmax_causal_back = cpu_softmax_causal_back,
  .embed = cpu_embed,
  .embed_back = cpu_embed_back,
  .xent = cpu_xent,
  .mse = cpu_mse,
  .adam = cpu_adam,
  .sync = cpu_sync,
  .mark = cpu_mark,
  .between = cpu_between,
};

DpsDev *
dps_dev_cpu (void)
{
  return &cpu_dev;
}
