/* dev-cuda.cu — the CUDA device: cuBLAS for matrix products, and one GPU
 * thread per row, column or element calling the math of kernels.h (the
 * same functions the CPU device loops over).  Everything runs in order on
 * one stream, the compute stream, which the GPU replica's communication
 * stream synchronises with through events.
 *
 * Row-major products on column-major cuBLAS: C = op(A) op(B) row-major is
 * C^T = op(B)^T op(A)^T column-major, so A and B swap places. */
#include <cuda_runtime.h>
#include <cublas_v2.h>

extern "C" {
#include "real/dev.h"
#include "real/dev-cuda.h"
#include "sim/base/error.h"
}
#include "real/kernels.h"

static struct {
  DpsDev         dev;
  int            device;
  cudaStream_t   stream;
  cublasHandle_t blas;
  cudaError_t    err;          /* the first CUDA error seen, reported by sync */
  cublasStatus_t blas_err;
} C;

static void
note (cudaError_t e)
{
  if (e != cudaSuccess && C.err == cudaSuccess)
    C.err = e;
}

static void
note_blas (cublasStatus_t s)
{
  if (s != CUBLAS_STATUS_SUCCESS && C.blas_err == CUBLAS_STATUS_SUCCESS)
    C.blas_err = s;
}

static unsigned
blocks (long n)
{
  return (unsigned) ((n + 255) / 256);
}

#define LAUNCH(kernel, n, ...)                                          \
  do {                                                                  \
    if ((n) > 0) {                                                      \
      kernel<<<blocks (n), 256, 0, C.stream>>> (__VA_ARGS__);           \
      note (cudaGetLastError ());                                       \
    }                                                                   \
  } while (0)

#define FOR_EACH(i, n)                                                  \
  long i = (long) blockIdx.x * blockDim.x + threadIdx.x;                \
  if (i >= (n))                                                         \
    return

__global__ void k_fill_rows (float *y, const float *row, long n, int cols) { FOR_EACH (i, n); y[i] = row[i % cols]; }
__global__ void k_relu (float *y, long n) { FOR_EACH (i, n); y[i] = y[i] > 0 ? y[i] : 0; }
__global__ void k_relu_back (float *dx, const float *x, long n) { FOR_EACH (i, n); dx[i] = x[i] > 0 ? dx[i] : 0; }
__global__ void k_gelu (float *y, const float *x, long n) { FOR_EACH (i, n); y[i] = dps_k_gelu (x[i]); }
__global__ void k_gelu_back (float *dx, const float *x, long n) { FOR_EACH (i, n); dx[i] *= dps_k_gelu_grad (x[i]); }

__global__ void
k_col_sum (float *s, const float *x, long rows, int cols, int add)
{
  FOR_EACH (j, cols);
  double t = 0;
  for (long r = 0; r < rows; r++)
    t += x[r * cols + j];
  s[j] = (float) (add ? s[j] + t : t);
}

__global__ void
k_layernorm (float *y, float *mean, float *rstd, const float *x, const float *w, const float *b, long rows, int d)
{
  FOR_EACH (r, rows);
  dps_k_layernorm_row (y + r * d, mean + r, rstd + r, x + r * d, w, b, d);
}

__global__ void
k_layernorm_back_rows (float *dx, const float *dy, const float *x, const float *mean, const float *rstd,
                       const float *w, long rows, int d)
{
  FOR_EACH (r, rows);
  dps_k_layernorm_back_row (dx + r * d, dy + r * d, x + r * d, mean[r], rstd[r], w, d);
}

__global__ void
k_layernorm_back_cols (float *dw, float *db, const float *dy, const float *x, const float *mean, const float *rstd,
                       long rows, int d)
{
  FOR_EACH (j, d);
  dps_k_layernorm_back_col (dw, db, dy, x, mean, rstd, rows, d, (int) j);
}

__global__ void
k_softmax_causal (float *a, long rows, int T)
{
  FOR_EACH (r, rows);
  dps_k_softmax_causal_row (a + r * T, (int) (r % T), T);
}

__global__ void
k_softmax_causal_back (float *da, const float *a, long rows, int T)
{
  FOR_EACH (r, rows);
  dps_k_softmax_causal_back_row (da + r * T, a + r * T, (int) (r % T), T);
}

__global__ void
k_embed (float *x, const float *wte, const float *wpe, const int *tokens, long n, int T, int d)
{
  FOR_EACH (i, n);
  long r = i / d, j = i % d;
  x[i] = wte[(long) tokens[r] * d + j] + wpe[(r % T) * d + j];
}

__global__ void
k_embed_back (float *dwte, float *dwpe, const float *dx, const int *tokens, long rows, int T, int d)
{
  FOR_EACH (j, d);
  dps_k_embed_back_col (dwte, dwpe, dx, tokens, rows, T, d, (int) j);
}

__global__ void
k_xent (float *z, const int *targets, float *loss, long rows, int V)
{
  FOR_EACH (r, rows);
  loss[r] = dps_k_xent_row (z + r * V, targets[r], V, 1.0f / rows);
}

__global__ void
k_mse (float *dy, const float *y, const float *t, float *loss, long n, int batch)
{
  FOR_EACH (i, n);
  float e = y[i] - t[i];
  loss[i] = 0.5f * e * e;
  dy[i] = e / batch;
}

__global__ void
k_adam (float *p, float *m1, float *m2, const float *g, long n, float gscale, float c1, float c2)
{
  FOR_EACH (i, n);
  dps_k_adam (p + i, m1 + i, m2 + i, g[i] * gscale, c1, c2);
}

/* spins one thread until the GPU's global timer has advanced ns */
__global__ void
k_wait (unsigned long long ns)
{
  unsigned long long t0, t;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep (1000);
    asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

static void *
cu_alloc (DpsDev *, gsize bytes)
{
  void *p = NULL;
  if (cudaMalloc (&p, bytes ? bytes : 1) != cudaSuccess) {
    cudaGetLastError ();   /* out of memory is reported by the caller, not sticky */
    return NULL;
  }
  note (cudaMemsetAsync (p, 0, bytes, C.stream));
  return p;
}

static void
cu_free (DpsDev *, void *p)
{
  if (p) {
    note (cudaStreamSynchronize (C.stream));
    note (cudaFree (p));
  }
}

static void cu_zero (DpsDev *, void *p, gsize bytes) { note (cudaMemsetAsync (p, 0, bytes, C.stream)); }

/* the host buffer may be reused at once: the copy is waited for */
static void
cu_upload (DpsDev *, void *dst, const void *src, gsize bytes)
{
  note (cudaMemcpyAsync (dst, src, bytes, cudaMemcpyHostToDevice, C.stream));
  note (cudaStreamSynchronize (C.stream));
}

static void
cu_download (DpsDev *, void *dst, const void *src, gsize bytes)
{
  note (cudaMemcpyAsync (dst, src, bytes, cudaMemcpyDeviceToHost, C.stream));
  note (cudaStreamSynchronize (C.stream));
}

static void
cu_gemm (DpsDev *, gboolean ta, gboolean tb, int M, int N, int K, float alpha, const float *A, int lda,
         const float *B, int ldb, float beta, float *Cm, int ldc)
{
  note_blas (cublasSgemm (C.blas, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K, &alpha, B,
                          ldb, A, lda, &beta, Cm, ldc));
}

static void
cu_gemm_batched (DpsDev *, gboolean ta, gboolean tb, int M, int N, int K, float alpha, const float *A, int lda,
                 long sA, const float *B, int ldb, long sB, float beta, float *Cm, int ldc, long sC, int count)
{
  note_blas (cublasSgemmStridedBatched (C.blas, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, N, M,
                                        K, &alpha, B, ldb, sB, A, lda, sA, &beta, Cm, ldc, sC, count));
}

static void cu_fill_rows (DpsDev *, float *y, const float *row, long rows, int cols) { LAUNCH (k_fill_rows, rows * cols, y, row, rows * cols, cols); }
static void cu_col_sum (DpsDev *, float *s, const float *x, long rows, int cols, gboolean add) { LAUNCH (k_col_sum, cols, s, x, rows, cols, add); }
static void cu_relu (DpsDev *, float *y, long n) { LAUNCH (k_relu, n, y, n); }
static void cu_relu_back (DpsDev *, float *dx, const float *x, long n) { LAUNCH (k_relu_back, n, dx, x, n); }
static void cu_gelu (DpsDev *, float *y, const float *x, long n) { LAUNCH (k_gelu, n, y, x, n); }
static void cu_gelu_back (DpsDev *, float *dx, const float *x, long n) { LAUNCH (k_gelu_back, n, dx, x, n); }

static void
cu_axpy (DpsDev *, long n, float a, const float *x, float *y)
{
  note_blas (cublasSaxpy (C.blas, (int) n, &a, x, 1, y, 1));
}

static void
cu_layernorm (DpsDev *, float *y, float *mean, float *rstd, const float *x, const float *w, const float *b, long rows,
              int d)
{
  LAUNCH (k_layernorm, rows, y, mean, rstd, x, w, b, rows, d);
}

static void
cu_layernorm_back (DpsDev *, float *dx, float *dw, float *db, const float *dy, const float *x, const float *mean,
                   const float *rstd, const float *w, long rows, int d)
{
  LAUNCH (k_layernorm_back_rows, rows, dx, dy, x, mean, rstd, w, rows, d);
  LAUNCH (k_layernorm_back_cols, d, dw, db, dy, x, mean, rstd, rows, d);
}

static void cu_softmax_causal (DpsDev *, float *a, long rows, int T) { LAUNCH (k_softmax_causal, rows, a, rows, T); }

static void
cu_softmax_causal_back (DpsDev *, float *da, const float *a, long rows, int T)
{
  LAUNCH (k_softmax_causal_back, rows, da, a, rows, T);
}

static void
cu_embed (DpsDev *, float *x, const float *wte, const float *wpe, const int *tokens, long rows, int T, int d)
{
  LAUNCH (k_embed, rows * d, x, wte, wpe, tokens, rows * d, T, d);
}

static void
cu_embed_back (DpsDev *, float *dwte, float *dwpe, const float *dx, const int *tokens, long rows, int T, int d)
{
  LAUNCH (k_embed_back, d, dwte, dwpe, dx, tokens, rows, T, d);
}

static void
cu_xent (DpsDev *, float *z, const int *targets, float *loss, long rows, int V)
{
  LAUNCH (k_xent, rows, z, targets, loss, rows, V);
}

static void
cu_mse (DpsDev *, float *dy, const float *y, const float *t, float *loss, long n, int batch)
{
  LAUNCH (k_mse, n, dy, y, t, loss, n, batch);
}

static void
cu_adam (DpsDev *, float *p, float *m1, float *m2, const float *g, long n, float gscale, float c1, float c2)
{
  LAUNCH (k_adam, n, p, m1, m2, g, n, gscale, c1, c2);
}

static gboolean
cu_sync (DpsDev *, GError **error)
{
  note (cudaStreamSynchronize (C.stream));
  if (C.err != cudaSuccess) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "CUDA on GPU %d: %s", C.device, cudaGetErrorString (C.err));
    return FALSE;
  }
  if (C.blas_err != CUBLAS_STATUS_SUCCESS) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "cuBLAS on GPU %d: status %d", C.device, (int) C.blas_err);
    return FALSE;
  }
  return TRUE;
}

static cudaEvent_t marks[DPS_DEV_MARKS];

static cudaEvent_t
mark_event (int slot)
{
  slot = slot < 0 ? 0 : slot >= DPS_DEV_MARKS ? DPS_DEV_MARKS - 1 : slot;
  if (!marks[slot])
    note (cudaEventCreate (&marks[slot]));
  return marks[slot];
}

static void
cu_mark (DpsDev *, int slot)
{
  note (cudaEventRecord (mark_event (slot), C.stream));
}

static double
cu_between (DpsDev *, int a, int b)
{
  float ms = 0;
  note (cudaEventSynchronize (mark_event (b)));
  note (cudaEventElapsedTime (&ms, mark_event (a), mark_event (b)));
  return ms * 1e-3;
}

extern "C" DpsDev *
dps_dev_cuda (int device, GError **error)
{
  if (C.dev.name)
    return &C.dev;
  int n = 0;
  cudaError_t e = cudaGetDeviceCount (&n);
  if (e != cudaSuccess || n == 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "no CUDA GPU: %s",
                 e != cudaSuccess ? cudaGetErrorString (e) : "none found");
    return NULL;
  }
  C.device = device % n;
  if ((e = cudaSetDevice (C.device)) != cudaSuccess || (e = cudaStreamCreate (&C.stream)) != cudaSuccess) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "GPU %d: %s", C.device, cudaGetErrorString (e));
    return NULL;
  }
  if (cublasCreate (&C.blas) != CUBLAS_STATUS_SUCCESS || cublasSetStream (C.blas, C.stream) != CUBLAS_STATUS_SUCCESS) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "GPU %d: cuBLAS did not start", C.device);
    return NULL;
  }
  /* fp32 products stay fp32 (no TF32), as the CPU device computes them */
  cublasSetMathMode (C.blas, CUBLAS_PEDANTIC_MATH);
  DpsDev *d = &C.dev;
  d->alloc = cu_alloc;
  d->free = cu_free;
  d->zero = cu_zero;
  d->upload = cu_upload;
  d->download = cu_download;
  d->gemm = cu_gemm;
  d->gemm_batched = cu_gemm_batched;
  d->fill_rows = cu_fill_rows;
  d->col_sum = cu_col_sum;
  d->axpy = cu_axpy;
  d->relu = cu_relu;
  d->relu_back = cu_relu_back;
  d->gelu = cu_gelu;
  d->gelu_back = cu_gelu_back;
  d->layernorm = cu_layernorm;
  d->layernorm_back = cu_layernorm_back;
  d->softmax_causal = cu_softmax_causal;
  d->softmax_causal_back = cu_softmax_causal_back;
  d->embed = cu_embed;
  d->embed_back = cu_embed_back;
  d->xent = cu_xent;
  d->mse = cu_mse;
  d->adam = cu_adam;
  d->sync = cu_sync;
  d->mark = cu_mark;
  d->between = cu_between;
  d->name = "cuda";
  return d;
}

extern "C" cudaStream_t
dps_dev_cuda_stream (void)
{
  return C.stream;
}

extern "C" void
dps_dev_cuda_wait (double seconds)
{
  if (seconds > 0) {
    k_wait<<<1, 1, 0, C.stream>>> ((unsigned long long) (seconds * 1e9));
    note (cudaGetLastError ());
  }
}
