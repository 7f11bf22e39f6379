/* dev — where the runner's networks compute: the CPU (OpenBLAS, dev-cpu.c)
 * or a CUDA GPU (cuBLAS and the kernels of kernels.h, dev-cuda.cu).  The
 * networks (mlp.c, transformer.c) are written once against this interface;
 * every buffer they use is the device's (host memory on the CPU, GPU
 * memory on a GPU).
 *
 * Matrices are row-major.  gemm computes C = alpha op(A) op(B) + beta C with
 * op(A) M x K and op(B) K x N, as cblas_sgemm with CblasRowMajor. */
#pragma once

#include <glib.h>

typedef struct DpsDev DpsDev;

struct DpsDev {
  const char *name;    /* "cpu", "cuda" */
  void  *(*alloc) (DpsDev *d, gsize bytes);                 /* zeroed; NULL when out of memory */
  void   (*free) (DpsDev *d, void *p);
  void   (*zero) (DpsDev *d, void *p, gsize bytes);
  void   (*upload) (DpsDev *d, void *dst, const void *src, gsize bytes);
  void   (*download) (DpsDev *d, void *dst, const void *src, gsize bytes);   /* waits for the device */
  void   (*gemm) (DpsDev *d, gboolean ta, gboolean tb, int M, int N, int K, float alpha, const float *A, int lda,
                  const float *B, int ldb, float beta, float *C, int ldc);
  /* count gemms, the i-th on A + i sA, B + i sB, C + i sC */
  void   (*gemm_batched) (DpsDev *d, gboolean ta, gboolean tb, int M, int N, int K, float alpha, const float *A,
                          int lda, long sA, const float *B, int ldb, long sB, float beta, float *C, int ldc, long sC,
                          int count);
  void   (*fill_rows) (DpsDev *d, float *y, const float *row, long rows, int cols);      /* every row = row */
  void   (*col_sum) (DpsDev *d, float *s, const float *x, long rows, int cols, gboolean add);
  void   (*axpy) (DpsDev *d, long n, float a, const float *x, float *y);                /* y += a x */
  void   (*relu) (DpsDev *d, float *y, long n);
  void   (*relu_back) (DpsDev *d, float *dx, const float *x, long n);                   /* dx *= x > 0 */
  void   (*gelu) (DpsDev *d, float *y, const float *x, long n);
  void   (*gelu_back) (DpsDev *d, float *dx, const float *x, long n);                   /* dx *= gelu'(x) */
  void   (*layernorm) (DpsDev *d, float *y, float *mean, float *rstd, const float *x, const float *w,
                       const float *b, long rows, int dim);
  /* dx += input gradient; dw, db += parameter gradients */
  void   (*layernorm_back) (DpsDev *d, float *dx, float *dw, float *db, const float *dy, const float *x,
                            const float *mean, const float *rstd, const float *w, long rows, int dim);
  void   (*softmax_causal) (DpsDev *d, float *a, long rows, int T);                     /* row r is position r % T */
  void   (*softmax_causal_back) (DpsDev *d, float *da, const float *a, long rows, int T);
  void   (*embed) (DpsDev *d, float *x, const float *wte, const float *wpe, const int *tokens, long rows, int T,
                   int dim);
  void   (*embed_back) (DpsDev *d, float *dwte, float *dwpe, const float *dx, const int *tokens, long rows, int T,
                        int dim);
  /* logits become their gradient; per-row losses into loss (device) */
  void   (*xent) (DpsDev *d, float *z, const int *targets, float *loss, long rows, int V);
  /* dy = (y - t) / batch; per-element squared error / 2 into loss (device) */
  void   (*mse) (DpsDev *d, float *dy, const float *y, const float *t, float *loss, long n, int batch);
  void   (*adam) (DpsDev *d, float *p, float *m1, float *m2, const float *g, long n, float gscale, float c1,
                  float c2);
  /* waits for the device's work; FALSE and the first error it met */
  gboolean (*sync) (DpsDev *d, GError **error);
  /* timing on the device's own clock, in order with its work: mark
   * records when the work queued so far is done in slot 0 <= slot <
   * DPS_DEV_MARKS (a CUDA event on the compute stream); between waits for
   * slot b and gives the seconds from slot a to it */
  void   (*mark) (DpsDev *d, int slot);
  double (*between) (DpsDev *d, int a, int b);
};

#define DPS_DEV_MARKS 1024

DpsDev *dps_dev_cpu (void);
/* the CUDA device of this process (NULL and an error without CUDA or a GPU) */
DpsDev *dps_dev_cuda (int device, GError **error);
