/* memory — device memory one data-parallel rank needs, in bytes.
 *
 * parameters (4 bytes each in fp32; 2 in mixed precision, which adds a 4-byte
 * fp32 master copy to the optimizer's share), gradients (the gradient type's
 * size), DDP's bucket buffers (a second copy of the gradients, none with
 * gradient_as_bucket_view), optimizer state (SGD none, momentum 4, Adam 8
 * bytes per parameter) and the activations kept for backward.  Adam in mixed
 * precision with bf16 gradients is thus the classic 2 + 2 + 4 + 8 = 16 bytes
 * per parameter, plus activations.
 *
 * Sharded, as the ZeRO paper counts it (Rajbhandari et al., SC20, figure 1:
 * parameters P, gradients G and optimizer state K bytes a parameter, here
 * with K the master copy and the optimizer's states; N ranks share the
 * state): DDP P + G + K (and its buckets, G), ZeRO-1 P + G + K/N, ZeRO-2
 * and SHARD_GRAD_OP P + (G + K)/N, ZeRO-3, FSDP and HSDP (N the shard
 * group) (P + G + K)/N.  The parameters FSDP gathers and the gradients it
 * holds unsharded come and go during the step (the schedule's memory
 * timeline). */
#pragma once

#include "sim/model.h"
#include "sim/device.h"
#include "sim/strategy-kind.h"

typedef enum { DPS_OPT_SGD, DPS_OPT_MOMENTUM, DPS_OPT_ADAM } DpsOptimizer;

/* How the model's state is held: torch.autocast's fp32 parameters (AMP: 4
 * bytes a parameter, fp32 optimizer states), bf16 parameters with an fp32
 * master copy (Megatron, DeepSpeed, FSDP's MixedPrecision: 2 + 4, fp32
 * states), or everything in bf16 (a model cast with .to(bfloat16) before
 * it is sharded, as KempnerForge's FSDP2 runs are: 2 bytes, bf16 states,
 * no master copy).  DeepSpeed's BF16_Optimizer (its bf16 with ZeRO stage 0
 * or 1) holds bf16's state and keeps each backward's bf16 gradients beside
 * the gradients it accumulates and reduces (fp32: one unsharded buffer of
 * the whole model, deepspeed/runtime/bf16_optimizer.py's
 * fp32_groups_gradients_flat; its pipeline engine clears the bf16 ones
 * only as the next backward starts): 2 more bytes a parameter. */
typedef enum {
  DPS_PRECISION_AMP, DPS_PRECISION_BF16, DPS_PRECISION_PURE_BF16, DPS_PRECISION_BF16_DEEPSPEED
} DpsPrecision;

double   dps_precision_param_bytes (DpsPrecision p);    /* a parameter: 4, 2, 2, 2 */
double   dps_precision_master_bytes (DpsPrecision p);   /* its fp32 master copy: 0, 4, 0, 4 */
double   dps_precision_state_bytes (DpsPrecision p);    /* one optimizer state of it: 4, 4, 2, 4 */

/* The cross-entropy loss over a model's logits, as F.cross_entropy runs
 * it, in bytes per logit: what its forward keeps beyond the logits (the
 * log-probabilities log_softmax saves for its backward: *kept) and what
 * its backward holds while it runs (the log-probabilities' gradient and
 * the logits': *held).  torch.autocast runs cross_entropy, log_softmax and
 * nll_loss in fp32 (PyTorch's amp docs, "CUDA Ops that can autocast to
 * float32"): 4 bytes each; a model run in bf16 without autocast runs them
 * in the compute type.  (Megatron's vocab-parallel loss upcasts to fp32
 * and computes its gradient in place: 4 kept, 2 held; not told apart.) */
void     dps_memory_loss_bytes (DpsPrecision p, DpsDtype compute, double *kept, double *held);

typedef struct {
  double params, grads, buckets, optimizer;   /* held through the step (this rank's shards) */
  double activations;                         /* saved for backward, at the step's peak */
  double gathered;                            /* at the peak: gathered parameters, unsharded gradients */
  double total;                               /* on the GPU, in tensors (the allocator's peak) */
  double context;                             /* the CUDA context beside them (not in total) */
  double host;                                /* offloaded to host memory (not in total) */
} DpsMemory;

/* The device memory a PyTorch process's CUDA context takes on a GPU of
 * arch (dps_gpu_arch_names), its kernels loaded as it starts (CUDA before
 * 11.7 loads every module eagerly): nvidia-smi counts it, the caching
 * allocator's statistics do not.  BigScience measured it by
 * `torch.ones(1).cuda()` and nvidia-smi: 1271 MiB on a V100 32GB, 1573 MiB
 * on an A100 40GB ("probably about the same for 80GB")
 * (bigscience-workshop/bigscience @ 59a90eec,
 * train/tr11-176B-ml/chronicles-prequel.md, "104B topology / memory
 * usage" and "Possible topologies for 200B").  Later generations: the
 * A100's (no published figure).  NULL (no GPU): 0. */
double   dps_memory_context_bytes (const char *arch);
/* What the GPU must hold: m's tensors at their peak and the CUDA context
 * (what decides whether a plan fits; PyTorch's caching allocator frees
 * its cached blocks and retries before it runs out). */
double   dps_memory_device_bytes (const DpsMemory *m);

/* PyTorch's caching allocator holds more than the tensors' peak: the
 * blocks it keeps cached, free but reserved.  max_reserved / max_allocated
 * in 15 published training logs (12 of Megatron-LM, Megatron-DeepSpeed
 * or Megatron-Bridge): median 1.066, 1.008-1.272
 * (tests/reference/parallel/README.md, "The caching allocator's
 * reserve"). */
#define DPS_MEMORY_RESERVED_PER_ALLOCATED 1.066

/* What nvidia-smi shows at the step's peak: the tensors' peak with the
 * allocator's cached blocks (DPS_MEMORY_RESERVED_PER_ALLOCATED) and the
 * CUDA context. */
double   dps_memory_smi_bytes (const DpsMemory *m);

/* Moves what offload keeps in host memory from out's GPU parts to
 * out->host (the optimizer's states and master copy and the gradient
 * shards; with DPS_OFFLOAD_PARAMS the parameter shards too), total the
 * rest. */
void     dps_memory_offload (DpsMemory *out, DpsOffload offload);
void     dps_memory_estimate (const DpsModel *m, DpsPrecision precision, DpsDtype grad_dtype, DpsOptimizer opt,
                              gboolean grad_as_bucket_view, DpsDtype act_dtype, double batch, DpsMemory *out);
void     dps_memory_static (double n_params, DpsPrecision precision, DpsDtype grad_dtype, DpsOptimizer opt,
                            gboolean grad_as_bucket_view, DpsStrategy strategy, int shards, DpsMemory *out);
double   dps_optimizer_bytes_moved (DpsOptimizer opt, DpsPrecision precision);
gboolean dps_optimizer_parse (const char *s, DpsOptimizer *out);
const char *dps_optimizer_name (DpsOptimizer opt);
