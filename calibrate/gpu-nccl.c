/* gpu-nccl.c — GPU calibration (see gpu.h), in the GPU module
 * (real/gpu-module.h; calibrate/gpu-load.c calls it): NCCL all-reduce, all-gather and
 * reduce-scatter over sizes and GPU counts from one process driving the
 * local GPUs (ncclCommInitAll), as nccl-tests' all_reduce_perf -g N does, with a correctness check and NCCL's
 * own estimate (ncclGroupSimulateEnd) beside each measurement; cuBLAS GEMM
 * throughput per data type and device-to-device copy bandwidth. */
#include "calibrate/gpu.h"
#include "calibrate/gpu-module-api.h"
#include "calibrate/coll-buffers.h"
#include "sim/coll.h"
#include "sim/base/error.h"

#include <cuda_runtime_api.h>
#include <cublas_v2.h>
#include <nccl.h>
#include "calibrate/nccl-issue.h"
#include <string.h>

/* One CHECK macro per library: the library's message, with file:line. */
#define CUDA_CHECK(call)                                                                          \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "%s:%d: %s: %s", __FILE__, __LINE__, #call, \
                   cudaGetErrorString (e_));                                                      \
      goto fail;                                                                                  \
    }                                                                                             \
  } while (0)
#define NCCL_CHECK(call)                                                                          \
  do {                                                                                            \
    ncclResult_t r_ = (call);                                                                     \
    if (r_ != ncclSuccess) {                                                                      \
      g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "%s:%d: %s: %s", __FILE__, __LINE__, #call, \
                   ncclGetErrorString (r_));                                                      \
      goto fail;                                                                                  \
    }                                                                                             \
  } while (0)
#define CUBLAS_CHECK(call)                                                                        \
  do {                                                                                            \
    cublasStatus_t s_ = (call);                                                                   \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                            \
      g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "%s:%d: %s: cuBLAS status %d", __FILE__,   \
                   __LINE__, #call, (int) s_);                                                    \
      goto fail;                                                                                  \
    }                                                                                             \
  } while (0)

static double
now_s (void)
{
  return g_get_monotonic_time () / 1e6;
}

/* Waits for every stream, polling NCCL's asynchronous errors. */
static gboolean
sync_all (ncclComm_t *comms, cudaStream_t *streams, int n, GError **error)
{
  for (int g = 0; g < n; g++) {
    for (;;) {
      cudaError_t q = cudaStreamQuery (streams[g]);
      if (q == cudaSuccess)
        break;
      if (q != cudaErrorNotReady) {
        g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "GPU %d: %s", g, cudaGetErrorString (q));
        return FALSE;
      }
      ncclResult_t ar;
      if (ncclCommGetAsyncError (comms[g], &ar) == ncclSuccess && ar != ncclSuccess) {
        g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "NCCL on GPU %d: %s", g, ncclGetErrorString (ar));
        return FALSE;
      }
    }
  }
  return TRUE;
}

static gboolean
run_coll (DpsCollOp op, ncclComm_t *comms, cudaStream_t *streams, float **send, float **recv, size_t count, int n,
          gboolean in_place, int iters, GError **error)
{
  for (int it = 0; it < iters; it++) {
    NCCL_CHECK (ncclGroupStart ());
    for (int g = 0; g < n; g++)
      NCCL_CHECK (dps_nccl_issue (op, comms[g], streams[g], send[g], recv[g], count, g, n, in_place));
    NCCL_CHECK (ncclGroupEnd ());
  }
  return sync_all (comms, streams, n, error);
fail:
  return FALSE;
}

/* Measures NCCL's op of floats for each GPU count and size. */
gboolean
dps_gpu_module_collective (DpsCalData *d, DpsCollOp op, const int *gpus, int n_counts, const double *sizes, int n_sizes,
                    int iters, DpsProgressFn progress, void *pdata, GError **error)
{
  int avail = dps_gpu_module_count (NULL);
  if (avail == 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "no GPU: no CUDA device is visible");
    return FALSE;
  }
  int version = 0;
  ncclGetVersion (&version);
  g_free (d->library);
  d->library = g_strdup_printf ("NCCL %d.%d.%d", version / 10000, version / 100 % 100, version % 100);
  GString *names = g_string_new (NULL), *env = g_string_new (NULL);
  for (int g = 0; g < avail; g++) {
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties (&prop, g) == cudaSuccess)
      g_string_append_printf (names, "%s%d:%s", g ? "; " : "", g, prop.name);
    for (int h = g + 1; h < avail; h++) {
      int can = 0;
      if (cudaDeviceCanAccessPeer (&can, g, h) == cudaSuccess && can)
        g_string_append_printf (names, " p2p(%d-%d)", g, h);
    }
  }
  const char *vars[] = { "NCCL_ALGO", "NCCL_PROTO", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS", "NCCL_NVLS_ENABLE" };
  for (gsize i = 0; i < G_N_ELEMENTS (vars); i++)
    if (g_getenv (vars[i]))
      g_string_append_printf (env, "%s%s=%s", env->len ? " " : "", vars[i], g_getenv (vars[i]));
  g_free (d->devices);
  d->devices = g_string_free (names, FALSE);
  g_free (d->env);
  d->env = g_string_free (env, FALSE);

  for (int c = 0; c < n_counts; c++) {
    int n = gpus[c];
    if (n < 1 || n > avail) {
      dps_set_field_error (error, DPS_FIELD_GPUS, DPS_ERROR_INPUT, "%d GPUs asked for, %d visible", n, avail);
      return FALSE;
    }
    ncclComm_t *comms = g_new0 (ncclComm_t, n);
    cudaStream_t *streams = g_new0 (cudaStream_t, n);
    float **send = g_new0 (float *, n), **recv = g_new0 (float *, n);
    int *devs = g_new (int, n);
    double max_bytes = 0;
    for (int i = 0; i < n_sizes; i++)
      max_bytes = MAX (max_bytes, sizes[i]);
    size_t max_count = (size_t) (max_bytes / 4) + 1;
    float *host = g_new (float, max_count);
    gboolean ok = FALSE;
    for (int g = 0; g < n; g++)
      devs[g] = g;
    NCCL_CHECK (ncclCommInitAll (comms, n, devs));
    for (int g = 0; g < n; g++) {
      CUDA_CHECK (cudaSetDevice (g));
      CUDA_CHECK (cudaStreamCreateWithFlags (&streams[g], cudaStreamNonBlocking));
      CUDA_CHECK (cudaMalloc ((void **) &send[g], max_count * sizeof (float)));
      CUDA_CHECK (cudaMalloc ((void **) &recv[g], max_count * sizeof (float)));
      for (size_t i = 0; i < max_count; i++)
        host[i] = (float) (g + 1);
      CUDA_CHECK (cudaMemcpy (send[g], host, max_count * sizeof (float), cudaMemcpyHostToDevice));
    }
    for (int s = 0; s < n_sizes; s++) {
      size_t count = dps_cal_count (op, sizes[s], (size_t) n);
      /* correctness: every element of an all-reduce (of GPU 0's share of a
       * reduce-scatter) is 1 + 2 + ... + n; an all-gather's share j is j + 1 */
      if (!run_coll (op, comms, streams, send, recv, count, n, FALSE, 1, error))
        goto fail;
      CUDA_CHECK (cudaSetDevice (0));
      CUDA_CHECK (cudaMemcpy (host, recv[0], count * sizeof (float), cudaMemcpyDeviceToHost));
      long wrong = dps_cal_wrong (op, host, count, n);
      if (wrong) {
        g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "NCCL %s of %zu floats over %d GPUs: %ld wrong",
                     dps_coll_op_words (op), count, n, wrong);
        goto fail;
      }
      /* NCCL's own estimate of the same call */
      double estimate = 0;
      ncclSimInfo_t sim = NCCL_SIM_INFO_INITIALIZER;
      NCCL_CHECK (ncclGroupStart ());
      for (int g = 0; g < n; g++)
        NCCL_CHECK (dps_nccl_issue (op, comms[g], streams[g], send[g], recv[g], count, g, n, FALSE));
      if (ncclGroupSimulateEnd (&sim) == ncclSuccess && sim.estimatedTime > 0)
        estimate = sim.estimatedTime * 1e-6;   /* microseconds */
      double t[2];
      for (int ip = 0; ip < 2; ip++) {
        if (!run_coll (op, comms, streams, send, recv, count, n, ip, 5, error))   /* warm-up */
          goto fail;
        double t0 = now_s ();
        if (!run_coll (op, comms, streams, send, recv, count, n, ip, iters, error))
          goto fail;
        t[ip] = (now_s () - t0) / iters;
      }
      dps_cal_data_add (d, n, 1, (double) count * 4, t[0], t[1], 0);
      DpsCalPoint *pt = &g_array_index (d->points, DpsCalPoint, d->points->len - 1);
      pt->op = op;
      pt->estimate_s = estimate;
      if (progress) {
        g_autofree char *msg = g_strdup_printf ("%s, %d GPUs, %10.0f B: %10.2f us (%.2f GB/s busbw; NCCL estimates "
                                                "%.2f us)", dps_coll_op_words (op), n, (double) count * 4, t[0] * 1e6,
                                                dps_cal_busbw_Bps (pt) / 1e9, estimate * 1e6);
        progress (msg, pdata);
      }
    }
    ok = TRUE;
  fail:
    for (int g = 0; g < n; g++) {
      cudaSetDevice (g);
      if (send[g])
        cudaFree (send[g]);
      if (recv[g])
        cudaFree (recv[g]);
      if (streams[g])
        cudaStreamDestroy (streams[g]);
      if (comms[g])
        ncclCommDestroy (comms[g]);
    }
    g_free (comms);
    g_free (streams);
    g_free (send);
    g_free (recv);
    g_free (devs);
    g_free (host);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

/* What the GEMM measurements share: a cuBLAS handle, three buffers of
 * `bytes` on GPU 0, two events. */
typedef struct {
  cublasHandle_t h;
  void          *a, *b, *c;
  cudaEvent_t    e0, e1;
  size_t         bytes;
} Bench;

static void
bench_free (Bench *k)
{
  if (k->h)
    cublasDestroy (k->h);
  if (k->a)
    cudaFree (k->a);
  if (k->b)
    cudaFree (k->b);
  if (k->c)
    cudaFree (k->c);
  if (k->e0)
    cudaEventDestroy (k->e0);
  if (k->e1)
    cudaEventDestroy (k->e1);
  memset (k, 0, sizeof *k);
}

static gboolean
bench_init (Bench *k, size_t bytes, GError **error)
{
  memset (k, 0, sizeof *k);
  k->bytes = bytes;
  CUDA_CHECK (cudaSetDevice (0));
  CUDA_CHECK (cudaMalloc (&k->a, bytes));
  CUDA_CHECK (cudaMalloc (&k->b, bytes));
  CUDA_CHECK (cudaMalloc (&k->c, bytes));
  CUDA_CHECK (cudaMemset (k->a, 0, bytes));
  CUDA_CHECK (cudaMemset (k->b, 0, bytes));
  CUDA_CHECK (cudaEventCreate (&k->e0));
  CUDA_CHECK (cudaEventCreate (&k->e1));
  CUBLAS_CHECK (cublasCreate (&k->h));
  return TRUE;
fail:
  bench_free (k);
  return FALSE;
}

/* Seconds of one M x N x K GEMM of type t: a warm-up, then the mean of reps. */
static gboolean
bench_gemm (Bench *k, int M, int N, int K, cudaDataType_t t, cublasComputeType_t ct, int reps, double *seconds,
            GError **error)
{
  float one = 1, zero = 0, ms = 0;
  CUBLAS_CHECK (cublasGemmEx (k->h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, k->a, t, M, k->b, t, K, &zero, k->c, t,
                              M, ct, CUBLAS_GEMM_DEFAULT));
  CUDA_CHECK (cudaEventRecord (k->e0, 0));
  for (int r = 0; r < reps; r++)
    CUBLAS_CHECK (cublasGemmEx (k->h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, k->a, t, M, k->b, t, K, &zero, k->c,
                                t, M, ct, CUBLAS_GEMM_DEFAULT));
  CUDA_CHECK (cudaEventRecord (k->e1, 0));
  CUDA_CHECK (cudaEventSynchronize (k->e1));
  CUDA_CHECK (cudaEventElapsedTime (&ms, k->e0, k->e1));
  *seconds = ms * 1e-3 / reps;
  return TRUE;
fail:
  return FALSE;
}

/* cuBLAS GEMM throughput (fp32, tf32, fp16, bf16) for square sizes, and
 * device-to-device copy bandwidth, on GPU 0. */
gboolean
dps_gpu_module_compute (DpsProfile *p, const int *dims, int n_dims, GError **error)
{
  static const struct { DpsDtype dt; cudaDataType_t t; cublasComputeType_t ct; } types[] = {
    { DPS_DTYPE_FP32, CUDA_R_32F, CUBLAS_COMPUTE_32F },
    { DPS_DTYPE_TF32, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32 },
    { DPS_DTYPE_FP16, CUDA_R_16F, CUBLAS_COMPUTE_32F },
    { DPS_DTYPE_BF16, CUDA_R_16BF, CUBLAS_COMPUTE_32F },
  };
  int max = 0;
  for (int i = 0; i < n_dims; i++)
    max = MAX (max, dims[i]);
  Bench k;
  if (!bench_init (&k, (size_t) max * max * 4, error))
    return FALSE;
  gboolean ok = FALSE;
  float ms = 0;
  for (gsize ti = 0; ti < G_N_ELEMENTS (types); ti++)
    for (int i = 0; i < n_dims; i++) {
      int d = dims[i];
      double sec;
      if (!bench_gemm (&k, d, d, d, types[ti].t, types[ti].ct, 10, &sec, error))
        goto fail;
      DpsGemmPoint q = { types[ti].dt, d, d, d, 2.0 * d * d * (double) d / sec };
      g_array_append_val (p->gemm, q);
      if (q.dtype == DPS_DTYPE_FP32)
        p->gemm_peak_flops = MAX (p->gemm_peak_flops, q.flops);
    }
  CUDA_CHECK (cudaEventRecord (k.e0, 0));
  for (int r = 0; r < 10; r++)
    CUDA_CHECK (cudaMemcpyAsync (k.c, k.a, k.bytes, cudaMemcpyDeviceToDevice, 0));
  CUDA_CHECK (cudaEventRecord (k.e1, 0));
  CUDA_CHECK (cudaEventSynchronize (k.e1));
  CUDA_CHECK (cudaEventElapsedTime (&ms, k.e0, k.e1));
  p->copy_bw_Bps = 2.0 * k.bytes * 10 / (ms * 1e-3);   /* read + write */
  ok = TRUE;
fail:
  bench_free (&k);
  return ok;
}

/* Per-layer forward and backward times on GPU 0 with cuBLAS, as the CPU
 * path measures them (cpu-calibrate.c): one GEMM of tokens x cols by
 * cols x rows per 2-D weight forward, two backward; layers without FLOPs
 * (embedding lookups) cost nothing. */
gboolean
dps_gpu_module_layer_times (const DpsModel *m, int batch, DpsDtype dtype, double *fwd_s, double *bwd_s,
                            GError **error)
{
  cudaDataType_t t = dtype == DPS_DTYPE_BF16 ? CUDA_R_16BF : dtype == DPS_DTYPE_FP16 ? CUDA_R_16F : CUDA_R_32F;
  cublasComputeType_t ct = dtype == DPS_DTYPE_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  int tokens = batch * MAX (m->seq_len, 1);
  gint64 max_elems = 1;
  for (int i = 0; i < dps_model_n_tensors (m); i++) {
    const DpsTensor *w = dps_model_tensor (m, i);
    if (w->rows > 0)
      max_elems = MAX (max_elems, MAX (w->numel, (gint64) tokens * MAX (w->rows, w->cols)));
  }
  Bench k;
  if (!bench_init (&k, (size_t) max_elems * 4, error))
    return FALSE;
  for (int l = 0; l < dps_model_n_layers (m); l++) {
    const DpsLayer *layer = dps_model_layer (m, l);
    fwd_s[l] = bwd_s[l] = 0;
    if (layer->fwd_flops <= 0)
      continue;
    for (int i = layer->first_tensor; i < layer->first_tensor + layer->n_tensors; i++) {
      const DpsTensor *w = dps_model_tensor (m, i);
      double sec;
      if (w->rows <= 0)
        continue;
      if (!bench_gemm (&k, (int) w->rows, tokens, (int) w->cols, t, ct, 5, &sec, error)) {
        bench_free (&k);
        return FALSE;
      }
      fwd_s[l] += sec;
      bwd_s[l] += 2 * sec;
    }
  }
  bench_free (&k);
  return TRUE;
}
