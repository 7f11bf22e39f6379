/* device — what a GPU (or CPU) can compute: peak FLOP/s per data type,
 * memory size and bandwidth.  Figures are per device; FLOP/s and bytes/s
 * are plain SI (1 TFLOP/s = 1e12 FLOP/s, 1 GB/s = 1e9 B/s). */
#pragma once

#include <glib.h>

typedef enum {
  DPS_DTYPE_FP32,
  DPS_DTYPE_TF32,
  DPS_DTYPE_FP16,
  DPS_DTYPE_BF16,
  DPS_DTYPE_COUNT
} DpsDtype;

typedef struct {
  char  *model;                          /* "H100 SXM5" */
  double peak_flops[DPS_DTYPE_COUNT];    /* FLOP/s, dense */
  double fp8_flops;                      /* FLOP/s of FP8 GEMMs, dense; 0: no FP8 tensor cores */
  double memory_bytes;
  double memory_bw_Bps;
} DpsDeviceSpec;

/* A GPU by name ("NVIDIA A100-SXM4-80GB", "H100 SXM5"): its datasheet
 * figures and streaming multiprocessors, for a profile measured on it. */
typedef struct {
  DpsDeviceSpec spec;                    /* spec.model is the family's name (static) */
  int           sm_count;
  int           nccl_sms;                /* SMs NCCL's collective kernels hold while they run */
  const char   *arch;                    /* "volta", "ampere", "ada", "hopper", "blackwell" */
  int           tensor_flop_per_sm_clock;/* dense fp16 FLOP of one SM's tensor cores per clock */
} DpsKnownDevice;

const DpsKnownDevice *dps_device_lookup (const char *name);
/* The GPU generations dpscale tells apart ("volta", "ampere", "ada",
 * "hopper", "blackwell"), NULL-terminated, in that order */
extern const char *const dps_gpu_arch_names[];
/* NCCL's generation of an architecture of dps_gpu_arch_names for its tuning
 * tables (0 Volta, 1 Ampere and Ada, 2 Hopper, 3 Blackwell); -1 for NULL
 * or another name. */
int         dps_gpu_arch_nccl_generation (const char *arch);
/* FP8 GEMMs' dense FLOP/s on a GPU of arch whose bf16 dense rate is
 * bf16_flops: twice it on Ada, Hopper and Blackwell, none before (0). */
double      dps_gpu_arch_fp8_flops (const char *arch, double bf16_flops);
const char *dps_dtype_name (DpsDtype dtype);
gboolean    dps_dtype_parse (const char *name, DpsDtype *out);
int         dps_dtype_bytes (DpsDtype dtype);
