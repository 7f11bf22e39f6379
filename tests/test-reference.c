/* Published DDP training against the simulator: each table of
 * tests/reference/ddp/ (.ref files, format in its README) predicted three ways.
 *
 * (a) scaling: per-GPU throughput at N GPUs from the same table's
 *     smallest-N figure: the model's layer times are scaled so that the
 *     smallest configuration reproduces its published figure, then the
 *     larger ones are simulated (buckets, collectives, optimizer);
 * (b) uncalibrated: one GPU's throughput from the model's kernels on the
 *     shipped topology's device, nothing measured;
 * (c) transfer: one GPU's published figure on one generation (its layer
 *     times scaled to it) transferred to another generation's device
 *     (dps_compute_transfer), against that device's published figure
 *     in the same framework, model, sequence and precision.
 *
 * Each prints its entries and their errors (ctest -V shows them), each
 * table's median and worst |error|, and the median and worst of all
 * entries and of PyTorch DDP's alone (torch's or apex's
 * DistributedDataParallel; the TensorFlow and MXNet tables all-reduce with
 * Horovod, the Paddle ones with Paddle's own data parallelism: kept, and
 * said).  The bars below are the figures reached, with a small margin, so
 * that a change making them worse fails.  The compute model's constants
 * for linear layers (sim/compute.c) are fitted over (b) and (c), with the
 * sharded suite's absolute figures past Ampere; the rest of the model is
 * not fitted to these tables.  tests/reference/ddp/README.md gives the figures
 * against the targets, and why the misses are what they are. */
#include "reference-entries.h"
#include "sim/ddp.h"
#include "sim/coll-cost.h"
#include "sim/base/datadir.h"
#include "sim/base/stats.h"
#include "reference-ddp.h"
#include "reference-files.h"
#include "test-util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the bars (fractions: median and worst |error| of all entries, then of
 * PyTorch DDP's): see the summaries the test prints */
static const double scaling_bars[4] = { 0.03, 0.37, 0.015, 0.245 };
static const double uncal_bars[4] = { 0.08, 0.53, 0.085, 0.53 };
static const double transfer_bars[4] = { 0.06, 0.33, 0.06, 0.28 };

/* The shipped model the table trained (a BERT at its sequence length),
 * NULL when none is shipped. */
static DpsModel *
ref_model (const Ref *r)
{
  const char *name = ref_meta (r, "model");
  g_autoptr (GError) e = NULL;
  if (g_str_equal (name, "resnet50"))
    return dps_model_load ("resnet50", &e);
  if (!g_str_equal (name, "bert-large") && !g_str_equal (name, "bert-base"))
    return NULL;
  g_autofree char *file = g_strconcat (name, ".model", NULL);
  g_autofree char *path = dps_data_path ("sim/models", file);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  int seq = atoi (ref_meta (r, "seq"));
  g_assert_cmpint (seq, >, 0);
  g_autofree char *with = g_strdup_printf ("seq = %d", seq);
  g_autoptr (GRegex) re = g_regex_new ("seq = 512", 0, 0, NULL);
  g_autofree char *data = g_regex_replace_literal (re, text, -1, 0, with, 0, NULL);
  DpsModel *m = dps_model_load_keyfile_data (name, data, -1, &e);
  g_assert_no_error (e);
  return m;
}

static const char *
ref_topology (const Ref *r)
{
  const char *gpu = ref_meta (r, "gpu");
  if (strstr (gpu, "PCIe"))
    return strstr (gpu, "H100") ? "pcie-8x-h100" : strstr (gpu, "A100") ? "pcie-8gpu-2x100g" : NULL;
  if (strstr (gpu, "GH200"))
    return "gh200";
  if (strstr (gpu, "H200") || strstr (gpu, "B200"))
    return strstr (gpu, "H200") ? "hgx-h200-roce" : "hgx-b200";
  if (strstr (gpu, "A100"))
    return "dgx-a100";
  if (strstr (gpu, "H100"))
    return "dgx-h100";
  if (strstr (gpu, "V100"))
    return atoi (ref_meta (r, "gpus_per_node")) == 16 ? "dgx2-v100" : "dgx1-v100";
  return NULL;
}

/* The configuration of one row: its GPUs, precision, batch, accumulation,
 * optimizer and DDP's buckets as the framework line describes them. */
static void
ref_config (const Ref *r, const Row *row, DpsModel *m, DpsTopo *topo, DpsDdpConfig *c)
{
  dps_ddp_config_default (c);
  c->model = m;
  c->topo = topo;
  c->n_gpus = row->gpus;
  c->mode = DPS_MODE_ANALYTICAL;
  c->trace_replicas = 0;
  c->batch = row->batch;
  c->grad_accum = row->accum;
  c->compute.dtype = g_str_equal (row->prec, "amp") ? DPS_DTYPE_FP16
                     : g_str_equal (row->prec, "tf32") ? DPS_DTYPE_TF32 : DPS_DTYPE_FP32;
  c->precision = c->compute.dtype == DPS_DTYPE_FP16 ? DPS_PRECISION_BF16 : DPS_PRECISION_AMP;
  const char *opt = ref_meta (r, "optimizer");
  c->optimizer = g_str_has_prefix (opt, "SGD") ? DPS_OPT_MOMENTUM : DPS_OPT_ADAM;   /* LAMB moves Adam's bytes */
  /* the file's keys (their first word; the rest says why), never its prose */
  const char *buckets = dps_ref_choice (ref_meta (r, "buckets"), (const char *[]) { "ddp", "whole", "horovod", NULL });
  if (g_str_equal (buckets, "whole"))
    c->bucket_cap_bytes = c->first_bucket_bytes = dps_topo_spec (topo)->gpu.memory_bytes;
  else if (g_str_equal (buckets, "horovod"))
    c->bucket_cap_bytes = c->first_bucket_bytes = 64.0 * 1024 * 1024;   /* HOROVOD_FUSION_THRESHOLD */
  c->grad_as_bucket_view
    = g_str_equal (dps_ref_choice (ref_meta (r, "grad_as_bucket_view"), (const char *[]) { "yes", "no", NULL }), "yes");
}

/* Samples per second per GPU of row; scale (may be NULL) multiplies the
 * model's layer times first. */
static double
predict (const Ref *r, const Row *row, DpsModel *m, double scale)
{
  g_autoptr (DpsTopo) topo = test_shipped_topo (ref_topology (r), MAX (row->nodes, 1));
  DpsDdpConfig c;
  ref_config (r, row, m, topo, &c);
  if (scale != 1) {
    int L = dps_model_n_layers (m);
    g_autofree double *f = g_new (double, L), *b = g_new (double, L);
    double opt;
    dps_ddp_compute_times (&c, row->batch, f, b, &opt);
    for (int l = 0; l < L; l++)
      f[l] *= scale, b[l] *= scale;
    dps_model_set_times (m, f, b, (int) row->batch);
  }
  DpsDdpResult res;
  g_autoptr (GError) e = NULL;
  g_assert_true (dps_ddp_simulate (&c, &res, &e));
  g_assert_no_error (e);
  double per_gpu = res.samples_per_s / row->gpus;
  dps_ddp_result_clear (&res);
  return per_gpu;
}

/* One prediction's error, its table, and whether that table ran PyTorch's
 * DistributedDataParallel (torch's or apex's); the others all-reduce with
 * Horovod (TensorFlow, MXNet) or Paddle's own data parallelism. */
typedef struct {
  const char *file;
  gboolean    ddp;
  double      err;
} Entry;

static gboolean
is_ddp (const Ref *r)
{
  return g_str_has_prefix (ref_meta (r, "framework"), "PyTorch");
}

static void
add_entry (GArray *entries, const Ref *r, gboolean ddp, double err)
{
  Entry e = { r->file, ddp, err };
  g_array_append_val (entries, e);
}

/* The median and worst |error| of the entries (only PyTorch DDP's when
 * ddp_only); FALSE when there are none. */
static gboolean
med_worst (GArray *entries, gboolean ddp_only, const char *file, double *med, double *worst, guint *n)
{
  g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < entries->len; i++) {
    const Entry *e = &g_array_index (entries, Entry, i);
    if ((!ddp_only || e->ddp) && (!file || g_str_equal (file, e->file))) {
      double v = fabs (e->err);
      g_array_append_val (a, v);
    }
  }
  *n = a->len;
  if (!a->len)
    return FALSE;
  dps_sort_doubles ((double *) a->data, a->len);
  *med = dps_quantile_sorted ((double *) a->data, a->len, 0.5);
  *worst = g_array_index (a, double, a->len - 1);
  return TRUE;
}

/* Prints each table's median and worst, then all entries' and PyTorch
 * DDP's, and checks both against their bars (fractions: median, worst for
 * all, then for DDP's). */
static void
summarise (const char *what, GArray *entries, const double bars[4], double target)
{
  double med, worst, dmed, dworst;
  guint n, dn;
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < entries->len; i++) {
    const char *f = g_array_index (entries, Entry, i).file;
    if (!g_hash_table_add (seen, (gpointer) f))
      continue;
    med_worst (entries, FALSE, f, &med, &worst, &n);
    g_test_message ("  %-58s %3u entries: median |error| %5.1f%%, worst %5.1f%%", f, n, 100 * med, 100 * worst);
  }
  g_assert_true (med_worst (entries, FALSE, NULL, &med, &worst, &n));
  g_assert_true (med_worst (entries, TRUE, NULL, &dmed, &dworst, &dn));
  g_test_message ("%s: all %u entries median |error| %.1f%%, worst %.1f%% (bars %.1f%% / %.1f%%); "
                  "PyTorch DDP's %u: median %.1f%%, worst %.1f%% (bars %.1f%% / %.1f%%); the issue's target median %.0f%%",
                  what, n, 100 * med, 100 * worst, 100 * bars[0], 100 * bars[1], dn, 100 * dmed, 100 * dworst,
                  100 * bars[2], 100 * bars[3], 100 * target);
  g_assert_cmpfloat (med, <=, bars[0]);
  g_assert_cmpfloat (worst, <=, bars[1]);
  g_assert_cmpfloat (dmed, <=, bars[2]);
  g_assert_cmpfloat (dworst, <=, bars[3]);
}

/* Scales m's layer times until row's predicted per-GPU throughput is
 * pub: secant steps on the logarithms (the throughput follows the layer
 * times less than in proportion where the optimizer, DDP's costs or
 * exposed communication do not scale with them); checks it got there. */
static void
fit_to (const Ref *r, const Row *row, DpsModel *m, double pub)
{
  double x0 = 0, y0 = log (predict (r, row, m, 1) / pub);
  double x1 = y0, y1 = log (predict (r, row, m, exp (y0)) / pub);
  for (int it = 0; it < 20 && fabs (y1) > 1e-6 && y1 != y0; it++) {
    double x2 = x1 - y1 * (x1 - x0) / (y1 - y0);
    x0 = x1, y0 = y1;
    y1 = log (predict (r, row, m, exp (x2 - x1)) / pub);
    x1 = x2;
  }
  g_assert_cmpfloat (fabs (y1), <, 1e-3);
}

/* Whether on r's system a 25 MiB all-reduce (a DDP bucket) over b's GPUs
 * takes less time than over a's, the one way the model's per-GPU
 * throughput can rise with GPUs (its last bucket's all-reduce is exposed):
 * DGX-1's hybrid cube mesh joins 2 GPUs by one NVLink and 4 by a quad of
 * them, and its 2-GPU all-reduce takes 1.85 times the 4-GPU one. */
static gboolean
allreduce_faster_at (const Ref *r, const Row *a, const Row *b)
{
  const char *name = r->meta ? ref_topology (r) : NULL;
  if (!name)
    return FALSE;
  double t[2];
  const Row *rows[2] = { a, b };
  for (int i = 0; i < 2; i++) {
    g_autoptr (DpsTopo) topo = test_shipped_topo (name, MAX (rows[i]->nodes, 1));
    DpsCollParams params;
    dps_tune_params_nccl (&params);
    g_autoptr (DpsCollCost) cost = dps_coll_cost_new (topo, &params, rows[i]->gpus, DPS_OP_ALLREDUCE, DPS_NCCL_ALGOS,
                                                      DPS_ALL_PROTOS, 0, DPS_MODE_ANALYTICAL, 0, NULL);
    g_assert_nonnull (cost);
    t[i] = dps_coll_cost_time (cost, 25.0 * 1024 * 1024, NULL, NULL);
  }
  return t[1] < t[0];
}

/* The least worst |error| any model can reach on r's rows in which one
 * GPU's throughput does not rise with more GPUs at no more accumulation
 * steps (the same precision and micro-batch): more ranks never make an
 * all-reduce of the same bytes faster, fewer steps amortise it and the
 * optimizer over fewer micro-batches.  Where a table prints a later row
 * faster than an earlier one such a model must put both at or below one
 * figure p: the best p (their harmonic mean) leaves both
 * (hi - lo) / (hi + lo) off; against a row at the base row's GPUs, which
 * (a) takes as published, the later row stays 1 - lo / hi off.  pred: the
 * model's figures, which must themselves keep the rule (checked) except
 * where the system's all-reduce is faster over more GPUs
 * (allreduce_faster_at). */
static double
monotone_floor (const Ref *r, const double *pred, const Row **worst_a, const Row **worst_b)
{
  double floor = 0;
  for (guint i = 0; i < r->rows->len; i++)
    for (guint j = 0; j < r->rows->len; j++) {
      const Row *a = &g_array_index (r->rows, Row, i), *b = &g_array_index (r->rows, Row, j);
      if (!g_str_equal (a->prec, b->prec) || a->batch != b->batch || b->gpus <= a->gpus || b->accum > a->accum)
        continue;
      if (!allreduce_faster_at (r, a, b))
        g_assert_cmpfloat (pred[j], <=, pred[i] * (1 + 1e-3));
      double lo = a->throughput / a->gpus, hi = b->throughput / b->gpus;
      gboolean fixed = a->gpus == base_row (r, a->prec)->gpus;   /* not predicted: test_scaling's rule */
      double f = hi <= lo ? 0 : fixed ? 1 - lo / hi : (hi - lo) / (hi + lo);
      if (f > floor)
        floor = f, *worst_a = a, *worst_b = b;
    }
  return floor;
}

/* (a): every row at more GPUs than its table's base row, from the base
 * row's published figure; then the floor the tables themselves set. */
static void
test_scaling (void)
{
  g_autoptr (GPtrArray) refs = load_all ();
  g_autoptr (GArray) errs = g_array_new (FALSE, FALSE, sizeof (Entry));
  double floor_all = 0, floor_ddp = 0;
  g_autofree char *said = NULL;
  for (guint i = 0; i < refs->len; i++) {
    const Ref *r = refs->pdata[i];
    g_autoptr (DpsModel) probe = ref_model (r);
    if (!probe || !ref_topology (r))
      continue;
    g_autofree double *preds = g_new0 (double, r->rows->len);
    for (guint k = 0; k < r->rows->len; k++) {
      const Row *row = &g_array_index (r->rows, Row, k), *base = base_row (r, row->prec);
      double pub = row->throughput / row->gpus;
      preds[k] = pub;
      if (row == base || row->gpus == base->gpus)
        continue;
      g_autoptr (DpsModel) m = ref_model (r);
      /* the base reproduced, then the row from the same layer times */
      fit_to (r, base, m, base->throughput / base->gpus);
      double pred = preds[k] = predict (r, row, m, 1);
      double err = pred / pub - 1;
      add_entry (errs, r, is_ddp (r), err);
      dps_ref_entry ("ddp", "scaling", r->file, row->gpus, err, pub, pred);
      g_test_message ("  %-55s %-4s %4d GPUs (%2d nodes) x%-3d from %4d: %8.1f per GPU, published %8.1f  %+6.1f%%",
                      r->file, row->prec, row->gpus, row->nodes, row->accum, base->gpus, pred, pub, 100 * err);
    }
    const Row *a = NULL, *b = NULL;
    double f = monotone_floor (r, preds, &a, &b);
    if (is_ddp (r))
      floor_ddp = MAX (floor_ddp, f);
    if (f > floor_all) {
      floor_all = f;
      g_free (said);
      said = g_strdup_printf ("%s %s: %d GPUs x%d steps %.1f per GPU, %d GPUs x%d %.1f", r->file, a->prec, a->gpus,
                              a->accum, a->throughput / a->gpus, b->gpus, b->accum, b->throughput / b->gpus);
    }
  }
  summarise ("scaling (a)", errs, scaling_bars, 0.03);
  /* the worst 8% against what the published rows allow */
  g_test_message ("scaling (a): no model whose per-GPU throughput does not rise with GPUs at no more accumulation gets every "
                  "entry within %.1f%% (PyTorch DDP's within %.1f%%), set by %s", 100 * floor_all, 100 * floor_ddp,
                  said ? said : "no table");
}

/* Whether the model's kernels describe how r computed: its mixed-precision
 * convolutions were fitted in DeepLearningExamples' NHWC (sim/compute.c), so
 * a table run in NCHW ("#% layout: nchw", Lambda's ResNet-50) is left out of
 * (b) and (c); (a) takes its compute from the table and keeps it. */
static gboolean
compute_described (const Ref *r, gboolean say)
{
  if (!g_str_has_prefix (ref_meta (r, "layout"), "nchw"))
    return TRUE;
  if (say)
    g_test_message ("  %-55s left out: NCHW in mixed precision, a layout the model does not have", r->file);
  return FALSE;
}

/* (b): one GPU, nothing measured. */
static void
test_uncalibrated (void)
{
  g_autoptr (GPtrArray) refs = load_all ();
  g_autoptr (GArray) errs = g_array_new (FALSE, FALSE, sizeof (Entry));
  for (guint i = 0; i < refs->len; i++) {
    const Ref *r = refs->pdata[i];
    if (!compute_described (r, TRUE))
      continue;
    for (guint k = 0; k < r->rows->len; k++) {
      const Row *row = &g_array_index (r->rows, Row, k);
      g_autoptr (DpsModel) m = ref_model (r);
      if (!m || !ref_topology (r) || row->gpus != 1)
        continue;
      double pred = predict (r, row, m, 1);
      double err = pred / row->throughput - 1;
      add_entry (errs, r, is_ddp (r), err);
      dps_ref_entry ("ddp", "one-gpu", r->file, 1, err, row->throughput, pred);
      g_test_message ("  %-55s %-4s batch %4g x%-3d: %8.1f predicted, published %8.1f  %+6.1f%%", r->file, row->prec,
                      row->batch, row->accum, pred, row->throughput, 100 * err);
    }
  }
  summarise ("uncalibrated one GPU (b)", errs, uncal_bars, 0.15);
}

/* The framework's first word and the file's model, sequence and
 * precision: what two tables on different GPUs must share for (c). */
static gboolean
same_job (const Ref *a, const Ref *b)
{
  g_auto (GStrv) fa = g_strsplit (ref_meta (a, "framework"), " ", 2), fb = g_strsplit (ref_meta (b, "framework"), " ", 2);
  return g_str_equal (fa[0], fb[0]) && g_str_equal (ref_meta (a, "model"), ref_meta (b, "model"))
         && g_str_equal (ref_meta (a, "seq"), ref_meta (b, "seq")) && g_str_equal (ref_meta (a, "task"), ref_meta (b, "task"));
}

/* (c): a 1-GPU mixed-precision figure on one generation, transferred to
 * another's device (same dtype both sides: amp). */
static void
test_transfer (void)
{
  g_autoptr (GPtrArray) refs = load_all ();
  g_autoptr (GArray) errs = g_array_new (FALSE, FALSE, sizeof (Entry));
  for (guint i = 0; i < refs->len; i++)
    for (guint j = 0; j < refs->len; j++) {
      const Ref *a = refs->pdata[i], *b = refs->pdata[j];
      const char *ta = ref_topology (a), *tb = ref_topology (b);
      const DpsKnownDevice *da = dps_device_lookup (ref_meta (a, "gpu")), *db = dps_device_lookup (ref_meta (b, "gpu"));
      if (!ta || !tb || !da || !db || g_str_equal (da->arch, db->arch) || !same_job (a, b)
          || !compute_described (a, FALSE) || !compute_described (b, FALSE))
        continue;
      const Row *ra = base_row (a, "amp"), *rb = base_row (b, "amp");
      g_autoptr (DpsModel) m = ref_model (a);
      if (!m || !ra || !rb || ra->gpus != 1 || rb->gpus != 1)
        continue;
      /* a's layer times, scaled to its published figure */
      fit_to (a, ra, m, ra->throughput);
      g_autoptr (DpsTopo) topo_a = test_shipped_topo (ta, 1), topo_b = test_shipped_topo (tb, 1);
      DpsComputeParams p;
      dps_compute_params_default (&p);
      p.dtype = DPS_DTYPE_FP16;
      dps_compute_transfer (m, &dps_topo_spec (topo_a)->gpu, &dps_topo_spec (topo_b)->gpu, &p);
      double pred = predict (b, rb, m, 1);
      double err = pred / rb->throughput - 1;
      add_entry (errs, b, is_ddp (a) && is_ddp (b), err);
      dps_ref_entry ("ddp", "transfer", b->file, 1, err, rb->throughput, pred);
      g_test_message ("  %-45s -> %-45s amp: %8.1f predicted, published %8.1f  %+6.1f%%", a->file, b->file, pred,
                      rb->throughput, 100 * err);
    }
  summarise ("transfer between generations (c)", errs, transfer_bars, 0.12);
}

/* What the loader reads from the printed tables: accumulation steps from
 * "32 and 16" (TF32 first: 2 A100 nodes of PyTorch BERT phase 1), from
 * "4 , 8" under a header naming mixed precision first with nodes in
 * "Num Nodes" (16 DGX-2H nodes of TF2: 4 amp, 8 fp32), and a printed
 * accumulated batch 4096 divided by its steps (V100 PyTorch phase 1:
 * 64 amp micro-batches of 64 sequences, 128 fp32 of 32); a file's own
 * "#% accumulation:" where the table prints none; else none (ResNet-50). */
static void
test_parse (void)
{
  g_autoptr (GPtrArray) keep = g_ptr_array_new_with_free_func (ref_free);
  Ref *a = load_one ("bert-large-a100-80g-pytorch-multinode-seq128.ref");
  Ref *b = load_one ("bert-large-v100-32g-dgx2h-tensorflow2-multinode-seq128.ref");
  Ref *c = load_one ("bert-large-v100-32g-pytorch-pretrain-seq128.ref");
  Ref *d = load_one ("resnet50-a100-80g-pytorch.ref");
  g_ptr_array_add (keep, a), g_ptr_array_add (keep, b), g_ptr_array_add (keep, c), g_ptr_array_add (keep, d);
  g_assert_cmpint (find_row (a, 16, "tf32")->accum, ==, 32);
  g_assert_cmpint (find_row (a, 16, "amp")->accum, ==, 16);
  g_assert_cmpfloat (find_row (a, 16, "amp")->throughput, ==, 9191);
  g_assert_cmpint (find_row (b, 256, "amp")->accum, ==, 4);
  g_assert_cmpint (find_row (b, 256, "fp32")->accum, ==, 8);
  g_assert_cmpint (find_row (c, 1, "amp")->accum, ==, 64);
  g_assert_cmpfloat (find_row (c, 1, "amp")->batch, ==, 64);
  g_assert_cmpint (find_row (c, 8, "fp32")->accum, ==, 128);
  g_assert_cmpfloat (find_row (c, 8, "fp32")->batch, ==, 32);
  g_assert_cmpint (find_row (d, 8, "amp")->accum, ==, 1);
  /* inferred in the file: 128 steps of 16 on DGX-1 16G nodes, phase 1 */
  Ref *e = load_one ("bert-large-v100-16g-pytorch-multinode-seq128.ref");
  g_ptr_array_add (keep, e);
  g_assert_cmpint (find_row (e, 32, "amp")->accum, ==, 128);
  g_assert_true (is_ddp (a) && !is_ddp (b));
  g_assert_cmpstr (ref_topology (b), ==, "dgx2-v100");
  /* Lambda's CSV rows: the per-GPU batch (its file prints the global
   * one, 896 at 8 GPUs), an H100 on dgx-h100, and its ResNet-50 in NCHW
   * out of (b) and (c) */
  Ref *f = load_one ("bert-large-h100-80g-pytorch-lambda-squad.ref");
  Ref *g = load_one ("resnet50-h100-80g-pytorch-lambda.ref");
  Ref *h = load_one ("bert-base-h100-80g-pytorch-lambda-squad.ref");
  Ref *p = load_one ("bert-base-h100-80g-pcie-pytorch-lambda-squad.ref");
  g_ptr_array_add (keep, f), g_ptr_array_add (keep, g), g_ptr_array_add (keep, h), g_ptr_array_add (keep, p);
  g_assert_cmpfloat (find_row (f, 8, "amp")->batch, ==, 112);
  g_assert_cmpfloat (find_row (f, 8, "amp")->throughput, ==, 2167);
  g_assert_cmpstr (ref_topology (f), ==, "dgx-h100");
  g_assert_true (compute_described (f, FALSE) && !compute_described (g, FALSE));
  /* BERT-base: 320 a GPU, the 8-GPU row (70 of 100 steps ran) left out */
  g_assert_cmpfloat (find_row (h, 4, "amp")->batch, ==, 320);
  g_assert_cmpint (h->rows->len, ==, 3);
  g_assert_cmpstr (ref_topology (p), ==, "pcie-8x-h100");
  /* a GH200 is its own machine (96 GB, 4 TB/s), not an H200 */
  Ref *gh = load_one ("bert-large-gh200-96g-pytorch-lambda-squad.ref");
  g_ptr_array_add (keep, gh);
  g_assert_cmpstr (ref_topology (gh), ==, "gh200");
  g_assert_cmpfloat (find_row (gh, 1, "amp")->batch, ==, 152);
}

/* The floor on a hand table: base 16 GPUs 100 a GPU at 8 steps, 32 GPUs
 * 80 at 4, 64 GPUs 90 at 2.  32 -> 64 rises at fewer steps: both within
 * (90 - 80) / (90 + 80) = 5.9% at best (85 for both, the harmonic mean
 * 84.7 exactly); base -> 64 falls and sets nothing.  At 64 GPUs x16
 * steps (more than 32's 4) the pair no longer binds: floor 0.  With 32
 * GPUs then at 120 a GPU, above the base row that (a) takes as published,
 * the 32-GPU prediction stays at or below 100: 1 - 100/120 = 1/6 off, not
 * the harmonic mean's 20/220. */
static void
test_floor (void)
{
  Ref r = { .rows = g_array_new (FALSE, FALSE, sizeof (Row)) };
  Row rows[] = { { 16, 1, 8, "amp", 10, 1600 }, { 32, 2, 4, "amp", 10, 2560 }, { 64, 4, 2, "amp", 10, 5760 } };
  g_array_append_vals (r.rows, rows, 3);
  double pred[] = { 100, 85, 84 };
  const Row *a = NULL, *b = NULL;
  g_assert_cmpfloat_with_epsilon (monotone_floor (&r, pred, &a, &b), 10.0 / 170, 1e-12);
  g_assert_true (a == &g_array_index (r.rows, Row, 1) && b == &g_array_index (r.rows, Row, 2));
  g_array_index (r.rows, Row, 2).accum = 16;
  g_assert_cmpfloat (monotone_floor (&r, pred, &a, &b), ==, 0);
  g_array_index (r.rows, Row, 1).throughput = 32 * 120;
  g_assert_cmpfloat_with_epsilon (monotone_floor (&r, pred, &a, &b), 1.0 / 6, 1e-12);
  g_assert_true (a == &g_array_index (r.rows, Row, 0) && b == &g_array_index (r.rows, Row, 1));
  g_array_free (r.rows, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reference/ddp/parse", test_parse);
  g_test_add_func ("/reference/ddp/floor", test_floor);
  g_test_add_func ("/reference/ddp/scaling", test_scaling);
  g_test_add_func ("/reference/ddp/uncalibrated", test_uncalibrated);
  g_test_add_func ("/reference/ddp/transfer", test_transfer);
  return g_test_run ();
}
