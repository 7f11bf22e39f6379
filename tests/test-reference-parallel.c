/* The published tensor/pipeline/data-parallel training tables of
 * tests/reference/parallel predicted (format and sources in its README):
 *   (a) scaling: each row's throughput per GPU over its table's smallest
 *       run, predicted against published;
 *   (b) absolute: each row's throughput per GPU, uncalibrated: the step
 *       time where the table prints one, else its TFLOP/s per GPU turned
 *       into tokens by the table's own count (Narayanan et al.'s equation
 *       3, 96 l h^2 (1 + s/6h + V/16lh) a token with the recomputed
 *       forward, where the units say hardware FLOPs; model FLOPs, 72 l
 *       h^2 (1 + s/6h + V/12lh), where they say so; Llama's from dpscale's
 *       own forward count x 3);
 *   (c) a layout change inside one table (same model, GPUs, sequence and
 *       global batch): the sign and size of its effect;
 *   (d) peak memory per GPU where a row prints it (GB, or GiB where the
 *       file's mem_unit says so), the fullest stage's.
 * A row's configuration: its model at its sequence length, tp, pp, vpp
 * (the interleaved schedule past 1; '-' as the file's vpp_assumed, else
 * 1F1B), micro-batch ('-': 1),
 * micro-batches = global batch / (micro-batch x dp), sequence
 * parallelism, full recomputation as activation checkpointing (selective:
 * none), bf16 or fp16 parameters with an fp32 master copy, fused
 * attention for the sources of 2023 on (Megatron-Core with Transformer
 * Engine, Llama 3), ZeRO-1 over dp where the framework says ZeRO or FSDP;
 * the system the file names (jean-zay-a100 for BigScience's,
 * v100-mesh-1x100g for DLPerf's), else from
 * the GPU (A100: dgx-a100, H100: dgx-h100, V100: dgx1-v100); Megatron-Core's overlap of its tensor-parallel collectives
 * and of its parameter gathers where the file's keys say so.  The figures printed are the measure of the model: the test
 * fails only when they get worse than its bars. */
#include "reference-entries.h"
#include "reference-files.h"
#include "sim/ddp.h"
#include "sim/base/datadir.h"
#include "sim/base/stats.h"
#include "test-util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char   model[64];
  int    gpus, nodes, tp, pp, vpp, dp, micro, global, seq;
  gboolean sp;
  char   recompute[16];
  double tflops, tok_per_gpu, step_s, mfu, mem_gb;   /* < 0: not printed */
} Row;

typedef DpsRefTable Table;

/* One row of the machine-read block (reference-files.h). */
static void
row_fill (char **f, void *out)
{
  Row *r = out;
  *r = (Row) { .gpus = atoi (f[1]), .nodes = atoi (f[2]), .tp = atoi (f[3]), .pp = atoi (f[4]),
               .vpp = g_str_equal (f[5], "-") ? -1 : atoi (f[5]), .dp = atoi (f[6]),
               .micro = g_str_equal (f[7], "-") ? 1 : atoi (f[7]), .global = atoi (f[8]), .seq = atoi (f[9]),
               .sp = g_str_equal (f[10], "yes"), .tflops = dps_ref_num (f[12]),
               .tok_per_gpu = dps_ref_num (f[13]),
               .step_s = dps_ref_num (f[14]), .mfu = dps_ref_num (f[15]), .mem_gb = dps_ref_num (f[16]) };
  g_strlcpy (r->model, f[0], sizeof r->model);
  g_strlcpy (r->recompute, f[11], sizeof r->recompute);
}

static GPtrArray *
load_all (void)
{
  return dps_ref_tables (DPS_REFERENCE_DIR, "model gpus nodes tp", 17, sizeof (Row), row_fill);
}

/* An integer key of a zoo model file. */
static double
model_key (const char *name, const char *key)
{
  g_autofree char *path = g_strdup_printf ("%s/sim/models/%s.model", DPS_SOURCE_ROOT, name);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_assert_true (g_key_file_load_from_file (kf, path, 0, NULL));
  return (double) g_key_file_get_integer (kf, "model", key, NULL);
}

/* The published and predicted throughput of row (tokens per second per
 * GPU, or the inverse of the step where one is printed); FALSE where the
 * row prints neither. */
static gboolean
predict (const Table *t, const Row *row, double *pred, double *pub, double *mem_gb)
{
  g_autoptr (DpsModel) m = dps_ref_zoo_model (DPS_SOURCE_ROOT, row->model, row->seq);
  g_autofree char *topo_name = dps_ref_topology (t);
  g_autoptr (DpsTopo) topo = test_shipped_topo (topo_name, MAX (row->nodes, 1));
  DpsDdpConfig c;
  test_reference_config (&c, m, topo, row->gpus, row->micro);
  c.tp = row->tp;
  c.pp = row->pp;
  /* '-': interleaving not printed; the file's vpp_assumed where it says
   * the run interleaved (the least depth), else none */
  const char *assumed = dps_ref_table_meta (t, "vpp_assumed");
  c.vpp = row->vpp > 0 ? row->vpp : *assumed ? atoi (assumed) : 1;
  g_assert_cmpint (c.vpp, >=, 1);
  c.pipe_schedule = c.vpp > 1 ? DPS_PIPE_INTERLEAVED : DPS_PIPE_1F1B;
  c.micro_batches = MAX (1, row->global / (row->micro * row->dp));
  c.grad_accum = c.micro_batches;
  c.sequence_parallel = row->sp && row->tp > 1;
  /* the embedding and the output layer each a block's place in the split
   * over stages where the file's pp_partition key says 'ends' (DeepSpeed's
   * type:transformer|embedding); else the blocks split alone */
  c.pp_end_slots = row->pp > 1 && g_str_has_prefix (dps_ref_table_meta (t, "pp_partition"), "ends");
  /* the data-parallel reduction after the whole backward (Megatron-LM's
   * local DDP of 2021, DeepSpeed's pipeline engine) or beside it: the
   * file's grads_reduced_after_backward key, 'pipelined' where only the
   * rows with pipeline stages ran the former */
  const char *after = dps_ref_choice (dps_ref_table_meta (t, "grads_reduced_after_backward"),
                                      (const char *[]) { "yes", "no", "pipelined", NULL });
  c.no_overlap = g_str_equal (after, "yes") || (g_str_equal (after, "pipelined") && row->pp > 1);
  c.checkpoint = g_str_equal (row->recompute, "full");
  /* DeepSpeed's BF16_Optimizer where the file's bf16_optimizer key says
   * the run had it (its bf16 gradients kept beside the fp32 ones) */
  c.precision = g_str_has_prefix (dps_ref_table_meta (t, "bf16_optimizer"), "yes") ? DPS_PRECISION_BF16_DEEPSPEED
                                                                                  : DPS_PRECISION_BF16;
  /* the type the gradients are accumulated and reduced in: the file's
   * grad_dtype key (Megatron's main_grad, DeepSpeed's buffers) */
  g_assert_true (dps_dtype_parse (
    dps_ref_choice (dps_ref_table_meta (t, "grad_dtype"), (const char *[]) { "fp16", "bf16", "fp32", NULL }),
    &c.grad_dtype));
  /* what the run was, as each file's keys say (their first word; the rest
   * says why), never read from its prose */
  g_assert_true (dps_dtype_parse (dps_ref_choice (dps_ref_table_meta (t, "dtype"), (const char *[]) { "fp16", "bf16", NULL }),
                                  &c.compute.dtype));
  g_assert_true (dps_strategy_parse (
    dps_ref_choice (dps_ref_table_meta (t, "dp_strategy"), (const char *[]) { "ddp", "zero1", NULL }), &c.strategy));
  const char *attention = dps_ref_choice (dps_ref_table_meta (t, "attention"),
                                          (const char *[]) { "flash", "cudnn", "eager", NULL });
  c.flash_attention = !g_str_equal (attention, "eager");
  c.attention_kernel = g_str_equal (attention, "cudnn") ? DPS_FUSED_CUDNN : DPS_FUSED_FLASH2;
  static const char *const yes_no[] = { "yes", "no", NULL };
  c.tp_comm_overlap = c.sequence_parallel
                      && g_str_equal (dps_ref_choice (dps_ref_table_meta (t, "tp_comm_overlap"), yes_no), "yes");
  c.overlap_param_gather = c.strategy == DPS_STRATEGY_ZERO1 && (row->tp > 1 || row->pp > 1)
                           && g_str_equal (dps_ref_choice (dps_ref_table_meta (t, "overlap_param_gather"), yes_no), "yes");
  DpsDdpResult r;
  g_autoptr (GError) e = NULL;
  gboolean ok = dps_ddp_simulate (&c, &r, &e);
  if (!ok) {
    g_test_message ("  %s: %s", t->file, e->message);
    return FALSE;
  }
  double tokens = r.global_batch * row->seq;
  /* memory as the file's mem_measured key says it was read: nvidia-smi's
   * (the allocator's cached blocks and the CUDA context too) or the
   * allocator's peak */
  *mem_gb = (g_str_has_prefix (dps_ref_table_meta (t, "mem_measured"), "nvidia-smi") ? dps_memory_smi_bytes (&r.memory)
                                                                                   : r.memory.total) / 1e9;
  if (row->step_s > 0) {
    *pred = 1 / r.step_mean_s;
    *pub = 1 / row->step_s;
  } else if (row->tflops > 0) {
    double l = model_key (row->model, "layers"), h = model_key (row->model, "hidden"), V = model_key (row->model, "vocab");
    double s = row->seq, per_token;
    /* what the printed FLOP/s count, as the file's flops_counted says (a
     * reading of its units line once let "not model FLOPs utilization"
     * pass for model FLOPs) */
    gboolean hardware = g_str_equal (
      dps_ref_choice (dps_ref_table_meta (t, "flops_counted"), (const char *[]) { "hardware", "model", NULL }), "hardware");
    /* Eq. 3 is GPT's (4h MLP, tied head): a Llama's hardware count would
     * need its own */
    g_assert_false (hardware && g_str_has_prefix (row->model, "llama"));
    if (g_str_has_prefix (row->model, "llama") && !hardware)
      per_token = 3 * dps_model_fwd_flops (m) / s;
    else if (!hardware)
      per_token = 72 * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
    else
      per_token = 96 * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
    *pred = tokens / r.step_mean_s / row->gpus;
    *pub = row->tflops * 1e12 / per_token;
  } else
    ok = FALSE;
  dps_ddp_result_clear (&r);
  return ok;
}

static void
test_suite (void)
{
  g_autoptr (GPtrArray) tables = load_all ();
  g_autoptr (GArray) scaling = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) absolute = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) change = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) memory = g_array_new (FALSE, FALSE, sizeof (double));
  int signs = 0, signs_right = 0;
  g_test_message ("%-56s %-16s %5s %3s %3s %3s %4s   %7s %7s", "table", "model", "gpus", "tp", "pp", "vpp", "mb", "abs_%",
                  "scale_%");
  for (guint i = 0; i < tables->len; i++) {
    const Table *t = tables->pdata[i];
    double base_pred = 0, base_pub = 0;
    const Row *base = NULL;
    g_autofree double *preds = g_new (double, t->rows->len), *pubs = g_new (double, t->rows->len);
    g_autoptr (GArray) own = g_array_new (FALSE, FALSE, sizeof (double));
    for (guint k = 0; k < t->rows->len; k++) {
      const Row *r = &g_array_index (t->rows, Row, k);
      double pred, pub, mem;
      preds[k] = pubs[k] = NAN;
      if (!predict (t, r, &pred, &pub, &mem))
        continue;
      /* (d): peak memory where printed, in the unit the file's mem_unit
       * names (GB unless it says GiB) */
      g_autofree char *mem_note = NULL;
      if (r->mem_gb > 0) {
        double pub_mem = r->mem_gb * (g_str_has_prefix (dps_ref_table_meta (t, "mem_unit"), "GiB") ? 1.073741824 : 1);
        double me = mem / pub_mem - 1;
        g_array_append_val (memory, me);
        mem_note = g_strdup_printf ("  mem %.1f/%.1f GB", mem, pub_mem);
      }
      preds[k] = pred, pubs[k] = pub;
      /* (c): against every earlier row of the same model, GPUs,
       * sequence and global batch, another layout (tp, pp, vpp, dp,
       * micro-batch): the change's effect on throughput predicted against
       * published, in points; its sign where the published effect is 2%
       * or more */
      for (guint j = 0; j < k; j++) {
        const Row *q = &g_array_index (t->rows, Row, j);
        if (isnan (pubs[j]) || q->gpus != r->gpus || q->seq != r->seq || q->global != r->global
            || strcmp (q->model, r->model) != 0)
          continue;
        double e_pub = pub / pubs[j] - 1, e_pred = pred / preds[j] - 1, d = e_pred - e_pub;
        g_array_append_val (change, d);
        g_array_append_val (own, d);
        if (fabs (e_pub) >= 0.02) {
          signs++;
          signs_right += (e_pred > 0) == (e_pub > 0);
        }
      }
      double abs_err = pred / pub - 1, sc = NAN;
      g_array_append_val (absolute, abs_err);
      dps_ref_entry ("parallel", "absolute", t->file, r->gpus, abs_err, pub, pred);
      if (!base) {
        base = r, base_pred = pred, base_pub = pub;
      } else if (r->gpus != base->gpus) {
        sc = (pred / base_pred) / (pub / base_pub) - 1;
        g_array_append_val (scaling, sc);
        dps_ref_entry ("parallel", "scaling", t->file, r->gpus, sc, NAN, NAN);
      }
      g_autofree char *vpp = r->vpp > 0 ? g_strdup_printf ("%d", r->vpp) : g_strdup ("-");
      g_test_message ("%-56s %-16s %5d %3d %3d %3s %4d   %+7.1f %+7.1f%s", t->file, r->model, r->gpus, r->tp, r->pp, vpp,
                      r->micro, 100 * abs_err, 100 * sc, mem_note ? mem_note : "");
    }
    if (own->len > 0) {
      double w, m = dps_ref_median_abs (own, &w);
      g_test_message ("%-56s layout changes: %u pairs, median |error| %.1f points, worst %.1f", t->file, own->len,
                      100 * m, 100 * w);
    }
  }
  double ws, wa;
  double ms = dps_ref_median_abs (scaling, &ws), ma = dps_ref_median_abs (absolute, &wa);
  g_test_message ("scaling (a): %u entries, median |error| %.1f%%, worst %.1f%% (the issue's target median 5%%)", scaling->len,
                  100 * ms, 100 * ws);
  g_test_message ("absolute (b): %u entries, median |error| %.1f%%, worst %.1f%% (target median 15%%)", absolute->len,
                  100 * ma, 100 * wa);
  double wm, mm = dps_ref_median_abs (memory, &wm);
  g_test_message ("memory (d): %u entries, median |error| %.1f%%, worst %.1f%% (the issue's target: within 10%%)",
                  memory->len, 100 * mm, 100 * wm);
  double wc, mc = dps_ref_median_abs (change, &wc);
  g_test_message ("layout change (c): %u pairs of rows, median |predicted - published effect| %.1f points, worst %.1f; "
                  "the sign right in %d of %d where the published effect is 2%% or more (the issue's target: right "
                  "in sign, within 5 points)", change->len, 100 * mc, 100 * wc, signs_right, signs);
  /* the bars: today's figures (7.6%, 12.7%; layout changes 6.0 points,
   * the sign right in 74 of 87; memory 12.3%: 24 of 25 rows under,
   * NCCL's buffers not predicted) with a margin */
  g_assert_cmpfloat (ms, <=, 0.10);
  g_assert_cmpfloat (ma, <=, 0.15);
  g_assert_cmpfloat (mm, <=, 0.14);
  g_assert_cmpfloat (mc, <=, 0.075);
  g_assert_cmpint (signs_right * 100, >=, 80 * signs);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reference/parallel/suite", test_suite);
  return g_test_run ();
}
