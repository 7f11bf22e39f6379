/* train-net — a network that the real runner trains, layer by layer, as DDP
 * sees it: forward one layer at a time, a loss, backward one layer at a
 * time (so gradients become ready in the order DDP sees them).
 *
 * Parameters live in one flat array in definition order, as
 * model.parameters() lists them (the zoo model's tensors); gradients in
 * another of the same layout, so a bucket is a contiguous range of bytes
 * that can be all-reduced in place.  Sharded strategies pad each layer's
 * span (dps_train_net_layout) so that it divides into equal shards.  Two kinds: the MLP (mlp.c) and the
 * GPT-2 transformer-block stack (transformer.c); dps_train_net_new picks the one
 * that matches the model's tensors.
 *
 * Gradients are divided by the batch (the mean loss), so that the
 * gradients of N shards averaged equal the whole batch's. */
#pragma once

#include "sim/model.h"
#include "real/dev.h"

typedef struct DpsTrainNet DpsTrainNet;

typedef struct {
  /* fills the inputs and targets with samples sample0 .. sample0+batch-1 of
   * the synthetic data set: the same samples whichever rank draws them */
  void   (*batch) (DpsTrainNet *n, guint32 seed, gint64 sample0);
  void   (*forward_layer) (DpsTrainNet *n, int layer);
  /* the loss of the last forward and its gradient, to start backward */
  double (*loss_grad) (DpsTrainNet *n);
  /* gradients of the layer's tensors into grads (overwritten, or added to
   * them when accumulate is set), and the gradient of its input */
  void   (*backward_layer) (DpsTrainNet *n, int layer);
  void   (*free) (DpsTrainNet *n);
} DpsTrainNetOps;

struct DpsTrainNet {
  const DpsTrainNetOps *ops;
  DpsDev  *dev;              /* where params, grads and every buffer live */
  const char *kind;          /* "mlp", "gpt2" */
  int      n_layers;         /* the model's layers */
  int      batch;
  gint64   n_params;
  float   *params, *grads;
  gboolean accumulate;       /* gradient accumulation: backward adds to grads */
  float   *m1, *m2;          /* Adam's moments, made by the first Adam step */
  /* tensor parallelism (tensor-parallel.h): this rank's index in a group of
   * tp (1: none), and the group's in-place sum of n floats of dev */
  int      tp, tp_rank;
  void   (*tp_allreduce) (float *x, gint64 n, void *data);
  void    *tp_data;
};

/* The flat layout of m's parameters: layer after layer, each layer's
 * tensors in definition order (tensor t from toff[t], layer l from
 * loff[l], loff[L] the end), each layer's span padded with zeros at its
 * end to a multiple of pad elements (sharded data parallelism's shards,
 * as PyTorch FSDP pads a FlatParameter; pad 1: no padding, the tensors
 * back to back as model.parameters() lists them).  Either array may be
 * NULL; returns the elements in all, padding included. */
gint64   dps_train_net_layout (const DpsModel *m, int pad, gint64 *toff, gint64 *loff);
/* The last layer whose forward or backward reads layer's parameters: the
 * layer itself, but for the GPT-2 stack's embeddings (layer 0) the last
 * layer, whose LM head is tied to the token embedding */
int      dps_train_net_last_reader (const DpsModel *m, int layer);

/* fills the common part of a kind's network */
void     dps_train_net_init (DpsTrainNet *n, const DpsTrainNetOps *ops, DpsDev *dev, const char *kind, int n_layers,
                             int batch);
DpsTrainNet  *dps_train_net_new (const DpsModel *m, int batch, guint32 seed, GError **error);   /* on the CPU */
DpsTrainNet  *dps_train_net_new_on (DpsDev *dev, const DpsModel *m, int batch, guint32 seed, GError **error);
/* the same in the layout padded to pad (dps_train_net_layout): n_params
 * counts the padding, whose parameters and gradients are zero */
DpsTrainNet  *dps_train_net_new_padded (DpsDev *dev, const DpsModel *m, int batch, guint32 seed, int pad,
                                        GError **error);
/* rank tp_rank's of a tensor-parallel group of tp (a GPT-2 stack, m its
 * rank's model: dps_tp_shard_model); the caller sets tp_allreduce */
DpsTrainNet  *dps_train_net_new_tp (DpsDev *dev, const DpsModel *m, int batch, guint32 seed, int pad, int tp,
                                    int tp_rank, GError **error);
void     dps_train_net_free (DpsTrainNet *n);
void     dps_train_net_batch (DpsTrainNet *n, guint32 seed, gint64 sample0);
void     dps_train_net_forward (DpsTrainNet *n);                   /* every layer */
double   dps_train_net_loss_grad (DpsTrainNet *n);
void     dps_train_net_backward (DpsTrainNet *n);                  /* every layer, last first */
void     dps_train_net_forward_layer (DpsTrainNet *n, int layer);
void     dps_train_net_backward_layer (DpsTrainNet *n, int layer);
/* one optimizer step (SGD, or Adam when adam), with the gradient
 * grads x grad_scale (their mean over micro-steps and replicas); step
 * counts from 1 (Adam's bias correction) */
gboolean dps_train_net_update (DpsTrainNet *n, gboolean adam, double lr, double grad_scale, int step, GError **error);
/* the same step on any n parameters p of dev with gradients g (and, for
 * Adam, its moments m1, m2 of n elements each): each element's update
 * depends on that element alone, so a shard updated alone is updated as in
 * the whole array, bit for bit */
void     dps_train_net_optimize (DpsDev *dev, gboolean adam, double lr, double grad_scale, int step, float *p,
                                 const float *g, float *m1, float *m2, gint64 n);
guint64  dps_train_net_hash (const DpsTrainNet *n);
/* the same hash of n floats of dev */
guint64  dps_train_net_hash_floats (DpsDev *dev, const float *p, gint64 n);
/* bytes one replica holds while training m (parameters, gradients, Adam's
 * moments, activations) */
double   dps_train_net_bytes (const DpsModel *m, int batch);
/* the runner's per-layer forward and backward times and its SGD step's,
 * the medians of repeated runs on one thread, and (cv, when not NULL) the
 * coefficient of variation of a whole step's compute across the runs */
gboolean dps_train_net_layer_times (const DpsModel *m, int batch, double min_time_s, double *fwd_s, double *bwd_s,
                                    double *opt_s, double *cv);
/* the same on a device (the runner's GPU replica: CUDA events) */
gboolean dps_train_net_layer_times_on (DpsDev *dev, const DpsModel *m, int batch, double min_time_s, double *fwd_s,
                                       double *bwd_s, double *opt_s, double *cv);
/* The line that carries those times from a worker process to dpscale:
 *   layers L FWD_0 .. FWD_L-1 BWD_0 .. BWD_L-1 SGD CV   (seconds)
 * print writes it from t (those 2L + 2 values, in that order) on standard
 * output; parse gives a line's values (g_free them: *n of them, L in
 * *layers), NULL for any other line. */
void     dps_train_net_print_layers (int L, const double *t);
double  *dps_train_net_parse_layers (const char *line, int *layers, int *n);

/* the kinds; each refuses (FALSE from the probe, an error from new) a
 * model whose tensors are not its own */
DpsTrainNet  *dps_mlp_new (DpsDev *dev, const DpsModel *m, int batch, guint32 seed, int pad, GError **error);
DpsTrainNet  *dps_gpt2_new (DpsDev *dev, const DpsModel *m, int batch, guint32 seed, int pad, int tp, int tp_rank,
                            GError **error);
gboolean      dps_mlp_check (const DpsModel *m, GError **error);
gboolean      dps_gpt2_check (const DpsModel *m, GError **error);
/* A GPT-2 stack's activations for count micro-batches in flight (a
 * pipeline stage's), each forward and backward working on the slot last
 * picked; the slot a net was built with is slot 0 */
gboolean      dps_gpt2_slots (DpsTrainNet *n, int count, GError **error);
void          dps_gpt2_use_slot (DpsTrainNet *n, int slot);
/* the input of layer (1 .. blocks + 1: a block's, or the head's) in the
 * slot in use, batch x seq x hidden floats: where a pipeline stage
 * receives its input; and the gradient a backward passes down (before a
 * layer's backward, of its output; after, of its input), the same size */
float        *dps_gpt2_input (DpsTrainNet *n, int layer);
float        *dps_gpt2_grad (DpsTrainNet *n);
/* whether the runner can train m (the reason when not), allocating nothing */
gboolean      dps_train_net_check (const DpsModel *m, GError **error);

/* a deterministic value in [-1, 1) of (seed, index) */
float    dps_train_net_noise (guint32 seed, guint64 i);
/* fills n floats uniformly in [-a, a) from seed */
void     dps_train_net_uniform (float *p, gint64 n, double a, GRand *r);
