/* model-trace.c — a model from a torch.profiler trace: the Chrome-trace
 * JSON that profile.export_chrome_trace() writes in PyTorch 2.x (Kineto),
 * recorded with with_stack=True (its Python tracer writes each nn.Module
 * call; with_modules alone covers TorchScript only) and record_shapes=True
 * over one or more training steps.
 *
 * Events read ("ph": "X", "ts" and "dur" in microseconds):
 *   python_function "nn.Module: Linear_0"   a module's forward call
 *   cpu_op          aten ops; "Sequence number" on the forward op that made
 *                   an autograd node, and on its backward node
 *                   "autograd::engine::evaluate_function: AddmmBackward0";
 *                   "Input Dims" (record_shapes) give weight shapes
 *   cuda_runtime    cudaLaunchKernel (hipLaunchKernel on ROCm), nested in
 *   cuda_driver     the op that launched it, its "correlation" shared with
 *                   the kernel (cuLaunchKernel: Triton's kernels)
 *   kernel          GPU time ("correlation", "External id" of its op)
 *   gpu_memcpy      GPU time too, of copies and memsets (a convolution's
 *   gpu_memset      workspace, DDP's bucket copies), launched as kernels are
 *   user_annotation "ProfilerStep#N": one step (the steps are averaged);
 *                   without any, "Optimizer.step#..." counts the steps
 * Events of one thread nest by time; that nesting gives each op its module.
 * GPU work whose launch is not in the trace (queued before the profiler's
 * window opened, while the GPU ran behind the CPU, as in a real trace's
 * first step) is left out of the step and said in the note.
 *
 * Layers: the children of the model, the outermost module (the longest
 * where several are outermost, e.g. a loss module), going down through a
 * wrapper with a single child (DDP_0 > Model_0); a layer whose calls take
 * more than half of the model's forward is split into its children, its
 * own ops (outside them) staying a layer (GPT2LMHeadModel_0 > GPT2Model_0's
 * embeddings, blocks and final norm, beside lm_head).  A layer's forward time is
 * its module's calls; its backward time the autograd nodes whose sequence
 * numbers its forward ops made.  Where the trace has kernels, both are the
 * kernel time of the ops inside (forward) or of the nodes (backward);
 * otherwise CPU time.  Time in the model's own forward outside its
 * children, and backward nodes without a forward op in a layer (the loss,
 * AccumulateGrad), is reported in the note, not attributed.
 *
 * Parameters: the weights of each module's top-level ops, read from their
 * Input Dims (aten::linear, conv, layer/group/batch norm, embedding), each
 * module's first call only (a module called twice holds one set).  The
 * batch the times are for is the first dimension of the model's first
 * input. */
#include "sim/model-trace.h"
#include "sim/base/error.h"
#include "sim/base/json-load.h"

#include <math.h>
#include <string.h>

/* A string member, or NULL where it is absent or not a string. */
static const char *
str_member (JsonObject *o, const char *key)
{
  JsonNode *n = o ? json_object_get_member (o, key) : NULL;
  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING ? json_node_get_string (n)
                                                                                        : NULL;
}

/* A number member (JSON int or double, or a string holding a whole
 * number, as some exporters write args), or FALSE. */
static gboolean
num_member (JsonObject *o, const char *key, double *out)
{
  JsonNode *n = o ? json_object_get_member (o, key) : NULL;
  if (!n || !JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  GType t = json_node_get_value_type (n);
  if (t == G_TYPE_INT64)
    *out = (double) json_node_get_int (n);
  else if (t == G_TYPE_DOUBLE)
    *out = json_node_get_double (n);
  else if (t == G_TYPE_STRING) {
    gint64 v;
    if (!dps_parse_int (json_node_get_string (n), &v))
      return FALSE;
    *out = (double) v;
  } else
    return FALSE;
  return isfinite (*out);
}

/* A non-negative id that fits a gint64 (2^63 and up is none: the cast
 * would be undefined), or -1. */
static gint64
id_member (JsonObject *o, const char *key)
{
  double v;
  return num_member (o, key, &v) && v >= 0 && v < 0x1p63 ? (gint64) v : -1;
}

/* pid and tid are numbers, or strings in some exporters: one key for both */
static gint64
thread_key (JsonObject *o)
{
  guint64 k = 0;   /* unsigned: the mix wraps, as a hash may */
  for (const char *const *key = (const char *const[]) { "pid", "tid", NULL }; *key; key++) {
    JsonNode *n = json_object_get_member (o, *key);
    guint64 v = 0;
    if (n && JSON_NODE_HOLDS_VALUE (n)) {
      GType t = json_node_get_value_type (n);
      if (t == G_TYPE_STRING)
        v = g_str_hash (json_node_get_string (n));
      else if (t == G_TYPE_INT64)
        v = (guint64) json_node_get_int (n);
      else if (t == G_TYPE_DOUBLE) {   /* json-glib's own cast of a huge double is undefined */
        double d = json_node_get_double (n);
        v = isfinite (d) && fabs (d) < 0x1p63 ? (guint64) (gint64) d : 0;
      }
    }
    k = k * 1000003 + v;
  }
  return (gint64) k;
}

static DpsTraceCat
category (const char *cat)
{
  static const struct { const char *name; DpsTraceCat cat; } cats[] = {
    { "cpu_op", DPS_TRACE_CPU_OP }, { "user_annotation", DPS_TRACE_USER }, { "python_function", DPS_TRACE_PYFUNC },
    { "kernel", DPS_TRACE_KERNEL }, { "cuda_runtime", DPS_TRACE_RUNTIME },
    /* cuLaunchKernel: Triton's kernels (torch.compile) are launched through the driver API */
    { "cuda_driver", DPS_TRACE_RUNTIME },
    { "gpu_memcpy", DPS_TRACE_GPU_COPY }, { "gpu_memset", DPS_TRACE_GPU_COPY },
    { "Kernel", DPS_TRACE_KERNEL }, { "Runtime", DPS_TRACE_RUNTIME },
    { "Memcpy", DPS_TRACE_GPU_COPY }, { "Memset", DPS_TRACE_GPU_COPY },
    { "Operator", DPS_TRACE_CPU_OP },
  };
  for (gsize i = 0; cat && i < G_N_ELEMENTS (cats); i++)
    if (g_str_equal (cat, cats[i].name))
      return cats[i].cat;
  return DPS_TRACE_OTHER;
}

/* Reads the complete ("X") events of traceEvents; other phases (metadata,
 * flows, instants) are skipped.  An X event needs a name, ts and dur. */
static gboolean
read_events (DpsTrace *t, JsonArray *events, GError **error)
{
  guint n = json_array_get_length (events);
  for (guint i = 0; i < n; i++) {
    JsonNode *node = json_array_get_element (events, i);
    if (!JSON_NODE_HOLDS_OBJECT (node))
      return dps_set_error_at (error, t->file, 0, "traceEvents[%u]: expected an event object", i);
    JsonObject *o = json_node_get_object (node);
    const char *ph = str_member (o, "ph");
    if (!ph || !g_str_equal (ph, "X"))
      continue;
    DpsTraceEv e = { .parent = -1, .module = -1, .eval = -1, .layer = -1 };
    e.name = str_member (o, "name");
    double dur;
    if (!e.name || !num_member (o, "ts", &e.ts_us) || !num_member (o, "dur", &dur) || dur < 0)
      return dps_set_error_at (error, t->file, 0, "traceEvents[%u]: an \"X\" event needs a name, a numeric ts and "
                               "a dur >= 0", i);
    e.end_us = e.ts_us + dur;
    e.cat = category (str_member (o, "cat"));
    e.thread = thread_key (o);
    JsonNode *an = json_object_get_member (o, "args");
    JsonObject *args = an && JSON_NODE_HOLDS_OBJECT (an) ? json_node_get_object (an) : NULL;
    e.ext = id_member (args, "External id");
    e.corr = id_member (args, "correlation");
    e.seq = id_member (args, "Sequence number");
    JsonNode *dn = args ? json_object_get_member (args, "Input Dims") : NULL;
    e.dims = dn && JSON_NODE_HOLDS_ARRAY (dn) ? json_node_get_array (dn) : NULL;
    JsonNode *tn = args ? json_object_get_member (args, "Input type") : NULL;
    e.types = tn && JSON_NODE_HOLDS_ARRAY (tn) ? json_node_get_array (tn) : NULL;
    if (!num_member (args, "flops", &e.flops) || e.flops < 0)
      e.flops = 0;
    if (e.cat == DPS_TRACE_KERNEL && t->kernel_device < 0)
      t->kernel_device = id_member (args, "device");
    g_array_append_val (t->ev, e);
  }
  return TRUE;
}

static int
by_thread_start (gconstpointer a, gconstpointer b, gpointer data)
{
  const DpsTraceEv *ev = data;
  const DpsTraceEv *x = &ev[*(const int *) a], *y = &ev[*(const int *) b];
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if (x->ts_us != y->ts_us)
    return x->ts_us < y->ts_us ? -1 : 1;
  if (x->end_us != y->end_us)
    return x->end_us > y->end_us ? -1 : 1;   /* the enclosing one first */
  return *(const int *) a - *(const int *) b;
}

gboolean
dps_trace_is_module (const DpsTraceEv *e)
{
  return e->cat == DPS_TRACE_PYFUNC && g_str_has_prefix (e->name, DPS_TRACE_MODULE_PREFIX);
}

/* Each event's innermost enclosing event on its thread, and from it its
 * module and backward node: one sweep over the events in start order with
 * a stack of the open ones. */
static void
nest (DpsTrace *t)
{
  int n = (int) t->ev->len;
  DpsTraceEv *ev = (DpsTraceEv *) t->ev->data;
  t->order = g_new (int, MAX (n, 1));
  for (int i = 0; i < n; i++)
    t->order[i] = i;
  g_qsort_with_data (t->order, n, sizeof (int), by_thread_start, ev);
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (int));
  for (int k = 0; k < n; k++) {
    DpsTraceEv *e = &ev[t->order[k]];
    while (stack->len) {
      const DpsTraceEv *top = &ev[g_array_index (stack, int, stack->len - 1)];
      if (top->thread == e->thread && e->ts_us >= top->ts_us - DPS_TRACE_EPS_US
          && e->end_us <= top->end_us + DPS_TRACE_EPS_US)
        break;
      g_array_set_size (stack, stack->len - 1);
    }
    if (stack->len) {
      e->parent = g_array_index (stack, int, stack->len - 1);
      const DpsTraceEv *p = &ev[e->parent];
      e->module = p->module;
      e->eval = p->eval;
      e->under_op = p->under_op;
      e->under_flops = p->under_flops;
    }
    if (dps_trace_is_module (e))
      e->module = t->order[k];
    if (e->cat == DPS_TRACE_CPU_OP) {
      e->under_op = TRUE;
      e->under_flops |= e->flops > 0;
      if (g_str_has_prefix (e->name, DPS_TRACE_EVAL_PREFIX))
        e->eval = t->order[k];
    }
    g_array_append_val (stack, t->order[k]);
  }
}

const char *
dps_trace_module_name (const DpsTrace *t, int i)
{
  return i < 0 ? NULL : g_array_index (t->ev, DpsTraceEv, i).name + strlen (DPS_TRACE_MODULE_PREFIX);
}

/* The parent module's name of module event i, NULL for an outermost one. */
static const char *
parent_module (const DpsTrace *t, int i)
{
  int p = g_array_index (t->ev, DpsTraceEv, i).parent;
  return p < 0 ? NULL : dps_trace_module_name (t, g_array_index (t->ev, DpsTraceEv, p).module);
}

/* Children's names of the module called name, in the order first called. */
static GPtrArray *
children_of (const DpsTrace *t, const char *name)
{
  GPtrArray *kids = g_ptr_array_new ();
  for (guint i = 0; i < t->ev->len; i++) {
    const DpsTraceEv *e = &g_array_index (t->ev, DpsTraceEv, t->order[i]);
    const char *pm;
    if (dps_trace_is_module (e) && (pm = parent_module (t, t->order[i])) && g_str_equal (pm, name)
        && !g_str_equal (dps_trace_module_name (t, t->order[i]), name)
        && !g_ptr_array_find_with_equal_func (kids, dps_trace_module_name (t, t->order[i]), g_str_equal, NULL))
      g_ptr_array_add (kids, (gpointer) dps_trace_module_name (t, t->order[i]));
  }
  return kids;
}

/* A layer holding more than half of the model's forward time (its module
 * calls) is split into its children, its own ops staying a layer (a
 * GPT-2's transformer into its blocks, beside the head); again while one
 * does.  seen: modules not to split (passed or split already). */
static void
expand_layers (DpsTrace *t, GHashTable *seen)
{
  g_autoptr (GHashTable) us = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  for (guint i = 0; i < t->ev->len; i++) {
    const DpsTraceEv *e = &g_array_index (t->ev, DpsTraceEv, i);
    const char *name = dps_trace_is_module (e) ? dps_trace_module_name (t, (int) i) : NULL, *pm;
    if (!name || ((pm = parent_module (t, (int) i)) && g_str_equal (pm, name)))
      continue;
    double *v = g_hash_table_lookup (us, name);
    if (!v)
      g_hash_table_insert (us, (gpointer) name, v = g_new0 (double, 1));
    *v += e->end_us - e->ts_us;
  }
  double *total = g_hash_table_lookup (us, t->root_name);
  while (total) {
    const char *best = NULL;
    guint at = 0;
    for (guint j = 0; j < t->layer_names->len; j++) {
      const char *name = g_ptr_array_index (t->layer_names, j);
      double *v = g_hash_table_lookup (us, name);
      if (v && *v > *total / 2 && !g_hash_table_contains (seen, name))
        best = name, at = j + 1;
    }
    if (!best)
      return;
    g_hash_table_add (seen, (gpointer) best);
    g_autoptr (GPtrArray) kids = children_of (t, best);
    for (guint k = 0; k < kids->len; k++)
      if (!g_ptr_array_find_with_equal_func (t->layer_names, g_ptr_array_index (kids, k), g_str_equal, NULL))
        g_ptr_array_insert (t->layer_names, (gint) at++, g_ptr_array_index (kids, k));
    if (kids->len)
      g_ptr_array_add (t->expanded, (gpointer) best);
  }
}

/* Picks the model (the outermost module with the most time) and its layers
 * (see the top of this file), and marks each module event with its layer. */
static gboolean
find_layers (DpsTrace *t, GError **error)
{
  g_autoptr (GHashTable) root_us = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  int n_cpu = 0;
  for (guint i = 0; i < t->ev->len; i++) {
    const DpsTraceEv *e = &g_array_index (t->ev, DpsTraceEv, i);
    n_cpu += e->cat == DPS_TRACE_CPU_OP;
    if (!dps_trace_is_module (e) || parent_module (t, (int) i))
      continue;
    double *us = g_hash_table_lookup (root_us, dps_trace_module_name (t, (int) i));
    if (!us)
      g_hash_table_insert (root_us, (gpointer) dps_trace_module_name (t, (int) i), us = g_new0 (double, 1));
    *us += e->end_us - e->ts_us;
    if (!t->root_name || *us > *(double *) g_hash_table_lookup (root_us, t->root_name))
      t->root_name = dps_trace_module_name (t, (int) i);
  }
  if (!t->root_name)
    return dps_set_error_at (error, t->file, 0, "no \"nn.Module: \" events, so no layer to give the time of its %d "
                             "cpu_op events to (record with torch.profiler.profile(with_stack=True, "
                             "record_shapes=True): its Python tracer writes each nn.Module call)", n_cpu);
  t->model_name = t->root_name;
  g_autoptr (GPtrArray) kids = children_of (t, t->root_name);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_add (seen, (gpointer) t->root_name);
  /* through single-child wrappers, never back to one already passed */
  while (kids->len == 1 && g_hash_table_add (seen, g_ptr_array_index (kids, 0))) {
    t->root_name = g_ptr_array_index (kids, 0);
    g_ptr_array_unref (kids);
    kids = children_of (t, t->root_name);
  }
  if (kids->len == 0)
    g_ptr_array_add (kids, (gpointer) t->root_name);   /* a model without submodules: one layer */
  t->layer_names = g_steal_pointer (&kids);
  t->expanded = g_ptr_array_new ();
  expand_layers (t, seen);
  for (guint i = 0; i < t->ev->len; i++) {
    DpsTraceEv *e = &g_array_index (t->ev, DpsTraceEv, i);
    if (!dps_trace_is_module (e))
      continue;
    if (t->root < 0 && g_str_equal (dps_trace_module_name (t, (int) i), t->root_name))
      t->root = (int) i;
    /* walk up to a layer's own module, stopping at the model */
    for (int m = (int) i; m >= 0;) {
      const char *name = dps_trace_module_name (t, m);
      guint li;
      if (g_ptr_array_find_with_equal_func (t->layer_names, name, g_str_equal, &li)) {
        e->layer = (int) li;
        break;
      }
      if (g_str_equal (name, t->root_name))
        break;
      int p = g_array_index (t->ev, DpsTraceEv, m).parent;
      m = p < 0 ? -1 : g_array_index (t->ev, DpsTraceEv, p).module;
    }
  }
  return TRUE;
}

/* The steps: the ProfilerStep#N annotations that profile.step() writes,
 * or where the trace has none (a profiler without a schedule, started and
 * stopped by hand) the optimizer's, one "Optimizer.step#SGD.step" per
 * step() call. */
static void
count_steps (DpsTrace *t)
{
  int n_opt = 0;
  for (guint i = 0; i < t->ev->len; i++) {
    const DpsTraceEv *e = &g_array_index (t->ev, DpsTraceEv, i);
    if (e->cat == DPS_TRACE_USER && g_str_has_prefix (e->name, "ProfilerStep#")) {
      t->n_steps++;
      t->step_us += e->end_us - e->ts_us;
    }
    n_opt += e->cat == DPS_TRACE_USER && g_str_has_prefix (e->name, "Optimizer.step#");
  }
  if (t->n_steps == 0 && n_opt > 0) {
    t->n_steps = n_opt;
    t->steps_by_optimizer = TRUE;
  }
}

/* The model's name: its class, without the instance number. */
static char *
class_name (const char *module)
{
  const char *us = strrchr (module, '_');
  return us && us[1] && strspn (us + 1, "0123456789") == strlen (us + 1) ? g_strndup (module, (gsize) (us - module))
                                                                         : g_strdup (module);
}

static void
trace_clear (DpsTrace *t)
{
  g_array_unref (t->ev);
  g_free (t->order);
  if (t->layer_names)
    g_ptr_array_unref (t->layer_names);
  if (t->expanded)
    g_ptr_array_unref (t->expanded);
}

/* The model from the parsed events (the parser still holds the strings). */
static DpsModel *
build (DpsTrace *t, const char *device, GError **error)
{
  nest (t);
  if (!find_layers (t, error))
    return NULL;
  count_steps (t);
  int nl = (int) t->layer_names->len, steps = MAX (t->n_steps, 1);
  g_autofree double *us = g_new0 (double, 5 * nl);
  DpsTraceTimes tt = { .fwd_us = { us, us + nl }, .bwd_us = { us + 2 * nl, us + 3 * nl }, .flops = us + 4 * nl };
  dps_trace_attribute (t, &tt);
  t->gpu = tt.n_kernels + tt.n_orphan > 0;
  if (t->gpu && tt.n_kernels == 0)
    return dps_set_error_at (error, t->file, 0, "none of its %d kernels and copies leads to the op that launched "
                             "it (no \"correlation\" shared with a cuda_runtime launch, no \"External id\" of a "
                             "cpu_op), so their time cannot be given to the modules", tt.n_orphan), NULL;
  if (tt.n_eval == 0)
    return dps_set_error_at (error, t->file, 0, "no backward pass (no \"" DPS_TRACE_EVAL_PREFIX "...\" events): "
                             "profile training steps, forward and backward"), NULL;
  if (tt.n_eval_seq == 0)
    return dps_set_error_at (error, t->file, 0, "its %d backward nodes carry no \"Sequence number\", so their "
                             "time cannot be given to the modules that made them", tt.n_eval), NULL;
  g_autoptr (GPtrArray) params = dps_trace_params (t);
  g_autofree char *name = class_name (t->model_name);
  g_autoptr (DpsModel) m = dps_model_new (name);
  m->source = g_strdup (t->file);
  int batch = dps_trace_batch (t);
  m->time_batch = MAX (batch, 1);
  for (int l = 0; l < nl; l++) {
    /* with_flops: per sample, as the model keeps it */
    int li = dps_model_add_layer (m, g_ptr_array_index (t->layer_names, l), tt.flops[l] / steps / m->time_batch,
                                  0, 0);
    DpsLayer *layer = &g_array_index (m->layers, DpsLayer, li);
    layer->fwd_time_s = tt.fwd_us[t->gpu][l] / steps * 1e-6;
    layer->bwd_time_s = tt.bwd_us[t->gpu][l] / steps * 1e-6;
    GArray *ts = g_ptr_array_index (params, l);
    for (guint j = 0; j < ts->len; j++) {
      const DpsTraceTensor *tn = &g_array_index (ts, DpsTraceTensor, j);
      if (tn->rows)
        dps_model_add_tensor (m, tn->name, tn->rows, tn->cols);
      else
        dps_model_add_vector (m, tn->name, tn->numel);
    }
  }
  if (m->n_params == 0)
    return dps_set_error_at (error, t->file, 0, "no parameter shapes in %s's ops (a trace holds no parameters; "
                             "dpscale reads each module's weights from its ops' \"Input Dims\": record with "
                             "record_shapes=True)", t->root_name), NULL;
  /* what the times were taken on, for their transfer to the predicted GPU
   * (dps_compute_use_file_times): a GPU trace without deviceProperties is
   * refused there rather than used as if measured on any GPU */
  m->device = g_strdup (!t->gpu ? "cpu" : device ? device : "a GPU the trace does not name");
  m->dtype = g_strdup (dps_trace_dtype (t));
  m->note = dps_trace_describe (t, &tt, m, device, batch);
  return g_steal_pointer (&m);
}

/* The name of the GPU the kernels ran on: the deviceProperties entry whose
 * "id" is the kernels' "device" (a rank's GPU of the node's eight), else
 * the first entry; NULL where there is none.  Lent by the parser. */
static const char *
trace_device (JsonObject *root, gint64 kernel_device)
{
  JsonNode *dp = json_object_get_member (root, "deviceProperties");
  JsonArray *a = dp && JSON_NODE_HOLDS_ARRAY (dp) ? json_node_get_array (dp) : NULL;
  const char *first = NULL;
  for (guint i = 0; a && i < json_array_get_length (a); i++) {
    JsonNode *d = json_array_get_element (a, i);
    JsonObject *o = JSON_NODE_HOLDS_OBJECT (d) ? json_node_get_object (d) : NULL;
    const char *n = str_member (o, "name");
    if (n && !first)
      first = n;
    if (n && kernel_device >= 0 && id_member (o, "id") == kernel_device)
      return n;
  }
  return first;
}

/* Parses a torch.profiler Chrome trace from memory (see the top of this
 * file), through dps_json_load, which bounds its depth and size.
 * Malformed JSON is refused with the file, line and column; a
 * trace without module events, backward pass or parameter shapes with the
 * file and what is missing.  Returns a new model (dps_model_free), its
 * note saying which times were used and what was not attributed, or NULL
 * with error set. */
DpsModel *
dps_model_load_trace_data (const char *name, const char *data, gssize len, GError **error)
{
  g_autoptr (JsonParser) parser = dps_json_load (name, data, len, "torch.profiler trace", error);
  if (!parser)
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (root && JSON_NODE_HOLDS_ARRAY (root))
    return dps_set_error_at (error, name, 0, "a JSON array of events: the legacy profiler's export (a PyTorch "
                             "built without Kineto, such as Debian's 1.13), without modules or sequence "
                             "numbers; dpscale reads the Kineto trace of PyTorch 2.x (an object with "
                             "\"traceEvents\")"), NULL;
  JsonNode *evn = root && JSON_NODE_HOLDS_OBJECT (root)
                    ? json_object_get_member (json_node_get_object (root), "traceEvents") : NULL;
  if (!evn || !JSON_NODE_HOLDS_ARRAY (evn))
    return dps_set_error_at (error, name, 0, "expected a JSON object with a \"traceEvents\" array (a "
                             "torch.profiler trace)"), NULL;
  DpsTrace t = { .file = name, .ev = g_array_new (FALSE, TRUE, sizeof (DpsTraceEv)), .root = -1,
                 .kernel_device = -1 };
  DpsModel *m = NULL;
  if (read_events (&t, json_node_get_array (evn), error))
    m = build (&t, trace_device (json_node_get_object (root), t.kernel_device), error);
  trace_clear (&t);
  return m;
}

/* TRUE when data is a profiler trace rather than a config or key file:
 * JSON with a "traceEvents" key, or a JSON array of objects (the legacy
 * profiler's export, refused by the loader with what to use instead). */
gboolean
dps_model_data_is_trace (const char *data, gsize len)
{
  gsize i = len >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  while (i < len && g_ascii_isspace (data[i]))
    i++;
  if (i < len && data[i] == '[') {
    for (i++; i < len && g_ascii_isspace (data[i]); i++)
      ;
    return i < len && data[i] == '{';
  }
  return i < len && data[i] == '{' && g_strstr_len (data, (gssize) len, "\"traceEvents\"") != NULL;
}
