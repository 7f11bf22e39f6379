/* Unit tests of the torch.profiler trace loader (sim/model-trace.c) on the
 * fixtures in tests/data/trace (made by make-traces.py there; README.md
 * says how and from which sources). */
#include "sim/model.h"
#include "sim/ddp.h"
#include "sim/base/error.h"
#include "test-util.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define REL(a, b) (fabs ((a) - (b)) / fabs (b))

static char *
fixture_path (const char *name)
{
  return g_build_filename (DPS_TEST_DATA, "trace", name, NULL);
}

static char *
fixture_text (const char *name, gsize *len)
{
  g_autofree char *path = fixture_path (name);
  char *text = NULL;
  g_autoptr (GError) e = NULL;
  g_assert_true (g_file_get_contents (path, &text, len, &e));
  return text;
}

static DpsModel *
fixture (const char *name)
{
  g_autofree char *path = fixture_path (name);
  g_autoptr (GError) e = NULL;
  DpsModel *m = dps_model_load (path, &e);   /* through --model's dispatch */
  g_assert_no_error (e);
  return m;
}

/* The step as the trace itself measures it, read here without the loader:
 * the mean ProfilerStep#N duration (CPU), or the kernel time per step (GPU:
 * every "kernel" event over the number of steps), in microseconds. */
static double
step_us (const char *name, gboolean kernels)
{
  gsize len;
  g_autofree char *text = fixture_text (name, &len);
  g_autoptr (JsonParser) p = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p, text, (gssize) len, NULL));
  JsonArray *ev = json_object_get_array_member (json_node_get_object (json_parser_get_root (p)), "traceEvents");
  double step = 0, kernel = 0;
  int steps = 0;
  for (guint i = 0; i < json_array_get_length (ev); i++) {
    JsonObject *o = json_array_get_object_element (ev, i);
    const char *cat = json_object_get_string_member_with_default (o, "cat", "");
    if (g_str_equal (cat, "user_annotation")
        && g_str_has_prefix (json_object_get_string_member (o, "name"), "ProfilerStep#"))
      step += json_object_get_double_member (o, "dur"), steps++;
    if (g_str_equal (cat, "kernel"))
      kernel += json_object_get_double_member (o, "dur");
  }
  g_assert_cmpint (steps, ==, 2);
  return (kernels ? kernel : step) / steps;
}

/* The CPU fixture: the model's four children are the layers (Block_0's
 * Linear_1 and LayerNorm_0 roll up into it), with the parameters of
 * nn.Linear(256, 512), nn.Linear(512, 256) + nn.LayerNorm(256) and
 * nn.Linear(256, 10) read from the ops' Input Dims: 131584, 0, 131840 and
 * 2570 in 8 tensors (weight and bias each).  Linear_0's forward is its
 * nn.Module event (1224 us in both steps), its backward its TBackward0 and
 * AddmmBackward0 nodes (118 + 2242 us); the four layers hold 97.6% of the
 * 8207 us ProfilerStep (the rest is zero_grad, the loss, AccumulateGrad
 * and SGD.step), so within 5% of the step and never above it. */
static void
test_cpu (void)
{
  g_autoptr (DpsModel) m = fixture ("mlp-cpu.json");
  static const char *const names[] = { "Linear_0", "ReLU_0", "Block_0", "Linear_2" };
  static const gint64 params[] = { 131584, 0, 131840, 2570 };
  g_assert_cmpstr (m->name, ==, "MLP");
  /* Block_0's calls take 2774 of MLP_0's 5582 us (49.7%), not more than
   * half: it stays one layer */
  g_assert_cmpint (dps_model_n_layers (m), ==, 4);
  for (int i = 0; i < 4; i++) {
    g_assert_cmpstr (dps_model_layer (m, i)->name, ==, names[i]);
    g_assert_cmpint (dps_model_layer (m, i)->n_params, ==, params[i]);
  }
  g_assert_cmpint (dps_model_n_tensors (m), ==, 8);
  g_assert_cmpstr (dps_model_tensor (m, 0)->name, ==, "Linear_0.weight");
  g_assert_cmpint (dps_model_tensor (m, 0)->rows, ==, 512);
  g_assert_cmpint (dps_model_tensor (m, 0)->cols, ==, 256);
  g_assert_cmpint (m->n_params, ==, 265994);
  g_assert_cmpint (m->time_batch, ==, 64);
  g_assert_cmpfloat (REL (dps_model_layer (m, 0)->fwd_time_s, 1224e-6), <, 1e-9);
  g_assert_cmpfloat (REL (dps_model_layer (m, 0)->bwd_time_s, 2360e-6), <, 1e-9);
  double step = step_us ("mlp-cpu.json", FALSE) * 1e-6;
  g_assert_cmpfloat (REL (step, 8207e-6), <, 1e-9);
  g_assert_cmpfloat (test_layers_s (m), <=, step);
  g_assert_cmpfloat (test_layers_s (m), >=, 0.95 * step);
  g_assert_nonnull (strstr (m->note, "CPU time"));
  /* measured on CPU cores, in fp32 (aten::addmm's "Input type" float) */
  g_assert_cmpstr (m->device, ==, "cpu");
  g_assert_cmpstr (m->dtype, ==, "fp32");
  g_assert_nonnull (strstr (m->note, "16 of 36 autograd nodes"));
}

/* The GPU fixture: times are kernel times.  Linear_0's forward is its one
 * GEMM kernel (105 us), its backward the kernels of its two nodes (10 +
 * 190 us); the layers hold 97% of the step's 730 us of kernels (the loss,
 * its backward and the optimizer's 8 kernels are outside them).  Bias-free
 * linears: one tensor each, 131072 + 131072 + 2560 parameters. */
static void
test_cuda (void)
{
  g_autoptr (DpsModel) m = fixture ("mlp-cuda.json");
  g_assert_cmpint (dps_model_n_layers (m), ==, 4);
  g_assert_cmpint (dps_model_n_tensors (m), ==, 3);
  g_assert_cmpint (m->n_params, ==, 262144 + 2560);
  g_assert_cmpfloat (REL (dps_model_layer (m, 0)->fwd_time_s, 105e-6), <, 1e-9);
  g_assert_cmpfloat (REL (dps_model_layer (m, 0)->bwd_time_s, 200e-6), <, 1e-9);
  double step = step_us ("mlp-cuda.json", TRUE) * 1e-6;
  g_assert_cmpfloat (test_layers_s (m), <=, step);
  g_assert_cmpfloat (test_layers_s (m), >=, 0.95 * step);
  g_assert_nonnull (strstr (m->note, "GPU kernel time"));
  g_assert_nonnull (strstr (m->note, "NVIDIA A100-SXM4-40GB"));
  g_assert_cmpstr (m->device, ==, "NVIDIA A100-SXM4-40GB");   /* deviceProperties[0].name */
  g_assert_cmpstr (m->dtype, ==, "fp32");

  /* without the runtime events (their correlation) each kernel is found
   * by its op's External id instead: the same times */
  gsize len;
  g_autofree char *text = fixture_text ("mlp-cuda.json", &len);
  g_autoptr (GRegex) re = g_regex_new ("\"cat\": \"cuda_runtime\"", 0, 0, NULL);
  g_autofree char *changed = g_regex_replace_literal (re, text, (gssize) len, 0, "\"cat\": \"cuda_sync\"", 0, NULL);
  g_assert_true (strcmp (changed, text) != 0);
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m2 = dps_model_load_trace_data ("no-runtime.json", changed, -1, &e);
  g_assert_no_error (e);
  for (int i = 0; i < dps_model_n_layers (m); i++) {
    g_assert_cmpfloat (dps_model_layer (m2, i)->fwd_time_s, ==, dps_model_layer (m, i)->fwd_time_s);
    g_assert_cmpfloat (dps_model_layer (m2, i)->bwd_time_s, ==, dps_model_layer (m, i)->bwd_time_s);
  }

  /* launched through the driver API (cuLaunchKernel, category cuda_driver,
   * as cuBLAS's and Triton's kernels are on an H100) and the kernels
   * without External id: found by correlation, the same times */
  g_autoptr (GRegex) ext = g_regex_new ("(\"block\": \\[[0-9, ]*\\]), \"External id\": [0-9]+", 0, 0, NULL);
  g_autofree char *no_ext = g_regex_replace (ext, text, (gssize) len, 0, "\\1", 0, NULL);
  g_assert_true (strcmp (no_ext, text) != 0);
  g_autofree char *driver = g_regex_replace_literal (re, no_ext, -1, 0, "\"cat\": \"cuda_driver\"", 0, NULL);
  g_autoptr (DpsModel) m3 = dps_model_load_trace_data ("driver.json", driver, -1, &e);
  g_assert_no_error (e);
  for (int i = 0; i < dps_model_n_layers (m); i++) {
    g_assert_cmpfloat (dps_model_layer (m3, i)->fwd_time_s, ==, dps_model_layer (m, i)->fwd_time_s);
    g_assert_cmpfloat (dps_model_layer (m3, i)->bwd_time_s, ==, dps_model_layer (m, i)->bwd_time_s);
  }
  /* neither: none of the 50 kernels and 2 copies leads to an op, refused
   * rather than given to no layer */
  g_autofree char *neither = g_regex_replace_literal (re, no_ext, -1, 0, "\"cat\": \"cuda_sync\"", 0, NULL);
  g_autoptr (DpsModel) m4 = dps_model_load_trace_data ("unlinked.json", neither, -1, &e);
  g_assert_null (m4);
  g_assert_error (e, DPS_ERROR, DPS_ERROR_INPUT);
  g_assert_nonnull (strstr (e->message, "none of its 52 kernels and copies leads to the op"));
}

/* A node's other GPUs listed first in deviceProperties (a rank on GPU 0
 * of a mixed node): the GPU is the entry whose id is the kernels' "device"
 * (0), not the first entry. */
static void
test_device_by_kernel (void)
{
  gsize len;
  g_autofree char *text = fixture_text ("mlp-cuda.json", &len);
  g_autoptr (GRegex) dp = g_regex_new ("\"deviceProperties\": \\[", 0, 0, NULL);
  g_autofree char *two = g_regex_replace_literal (dp, text, (gssize) len, 0, "\"deviceProperties\": [{\"id\": 1, "
                                                  "\"name\": \"NVIDIA H100 80GB HBM3\"}, ", 0, NULL);
  g_assert_true (strcmp (two, text) != 0);
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load_trace_data ("two-gpus.json", two, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpstr (m->device, ==, "NVIDIA A100-SXM4-40GB");
}

/* A trace without ProfilerStep# annotations (a profiler started and
 * stopped by hand, no schedule): its two steps are counted by the
 * optimizer's "Optimizer.step#SGD.step", so the times are per step as
 * with them. */
static void
test_steps_by_optimizer (void)
{
  g_autoptr (DpsModel) m = fixture ("mlp-cpu.json");
  gsize len;
  g_autofree char *text = fixture_text ("mlp-cpu.json", &len);
  g_autoptr (GRegex) re = g_regex_new ("ProfilerStep#", 0, 0, NULL);
  g_autofree char *changed = g_regex_replace_literal (re, text, (gssize) len, 0, "train_step#", 0, NULL);
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m2 = dps_model_load_trace_data ("no-steps.json", changed, -1, &e);
  g_assert_no_error (e);
  for (int i = 0; i < dps_model_n_layers (m); i++) {
    g_assert_cmpfloat (dps_model_layer (m2, i)->fwd_time_s, ==, dps_model_layer (m, i)->fwd_time_s);
    g_assert_cmpfloat (dps_model_layer (m2, i)->bwd_time_s, ==, dps_model_layer (m, i)->bwd_time_s);
  }
  g_assert_nonnull (strstr (m2->note, "2 steps (averaged) (counted by Optimizer.step#"));
}

/* A trace written here, small enough to check by hand: Net_0 calls A_0
 * (20 us) and B_0 (10 us); B_0's op repeats A_0's sequence number 7 (as
 * two forward threads could), so A's backward node (seq 7, 40 us) goes to
 * B, the later, and the note counts the clash; node 8 (30 us) is A's.
 * A's linear carries with_flops' estimate. */
static void
test_seq_clash (void)
{
  const char *text =
    "{\"traceEvents\": ["
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: Net_0\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 0, \"dur\": 40},"
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: A_0\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 1, \"dur\": 20},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", \"pid\": 1, \"tid\": 1, \"ts\": 2, "
    "\"dur\": 8, \"args\": {\"Sequence number\": 7, \"Input Dims\": [[3, 4], [5, 4], []], \"flops\": 120}},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::relu\", \"pid\": 1, \"tid\": 1, \"ts\": 11, "
    "\"dur\": 8, \"args\": {\"Sequence number\": 8}},"
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: B_0\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 25, \"dur\": 10},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", \"pid\": 1, \"tid\": 1, \"ts\": 26, "
    "\"dur\": 8, \"args\": {\"Sequence number\": 7, \"Input Dims\": [[3, 5], [2, 5], [2]]}},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"autograd::engine::evaluate_function: AddmmBackward0\", "
    "\"pid\": 1, \"tid\": 1, \"ts\": 50, \"dur\": 40, \"args\": {\"Sequence number\": 7}},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"autograd::engine::evaluate_function: ReluBackward0\", "
    "\"pid\": 1, \"tid\": 1, \"ts\": 95, \"dur\": 30, \"args\": {\"Sequence number\": 8}}]}";
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load_trace_data ("clash.json", text, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpint (dps_model_n_layers (m), ==, 2);
  g_assert_cmpint (m->time_batch, ==, 3);
  g_assert_cmpint (dps_model_layer (m, 0)->n_params, ==, 20);       /* 5 x 4, no bias */
  g_assert_cmpint (dps_model_layer (m, 1)->n_params, ==, 12);       /* 2 x 5 + 2 */
  g_assert_cmpfloat (REL (dps_model_layer (m, 0)->fwd_time_s, 20e-6), <, 1e-12);
  g_assert_cmpfloat (REL (dps_model_layer (m, 0)->bwd_time_s, 30e-6), <, 1e-12);
  g_assert_cmpfloat (REL (dps_model_layer (m, 1)->bwd_time_s, 40e-6), <, 1e-12);
  g_assert_nonnull (strstr (m->note, "1 sequence numbers made by forward ops of two layers"));
  g_assert_nonnull (strstr (m->note, "1 step at batch 3"));
  /* with_flops' 120 for the batch of 3 (2 x 3 x 4 x 5): 40 a sample; B_0 has none */
  g_assert_cmpfloat (dps_model_layer (m, 0)->fwd_flops, ==, 40);
  g_assert_cmpfloat (dps_model_layer (m, 1)->fwd_flops, ==, 0);
  g_assert_nonnull (strstr (m->note, "FLOPs from with_flops"));
}

/* Ids beyond what a gint64 holds are no ids (their cast was undefined:
 * found by fuzz-trace).  An "External id" of 6.7e66 on a CPU op leaves the
 * layers as test_seq_clash's (A_0: 5 x 4 weights; B_0: 2 x 5 + 2); a
 * kernel on a pid of 1e300 whose ids are 6.7e66 and -1e300 leads to no op,
 * which the loader refuses by name, as for any kernel without its op. */
static void
test_huge_ids (void)
{
  const char *cpu =
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: Net_0\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 0, \"dur\": 40},"
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: A_0\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 1, \"dur\": 20},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", \"pid\": 1, \"tid\": 1, \"ts\": 2, "
    "\"dur\": 8, \"args\": {\"External id\": 6.7e66, \"Sequence number\": 7, \"Input Dims\": [[3, 4], [5, 4], []]}},"
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: B_0\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 25, \"dur\": 10},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", \"pid\": 1, \"tid\": 1, \"ts\": 26, "
    "\"dur\": 8, \"args\": {\"Sequence number\": 8, \"Input Dims\": [[3, 5], [2, 5], [2]]}},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"autograd::engine::evaluate_function: AddmmBackward0\", "
    "\"pid\": 1, \"tid\": 1, \"ts\": 50, \"dur\": 40, \"args\": {\"Sequence number\": 8}},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"autograd::engine::evaluate_function: MmBackward0\", "
    "\"pid\": 1, \"tid\": 1, \"ts\": 95, \"dur\": 30, \"args\": {\"Sequence number\": 7}}";
  g_autofree char *cpu_only = g_strdup_printf ("{\"traceEvents\": [%s]}", cpu);
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load_trace_data ("huge-ids.json", cpu_only, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpint (dps_model_n_layers (m), ==, 2);
  g_assert_cmpint (dps_model_layer (m, 0)->n_params, ==, 20);
  g_assert_cmpint (dps_model_layer (m, 1)->n_params, ==, 12);
  g_autofree char *with_kernel = g_strdup_printf (
    "{\"traceEvents\": [%s, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 1e300, "
    "\"tid\": 7, \"ts\": 3, \"dur\": 2, \"args\": {\"External id\": 6.7e66, \"correlation\": -1e300}}]}", cpu);
  g_autoptr (DpsModel) k = dps_model_load_trace_data ("huge-ids.json", with_kernel, -1, &e);
  g_assert_null (k);
  g_assert_error (e, DPS_ERROR, DPS_ERROR_INPUT);
  g_assert_nonnull (strstr (e->message, "none of its 1 kernels and copies leads to the op that launched it"));
}

/* A trace taken under DDP: the NCCL kernel its reducer launched in the
 * backward node (60 us) is no layer's time and not in the step's kernels;
 * the layer keeps its own GEMM's 12 us. */
static void
test_nccl_left_out (void)
{
  const char *text =
    "{\"traceEvents\": ["
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: DistributedDataParallel_0\", "
    "\"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 30},"
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: Linear_0\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 1, \"dur\": 20},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", \"pid\": 1, \"tid\": 1, \"ts\": 2, "
    "\"dur\": 18, \"args\": {\"Sequence number\": 3, \"Input Dims\": [[8, 4], [2, 4], [2]]}},"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 3, \"dur\": 5, \"args\": {\"correlation\": 1}},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm90_gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 9, "
    "\"dur\": 5, \"args\": {\"correlation\": 1}},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"autograd::engine::evaluate_function: AddmmBackward0\", "
    "\"pid\": 1, \"tid\": 2, \"ts\": 40, \"dur\": 30, \"args\": {\"Sequence number\": 3}},"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 41, \"dur\": 5, \"args\": {\"correlation\": 2}},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm90_gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 47, "
    "\"dur\": 12, \"args\": {\"correlation\": 2}},"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 60, \"dur\": 5, \"args\": {\"correlation\": 3}},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)\", "
    "\"pid\": 0, \"tid\": 20, \"ts\": 66, \"dur\": 60, \"args\": {\"correlation\": 3}}]}";
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load_trace_data ("ddp.json", text, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpstr (m->name, ==, "DistributedDataParallel");
  g_assert_cmpint (dps_model_n_layers (m), ==, 1);
  g_assert_cmpstr (dps_model_layer (m, 0)->name, ==, "Linear_0");
  g_assert_cmpfloat (REL (dps_model_layer (m, 0)->fwd_time_s, 5e-6), <, 1e-12);
  g_assert_cmpfloat (REL (dps_model_layer (m, 0)->bwd_time_s, 12e-6), <, 1e-12);
  g_assert_nonnull (strstr (m->note, "GPU kernel time (2 kernels"));
  g_assert_nonnull (strstr (m->note, "1 NCCL kernels (0.060 ms per step) left out"));
}

#define MOD(name, ts, dur)                                                                               \
  "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: " name "\", \"pid\": 1, \"tid\": 1, \"ts\": " \
  #ts ", \"dur\": " #dur "},"
#define OP(name, ts, dur, seq, dims)                                                                      \
  "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" name "\", \"pid\": 1, \"tid\": 1, \"ts\": " #ts      \
  ", \"dur\": " #dur ", \"args\": {\"Sequence number\": " #seq ", \"Input Dims\": " dims "}},"
#define NODE(name, ts, dur, seq)                                                                          \
  "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"autograd::engine::evaluate_function: " name "\", "      \
  "\"pid\": 1, \"tid\": 2, \"ts\": " #ts ", \"dur\": " #dur ", \"args\": {\"Sequence number\": " #seq "}},"

/* A GPT-like model: Stack_0 holds 70 of Model_0's 100 us forward, more
 * than half, so it is split: its blocks become layers and its own ops (an
 * add, 3 us, and 10 us in all outside the blocks: 70 - 30 - 30) a layer
 * called Stack_0 in its place.  The embedding's weight is its first input,
 * so the batch (4) is its second's first dimension. */
static void
test_split (void)
{
  const char *text = "{\"traceEvents\": ["
    MOD ("Model_0", 0, 100) MOD ("Embedding_0", 1, 5) OP ("aten::embedding", 2, 3, 1, "[[50, 8], [4, 6]]")
    MOD ("Stack_0", 10, 70) MOD ("Block_0", 12, 30) OP ("aten::linear", 13, 28, 2, "[[4, 6, 8], [8, 8], [8]]")
    MOD ("Block_1", 45, 30) OP ("aten::linear", 46, 28, 3, "[[4, 6, 8], [8, 8], [8]]")
    OP ("aten::add", 76, 3, 4, "[[4, 6, 8], [4, 6, 8]]")
    MOD ("Linear_0", 82, 15) OP ("aten::linear", 83, 13, 5, "[[4, 6, 8], [50, 8], []]")
    NODE ("MmBackward0", 200, 26, 5) NODE ("AddBackward0", 230, 2, 4) NODE ("AddmmBackward0", 240, 50, 3)
    NODE ("AddmmBackward0", 300, 50, 2) NODE ("EmbeddingBackward0", 360, 9, 1)
    "{\"ph\": \"i\", \"name\": \"end\", \"ts\": 400}]}";
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load_trace_data ("gpt.json", text, -1, &e);
  g_assert_no_error (e);
  static const char *const names[] = { "Embedding_0", "Stack_0", "Block_0", "Block_1", "Linear_0" };
  static const double fwd_us[] = { 5, 10, 30, 30, 15 }, bwd_us[] = { 9, 2, 50, 50, 26 };
  static const gint64 params[] = { 400, 0, 72, 72, 400 };
  g_assert_cmpint (dps_model_n_layers (m), ==, 5);
  for (int i = 0; i < 5; i++) {
    g_assert_cmpstr (dps_model_layer (m, i)->name, ==, names[i]);
    g_assert_cmpfloat (REL (dps_model_layer (m, i)->fwd_time_s, fwd_us[i] * 1e-6), <, 1e-12);
    g_assert_cmpfloat (REL (dps_model_layer (m, i)->bwd_time_s, bwd_us[i] * 1e-6), <, 1e-12);
    g_assert_cmpint (dps_model_layer (m, i)->n_params, ==, params[i]);
  }
  g_assert_cmpint (m->time_batch, ==, 4);
  g_assert_nonnull (strstr (m->note, "split into their children"));
  g_assert_nonnull (strstr (m->note, "Stack_0"));
}

/* A message that starts "FILE:LINE:COLUMN: ", and its line. */
static int
error_line (const char *msg, const char *file)
{
  g_assert_true (g_str_has_prefix (msg, file));
  const char *p = msg + strlen (file);
  int line = 0, col = 0;
  if (sscanf (p, ":%d:%d:", &line, &col) != 2 || line < 1 || col < 1)
    g_test_fail_printf ("'%s' gives no line:column", msg);
  return line;
}

/* Truncated (cut after 60% of its bytes, as a trace whose writer was
 * killed) and malformed (a ';' for a ',' on line 31) traces are refused
 * with the file and the line and column json-glib stopped at. */
static void
test_truncated_malformed (void)
{
  gsize len;
  g_autofree char *text = fixture_text ("mlp-cpu.json", &len);
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load_trace_data ("cut.json", text, (gssize) (len * 6 / 10), &e);
  g_assert_null (m);
  int lines = 1;
  for (gsize i = 0; i < len * 6 / 10; i++)
    lines += text[i] == '\n';
  /* the end of the text, where the JSON stops unclosed */
  g_assert_cmpint (error_line (e->message, "cut.json"), >=, lines - 1);
  g_clear_error (&e);

  char *p = text;
  for (int l = 1; l < 31; l++)
    p = strchr (p, '\n') + 1;
  char *comma = strchr (p, ',');
  g_assert_true (comma && comma < strchr (p, '\n'));
  *comma = ';';
  g_autoptr (DpsModel) m2 = dps_model_load_trace_data ("bad.json", text, (gssize) len, &e);
  g_assert_null (m2);
  g_assert_cmpint (error_line (e->message, "bad.json"), ==, 31);
}

/* Traces without what the loader needs are refused naming it: no module
 * events (with_modules off: what could not be attributed), no input
 * shapes (record_shapes off: no parameters), no backward nodes, backward
 * nodes without sequence numbers, no traceEvents; a legacy (pre-Kineto)
 * export, a JSON array, with what to use instead. */
static void
test_refused (void)
{
  gsize len;
  g_autofree char *text = fixture_text ("mlp-cpu.json", &len);
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = fixture ("mlp-cpu.json");
  g_clear_pointer (&m, dps_model_free);
  g_autofree char *nomod = fixture_path ("mlp-nomodules.json");
  m = dps_model_load (nomod, &e);
  g_assert_null (m);
  g_assert_true (g_str_has_prefix (e->message, nomod));
  g_assert_nonnull (strstr (e->message, "no \"nn.Module: \" events"));
  g_assert_nonnull (strstr (e->message, "its 120 cpu_op events"));
  g_clear_error (&e);
  /* what Debian's python3-torch 1.13 (no Kineto) exports: a real file */
  g_autofree char *legacy = fixture_path ("legacy-1.13.json");
  m = dps_model_load (legacy, &e);
  g_assert_null (m);
  g_assert_true (g_str_has_prefix (e->message, legacy));
  g_assert_nonnull (strstr (e->message, "the legacy profiler's export"));
  g_clear_error (&e);
  static const struct { const char *pattern, *replace, *expect; } cases[] = {
    { "\"Input Dims\": .*?, \"Input type\"", "\"Input type\"", "record_shapes=True" },
    { "autograd::engine::evaluate_function: ", "", "no backward pass" },
    { "\"Sequence number\": [0-9]+, ", "", "carry no \"Sequence number\"" },
    { "\"traceEvents\"", "\"events\"", "with a \"traceEvents\" array" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GRegex) re = g_regex_new (cases[i].pattern, 0, 0, NULL);
    g_autofree char *changed = g_regex_replace (re, text, (gssize) len, 0, cases[i].replace, 0, NULL);
    g_autoptr (DpsModel) mi = dps_model_load_trace_data ("t.json", changed, -1, &e);
    if (mi || !g_str_has_prefix (e->message, "t.json: ") || !strstr (e->message, cases[i].expect))
      g_test_fail_printf ("case %zu: %s", i, mi ? "accepted" : e->message);
    g_clear_error (&e);
  }
}

/* The same per-layer times and parameters written as a per-layer CSV
 * (each row one tensor: the GPU fixture's layers hold one tensor or none),
 * with the same device and dtype lines, predict the same step on 8 A100s
 * of DGX A100 (80 GB: both transferred from the trace's 40 GB part the
 * same way): the loader adds nothing of its own. */
static void
test_predict_as_csv (void)
{
  g_autoptr (DpsModel) m = fixture ("mlp-cuda.json");
  g_autoptr (GString) csv = g_string_new (NULL);
  g_string_append_printf (csv, "# batch: %d\n# device: %s\n# dtype: %s\nlayer,params,forward_s,backward_s\n",
                          m->time_batch, m->device, m->dtype);
  for (int i = 0; i < dps_model_n_layers (m); i++) {
    const DpsLayer *l = dps_model_layer (m, i);
    g_string_append_printf (csv, "%s,%" G_GINT64_FORMAT ",%.17g,%.17g\n", l->name, l->n_params, l->fwd_time_s,
                            l->bwd_time_s);
  }
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) c = dps_model_load_csv_data ("same.csv", csv->str, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpint (dps_model_n_tensors (c), ==, dps_model_n_tensors (m));
  g_autoptr (DpsTopo) topo = test_shipped_topo ("dgx-a100", 1);
  double step[2];
  const DpsModel *models[2] = { m, c };
  char *notes[2] = { NULL, NULL };   /* freed below (g_autofree frees one pointer, not an array) */
  DpsModel *models_rw[2] = { m, c };
  for (int k = 0; k < 2; k++) {
    DpsDdpConfig cfg;
    dps_ddp_config_default (&cfg);
    g_assert_true (dps_compute_use_file_times (models_rw[k], &dps_topo_spec (topo)->gpu, &cfg.compute, &notes[k], &e));
    g_assert_no_error (e);
    g_assert_nonnull (strstr (notes[k], "transferred from A100"));
    cfg.model = models[k];
    cfg.topo = topo;
    cfg.n_gpus = 8;
    cfg.batch = 64;
    cfg.trace_replicas = 0;
    DpsDdpResult r;
    g_assert_true (dps_ddp_simulate (&cfg, &r, &e));
    g_assert_no_error (e);
    step[k] = r.step_mean_s;
    /* and the step is at least the layers' compute at the traced batch */
    g_assert_cmpfloat (step[k], >=, test_layers_s (models[k]));
    dps_ddp_result_clear (&r);
  }
  g_assert_cmpfloat (step[0], ==, step[1]);
  g_free (notes[0]);
  g_free (notes[1]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model-trace/cpu", test_cpu);
  g_test_add_func ("/model-trace/cuda", test_cuda);
  g_test_add_func ("/model-trace/steps-by-optimizer", test_steps_by_optimizer);
  g_test_add_func ("/model-trace/device-by-kernel", test_device_by_kernel);
  g_test_add_func ("/model-trace/seq-clash", test_seq_clash);
  g_test_add_func ("/model-trace/huge-ids", test_huge_ids);
  g_test_add_func ("/model-trace/split", test_split);
  g_test_add_func ("/model-trace/nccl-left-out", test_nccl_left_out);
  g_test_add_func ("/model-trace/truncated-malformed", test_truncated_malformed);
  g_test_add_func ("/model-trace/refused", test_refused);
  g_test_add_func ("/model-trace/predict-as-csv", test_predict_as_csv);
  return g_test_run ();
}
