/* model-trace-times.c — per layer of a torch.profiler trace: forward and
 * backward time, parameter tensors and the batch (see model-trace.c). */
#include "sim/model-trace.h"

#include <string.h>

int
dps_trace_layer_of (const DpsTrace *t, const DpsTraceEv *e)
{
  return e->module < 0 ? -1 : g_array_index (t->ev, DpsTraceEv, e->module).layer;
}


/* The layer a backward node's sequence number leads to, -1 none. */
static int
bwd_layer (GHashTable *seq_layer, const DpsTraceEv *node)
{
  gpointer v;
  if (node->seq < 0 || !g_hash_table_lookup_extended (seq_layer, &node->seq, NULL, &v))
    return -1;
  return GPOINTER_TO_INT (v);
}

/* The kernel's (or copy's) share: the op that launched it (its runtime
 * call by correlation, else the op by External id) and so its layer,
 * forward or backward.  One launched before the trace began (neither in
 * it) is left out of the step: it is the work of a step not profiled. */
static void
attribute_kernel (const DpsTrace *t, const DpsTraceEv *k, GHashTable *by_corr, GHashTable *by_ext,
                  GHashTable *seq_layer, DpsTraceTimes *tt)
{
  double us = k->end_us - k->ts_us;
  const DpsTraceEv *launch = k->corr >= 0 ? g_hash_table_lookup (by_corr, &k->corr) : NULL;
  if (!launch && k->ext >= 0)
    launch = g_hash_table_lookup (by_ext, &k->ext);
  if (k->cat == DPS_TRACE_KERNEL && g_str_has_prefix (k->name, "nccl")) {
    /* a trace taken under DDP: its all-reduces are what dpscale predicts */
    tt->nccl_us += us;
    tt->n_nccl++;
    return;
  }
  if (!launch) {
    tt->orphan_us += us;
    tt->n_orphan++;
    return;
  }
  tt->kernel_us += us;
  if (k->cat == DPS_TRACE_KERNEL)
    tt->n_kernels++;
  else
    tt->n_copies++;
  if (launch->eval >= 0) {
    int l = bwd_layer (seq_layer, &g_array_index (t->ev, DpsTraceEv, launch->eval));
    if (l >= 0 && launch->module >= 0)
      tt->recompute_us[1] += us;   /* a checkpointed forward run again */
    if (l >= 0)
      tt->bwd_us[1][l] += us;
    else
      tt->loose_bwd_us[1] += us;
  } else if (dps_trace_layer_of (t, launch) >= 0)
    tt->fwd_us[1][dps_trace_layer_of (t, launch)] += us;
  else if (launch->module >= 0)
    tt->own_fwd_us += us;
  else
    tt->loose_fwd_us += us;
}

/* Forward and backward time per layer (see the top of this file). */
void
dps_trace_attribute (const DpsTrace *t, DpsTraceTimes *tt)
{
  g_autoptr (GHashTable) seq_layer = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GHashTable) by_corr = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GHashTable) by_ext = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint i = 0; i < t->ev->len; i++) {
    DpsTraceEv *e = &g_array_index (t->ev, DpsTraceEv, i);
    gpointer had;
    if (e->cat == DPS_TRACE_CPU_OP && e->seq >= 0 && e->eval < 0 && dps_trace_layer_of (t, e) >= 0) {
      /* sequence numbers count per forward thread: two threads can repeat one */
      if (g_hash_table_lookup_extended (seq_layer, &e->seq, NULL, &had)
          && GPOINTER_TO_INT (had) != dps_trace_layer_of (t, e))
        tt->n_seq_clash++;
      g_hash_table_insert (seq_layer, &e->seq, GINT_TO_POINTER (dps_trace_layer_of (t, e)));
    }
    if (e->cat == DPS_TRACE_RUNTIME && e->corr >= 0)
      g_hash_table_insert (by_corr, &e->corr, e);
    if (e->cat == DPS_TRACE_CPU_OP && e->ext >= 0 && !g_hash_table_contains (by_ext, &e->ext))
      g_hash_table_insert (by_ext, &e->ext, e);
  }
  for (guint i = 0; i < t->ev->len; i++) {
    const DpsTraceEv *e = &g_array_index (t->ev, DpsTraceEv, i);
    const DpsTraceEv *p = e->parent >= 0 ? &g_array_index (t->ev, DpsTraceEv, e->parent) : NULL;
    double us = e->end_us - e->ts_us;
    if (dps_trace_is_module (e) && e->layer >= 0 && (!p || dps_trace_layer_of (t, p) != e->layer)) {
      tt->fwd_us[0][e->layer] += us;   /* a layer's outermost call */
      if (p && dps_trace_layer_of (t, p) >= 0)
        tt->fwd_us[0][dps_trace_layer_of (t, p)] -= us;   /* out of the split module's own time */
    }
    if (dps_trace_is_module (e) && e->eval >= 0 && (!p || p->module < 0)) {
      tt->n_recompute++;   /* the outermost module call inside a backward node */
      tt->recompute_us[0] += us;
    }
    if (dps_trace_is_module (e) && g_str_equal (dps_trace_module_name (t, (int) i), t->root_name)
        && (!p || dps_trace_layer_of (t, p) < 0))
      tt->model_us += us;
    /* the outermost op with an estimate (aten::addmm, not also what it calls) */
    if (e->cat == DPS_TRACE_CPU_OP && e->flops > 0 && e->eval < 0 && dps_trace_layer_of (t, e) >= 0
        && (!p || !p->under_flops))
      tt->flops[dps_trace_layer_of (t, e)] += e->flops;
    if (e->cat == DPS_TRACE_CPU_OP && e->eval == (int) i && (!p || p->eval < 0)) {
      int l = bwd_layer (seq_layer, e);
      tt->n_eval++;
      tt->n_eval_seq += e->seq >= 0;
      if (l >= 0)
        tt->bwd_us[0][l] += us;
      else
        tt->loose_bwd_us[0] += us, tt->n_loose_bwd++;
    }
    if (e->cat == DPS_TRACE_KERNEL || e->cat == DPS_TRACE_GPU_COPY)
      attribute_kernel (t, e, by_corr, by_ext, seq_layer, tt);
  }
}

/* Ops whose inputs at these positions are a module's parameters (their
 * Input Dims), -1 none. */
static const struct { const char *op; int weight, bias; } weighted_ops[] = {
  { "aten::linear", 1, 2 },      { "aten::conv1d", 1, 2 },     { "aten::conv2d", 1, 2 },
  { "aten::conv3d", 1, 2 },      { "aten::convolution", 1, 2 }, { "aten::conv_transpose2d", 1, 2 },
  { "aten::layer_norm", 2, 3 },  { "aten::group_norm", 2, 3 },  { "aten::batch_norm", 1, 2 },
  { "aten::rms_norm", 2, -1 },   { "aten::embedding", 0, -1 },  { "aten::embedding_bag", 0, -1 },
};


static void
tensor_clear (gpointer p)
{
  g_free (((DpsTraceTensor *) p)->name);
}

/* A shape from Input Dims (an array of whole numbers); FALSE where empty
 * or not one. */
static gboolean
shape (JsonArray *dims, int at, gint64 *rows, gint64 *cols, gint64 *numel)
{
  if (at < 0 || (guint) at >= json_array_get_length (dims))
    return FALSE;
  JsonNode *n = json_array_get_element (dims, (guint) at);
  if (!JSON_NODE_HOLDS_ARRAY (n) || json_array_get_length (json_node_get_array (n)) == 0)
    return FALSE;
  JsonArray *a = json_node_get_array (n);
  *numel = 1;
  for (guint i = 0; i < json_array_get_length (a); i++) {
    JsonNode *d = json_array_get_element (a, i);
    if (!JSON_NODE_HOLDS_VALUE (d) || json_node_get_value_type (d) != G_TYPE_INT64 || json_node_get_int (d) < 1
        || json_node_get_int (d) > (G_GINT64_CONSTANT (1) << 40) / MAX (*numel, 1))
      return FALSE;
    *numel *= json_node_get_int (d);
  }
  /* a matrix as PowerSGD sees it: the first dimension by the rest */
  *rows = json_array_get_length (a) >= 2 ? json_array_get_int_element (a, 0) : 0;
  *cols = *rows ? *numel / *rows : 0;
  return TRUE;
}

/* Each layer's parameter tensors (GArray of DpsTraceTensor per layer):
 * the weights of the top-level ops in each module's first call. */
GPtrArray *
dps_trace_params (const DpsTrace *t)
{
  GPtrArray *layers = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint l = 0; l < t->layer_names->len; l++) {
    GArray *a = g_array_new (FALSE, TRUE, sizeof (DpsTraceTensor));
    g_array_set_clear_func (a, tensor_clear);
    g_ptr_array_add (layers, a);
  }
  g_autoptr (GHashTable) first = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint k = 0; k < t->ev->len; k++) {
    const DpsTraceEv *e = &g_array_index (t->ev, DpsTraceEv, t->order[k]);
    if (dps_trace_is_module (e) && !g_hash_table_contains (first, dps_trace_module_name (t, t->order[k])))
      g_hash_table_insert (first, (gpointer) dps_trace_module_name (t, t->order[k]), GINT_TO_POINTER (t->order[k]));
  }
  for (guint k = 0; k < t->ev->len; k++) {
    const DpsTraceEv *e = &g_array_index (t->ev, DpsTraceEv, t->order[k]);
    const DpsTraceEv *p = e->parent >= 0 ? &g_array_index (t->ev, DpsTraceEv, e->parent) : NULL;
    int l = dps_trace_layer_of (t, e);
    if (e->cat != DPS_TRACE_CPU_OP || !e->dims || l < 0 || (p && p->under_op) || e->eval >= 0
        || GPOINTER_TO_INT (g_hash_table_lookup (first, dps_trace_module_name (t, e->module))) != e->module)
      continue;
    for (gsize w = 0; w < G_N_ELEMENTS (weighted_ops); w++) {
      if (!g_str_equal (e->name, weighted_ops[w].op))
        continue;
      for (int j = 0; j < 2; j++) {
        DpsTraceTensor tn = { 0 };
        if (!shape (e->dims, j ? weighted_ops[w].bias : weighted_ops[w].weight, &tn.rows, &tn.cols, &tn.numel))
          continue;
        tn.name = g_strdup_printf ("%s.%s", dps_trace_module_name (t, e->module), j ? "bias" : "weight");
        g_array_append_val (g_ptr_array_index (layers, l), tn);
      }
    }
  }
  return layers;
}

/* The compute type of the trace's matrix products: their first input's
 * Input type, the most common of fp32, fp16 and bf16 (after autocast's
 * casts: the products themselves, not aten::linear); NULL where none says. */
const char *
dps_trace_dtype (const DpsTrace *t)
{
  static const char *const ops[] = { "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::convolution",
                                     NULL };
  static const struct { const char *type, *dtype; } types[] = {
    { "float", "fp32" }, { "c10::Half", "fp16" }, { "c10::BFloat16", "bf16" },
  };
  int count[G_N_ELEMENTS (types)] = { 0 }, best = -1;
  for (guint i = 0; i < t->ev->len; i++) {
    const DpsTraceEv *e = &g_array_index (t->ev, DpsTraceEv, i);
    if (e->cat != DPS_TRACE_CPU_OP || !e->types || !g_strv_contains (ops, e->name))
      continue;
    for (guint j = 0; j < json_array_get_length (e->types); j++) {
      JsonNode *n = json_array_get_element (e->types, j);
      const char *ty = JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
                         ? json_node_get_string (n) : "";
      if (!ty[0])
        continue;
      for (gsize k = 0; k < G_N_ELEMENTS (types); k++)
        count[k] += g_str_equal (ty, types[k].type);
      break;   /* the first tensor input */
    }
  }
  for (gsize k = 0; k < G_N_ELEMENTS (types); k++)
    if (count[k] > 0 && (best < 0 || count[k] > count[best]))
      best = (int) k;
  return best < 0 ? NULL : types[best].dtype;
}

/* Where an op's data input is: after the weight of an op that takes it
 * first (aten::embedding (weight, indices)), else first. */
static int
input_at (const char *op)
{
  for (gsize w = 0; w < G_N_ELEMENTS (weighted_ops); w++)
    if (g_str_equal (op, weighted_ops[w].op))
      return weighted_ops[w].weight == 0 ? 1 : 0;
  return 0;
}

/* The batch: the first dimension of the data input of the model's first
 * op with shapes; 0 where there is none. */
int
dps_trace_batch (const DpsTrace *t)
{
  const DpsTraceEv *root = &g_array_index (t->ev, DpsTraceEv, t->root);
  for (guint k = 0; k < t->ev->len; k++) {
    const DpsTraceEv *e = &g_array_index (t->ev, DpsTraceEv, t->order[k]);
    gint64 rows, cols, numel;
    if (e->cat == DPS_TRACE_CPU_OP && e->thread == root->thread && e->ts_us >= root->ts_us && e->end_us <= root->end_us
        && e->dims && shape (e->dims, input_at (e->name), &rows, &cols, &numel)) {
      JsonArray *a = json_node_get_array (json_array_get_element (e->dims, (guint) input_at (e->name)));
      gint64 b = json_array_get_int_element (a, 0);
      return b >= 1 && b <= 1 << 24 ? (int) b : 0;
    }
  }
  return 0;
}

/* What the loader used and left out, for the note (one line). */
char *
dps_trace_describe (const DpsTrace *t, const DpsTraceTimes *tt, const DpsModel *m, const char *device, int batch)
{
  int g = t->gpu, steps = MAX (t->n_steps, 1);
  double layers_us = 0;
  for (guint l = 0; l < t->layer_names->len; l++)
    layers_us += tt->fwd_us[g][l] + tt->bwd_us[g][l];
  double step_us = g ? tt->kernel_us : t->step_us;
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%s: torch.profiler trace of %s, %d layers", t->file, t->model_name,
                          dps_model_n_layers (m));
  if (!g_str_equal (t->root_name, t->model_name))
    g_string_append_printf (s, " (%s's)", t->root_name);
  g_string_append_printf (s, ", %d step%s", steps, steps > 1 ? "s (averaged)" : "");
  if (t->steps_by_optimizer)
    g_string_append (s, " (counted by Optimizer.step#: no ProfilerStep# annotation)");
  if (batch)
    g_string_append_printf (s, " at batch %d (the model's first input)", batch);
  else
    g_string_append (s, " (no input shapes: times taken as for batch 1)");
  if (g)
    g_string_append_printf (s, "; GPU kernel time (%d kernels, %d copies and memsets%s%s)", tt->n_kernels,
                            tt->n_copies, device ? " on " : "", device ? device : "");
  else
    g_string_append (s, "; CPU time (the trace has no kernel events)");
  if (step_us > 0)
    g_string_append_printf (s, "; layers %.1f%% of the step's %.3f ms (%s)", 100 * layers_us / step_us,
                            step_us / steps / 1e3, g ? "the GPU work its ops launched" : "ProfilerStep");
  g_string_append_printf (s, "; backward by sequence number: %d of %d autograd nodes, the rest (loss, "
                          "AccumulateGrad) %.3f ms per step not in a layer", tt->n_eval - tt->n_loose_bwd,
                          tt->n_eval, tt->loose_bwd_us[g] / steps / 1e3);
  double own_us = tt->model_us;
  for (guint l = 0; l < t->layer_names->len; l++)
    own_us -= tt->fwd_us[0][l];
  if (g)
    g_string_append_printf (s, "; GPU work outside the layers %.3f ms per step: %.3f in those nodes, %.3f in "
                            "%s's forward outside its layers (DDP's input and buffer copies), %.3f outside any "
                            "module (loss, optimizer, DDP's bucket copies)",
                            (tt->loose_bwd_us[1] + tt->own_fwd_us + tt->loose_fwd_us) / steps / 1e3,
                            tt->loose_bwd_us[1] / steps / 1e3, tt->own_fwd_us / steps / 1e3, t->model_name,
                            tt->loose_fwd_us / steps / 1e3);
  else if (own_us > DPS_TRACE_EPS_US)
    g_string_append_printf (s, "; %s's own forward outside its layers %.3f ms per step", t->root_name,
                            own_us / steps / 1e3);
  for (guint i = 0; i < t->expanded->len; i++)
    g_string_append_printf (s, "%s %s", i ? "," : "; split into their children (each more than half the "
                            "forward; their own ops a layer):", (const char *) g_ptr_array_index (t->expanded, i));
  if (tt->n_orphan)
    g_string_append_printf (s, "; %d kernels and copies (%.3f ms in all) left out: launched before the trace "
                            "began (the GPU ran behind the CPU), the work of a step not profiled", tt->n_orphan,
                            tt->orphan_us / 1e3);
  if (tt->n_nccl)
    g_string_append_printf (s, "; %d NCCL kernels (%.3f ms per step) left out: dpscale models the all-reduce",
                            tt->n_nccl, tt->nccl_us / steps / 1e3);
  if (tt->n_recompute)
    g_string_append_printf (s, "; %d module calls inside backward nodes (activation checkpointing's recompute, "
                            "%.3f ms per step) counted in the layers' backward, as measured: predict without "
                            "--checkpoint", tt->n_recompute, tt->recompute_us[g] / steps / 1e3);
  if (tt->n_seq_clash)
    g_string_append_printf (s, "; %d sequence numbers made by forward ops of two layers (several forward "
                            "threads?): their backward went to the later", tt->n_seq_clash);
  g_string_append (s, dps_model_fwd_flops (m) > 0 ? "; FLOPs from with_flops; no activation bytes (not in a trace)"
                                                  : "; no activation bytes or FLOPs (with_flops records these)");
  return g_string_free (s, FALSE);
}
