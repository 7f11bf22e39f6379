/* model-trace — the torch.profiler trace loader's own parts, shared by
 * model-trace.c (reading the events, their nesting, the layers, the model)
 * and model-trace-times.c (times, parameters and batch per layer).  Times
 * are microseconds, as in the trace; see model-trace.c for the model. */
#pragma once

#include "sim/model.h"

#include <json-glib/json-glib.h>

#define DPS_TRACE_EVAL_PREFIX "autograd::engine::evaluate_function: "
#define DPS_TRACE_MODULE_PREFIX "nn.Module: "
#define DPS_TRACE_EPS_US 1e-3

typedef enum {
  DPS_TRACE_OTHER, DPS_TRACE_CPU_OP, DPS_TRACE_USER, DPS_TRACE_PYFUNC, DPS_TRACE_KERNEL, DPS_TRACE_RUNTIME,
  DPS_TRACE_GPU_COPY   /* gpu_memcpy, gpu_memset: GPU time as a kernel's */
} DpsTraceCat;

typedef struct {
  double ts_us, end_us;
  const char *name;        /* lent by the parser */
  JsonArray *dims;         /* Input Dims, lent; NULL when absent */
  JsonArray *types;        /* Input type, lent; NULL when absent */
  gint64 thread, ext, corr, seq;   /* -1: absent */
  DpsTraceCat cat;
  int parent;              /* innermost enclosing event of the same thread, -1 none */
  int module;              /* innermost enclosing (or own) module event, -1 none */
  int eval;                /* enclosing (or own) backward node, -1 none */
  gboolean under_op;       /* a cpu_op encloses it (or it is one) */
  gboolean under_flops;    /* an op with flops encloses it (or it is one) */
  double flops;            /* with_flops' estimate for the op, 0 none */
  int layer;               /* of a module event: its layer, -1 outside */
} DpsTraceEv;

typedef struct {
  const char *file;
  GArray *ev;              /* DpsTraceEv, in file order */
  int *order;              /* ev sorted by thread, start, longest first */
  GPtrArray *layer_names;  /* module names (owned by the parser) */
  GPtrArray *expanded;     /* of them, the modules split into their children */
  int root;                /* an event of the model's module, -1 */
  const char *root_name;    /* the module whose children are the layers */
  const char *model_name;   /* the outermost module (root_name or a wrapper of it) */
  int n_steps;
  double step_us;          /* all ProfilerStep durations */
  gboolean steps_by_optimizer;   /* no ProfilerStep#: steps counted by Optimizer.step# */
  gint64 kernel_device;    /* the first kernel's "device", -1 none */
  gboolean gpu;
} DpsTrace;

/* Times over all steps, in microseconds: [0] CPU, [1] GPU kernels. */
typedef struct {
  double *fwd_us[2], *bwd_us[2];   /* per layer */
  double *flops;                   /* per layer, forward, all steps */
  double model_us;                 /* the model's forward calls (CPU) */
  double loose_bwd_us[2];          /* backward nodes not traced to a layer */
  double own_fwd_us;               /* kernels launched in the model's forward outside its layers */
  double loose_fwd_us;             /* kernels launched outside any module and any node */
  int n_loose_bwd, n_eval, n_eval_seq, n_kernels;
  int n_copies;                    /* gpu_memcpy and gpu_memset events counted with the kernels */
  int n_seq_clash;                 /* sequence numbers made by forward ops of two layers */
  int n_recompute;                 /* module calls inside backward nodes (activation checkpointing) */
  double recompute_us[2];          /* their time, in the layers' backward */
  double kernel_us;                /* every kernel, copy and memset but NCCL's launched in the trace */
  double orphan_us;                /* GPU work whose launch is not in the trace (queued before it) */
  int n_orphan;
  double nccl_us;                  /* NCCL's kernels: DDP's own communication, left out */
  int n_nccl;
} DpsTraceTimes;

typedef struct { char *name; gint64 rows, cols, numel; } DpsTraceTensor;

gboolean    dps_trace_is_module (const DpsTraceEv *e);
const char *dps_trace_module_name (const DpsTrace *t, int i);
int         dps_trace_layer_of (const DpsTrace *t, const DpsTraceEv *e);
void        dps_trace_attribute (const DpsTrace *t, DpsTraceTimes *tt);
GPtrArray  *dps_trace_params (const DpsTrace *t);
int         dps_trace_batch (const DpsTrace *t);
const char *dps_trace_dtype (const DpsTrace *t);
char       *dps_trace_describe (const DpsTrace *t, const DpsTraceTimes *tt, const DpsModel *m, const char *device,
                                int batch);
