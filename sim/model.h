/* model — a network to train, as DDP sees it: parameter tensors in
 * definition order (model.parameters()), grouped into layers that run one
 * after another, each with its forward cost per sample.
 *
 * Per layer and per sample: forward FLOPs, bytes of activations it saves
 * for backward (at 2 bytes an element, the mixed-precision case; scaled to
 * the compute type by the memory model), and bytes it moves besides its
 * weights (for the roofline).  A model read from a per-layer CSV carries
 * measured forward and backward times instead (at the batch it was measured
 * with).  A "sample" is an image or a sequence of seq_len tokens.
 *
 * The zoo's generators also record each layer's work as kernels (the
 * compute model times them, compute.h): a kind (GEMM, convolution,
 * attention's batched GEMMs, or a memory-bound norm / element-wise /
 * softmax / embedding pass), its FLOPs and the activation bytes it reads
 * and writes per sample (2-byte elements, as above), the weight elements
 * it reads once per pass, and how many kernels of that kind it stands for.
 */
#pragma once

#include <glib.h>

typedef struct {
  char  *name;
  gint64 numel;
  gint64 rows, cols;     /* a 2-D weight (PowerSGD compresses these); rows = 0: not a matrix */
  int    layer;
} DpsTensor;

typedef enum {
  DPS_KERNEL_GEMM,         /* a linear layer's matrix multiply */
  DPS_KERNEL_CONV,         /* a convolution (cuDNN implicit GEMM) */
  DPS_KERNEL_ATTENTION,    /* attention's per-head batched GEMMs (scores, weighted values) */
  DPS_KERNEL_MEMORY,       /* norms, activations, dropout, softmax, residual adds, embeddings */
  DPS_KERNEL_KINDS
} DpsKernelKind;

typedef struct {
  DpsKernelKind kind;
  double flops;          /* per sample, forward */
  double bytes;          /* activations read and written per sample, forward, 2-byte elements */
  double weight_elems;   /* weight elements read once per pass */
  int    count;          /* kernels launched per forward */
  double score_bytes;    /* of bytes, those of attention's score matrices (a s^2 per head per sample),
                          * which fused (flash) attention neither reads nor writes */
  double inv_k;          /* GEMMs: the FLOP-weighted mean of 1 / K, K each GEMM's reduction length
                          * (its input features); 0: not known */
  double inv_rows;       /* GEMMs: the FLOP-weighted mean of 1 / R, R each GEMM's rows a sample (a
                          * sequence's tokens, 1 for a sample's one vector), over which the weight
                          * gradient's GEMM reduces in backward; 0: not known */
  double inv_k_row;      /* GEMMs: of inv_k, the part of the GEMMs that tensor parallelism splits along
                          * K (Megatron's RowParallelLinear: attention's output projection, the MLP's
                          * second): over T ranks the mean is inv_k + (T - 1) inv_k_row */
  gboolean tp_split;     /* memory-bound passes: tensor parallelism splits it (over heads, the MLP's
                          * columns or the vocabulary); else (norms, residual adds, dropout on the
                          * hidden state) it runs whole on every rank without sequence parallelism.
                          * Passes over attention's scores (score_bytes) are split in either case */
} DpsKernel;

typedef struct {
  char  *name;
  gint64 n_params;
  int    first_tensor, n_tensors;
  int    first_kernel, n_kernels;   /* n_kernels 0: no kernel list (a CSV model) */
  double fwd_flops;      /* per sample */
  double act_bytes;      /* activations kept for backward, per sample, 2-byte elements */
  double io_bytes;       /* bytes read and written besides weights, per sample, 2-byte elements */
  double fwd_time_s;     /* measured, at time_batch; < 0 when not given */
  double bwd_time_s;
  double attn_act_bytes; /* of act_bytes, attention's score and probability matrices (a s^2 per
                          * head and token pair), which flash/SDPA attention does not keep */
  double input_bytes;    /* the block's input, all activation checkpointing keeps of it (0: the
                          * layer is not checkpointed) */
  double logits;         /* per sample, the logits a loss in this layer reads (0: none; memory.h's
                          * dps_memory_loss_bytes says what the loss holds of them) */
} DpsLayer;

typedef struct {
  char   *name;
  char   *source;        /* file it came from */
  char   *note;          /* what a loader measured, used and left out (one line), or NULL */
  GArray *layers;        /* DpsLayer */
  GArray *tensors;       /* DpsTensor */
  GArray *kernels;       /* DpsKernel, layer by layer */
  gint64  n_params;
  int     seq_len;       /* tokens per sample, 0 for non-token models */
  int     heads;         /* attention heads of a transformer, 0 otherwise */
  int     time_batch;    /* batch the measured times are for */
  char   *device;        /* what the measured times were taken on, as the file named it ("cpu",
                          * "NVIDIA H100 80GB HBM3"); NULL: not said */
  char   *dtype;         /* their compute type (dps_dtype_name: fp32, fp16, bf16); NULL: not said */
  double  optimizer_s;   /* the optimizer's step as measured with the times (a per-layer file's
                          * '# step_ms: ... optimizer MS'), 0: not said */
  GArray *file_times_s;  /* the times as measured (forward, backward per layer), kept once they are
                          * transferred to another device; NULL until then */
} DpsModel;

DpsModel *dps_model_new (const char *name);
void      dps_model_free (DpsModel *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsModel, dps_model_free)
int       dps_model_add_layer (DpsModel *m, const char *name, double fwd_flops, double act_bytes, double io_bytes);
void      dps_model_add_tensor (DpsModel *m, const char *name, gint64 rows, gint64 cols);
void      dps_model_add_vector (DpsModel *m, const char *name, gint64 numel);
void      dps_model_add_kernel (DpsModel *m, DpsKernelKind kind, double flops, double bytes, double weight_elems,
                                int count);
void      dps_model_kernel_set_score_bytes (DpsModel *m, double score_bytes);
void      dps_model_kernel_set_inv_k (DpsModel *m, double inv_k);
void      dps_model_kernel_set_inv_rows (DpsModel *m, double inv_rows);
void      dps_model_kernel_set_inv_k_row (DpsModel *m, double inv_k_row);
void      dps_model_kernel_set_tp_split (DpsModel *m);
const DpsKernel *dps_model_kernel (const DpsModel *m, int i);
const char *dps_kernel_kind_name (DpsKernelKind kind);
int       dps_model_n_layers (const DpsModel *m);
int       dps_model_n_tensors (const DpsModel *m);
const DpsLayer  *dps_model_layer (const DpsModel *m, int i);
const DpsTensor *dps_model_tensor (const DpsModel *m, int i);
double    dps_model_fwd_flops (const DpsModel *m);
double    dps_model_act_bytes (const DpsModel *m);
double    dps_model_kept_act_bytes (const DpsModel *m, gboolean flash_attention, gboolean checkpoint);
gboolean  dps_model_has_times (const DpsModel *m);
void      dps_model_set_times (DpsModel *m, const double *fwd_s, const double *bwd_s, int batch);

/* loading: zoo files (sim/models/NAME.model), per-layer CSV, a Hugging
 * Face config.json (model_type gpt2, bert, llama, mistral, qwen2; model-hf.c) */
DpsModel *dps_model_load (const char *name_or_path, GError **error);
/* As dps_model_load, a transformer (zoo file or config.json) at seq tokens
 * a sample where seq > 0 (learned positions: at most their count); a
 * per-layer CSV, a trace or a model without tokens is refused. */
DpsModel *dps_model_load_seq (const char *name_or_path, int seq, GError **error);
DpsModel *dps_model_load_csv (const char *path, GError **error);
DpsModel *dps_model_load_csv_data (const char *name, const char *data, gssize len, GError **error);
DpsModel *dps_model_load_keyfile_data (const char *name, const char *data, gssize len, GError **error);
DpsModel *dps_model_load_hf_config_data (const char *name, const char *data, gssize len, GError **error);
DpsModel *dps_model_load_hf_config_data_seq (const char *name, const char *data, gssize len, int seq,
                                             GError **error);
/* a torch.profiler Chrome trace (JSON with "traceEvents"; model-trace.c) */
DpsModel *dps_model_load_trace_data (const char *name, const char *data, gssize len, GError **error);
gboolean  dps_model_data_is_trace (const char *data, gsize len);
char    **dps_model_list_shipped (void);
