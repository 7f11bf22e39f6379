/* Unit tests of the torch.profiler trace loader (sim/model-trace.c) on a
 * real trace: tests/data/trace/resnet18-ddp-ckpt-mi300.json.gz, one step
 * of a PyTorch DDP ResNet-18 run with activation checkpointing on an
 * MI300X, cut from a trace published in AMD-AGI/TraceLens (README.md there
 * says from where, under which licence and how it was cut).  The step's
 * figures are read here from the trace's JSON without the loader. */
#include "sim/model.h"
#include "sim/base/error.h"
#include "test-util.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#define REAL "resnet18-ddp-ckpt-mi300.json.gz"

static char *
fixture_path (const char *name)
{
  return g_build_filename (DPS_TEST_DATA, "trace", name, NULL);
}

/* The fixture's JSON text, inflated here with GIO's stream converter (not
 * the loader's code). */
static char *
inflated (const char *name, gsize *len)
{
  g_autofree char *path = fixture_path (name);
  g_autoptr (GFile) f = g_file_new_for_path (path);
  g_autoptr (GError) e = NULL;
  g_autoptr (GFileInputStream) in = g_file_read (f, NULL, &e);
  g_assert_no_error (e);
  g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GInputStream) text = g_converter_input_stream_new (G_INPUT_STREAM (in), G_CONVERTER (z));
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_output_stream_splice (out, text, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &e);
  g_assert_no_error (e);
  *len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out));
  char *data = g_malloc (*len + 1);
  memcpy (data, g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)), *len);
  data[*len] = '\0';
  return data;
}

/* The GPU work in the trace: kernels, copies and memsets whose
 * "correlation" is a runtime call's in the trace (what the step launched),
 * those whose is not (launched before the trace began), NCCL's kernels. */
typedef struct {
  double launched_us, dtod_us, orphan_us;
  int n_launched, n_orphan, n_nccl;
} GpuWork;

static void
gpu_work (const char *text, gsize len, GpuWork *w)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p, text, (gssize) len, NULL));
  JsonArray *ev = json_object_get_array_member (json_node_get_object (json_parser_get_root (p)), "traceEvents");
  g_autoptr (GHashTable) launches = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < json_array_get_length (ev); i++) {
    JsonObject *o = json_array_get_object_element (ev, i);
    if (g_str_equal (json_object_get_string_member_with_default (o, "cat", ""), "cuda_runtime"))
      g_hash_table_add (launches, GINT_TO_POINTER (json_object_get_int_member (
                                    json_object_get_object_member (o, "args"), "correlation")));
  }
  *w = (GpuWork) { 0 };
  for (guint i = 0; i < json_array_get_length (ev); i++) {
    JsonObject *o = json_array_get_object_element (ev, i);
    const char *cat = json_object_get_string_member_with_default (o, "cat", "");
    const char *name = json_object_get_string_member_with_default (o, "name", "");
    if (!g_str_equal (cat, "kernel") && !g_str_equal (cat, "gpu_memcpy") && !g_str_equal (cat, "gpu_memset"))
      continue;
    double us = json_object_get_double_member (o, "dur");
    gint64 corr = json_object_get_int_member (json_object_get_object_member (o, "args"), "correlation");
    if (g_str_has_prefix (name, "nccl"))
      w->n_nccl++;
    else if (!g_hash_table_contains (launches, GINT_TO_POINTER (corr)))
      w->orphan_us += us, w->n_orphan++;
    else {
      w->launched_us += us, w->n_launched++;
      if (strstr (name, "DtoD"))
        w->dtod_us += us;
    }
  }
}

/* The real trace, read through --model's dispatch from its .json.gz.
 * Layers: DistributedDataParallel_0 wraps ResNet_0 alone, so ResNet_0's
 * ten children are the layers, the four residual stages each inside a
 * CheckpointWrapper.  Parameters from the ops' Input Dims: 11,689,512, the
 * count torchvision publishes for resnet18 (conv1 64x3x7x7 = 9408, bn1
 * 128, layer1-4 147968, 525568, 2099712 and 8393728, fc 512x1000 + 1000 =
 * 513000).  Times: GPU work per layer; the step's GPU work its ops launched
 * is 7.026 ms, of which 0.562 ms are device-to-device copies all launched
 * by DDP (in DistributedDataParallel_0's forward outside ResNet_0, and by
 * its reducer on the backward thread outside any node), which dpscale
 * models itself (bucket_copy_s): the layers hold 6.247 ms, 96.6% of the
 * other 6.464 ms, so within 5% of the step and never above it (the rest:
 * loss, AccumulateGrad, SGD.step, memsets outside the layers).  536 kernels
 * and copies in the trace (4.654 ms) were launched before it began (the GPU
 * ran behind the CPU): not in the step.  The per-layer figures below were
 * also found by a separate Python walk of the same events (README.md):
 * Conv2d_0 58.0 / 60.2 us, Linear_0 5.3 / 21.6 us, CheckpointWrapper_0
 * 479.6 / 1185.0 us forward / backward, its backward holding the 422.4 us
 * of its forward run again (the recompute, inside its backward nodes). */
static void
test_resnet18_ddp (void)
{
  g_autofree char *path = fixture_path (REAL);
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load (path, &e);
  g_assert_no_error (e);
  static const char *const names[] = { "Conv2d_0", "BatchNorm2d_0", "ReLU_0", "MaxPool2d_0",
                                       "CheckpointWrapper_0", "CheckpointWrapper_1", "CheckpointWrapper_2",
                                       "CheckpointWrapper_3", "AdaptiveAvgPool2d_0", "Linear_0" };
  static const gint64 params[] = { 9408, 128, 0, 0, 147968, 525568, 2099712, 8393728, 0, 513000 };
  g_assert_cmpstr (m->name, ==, "DistributedDataParallel");
  g_assert_cmpint (dps_model_n_layers (m), ==, 10);
  for (int i = 0; i < 10; i++) {
    g_assert_cmpstr (dps_model_layer (m, i)->name, ==, names[i]);
    g_assert_cmpint (dps_model_layer (m, i)->n_params, ==, params[i]);
  }
  g_assert_cmpint (m->n_params, ==, 11689512);
  g_assert_cmpint (m->time_batch, ==, 10);
  g_assert_cmpstr (m->device, ==, "AMD Instinct MI300X");
  g_assert_cmpstr (m->dtype, ==, "bf16");

  gsize len;
  g_autofree char *text = inflated (REAL, &len);
  GpuWork w;
  gpu_work (text, len, &w);
  g_assert_cmpfloat (REL (w.launched_us, 7026.024), <, 1e-6);
  g_assert_cmpfloat (REL (w.dtod_us, 562.195), <, 1e-6);
  double compute_s = (w.launched_us - w.dtod_us) * 1e-6;
  g_assert_cmpfloat (test_layers_s (m), <=, compute_s);
  g_assert_cmpfloat (test_layers_s (m), >=, 0.95 * compute_s);
  g_assert_cmpfloat (REL (test_layers_s (m), 6247.1e-6), <, 1e-4);
  /* the step is what its ops launched, not the earlier steps' work */
  g_autofree char *step = g_strdup_printf ("the step's %.3f ms", w.launched_us / 1e3);
  g_assert_nonnull (strstr (m->note, step));
  g_autofree char *late = g_strdup_printf ("%d kernels and copies (%.3f ms in all) left out: launched before",
                                           w.n_orphan, w.orphan_us / 1e3);
  g_assert_cmpint (w.n_orphan, ==, 536);
  g_assert_nonnull (strstr (m->note, late));
  g_autofree char *nccl = g_strdup_printf ("%d NCCL kernels", w.n_nccl);
  g_assert_nonnull (strstr (m->note, nccl));
  g_assert_nonnull (strstr (m->note, "4 module calls inside backward nodes (activation checkpointing's recompute, "
                                     "1.390 ms per step)"));
  static const struct { int layer; double fwd_us, bwd_us; } by_hand[] = {
    { 0, 57.994, 60.234 }, { 9, 5.319, 21.637 }, { 4, 479.552, 1185.009 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (by_hand); i++) {   /* to the nanosecond the trace has */
    g_assert_cmpfloat (fabs (dps_model_layer (m, by_hand[i].layer)->fwd_time_s - by_hand[i].fwd_us * 1e-6), <, 1e-9);
    g_assert_cmpfloat (fabs (dps_model_layer (m, by_hand[i].layer)->bwd_time_s - by_hand[i].bwd_us * 1e-6), <, 1e-9);
  }
}

/* The same trace inflated to a plain .json loads to the same model; the
 * .gz cut after half its bytes (a copy interrupted) is refused with the
 * file's name, and nothing is made of the half it holds. */
static void
test_gzip (void)
{
  g_autofree char *gz_path = fixture_path (REAL);
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load (gz_path, &e);
  g_assert_no_error (e);
  g_autofree char *dir = g_dir_make_tmp ("dps-trace-XXXXXX", &e);
  g_assert_no_error (e);
  g_autofree char *plain = g_build_filename (dir, "trace.json", NULL);
  g_autofree char *cut = g_build_filename (dir, "cut.json.gz", NULL);
  gsize len;
  g_autofree char *text = inflated (REAL, &len);
  g_assert_true (g_file_set_contents (plain, text, (gssize) len, NULL));
  g_autoptr (DpsModel) m2 = dps_model_load (plain, &e);
  g_assert_no_error (e);
  g_assert_cmpint (dps_model_n_layers (m2), ==, dps_model_n_layers (m));
  for (int i = 0; i < dps_model_n_layers (m); i++) {
    g_assert_cmpfloat (dps_model_layer (m2, i)->fwd_time_s, ==, dps_model_layer (m, i)->fwd_time_s);
    g_assert_cmpfloat (dps_model_layer (m2, i)->bwd_time_s, ==, dps_model_layer (m, i)->bwd_time_s);
  }
  g_assert_cmpint (m2->n_params, ==, m->n_params);

  g_autofree char *gz = NULL;
  gsize gz_len;
  g_assert_true (g_file_get_contents (gz_path, &gz, &gz_len, NULL));
  g_assert_true (g_file_set_contents (cut, gz, (gssize) (gz_len / 2), NULL));
  g_autoptr (DpsModel) m3 = dps_model_load (cut, &e);
  g_assert_null (m3);
  g_assert_error (e, DPS_ERROR, DPS_ERROR_INPUT);
  g_assert_true (g_str_has_prefix (e->message, cut));
  g_assert_nonnull (strstr (e->message, "gzip data that does not inflate"));
  g_unlink (plain);
  g_unlink (cut);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model-trace-real/resnet18-ddp", test_resnet18_ddp);
  g_test_add_func ("/model-trace-real/gzip", test_gzip);
  return g_test_run ();
}
