/* Unit tests of the per-layer CSV loader (sim/model-csv.c): its columns,
 * the times and batch it carries, and a zoo model written as a CSV read
 * back to the same parameters, activations and kernels. */
#include "sim/model.h"
#include "sim/base/error.h"
#include "sim/buckets.h"
#include "sim/memory.h"
#include "sim/ddp.h"
#include "sim/compute.h"

#include <math.h>
#include <string.h>

#include "test-util.h"

static void
test_csv (void)
{
  const char *csv = "# exported by a profiler\n# batch: 32\nlayer,params,forward_ms,backward_ms,flops\n"
                    "conv1,9408,1.5,3.0,1e9\nfc,2049000,0.5,1.0,\n";
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load_csv_data ("m.csv", csv, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpint (dps_model_n_layers (m), ==, 2);
  g_assert_cmpint (m->n_params, ==, 9408 + 2049000);
  g_assert_cmpint (m->time_batch, ==, 32);
  g_assert_cmpfloat (dps_model_layer (m, 0)->fwd_time_s, ==, 1.5e-3);
  g_assert_cmpfloat (dps_model_layer (m, 1)->bwd_time_s, ==, 1e-3);
  g_assert_true (dps_model_has_times (m));
  g_assert_cmpfloat (m->optimizer_s, ==, 0);   /* no step_ms line: not said */
  /* torch-layers.py's step line gives the optimizer's step as measured */
  const char *timed = "# step_ms: 32.549858 forward+loss+backward without hooks (the mean of 3 of 3, between the "
                      "hooked steps); optimizer 2.187495; the layers sum to 31.218744\n"
                      "layer,params,forward_ms,backward_ms\nfc,10,1,2\n";
  g_autoptr (DpsModel) t = dps_model_load_csv_data ("t.csv", timed, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpfloat_with_epsilon (t->optimizer_s, 2.187495e-3, 1e-15);
}

/* Setting times replaces the CSV's, layer by layer in order, with the
 * batch they are for: layer 1 gets the second pair (4 s, 8 s), batch 64. */
static void
test_set_times (void)
{
  const char *csv = "# batch: 32\nlayer,params,forward_ms,backward_ms\na,10,1.5,3.0\nb,20,0.5,1.0\n";
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load_csv_data ("m.csv", csv, -1, &e);
  g_assert_no_error (e);
  const double fwd[] = { 2, 4 }, bwd[] = { 3, 8 };
  dps_model_set_times (m, fwd, bwd, 64);
  g_assert_cmpint (m->time_batch, ==, 64);
  g_assert_cmpfloat (dps_model_layer (m, 0)->fwd_time_s, ==, 2);
  g_assert_cmpfloat (dps_model_layer (m, 0)->bwd_time_s, ==, 3);
  g_assert_cmpfloat (dps_model_layer (m, 1)->fwd_time_s, ==, 4);
  g_assert_cmpfloat (dps_model_layer (m, 1)->bwd_time_s, ==, 8);
}

/* What DDP needs from a per-layer CSV (what calibrate/torch-layers.py
 * writes): a GPT-like toy whose LM head shares the token embedding.
 *   wte 16x4 = 64, block 4x4 + 4 = 20, lm_head tied to wte: 64 + 20 = 84
 *   parameters (the tied weight counted once, as sum(p.numel() for p in
 *   model.parameters()) counts it) in 3 tensors (len(list(parameters()))).
 *   activation_bytes are for the whole batch of 4 in fp32: block 4096 B =
 *   1024 B a sample = 256 elements = 512 B in the model's 2-byte elements;
 *   lm_head 8192 B -> 1024; the model's total 1536 B a sample.  The memory
 *   model at fp32 and batch 4 gives back the file's 4096 + 8192 bytes. */

static void
test_csv_ddp_columns (void)
{
  const char *csv = "# torch-layers.py\n# device: cpu\n# dtype: torch.float32\n# batch: 4\n"
                    "layer,params,tensors,activation_bytes,tied_to,forward_ms,backward_ms\n"
                    "wte,64,16x4,0,,0.1,0.2\n"
                    "block,20,4x4;4,4096,,0.3,0.6\n"
                    "lm_head,64,16x4,8192,wte,0.05,0.1\n";
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load_csv_data ("m.csv", csv, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpint (m->n_params, ==, 84);
  g_assert_cmpint (dps_model_n_tensors (m), ==, 3);
  g_assert_cmpint (dps_model_n_layers (m), ==, 3);
  g_assert_cmpint (dps_model_layer (m, 2)->n_tensors, ==, 0);
  const DpsTensor *w = dps_model_tensor (m, 0), *b = dps_model_tensor (m, 2);
  g_assert_cmpint (w->rows, ==, 16);
  g_assert_cmpint (w->cols, ==, 4);
  g_assert_cmpint (b->numel, ==, 4);
  g_assert_cmpint (b->rows, ==, 0);
  g_assert_cmpint (b->layer, ==, 1);
  g_assert_cmpstr (m->device, ==, "cpu");
  g_assert_cmpstr (m->dtype, ==, "fp32");
  g_assert_cmpfloat (dps_model_layer (m, 1)->act_bytes, ==, 512);
  g_assert_cmpfloat (dps_model_act_bytes (m), ==, 1536);
  DpsMemory mem;
  dps_memory_estimate (m, DPS_PRECISION_AMP, DPS_DTYPE_FP32, DPS_OPT_SGD, FALSE, DPS_DTYPE_FP32, 4, &mem);
  g_assert_cmpfloat (mem.activations, ==, 4096 + 8192);
  /* a 4-D convolution weight: rows = out channels, cols = the rest */
  const char *conv = "layer,params,tensors,forward_ms,backward_ms\nconv,9408,64x3x7x7,1,2\n";
  g_autoptr (DpsModel) c = dps_model_load_csv_data ("c.csv", conv, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpint (dps_model_tensor (c, 0)->rows, ==, 64);
  g_assert_cmpint (dps_model_tensor (c, 0)->cols, ==, 147);
  g_assert_null (c->device);
}

/* Buckets follow DDP's per-parameter rule once the tensors are given: a
 * layer of three 4x4 fp32 weights (64 B each) under a 64 B cap fills three
 * buckets, one a tensor (a bucket closes as soon as it reaches the cap);
 * the same row without its tensors is one 192 B tensor, one bucket.
 * n_tensors alone splits 10 elements into 4 + 3 + 3 (the first takes the
 * remainder). */
static void
test_csv_tensors_buckets (void)
{
  const char *with = "layer,params,tensors,forward_ms,backward_ms\nqkv,48,4x4;4x4;4x4,1,2\n";
  const char *without = "layer,params,forward_ms,backward_ms\nqkv,48,1,2\n";
  const char *count = "layer,params,n_tensors,forward_ms,backward_ms\nfc,10,3,1,2\n";
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) a = dps_model_load_csv_data ("a.csv", with, -1, &e);
  g_assert_no_error (e);
  g_autoptr (DpsModel) b = dps_model_load_csv_data ("b.csv", without, -1, &e);
  g_assert_no_error (e);
  g_autoptr (DpsModel) c = dps_model_load_csv_data ("c.csv", count, -1, &e);
  g_assert_no_error (e);
  g_autoptr (DpsBuckets) ba = dps_buckets_assign (a, 64, 64, 4);
  g_autoptr (DpsBuckets) bb = dps_buckets_assign (b, 64, 64, 4);
  g_assert_cmpint (dps_buckets_count (ba), ==, 3);
  g_assert_cmpfloat (dps_buckets_get (ba, 0)->bytes, ==, 64);
  g_assert_cmpint (dps_buckets_count (bb), ==, 1);
  g_assert_cmpint (dps_model_n_tensors (c), ==, 3);
  g_assert_cmpint (dps_model_tensor (c, 0)->numel, ==, 4);
  g_assert_cmpint (dps_model_tensor (c, 2)->numel, ==, 3);
  g_assert_cmpint (c->n_params, ==, 10);
}

/* `dpscale run --time-layers --format csv` writes layer (an index) and
 * name: the name column names the layer, the index is not read. */
static void
test_csv_run_columns (void)
{
  const char *csv = "# device: gpu\n# dtype: fp32\n# batch: 8\n"
                    "layer,name,params,tensors,activation_bytes,forward_s,backward_s\n"
                    "0,fc1,1056,32x32;32,0,0.001,0.002\n1,fc2,33,32;1,256,0.003,0.004\n";
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load_csv_data ("r.csv", csv, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpstr (dps_model_layer (m, 0)->name, ==, "fc1");
  g_assert_cmpint (m->n_params, ==, 1089);
  g_assert_cmpint (dps_model_n_tensors (m), ==, 4);
  g_assert_cmpfloat (dps_model_layer (m, 1)->bwd_time_s, ==, 0.004);
  g_assert_cmpint (m->time_batch, ==, 8);
  /* 256 B over 8 samples in fp32: 8 elements a sample, 16 B in 2-byte ones */
  g_assert_cmpfloat (dps_model_layer (m, 1)->act_bytes, ==, 16);
}

/* A model that is neither a file nor shipped is refused, listing the
 * shipped ones. */

/* The zoo model m as a per-layer CSV: its layers' parameter tensors, kept
 * activations at batch, the times fwd and bwd (seconds, at batch) and,
 * with kernels, each layer's kernels as calibrate/torch-layers.py writes
 * them. */
static char *
zoo_as_csv (const DpsModel *m, const char *device, int batch, const double *fwd, const double *bwd, gboolean kernels)
{
  GString *csv = g_string_new (NULL);
  g_string_append_printf (csv, "# batch: %d\n# device: %s\n# dtype: bf16\n"
                          "layer,params,tensors,activation_bytes,forward_s,backward_s,logits%s\n", batch, device,
                          kernels ? ",kernels" : "");
  for (int l = 0; l < dps_model_n_layers (m); l++) {
    const DpsLayer *ly = dps_model_layer (m, l);
    g_string_append_printf (csv, "%s,%" G_GINT64_FORMAT ",", ly->name, ly->n_params);
    for (int k = 0; k < ly->n_tensors; k++) {
      const DpsTensor *t = dps_model_tensor (m, ly->first_tensor + k);
      if (t->rows > 0)
        g_string_append_printf (csv, "%s%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT, k ? ";" : "", t->rows, t->cols);
      else
        g_string_append_printf (csv, "%s%" G_GINT64_FORMAT, k ? ";" : "", t->numel);
    }
    g_string_append_printf (csv, ",%.17g,%.17g,%.17g,%.17g", ly->act_bytes * batch, fwd[l], bwd[l], ly->logits);
    for (int k = 0; kernels && k < ly->n_kernels; k++) {
      const DpsKernel *kn = dps_model_kernel (m, ly->first_kernel + k);
      g_string_append_printf (csv, "%s%s:%d:%.17g:%.17g:%.17g:%.17g:%.17g:%.17g", k ? ";" : ",",
                              dps_kernel_kind_name (kn->kind), kn->count, kn->flops, kn->bytes, kn->weight_elems,
                              kn->score_bytes, kn->inv_k, kn->inv_rows);
    }
    if (kernels && ly->n_kernels == 0)
      g_string_append_c (csv, ',');
    g_string_append_c (csv, '\n');
  }
  return g_string_free (csv, FALSE);
}

/* A zoo model written as a per-layer CSV (its layers' parameter tensors
 * and kept activations, and the per-layer times the kernel model gives it on
 * an H100 at batch 4, with that device and dtype) predicts the same step and
 * the same memory on 64 H100s as the zoo model itself: a per-layer file is
 * read as exactly the model it describes (GPT-2: 124,439,808 parameters;
 * the tied head holds none).  One thing a per-layer file cannot say is its
 * kernels' split between compute- and memory-bound, on which the default
 * overlap contention rests (dps_ddp_default_contention: 0.33% of this step
 * apart when each takes its own), so both take the zoo model's.
 *
 * With its kernels listed (as torch-layers.py writes them) and times
 * measured on CPU cores, the file is timed on the H100 from the kernels:
 * the same compute, step and contention as the zoo model to rounding,
 * whatever the CPU times say (10 s a layer here), and the note says so.
 * Without the kernels those times are refused for a GPU. */
static void
test_csv_equals_zoo (void)
{
  g_autoptr (DpsModel) m = test_zoo ("gpt2");
  g_autoptr (DpsTopo) topo = test_shipped_topo ("dgx-h100", 8);
  DpsDdpConfig c;
  dps_ddp_config_default (&c);
  c.model = m;
  c.topo = topo;
  c.n_gpus = 64;
  c.batch = 4;
  c.trace_replicas = 0;
  c.contention = dps_ddp_default_contention (&c, c.batch);
  int L = dps_model_n_layers (m);
  g_autofree double *fwd = g_new (double, L), *bwd = g_new (double, L), *cpu = g_new (double, L);
  double opt;
  dps_ddp_compute_times (&c, c.batch, fwd, bwd, &opt);
  for (int l = 0; l < L; l++)
    cpu[l] = 10;
  g_autofree char *csv = zoo_as_csv (m, dps_topo_spec (topo)->gpu.model, 4, fwd, bwd, FALSE);
  g_autofree char *csv_k = zoo_as_csv (m, "cpu", 4, cpu, cpu, TRUE);
  g_autofree char *csv_cpu = zoo_as_csv (m, "cpu", 4, cpu, cpu, FALSE);
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) f = dps_model_load_csv_data ("gpt2.csv", csv, -1, &e);
  g_assert_no_error (e);
  g_autoptr (DpsModel) fk = dps_model_load_csv_data ("gpt2-k.csv", csv_k, -1, &e);
  g_assert_no_error (e);
  g_autoptr (DpsModel) fc = dps_model_load_csv_data ("gpt2-cpu.csv", csv_cpu, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpint (f->n_params, ==, 124439808);
  g_assert_cmpint (dps_model_n_tensors (f), ==, dps_model_n_tensors (m));
  g_assert_cmpfloat (REL (dps_model_fwd_flops (fk), dps_model_fwd_flops (m)), <, 1e-15);
  DpsDdpConfig cf = c, ck = c;
  cf.model = f;
  ck.model = fk;
  g_autofree char *note = NULL, *note_k = NULL, *note_c = NULL;
  g_assert_true (dps_compute_use_file_times (f, &dps_topo_spec (topo)->gpu, &cf.compute, &note, &e));
  g_assert_no_error (e);
  g_assert_true (dps_compute_use_file_times (fk, &dps_topo_spec (topo)->gpu, &ck.compute, &note_k, &e));
  g_assert_no_error (e);
  g_assert_nonnull (strstr (note_k, "from the kernels gpt2-k.csv lists"));
  g_assert_false (dps_compute_use_file_times (fc, &dps_topo_spec (topo)->gpu, &c.compute, &note_c, &e));
  g_assert_nonnull (strstr (e->message, "gpt2-cpu.csv: times measured on cpu"));
  g_clear_error (&e);
  ck.contention = dps_ddp_default_contention (&ck, ck.batch);
  g_assert_cmpfloat (REL (ck.contention, c.contention), <, 1e-9);
  DpsDdpResult a, b, k;
  g_assert_true (dps_ddp_simulate (&c, &a, &e));
  g_assert_true (dps_ddp_simulate (&cf, &b, &e));
  g_assert_true (dps_ddp_simulate (&ck, &k, &e));
  g_assert_no_error (e);
  g_assert_cmpfloat (REL (b.step_mean_s, a.step_mean_s), <, 1e-9);
  g_assert_cmpfloat (REL (b.compute_s, a.compute_s), <, 1e-9);
  g_assert_cmpfloat (REL (k.step_mean_s, a.step_mean_s), <, 1e-9);
  g_assert_cmpfloat (REL (k.compute_s, a.compute_s), <, 1e-9);
  g_assert_cmpint (b.n_buckets, ==, a.n_buckets);
  g_assert_cmpfloat (REL (b.memory.total, a.memory.total), <, 1e-9);
  dps_ddp_result_clear (&a);
  dps_ddp_result_clear (&b);
  dps_ddp_result_clear (&k);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/csv/valid", test_csv);
  g_test_add_func ("/model/csv/ddp-columns", test_csv_ddp_columns);
  g_test_add_func ("/model/csv/tensors-buckets", test_csv_tensors_buckets);
  g_test_add_func ("/model/csv/run-columns", test_csv_run_columns);
  g_test_add_func ("/model/csv/equals-zoo", test_csv_equals_zoo);
  g_test_add_func ("/model/csv/set-times", test_set_times);
  return g_test_run ();
}
