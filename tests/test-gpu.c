/* GPU checks (calibrate/gpu-nccl.c): NCCL all-reduce, all-gather and
 * reduce-scatter over every local GPU give correct results and positive
 * times; cuBLAS GEMM and copy figures are
 * positive, bf16 GEMM at least as fast as fp32 (tensor cores).  Exits 77
 * (skipped) where there is no GPU or no CUDA/NCCL in the build. */
#include "calibrate/gpu.h"
#include "sim/coll.h"

#include <stdio.h>

int
main (void)
{
  char *why = NULL;
  int n = dps_gpu_count (&why);
  if (n == 0) {
    printf ("skipped: %s\n", why);
    g_free (why);
    return 77;
  }
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsProfile) p = dps_profile_new (dps_cal_data_new ("gpu-nccl"));
  int counts[] = { n };
  double sizes[] = { 1024, 1 << 20, 64 << 20 };
  /* each collective calibration measures, checked element by element by
   * dps_gpu_collective itself (a wrong element is its error) */
  static const DpsCollOp ops[] = { DPS_OP_ALLREDUCE, DPS_OP_ALLGATHER, DPS_OP_REDUCE_SCATTER };
  for (gsize o = 0; o < G_N_ELEMENTS (ops); o++)
    if (!dps_gpu_collective (p->data, ops[o], counts, 1, sizes, 3, 5, NULL, NULL, &e)) {
      fprintf (stderr, "FAIL: %s: %s\n", dps_coll_op_words (ops[o]), e->message);
      return 1;
    }
  if (p->data->points->len != 3 * G_N_ELEMENTS (sizes)) {
    fprintf (stderr, "FAIL: %u points, want %zu\n", p->data->points->len, 3 * G_N_ELEMENTS (sizes));
    return 1;
  }
  for (guint i = 0; i < p->data->points->len; i++) {
    DpsCalPoint *q = &g_array_index (p->data->points, DpsCalPoint, i);
    printf ("%s %d GPUs %.0f B: %.2f us (NCCL estimate %.2f us)\n", dps_coll_op_name (q->op), q->ranks, q->bytes,
            q->time_s * 1e6, q->estimate_s * 1e6);
    if (!(q->time_s > 0) || q->wrong != 0 || q->op != ops[i / G_N_ELEMENTS (sizes)])
      return 1;
  }
  int dims[] = { 2048, 4096 };
  if (!dps_gpu_compute (p, dims, 2, &e)) {
    fprintf (stderr, "FAIL: %s\n", e->message);
    return 1;
  }
  double best[4] = { 0 };
  for (guint i = 0; i < p->gemm->len; i++) {
    DpsGemmPoint *q = &g_array_index (p->gemm, DpsGemmPoint, i);
    printf ("gemm %s %.0f: %.1f TFLOP/s\n", dps_dtype_name (q->dtype), q->m, q->flops / 1e12);
    best[q->dtype] = MAX (best[q->dtype], q->flops);
  }
  printf ("copy: %.0f GB/s\n", p->copy_bw_Bps / 1e9);
  /* per-layer times: every block of the small transformer takes time */
  g_autoptr (DpsModel) m = dps_model_load ("transformer-small", &e);
  double f[64], b[64];
  if (!m || !dps_gpu_layer_times (m, 8, DPS_DTYPE_BF16, f, b, &e)) {
    fprintf (stderr, "FAIL: %s\n", e->message);
    return 1;
  }
  for (int l = 1; l + 1 < dps_model_n_layers (m); l++)
    if (!(f[l] > 0 && b[l] == 2 * f[l]))
      return 1;
  if (!(best[DPS_DTYPE_BF16] >= best[DPS_DTYPE_FP32]) || !(p->copy_bw_Bps > 0))
    return 1;
  printf ("gpu: 1 passed, 0 failed\n");
  return 0;
}
