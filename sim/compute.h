/* compute — how long each layer's forward and backward take on one device.
 *
 * A layer of the zoo carries its work as kernels (model.h): each kind
 * reaches its own fraction of the device's peak, and each kernel is timed
 * by its roofline,
 *   max(FLOPs x b / (peak[dtype] x efficiency[kind]),
 *       (weight bytes + activation bytes x b) / (memory bandwidth x mem_efficiency)),
 * but never shorter than the host's dispatch of its launches (PyTorch eager
 * issues each kernel from Python: a few microseconds each, so that small
 * kernels are bound by the host, not the GPU).  Backward does about twice
 * the work (gradients of inputs and of weights): 2 x forward, but for a
 * linear layer of known shape, whose weight gradient's GEMM reduces over
 * the batch's rows (its tokens) and is timed at that length
 * (sim/compute.c: a few tokens a step make it slower than the forward,
 * many faster).  A layer
 * without kernels (a CSV model) takes the same roofline over its layer's
 * FLOPs and bytes as one GEMM.  A model with measured per-layer times uses
 * them, scaled linearly from the batch they were measured at; measured on
 * another device they are transferred (dps_compute_transfer).
 *
 * With fused attention (FlashAttention, PyTorch's SDPA) a block's
 * attention is one kernel: its GEMMs' FLOPs at the fused kernel's
 * efficiency, moving Q, K, V and the output but no score matrix, and the
 * passes over the scores (softmax, its dropout) vanish; its backward
 * recomputes the scores: 2.5 x its forward (Dao 2023, FlashAttention-2:
 * five GEMMs against two).  Two kernels are told apart: FlashAttention-2
 * (flash-attn 2, PyTorch's SDPA flash backend) and cuDNN's fused attention
 * (Transformer Engine's FusedAttention, which TE takes over FlashAttention
 * on Hopper and later, and SDPA's cuDNN backend), faster on Hopper and
 * later by what FlashAttention-3's paper measures (sim/compute.c); before
 * Hopper the two take the same time.
 *
 * In FP8 (p->fp8) a GEMM with weights (a linear layer's; attention's
 * score and value products have none and stay in dtype, as Transformer
 * Engine and torchao's float8 leave them) runs at the device's FP8 rate
 * (a linear layer of known shape at the fraction its law gives for that
 * rate: FP8 doubles the work of an SM's tensor cores a clock, as a
 * generation does; sim/compute.c), after a pass that casts its
 * input and its weights to FP8: reading them in dtype and writing a byte
 * each, memory-bound (its input taken as half the kernel's activation
 * bytes).  Layers without kernels (a per-layer file, a trace) keep their
 * times.
 *
 * Each kernel is compute-bound or memory-bound on a given device; the
 * split (dps_compute_layer_split) says how much of a layer's time is which,
 * and transfer scales each part by the two devices' ratio. */
#pragma once

#include "sim/model.h"
#include "sim/device.h"

/* The kernel a fused attention runs (flash_attention set). */
typedef enum {
  DPS_FUSED_FLASH2,        /* FlashAttention-2: flash-attn 2, PyTorch SDPA's flash backend */
  DPS_FUSED_CUDNN,         /* cuDNN's: Transformer Engine's FusedAttention, SDPA's cuDNN backend */
} DpsFusedKernel;

typedef struct {
  DpsDtype dtype;          /* compute type: bf16 for mixed precision, fp32... */
  double   efficiency;     /* > 0: this fraction of peak FLOP/s for every kernel (--efficiency);
                            * 0: the fraction of each kind (dps_compute_kind_efficiency) */
  double   mem_efficiency; /* fraction of memory bandwidth reached */
  double   bwd_ratio;      /* backward / forward (2) */
  double   dispatch_s;     /* the shortest a kernel takes: the host issuing it */
  gboolean flash_attention;/* attention fused (FlashAttention, SDPA): one kernel, no score matrices */
  DpsFusedKernel fused_kernel;   /* which, with flash_attention */
  gboolean fp8;            /* the linear layers' GEMMs in FP8 (Transformer Engine, torchao's float8) */
  int      tp;             /* tensor-parallel ranks the layers are split over (1: none): the row-parallel
                            * GEMMs reduce over K / tp (DpsKernel.inv_k_row); their times stay the whole
                            * layer's, which the caller divides */
} DpsComputeParams;

/* one layer's forward time on a device, by what bounds it */
typedef struct {
  double flops_s;          /* kernels bound by FLOP/s */
  double memory_s;         /* kernels bound by memory bandwidth */
  double host_s;           /* kernels bound by the host's dispatch */
  double fused_attn_s;     /* of them, fused attention's (its backward does more than twice its work) */
  double tp_whole_s;       /* of memory_s, the passes tensor parallelism leaves whole on every rank
                            * (neither DpsKernel.tp_split nor over the scores: norms, residual adds,
                            * dropout on the hidden state) */
  double wgrad_extra_s;    /* what backward's weight-gradient GEMMs take beyond their forward's time
                            * (their reduction over the batch's rows, sim/compute.c); < 0: less */
} DpsComputeSplit;

void   dps_compute_params_default (DpsComputeParams *p);
/* How attention runs, as --attention names it: "eager" (not fused),
 * "flash" (FlashAttention-2) or "cudnn". */
const char *dps_attention_name (gboolean fused, DpsFusedKernel kernel);
/* Its inverse, in any case: FALSE for a name that is none of them. */
gboolean    dps_attention_parse (const char *name, gboolean *fused, DpsFusedKernel *kernel);
double dps_compute_kind_efficiency (DpsKernelKind kind, DpsDtype dtype, const DpsDeviceSpec *dev);
void   dps_compute_layer_split (const DpsModel *m, int layer, const DpsDeviceSpec *dev, const DpsComputeParams *p,
                                double batch, DpsComputeSplit *out);
void   dps_compute_layer_times (const DpsModel *m, const DpsDeviceSpec *dev, const DpsComputeParams *p,
                                double batch, double *fwd_s, double *bwd_s);
double dps_compute_transfer (DpsModel *m, const DpsDeviceSpec *from, const DpsDeviceSpec *to,
                             const DpsComputeParams *p);
gboolean dps_compute_use_file_times (DpsModel *m, const DpsDeviceSpec *target, const DpsComputeParams *p,
                                     char **note, GError **error);
double dps_compute_memory_bound_share (const DpsModel *m, const DpsDeviceSpec *dev, const DpsComputeParams *p,
                                       double batch);
