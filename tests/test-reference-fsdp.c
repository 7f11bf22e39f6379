/* The published sharded training tables of tests/reference/fsdp predicted
 * (format and sources in its README), as the issue asks them checked:
 *   (a) scaling: each row's tokens per second per GPU over its table's
 *       smallest run, predicted against published (the same ratio);
 *   (b) absolute: each row's tokens per second per GPU, uncalibrated;
 *   (c) memory, where a table prints it;
 *   (d) FP8's gain: each row of an FP8 table over its bf16 twin's (the
 *       row of the same sequence length and GPUs in the table its
 *       bf16_twin line names), predicted against published.
 * How a row becomes a configuration: its model (the zoo's, at the row's
 * sequence length), strategy, shard group, micro-batch, accumulation and
 * activation checkpointing as printed; the system from the GPU named
 * (H100: dgx-h100, H200: hgx-h200-roce, A100: dgx-a100); FSDP's
 * MixedPrecision with bf16 parameters gathered and the gradients reduced
 * in fp32, or in bf16 where the precision line says so (PURE,
 * reduce_dtype=bf16); fused attention (every source's stack: flash-attn
 * or SDPA); AdamW (Adam's bytes).  The figures printed are the
 * measure of the model, so the test fails only when they get worse than
 * its bars; the targets are printed beside them. */
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
  int    gpus, nodes, shard_group, micro, accum, seq;
  char   strategy[16];
  gboolean ckpt;
  double tok_per_gpu, step_s, mfu, mem_gb;   /* < 0: not printed */
} Row;

typedef DpsRefTable Table;

/* One row of the machine-read block (reference-files.h). */
static void
row_fill (char **f, void *out)
{
  Row *r = out;
  *r = (Row) { .gpus = atoi (f[0]), .nodes = atoi (f[1]), .shard_group = atoi (f[3]), .micro = atoi (f[4]),
               .accum = atoi (f[5]), .seq = atoi (f[6]), .ckpt = g_str_equal (f[7], "yes"),
               .tok_per_gpu = dps_ref_num (f[8]), .step_s = dps_ref_num (f[9]), .mfu = dps_ref_num (f[10]),
               .mem_gb = dps_ref_num (f[11]) };
  g_strlcpy (r->strategy, f[2], sizeof r->strategy);
}

static GPtrArray *
load_all (void)
{
  return dps_ref_tables (DPS_REFERENCE_DIR, "gpus nodes strategy", 12, sizeof (Row), row_fill);
}

/* Tokens per second per GPU predicted for row, and the memory (GB). */
static double
predict (const Table *t, const Row *row, double *mem_gb)
{
  g_autoptr (DpsModel) m = dps_ref_zoo_model (DPS_SOURCE_ROOT, dps_ref_table_meta (t, "model"), row->seq);
  g_autofree char *topo_name = dps_ref_topology (t);
  g_autoptr (DpsTopo) topo = test_shipped_topo (topo_name, MAX (row->nodes, 1));
  DpsDdpConfig c;
  test_reference_config (&c, m, topo, row->gpus, row->micro);
  c.grad_accum = row->accum;
  c.checkpoint = row->ckpt;
  c.flash_attention = TRUE;
  /* the model cast to bf16 before sharding ('states: bf16'): no master copy */
  c.precision = g_str_has_prefix (dps_ref_table_meta (t, "states"), "bf16") ? DPS_PRECISION_PURE_BF16
                                                                            : DPS_PRECISION_BF16;
  const char *prec = dps_ref_table_meta (t, "precision");
  /* Transformer Engine's FP8 (Composer's amp_fp8): the linear layers' GEMMs */
  c.compute.fp8 = g_str_has_prefix (prec, "amp_fp8");
  /* the gradients' reduction type: the file's grad_dtype key (its first
   * word; the rest says why), not a reading of the precision line */
  g_assert_true (dps_dtype_parse (
    dps_ref_choice (dps_ref_table_meta (t, "grad_dtype"), (const char *[]) { "bf16", "fp32", NULL }), &c.grad_dtype));
  g_assert_true (dps_strategy_parse (g_str_equal (row->strategy, "shard_grad_op") ? "zero2" : row->strategy,
                                     &c.strategy));
  c.shard_group = row->shard_group;
  /* the loop's micro-steps before the last under FSDP2's
   * set_requires_gradient_sync(False): the file's accum_no_sync key */
  c.accum_no_sync = g_str_has_prefix (dps_ref_table_meta (t, "accum_no_sync"), "yes");
  DpsDdpResult r;
  g_autoptr (GError) e = NULL;
  g_assert_true (dps_ddp_simulate (&c, &r, &e));
  g_assert_no_error (e);
  *mem_gb = r.memory.total / 1e9;
  double tok = r.tokens_per_s / row->gpus;
  dps_ddp_result_clear (&r);
  return tok;
}

static void
test_suite (void)
{
  g_autoptr (GPtrArray) tables = load_all ();
  g_autoptr (GArray) scaling = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) absolute = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) memory = g_array_new (FALSE, FALSE, sizeof (double));
  g_test_message ("%-52s %5s %-6s %4s %4s %3s %4s   %9s %9s %7s  %7s", "table", "gpus", "strat", "mb", "acc", "ck", "seq",
                  "pred/GPU", "pub/GPU", "abs_%", "scale_%");
  for (guint i = 0; i < tables->len; i++) {
    const Table *t = tables->pdata[i];
    const Row *base = NULL;
    for (guint k = 0; k < t->rows->len; k++) {
      const Row *r = &g_array_index (t->rows, Row, k);
      if (r->tok_per_gpu > 0 && (!base || r->gpus < base->gpus))
        base = r;
    }
    double base_pred = 0, mem;
    if (base)
      base_pred = predict (t, base, &mem);
    for (guint k = 0; k < t->rows->len; k++) {
      const Row *r = &g_array_index (t->rows, Row, k);
      if (r->tok_per_gpu <= 0)
        continue;
      double pred = predict (t, r, &mem);
      double abs_err = pred / r->tok_per_gpu - 1;
      g_array_append_val (absolute, abs_err);
      dps_ref_entry ("fsdp", "absolute", t->file, r->gpus, abs_err, r->tok_per_gpu, pred);
      double sc = NAN;
      if (r != base && r->gpus != base->gpus && r->seq == base->seq) {
        sc = (pred / base_pred) / (r->tok_per_gpu / base->tok_per_gpu) - 1;
        g_array_append_val (scaling, sc);
        dps_ref_entry ("fsdp", "scaling", t->file, r->gpus, sc, NAN, NAN);
      }
      /* 'mem_unit: GiB': the printed figure counts 2^30 bytes */
      double pub_mem = r->mem_gb * (g_str_has_prefix (dps_ref_table_meta (t, "mem_unit"), "GiB") ? 1.073741824 : 1);
      if (r->mem_gb > 0) {
        double me = mem / pub_mem - 1;
        g_array_append_val (memory, me);
      }
      g_autofree char *mem_note = r->mem_gb > 0 ? g_strdup_printf ("  mem %.1f/%.1f GB", mem, pub_mem)
                                                : g_strdup ("");
      g_test_message ("%-52s %5d %-6s %4d %4d %3s %4d   %9.0f %9.0f %+7.1f  %+7.1f%s", t->file, r->gpus, r->strategy,
                      r->micro, r->accum, r->ckpt ? "yes" : "no", r->seq, pred, r->tok_per_gpu, 100 * abs_err, 100 * sc,
                      mem_note);
    }
  }
  g_autoptr (GArray) gain = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < tables->len; i++) {
    const Table *t = tables->pdata[i];
    const char *twin_line = dps_ref_table_meta (t, "bf16_twin");
    if (!twin_line[0])
      continue;
    g_autofree char *twin_file = g_strndup (twin_line, strcspn (twin_line, " "));
    const Table *twin = NULL;
    for (guint k = 0; k < tables->len; k++)
      if (g_str_equal (((const Table *) tables->pdata[k])->file, twin_file))
        twin = tables->pdata[k];
    g_assert_nonnull (twin);
    for (guint k = 0; k < t->rows->len; k++) {
      const Row *r = &g_array_index (t->rows, Row, k), *b = NULL;
      for (guint j = 0; j < twin->rows->len; j++) {
        const Row *x = &g_array_index (twin->rows, Row, j);
        if (x->seq == r->seq && x->gpus == r->gpus)
          b = x;
      }
      if (!b)
        continue;
      double mem, pub = r->tok_per_gpu / b->tok_per_gpu, pred = predict (t, r, &mem) / predict (twin, b, &mem);
      double err = pred / pub - 1;
      g_array_append_val (gain, err);
      g_test_message ("fp8 gain %-44s seq %5d: predicted %.3f, published %.3f (%+.1f%%)", t->file, r->seq, pred, pub,
                      100 * err);
    }
  }
  double wg, mg = dps_ref_median_abs (gain, &wg);
  g_test_message ("fp8 gain (d): %u entries, median |error| %.1f%%, worst %.1f%% (the issue's bar for a change inside "
                  "one table: 5 points)", gain->len, 100 * mg, 100 * wg);
  g_assert_cmpuint (gain->len, ==, 6);
  /* the bar: today's 2.5% with a margin (worst 7.6%:
   * tests/reference/fsdp/README.md, "FP8") */
  g_assert_cmpfloat (mg, <=, 0.04);
  double ws, wa, wm;
  double ms = dps_ref_median_abs (scaling, &ws), ma = dps_ref_median_abs (absolute, &wa);
  double mm = dps_ref_median_abs (memory, &wm);
  g_test_message ("scaling (a): %u entries, median |error| %.1f%%, worst %.1f%% (the issue's target: 5%%, 15%%)",
                  scaling->len, 100 * ms, 100 * ws);
  g_test_message ("absolute (b): %u entries, median |error| %.1f%%, worst %.1f%% (target median 15%%)", absolute->len,
                  100 * ma, 100 * wa);
  g_test_message ("memory (c): %u entries, median |error| %.1f%%, worst %.1f%% (target 10%%)", memory->len, 100 * mm,
                  100 * wm);
  /* the bars: today's figures (2.2%, 5.7%, memory 7.4%) with a margin */
  g_assert_cmpfloat (ms, <=, 0.03);
  g_assert_cmpfloat (ma, <=, 0.065);
  g_assert_cmpfloat (mm, <=, 0.09);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reference/fsdp/suite", test_suite);
  return g_test_run ();
}
