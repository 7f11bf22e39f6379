/* run.c — see run.h. */
#include "dps-config.h"
#include "real/run.h"
#include "sim/sched.h"
#include "real/train-net.h"
#include "real/gpu-count.h"
#include "real/launch.h"
#include "sim/base/error.h"
#include "sim/base/stats.h"
#include "sim/base/file.h"
#include "sim/base/sysmem.h"

#include <glib/gstdio.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static gboolean
on_line (const char *line, void *data, GError **error)
{
  DpsRunResult *o = data;
  if (g_str_has_prefix (line, "# library ")) {
    g_free (o->library);
    o->library = g_strdup (line + 10);
    return TRUE;
  }
  if (g_str_has_prefix (line, "# error ")) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "training failed: %s", line + 8);
    return TRUE;
  }
  if (g_str_has_prefix (line, "# gradcheck ")) {
    o->gradcheck = g_ascii_strtod (line + 12, NULL);
    return TRUE;
  }
  char name[32];
  if (sscanf (line, "# strategy %31s %d %d", name, &o->shards, &o->n_units) == 3) {
    g_free (o->strategy);
    o->strategy = g_strdup (name);
    return TRUE;
  }
  unsigned long long hash;
  if (sscanf (line, "# params %" G_GINT64_FORMAT " %lf %lf %llu", &o->params_count, &o->params_l2, &o->params_sum,
              &hash) == 4) {
    o->params_hash = hash;
    o->has_params = TRUE;
    return TRUE;
  }
  if (g_str_has_prefix (line, "# buckets ")) {
    g_auto (GStrv) t = g_strsplit (line + 10, " ", -1);
    for (int i = 1; t[i]; i++) {
      double b = g_ascii_strtod (t[i], NULL);
      g_array_append_val (o->bucket_sizes, b);
    }
    return TRUE;
  }
  DpsRunStep s;
  if (sscanf (line, "step %d %d %lf %lf %lf %lf %lf %lf %lf %lf %lf", &s.step, &s.replica, &s.fwd, &s.bwd,
              &s.exposed, &s.opt, &s.total, &s.loss, &s.xfwd, &s.xbwd, &s.xpost) == 11) {
    g_array_append_val (o->steps, s);
    return TRUE;
  }
  DpsRunColl c;
  if (sscanf (line, "coll %d %31s %d %d %lf %lf %lf %lf", &c.step, name, &c.unit, &c.micro, &c.bytes, &c.start,
              &c.dur, &c.sync) == 8 && dps_step_coll_parse (name, &c.kind)) {
    g_array_append_val (o->colls, c);
    return TRUE;
  }
  DpsRunBucket b;
  if (sscanf (line, "bucket %d %d %lf %lf %lf %lf", &b.step, &b.bucket, &b.bytes, &b.start, &b.dur, &b.sync) == 6) {
    g_array_append_val (o->buckets, b);
    return TRUE;
  }
  if (sscanf (line, "wait %lf %lf", &o->wait_req_s, &o->wait_got_s) == 2)
    return TRUE;
  int L, n;
  g_autofree double *t = dps_train_net_parse_layers (line, &L, &n);
  if (!t || L < 1 || n != 2 * L + 2)
    return FALSE;
  g_free (o->layer_s);
  o->layer_s = g_steal_pointer (&t);
  o->n_layers = L;
  return TRUE;
}

/* The step time of a step is its slowest replica's. */
static GArray *
step_times (const DpsRunResult *o, int warmup, int field)
{
  GHashTable *worst = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  for (guint i = 0; i < o->steps->len; i++) {
    const DpsRunStep *s = &g_array_index (o->steps, DpsRunStep, i);
    if (s->step < warmup)
      continue;
    double v = 0;
    switch ((DpsRunField) field) {
    case DPS_RUN_STEP: v = s->total; break;
    case DPS_RUN_COMPUTE: v = s->fwd + s->bwd; break;
    case DPS_RUN_EXPOSED: v = s->exposed; break;
    case DPS_RUN_OPTIMIZER: v = s->opt; break;
    case DPS_RUN_EXPOSED_FORWARD: v = s->xfwd; break;
    case DPS_RUN_EXPOSED_BACKWARD: v = s->xbwd; break;
    case DPS_RUN_EXPOSED_AFTER_OPTIMIZER: v = s->xpost; break;
    }
    double *w = g_hash_table_lookup (worst, GINT_TO_POINTER (s->step));
    if (!w) {
      w = g_new (double, 1);
      *w = 0;
      g_hash_table_insert (worst, GINT_TO_POINTER (s->step), w);
    }
    *w = MAX (*w, v);
  }
  GArray *a = g_array_new (FALSE, FALSE, sizeof (double));
  GList *vals = g_hash_table_get_values (worst);
  for (GList *l = vals; l; l = l->next)
    g_array_append_val (a, *(double *) l->data);
  g_list_free (vals);
  g_hash_table_unref (worst);
  return a;
}

int
dps_run_shard_group (int given, int ranks, int nodes)
{
  return given > 0 ? given : nodes > 1 ? ranks / nodes : ranks;
}

int
dps_run_gpus (GError **error)
{
  if (!DPS_HAVE_GPU_TRAIN) {
    dps_set_field_error (error, DPS_FIELD_GPU_REPLICAS, DPS_ERROR_UNSUPPORTED, "this build has none "
                 "(CUDA toolkit with nvcc and NCCL were not found when it was configured)");
    return 0;
  }
  g_autofree char *why = NULL;
  int n = dps_gpu_count (&why);
  if (n < 1)
    dps_set_field_error (error, DPS_FIELD_GPU_REPLICAS, DPS_ERROR_UNSUPPORTED, "%s", why ? why : "no GPU found");
  return MAX (n, 0);
}

/* The bytes one emulated replica holds (worker.h, dps_worker_buffers):
 * DDP's and ZeRO-1's whole gradients, which their buckets all-reduce, and
 * MPI's copies (3 x the gradients in all); ZeRO-1's one unit of
 * parameters besides; ZeRO-2's, FSDP's and HSDP's one unit of parameters
 * and one of gradients, MPI's copy of one (3 x the largest unit), and a
 * shard of each. */
static double
emulated_bytes (const DpsRunSpec *spec, const DpsModel *m)
{
  int L = dps_model_n_layers (m);
  g_autofree gint64 *loff = g_new (gint64, L + 1);
  dps_train_net_layout (m, 1, NULL, loff);
  double unit = 0;
  for (int l = 0; l < L; l++)
    unit = MAX (unit, 4.0 * (loff[l + 1] - loff[l]));
  int shards = spec->strategy == DPS_STRATEGY_HSDP && spec->shard_group > 0 ? spec->shard_group : spec->ranks;
  switch (spec->strategy) {
  case DPS_STRATEGY_DDP:
    return 3.0 * 4 * m->n_params;
  case DPS_STRATEGY_ZERO1:
    return 3.0 * 4 * m->n_params + unit;
  default:
    return 3.0 * unit + 2.0 * unit / shards;
  }
}

/* Starts spec->ranks replicas of model under mpirun and collects their
 * reports.  Errors: no mpirun or dpscale-train, a replica that fails or
 * reports an error (parameters that differ, a model it cannot train), the
 * time limit, missing step records. */
gboolean
dps_run_execute (const DpsRunSpec *spec, const DpsModel *model, DpsRunResult *out, GError **error)
{
  memset (out, 0, sizeof *out);
  out->steps = g_array_new (FALSE, FALSE, sizeof (DpsRunStep));
  out->buckets = g_array_new (FALSE, FALSE, sizeof (DpsRunBucket));
  out->bucket_sizes = g_array_new (FALSE, FALSE, sizeof (double));
  out->colls = g_array_new (FALSE, FALSE, sizeof (DpsRunColl));
  out->gradcheck = -1;
  if (spec->shard_group < 0 || (spec->shard_group > 0 && spec->ranks % spec->shard_group)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "shard group of %d ranks: does not divide %d replicas",
                 spec->shard_group, spec->ranks);
    return FALSE;
  }
  int split = MAX (spec->tp, 1) * MAX (spec->pp, 1);
  if (split > 1 && (spec->ranks % split || spec->emulate || (spec->gpu && spec->pp > 1) || spec->strategy != DPS_STRATEGY_DDP
                    || spec->check_gradient || spec->time_layers || (spec->tp > 1 && spec->pp > 1))) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "tensor parallel %d x pipeline %d: needs ranks it divides (%d), "
                 "real compute and DDP over the groups (not emulation, a sharded strategy, the gradient check, "
                 "--time-layers, both at once, or a pipeline on GPUs)", MAX (spec->tp, 1), MAX (spec->pp, 1), spec->ranks);
    return FALSE;
  }
  if ((spec->check_params || spec->save_params) && spec->emulate) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "the parameters' check needs real compute, not emulation");
    return FALSE;
  }
  if (spec->gpu) {
    /* one GPU per replica: NCCL refuses two ranks on one device */
    int gpus = dps_run_gpus (error);
    int per_node = spec->net ? spec->ranks / MAX (dps_netemu_nodes (spec->net), 1) : spec->ranks;
    if (gpus < 1)
      return FALSE;
    if (per_node > gpus) {
      dps_set_field_error (error, DPS_FIELD_GPU_REPLICAS, DPS_ERROR_LIMIT, "%d replicas per node need as many GPUs, this "
                   "machine has %d", per_node, gpus);
      return FALSE;
    }
  }
  g_autofree char *worker = dps_helper_path (spec->gpu ? "dpscale-train-gpu" : "dpscale-train");
  GPtrArray *args = worker ? dps_launcher_argv (spec->net, spec->ranks, worker) : NULL;
  if (!worker || !args) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "%s", !worker ? "the replica program (dpscale-train) not found beside dpscale"
                 : "no MPI launcher: mpirun not found (Debian: apt-get install openmpi-bin)");
    return FALSE;
  }
  g_ptr_array_add (args, g_strdup_printf ("--model=%s", model->source ? model->source : model->name));
  g_ptr_array_add (args, g_strdup_printf ("--batch=%d", spec->batch));
  g_ptr_array_add (args, g_strdup_printf ("--steps=%d", spec->steps));
  g_ptr_array_add (args, g_strdup_printf ("--grad-accum=%d", MAX (spec->grad_accum, 1)));
  g_ptr_array_add (args, g_strdup_printf ("--seed=%d", spec->seed));
  g_ptr_array_add (args, g_strdup_printf ("--bucket-cap-mb=%.17g", spec->bucket_cap_mb));
  g_ptr_array_add (args, g_strdup_printf ("--first-bucket-mb=%.17g", spec->first_bucket_mb));
  g_ptr_array_add (args, g_strdup_printf ("--optimizer=%s", spec->optimizer ? spec->optimizer : "sgd"));
  if (spec->lr > 0)
    g_ptr_array_add (args, g_strdup_printf ("--lr=%.17g", spec->lr));
  if (spec->check_gradient)
    g_ptr_array_add (args, g_strdup ("--check-gradient"));
  g_ptr_array_add (args, g_strdup_printf ("--strategy=%s", dps_strategy_name (spec->strategy)));
  if (spec->shard_group > 0)
    g_ptr_array_add (args, g_strdup_printf ("--shard-group=%d", spec->shard_group));
  if (spec->tp > 1)
    g_ptr_array_add (args, g_strdup_printf ("--tp=%d", spec->tp));
  if (spec->pp > 1) {
    g_ptr_array_add (args, g_strdup_printf ("--pp=%d", spec->pp));
    g_ptr_array_add (args, g_strdup_printf ("--micro-batches=%d", MAX (spec->micro, 1)));
  }
  if (spec->check_params)
    g_ptr_array_add (args, g_strdup ("--check-params"));
  if (spec->time_layers)
    g_ptr_array_add (args, g_strdup ("--time-layers"));
  if (spec->emulate) {
    int L = dps_model_n_layers (model);
    GString *fs = g_string_new ("--fwd="), *bs = g_string_new ("--bwd=");
    for (int l = 0; l < L; l++) {
      g_string_append_printf (fs, "%s%.9g", l ? "," : "", spec->emu_fwd_s[l]);
      g_string_append_printf (bs, "%s%.9g", l ? "," : "", spec->emu_bwd_s[l]);
    }
    g_ptr_array_add (args, g_strdup ("--emulate"));
    g_ptr_array_add (args, g_string_free (fs, FALSE));
    g_ptr_array_add (args, g_string_free (bs, FALSE));
    g_ptr_array_add (args, g_strdup_printf ("--opt-ms=%.9g", spec->emu_opt_s * 1e3));
    double need = emulated_bytes (spec, model) * spec->ranks, avail;
    if (!dps_mem_fits (need, &avail)) {
      g_ptr_array_unref (args);
      dps_set_field_error (error, DPS_FIELD_EMU_REPLICAS, DPS_ERROR_LIMIT,
                   "%d replicas of %s need about %.1f GB for their %s, %.1f GB is free",
                   spec->ranks, model->name, need / 1e9,
                   dps_strategy_shards_grads (spec->strategy) ? "units and shards" : "gradients", avail / 1e9);
      return FALSE;
    }
  }
  if (!spec->emulate && !spec->gpu) {
    /* refused here rather than in every replica: a model the runner cannot
     * train, or replicas that would not fit in memory */
    if (!dps_train_net_check (model, error)) {
      g_ptr_array_unref (args);
      return FALSE;
    }
    double need = dps_train_net_bytes (model, spec->batch) * spec->ranks, avail;
    if (!dps_mem_fits (need, &avail)) {
      g_ptr_array_unref (args);
      g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT,
                   "%d replicas of %s at batch %d need about %.1f GB, %.1f GB is free (lower --batch or --ranks)",
                   spec->ranks, model->name, spec->batch, need / 1e9, avail / 1e9);
      return FALSE;
    }
  }
  /* the parameters go to a file beside the one asked for, renamed over it
   * once the run has succeeded (a stream, such as /dev/stdout, directly);
   * by its absolute name, the replicas' working folder being another */
  g_autofree char *params_tmp = NULL;
  if (spec->save_params) {
    DpsOutputKind kind;
    if (!dps_output_kind (spec->save_params, "parameters file", &kind, error)
        || (kind != DPS_OUTPUT_STREAM && !(params_tmp = dps_temp_beside (spec->save_params, NULL, error)))) {
      g_ptr_array_unref (args);
      return FALSE;
    }
    g_autofree char *abs = g_canonicalize_filename (params_tmp ? params_tmp : spec->save_params, NULL);
    g_ptr_array_add (args, g_strdup_printf ("--save-params=%s", abs));
  }
  g_ptr_array_add (args, NULL);
  if (!spec->quiet && spec->time_layers)
    fprintf (stderr, "run: timing the layers of %s at batch %d on one %s\n", model->name, spec->batch,
             spec->gpu ? "GPU" : "core");
  else if (!spec->quiet && spec->tp > 1)
    fprintf (stderr, "run: %d ranks of %s in tensor-parallel groups of %d, %d steps\n", spec->ranks, model->name,
             spec->tp, spec->steps);
  else if (!spec->quiet && spec->pp > 1)
    fprintf (stderr, "run: %d ranks of %s in pipelines of %d stages, %d steps\n", spec->ranks, model->name,
             spec->pp, spec->steps);
  else if (!spec->quiet)
    fprintf (stderr, "run: %d replica%s of %s, %d steps%s\n", spec->ranks, spec->ranks > 1 ? "s" : "", model->name,
             spec->steps, spec->emulate ? " (emulated compute)" : "");
  gboolean ok = dps_launch_lines ((const char *const *) args->pdata, dps_mpirun_env (), spec->timeout_s, on_line,
                                  out, error);
  g_ptr_array_unref (args);
  if (ok && (spec->check_params || spec->save_params) && !out->has_params) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "the replicas reported no parameters after the last step");
    ok = FALSE;
  }
  if (params_tmp && ok)
    ok = dps_replace_with (params_tmp, spec->save_params, error);
  else if (params_tmp)
    g_unlink (params_tmp);
  if (ok && spec->time_layers && out->n_layers != dps_model_n_layers (model)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "the replica reported no layer times for %s", model->name);
    ok = FALSE;
  } else if (ok && !spec->time_layers && (int) out->steps->len != spec->steps * spec->ranks) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "training stopped early: %u of %d step records",
                 out->steps->len, spec->steps * spec->ranks);
    ok = FALSE;
  }
  return ok;
}

void
dps_run_result_clear (DpsRunResult *r)
{
  if (r->steps)
    g_array_free (r->steps, TRUE);
  if (r->buckets)
    g_array_free (r->buckets, TRUE);
  if (r->bucket_sizes)
    g_array_free (r->bucket_sizes, TRUE);
  if (r->colls)
    g_array_free (r->colls, TRUE);
  g_free (r->strategy);
  g_free (r->layer_s);
  g_free (r->library);
  memset (r, 0, sizeof *r);
}

/* The q-quantile over steps from warmup on of a field, each step's value
 * being its slowest replica's (a step lasts until the last replica). */
double
dps_run_quantile (const DpsRunResult *r, int warmup, DpsRunField field, double q)
{
  GArray *v = step_times (r, warmup, field);
  double x = dps_quantile ((double *) v->data, v->len, q);
  g_array_free (v, TRUE);
  return x;
}

/* Bytes all-reduced per second of all-reduce inside the run (each
 * bucket's time from the last replica's arrival, after warm-up): the
 * algorithm bandwidth. */
double
dps_run_bucket_Bps (const DpsRunResult *r, int warmup)
{
  double bytes = 0, busy = 0;
  for (guint i = 0; i < r->buckets->len; i++) {
    const DpsRunBucket *b = &g_array_index (r->buckets, DpsRunBucket, i);
    if (b->step >= warmup) {
      bytes += b->bytes;
      busy += b->sync;
    }
  }
  return busy > 0 ? bytes / busy : 0;
}

double
dps_run_bucket_median (const DpsRunResult *r, int warmup, int bucket)
{
  GArray *v = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < r->buckets->len; i++) {
    const DpsRunBucket *b = &g_array_index (r->buckets, DpsRunBucket, i);
    if (b->step >= warmup && b->bucket == bucket)
      g_array_append_val (v, b->sync);
  }
  double x = dps_quantile ((double *) v->data, v->len, 0.5);
  g_array_free (v, TRUE);
  return x;
}

double
dps_run_coll_step (const DpsRunResult *r, int warmup, DpsStepColl kind, double *bytes)
{
  GHashTable *per = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  double b = 0;
  int first = -1;
  for (guint i = 0; i < r->colls->len; i++) {
    const DpsRunColl *c = &g_array_index (r->colls, DpsRunColl, i);
    if (c->step < warmup || c->kind != kind)
      continue;
    double *t = g_hash_table_lookup (per, GINT_TO_POINTER (c->step));
    if (!t) {
      t = g_new0 (double, 1);
      g_hash_table_insert (per, GINT_TO_POINTER (c->step), t);
    }
    *t += c->sync;
    if (first < 0)
      first = c->step;
    if (c->step == first)
      b += c->bytes;
  }
  GArray *v = g_array_new (FALSE, FALSE, sizeof (double));
  GList *vals = g_hash_table_get_values (per);
  for (GList *l = vals; l; l = l->next)
    g_array_append_val (v, *(double *) l->data);
  g_list_free (vals);
  double x = v->len ? dps_quantile ((double *) v->data, v->len, 0.5) : 0;
  g_array_free (v, TRUE);
  g_hash_table_unref (per);
  if (bytes)
    *bytes = b;
  return x;
}

double
dps_run_coll_median (const DpsRunResult *r, int warmup, DpsStepColl kind, int unit)
{
  GArray *v = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < r->colls->len; i++) {
    const DpsRunColl *c = &g_array_index (r->colls, DpsRunColl, i);
    if (c->step >= warmup && c->kind == kind && c->unit == unit)
      g_array_append_val (v, c->sync);
  }
  double x = v->len ? dps_quantile ((double *) v->data, v->len, 0.5) : -1;
  g_array_free (v, TRUE);
  return x;
}

/* The per-step CSV: one row per step and replica, units in the header. */
GString *
dps_run_csv (const DpsRunResult *r, int batch)
{
  GString *csv = g_string_new ("step,replica,forward_s,backward_s,exposed_comm_s,optimizer_s,step_s,samples_per_s,loss\n");
  for (guint i = 0; i < r->steps->len; i++) {
    const DpsRunStep *s = &g_array_index (r->steps, DpsRunStep, i);
    g_string_append_printf (csv, "%d,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%.9g\n", s->step, s->replica, s->fwd, s->bwd,
                            s->exposed, s->opt, s->total, batch / s->total, s->loss);
  }
  return csv;
}

static double
measured_time (const void *data, double bytes, double *lat_s, DpsAlgo *algo, DpsProto *proto)
{
  *lat_s = 0;
  return 0;   /* the spans carry the measured times */
}

static void
add_span (GArray *spans, int rank, int task, double start_s, double dur_s)
{
  DpsSchedSpan sp = { rank, task, start_s, start_s + dur_s };
  g_array_append_val (spans, sp);
}

/* A collective's label as the simulator's strategies name it
 * (sim/strategy-ddp.c, strategy-fsdp.c) */
static char *
coll_label (const DpsRunColl *c, int micro_steps)
{
  g_autofree char *micro = micro_steps > 1 ? g_strdup_printf (" (micro-step %d)", c->micro + 1) : g_strdup ("");
  switch (c->kind) {
  case DPS_STEP_GATHER:
    return g_strdup_printf ("all-gather unit %d%s", c->unit, micro);
  case DPS_STEP_GATHER_BACKWARD:
    return g_strdup_printf ("all-gather unit %d (backward)%s", c->unit, micro);
  case DPS_STEP_GATHER_UPDATED:
    return g_strdup_printf ("all-gather unit %d (updated)", c->unit);
  case DPS_STEP_REDUCE_SCATTER:
    return g_strdup_printf ("reduce-scatter unit %d%s", c->unit, micro);
  case DPS_STEP_ALLREDUCE_SHARD:
    return g_strdup_printf ("all-reduce unit %d shard%s", c->unit, micro);
  default:
    return g_strdup_printf ("all-reduce unit %d", c->unit);
  }
}

/* Writes one step as a Chrome trace in the simulator's shape
 * (dps_sched_write_trace): a process per replica with its compute stream
 * (forward, backward, optimizer, each from where the one before ended,
 * the waits for collectives included: those in forward in forward's span,
 * and so on) and, on replica 0, the collectives as measured: DDP's bucket
 * all-reduces on "all-reduce (data parallel)", the sharded strategies'
 * gathers and reduce-scatters on "data parallel" (HSDP: "shard group"),
 * HSDP's shard all-reduces on "replicate group". */
gboolean
dps_run_write_trace (const DpsRunResult *run, int step, const char *path, GError **error)
{
  g_autoptr (DpsSched) s = dps_sched_new ();
  gboolean hsdp = run->strategy && g_str_equal (run->strategy, "hsdp");
  int role = dps_sched_role_add (s, "replica", 0);
  int cs = dps_sched_stream_add (s, role, "compute", DPS_SCHED_NO_STREAM);
  int comm = dps_sched_comm_add (s, &(DpsSchedComm) { "measured", measured_time, NULL, 0, 0, FALSE });
  int fwd = dps_sched_task_add (s, cs, &(DpsTaskSpec) { .label = "forward", .part = DPS_PART_FORWARD, .comm = -1 });
  int bwd = dps_sched_task_add (s, cs, &(DpsTaskSpec) { .label = "backward", .part = DPS_PART_BACKWARD, .comm = -1 });
  int opt = dps_sched_task_add (s, cs, &(DpsTaskSpec) { .label = "optimizer", .part = DPS_PART_OPTIMIZER, .comm = -1 });
  int n_ranks = 1, n_buckets = 0, micro_steps = 1;
  gboolean scattered = FALSE;
  for (guint i = 0; i < run->steps->len; i++)
    n_ranks = MAX (n_ranks, g_array_index (run->steps, DpsRunStep, i).replica + 1);
  for (guint i = 0; i < run->buckets->len; i++)
    n_buckets = MAX (n_buckets, g_array_index (run->buckets, DpsRunBucket, i).bucket + 1);
  for (guint i = 0; i < run->colls->len; i++) {
    const DpsRunColl *c = &g_array_index (run->colls, DpsRunColl, i);
    micro_steps = MAX (micro_steps, c->micro + 1);
    scattered = scattered || c->kind == DPS_STEP_ALLREDUCE_SHARD;
  }
  int ds = n_buckets > 0 ? dps_sched_stream_add (s, role, "all-reduce (data parallel)", 0) : -1;
  int ss = run->colls->len ? dps_sched_stream_add (s, role, hsdp ? "shard group" : "data parallel", 1) : -1;
  int rs = scattered ? dps_sched_stream_add (s, role, "replicate group", 2) : -1;
  int *bucket_task = g_new (int, MAX (n_buckets, 1));
  for (int b = 0; b < n_buckets; b++) {
    g_autofree char *label = g_strdup_printf ("all-reduce bucket %d", b);
    bucket_task[b] = dps_sched_task_add (s, ds, &(DpsTaskSpec) { .label = label, .part = DPS_PART_COMM, .comm = comm });
  }
  DpsSchedResult res = { .spans = g_array_new (FALSE, FALSE, sizeof (DpsSchedSpan)),
                         .memory = g_array_new (FALSE, FALSE, sizeof (DpsSchedMemSample)) };
  for (guint i = 0; i < run->steps->len; i++) {
    const DpsRunStep *st = &g_array_index (run->steps, DpsRunStep, i);
    if (st->step != step)
      continue;
    double f = st->fwd + st->xfwd, b = st->bwd + st->xbwd, sync = st->exposed - st->xfwd - st->xbwd - st->xpost;
    add_span (res.spans, st->replica, fwd, 0, f);
    add_span (res.spans, st->replica, bwd, f, b);
    add_span (res.spans, st->replica, opt, f + b + MAX (sync, 0), st->opt);
  }
  for (guint i = 0; i < run->buckets->len; i++) {
    const DpsRunBucket *b = &g_array_index (run->buckets, DpsRunBucket, i);
    if (b->step == step)
      add_span (res.spans, 0, bucket_task[b->bucket], b->start, b->dur);
  }
  for (guint i = 0; i < run->colls->len; i++) {
    const DpsRunColl *c = &g_array_index (run->colls, DpsRunColl, i);
    if (c->step != step)
      continue;
    g_autofree char *label = coll_label (c, micro_steps);
    int task = dps_sched_task_add (s, c->kind == DPS_STEP_ALLREDUCE_SHARD ? rs : ss,
                                   &(DpsTaskSpec) { .label = label, .part = DPS_PART_COMM, .comm = comm,
                                                    .bytes = c->bytes });
    add_span (res.spans, 0, task, c->start, c->dur);
  }
  DpsSchedRank *ranks = g_new0 (DpsSchedRank, n_ranks);
  for (int k = 0; k < n_ranks; k++)
    ranks[k] = (DpsSchedRank) { .role = role, .weight = 1, .speed = 1, .speed_mean = 1, .trace = TRUE };
  gboolean ok = dps_sched_write_trace (s, &res, ranks, path, error);
  g_free (ranks);
  g_free (bucket_task);
  dps_sched_result_clear (&res);
  return ok;
}
