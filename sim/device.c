/* device.c — see device.h. */
#include "sim/device.h"

#include <string.h>

const char *const dps_gpu_arch_names[] = { "volta", "ampere", "ada", "hopper", "blackwell", NULL };

/* NCCL's generation of each of dps_gpu_arch_names, in its order
 * (src/graph/tuning.cc: compute capability 7.x Volta, 8.x Ampere and Ada,
 * 9.x Hopper, 10 and up Blackwell). */
static const int nccl_generation[] = { 0, 1, 1, 2, 3 };
G_STATIC_ASSERT (G_N_ELEMENTS (nccl_generation) + 1 == G_N_ELEMENTS (dps_gpu_arch_names));

/* Whether each of dps_gpu_arch_names has FP8 tensor cores, at twice its
 * dense FP16/BF16 rate (NVIDIA's datasheets: L40S 733 against 362 TFLOP/s
 * on Ada, H100 SXM 1,979 against 989 on Hopper, B200 4,500 against 2,250
 * on Blackwell; none on Volta and Ampere). */
static const gboolean has_fp8[] = { FALSE, FALSE, TRUE, TRUE, TRUE };
G_STATIC_ASSERT (G_N_ELEMENTS (has_fp8) + 1 == G_N_ELEMENTS (dps_gpu_arch_names));

/* arch's index in dps_gpu_arch_names, or -1 for NULL or another name */
static int
arch_index (const char *arch)
{
  for (int i = 0; arch && dps_gpu_arch_names[i]; i++)
    if (g_str_equal (arch, dps_gpu_arch_names[i]))
      return i;
  return -1;
}

int
dps_gpu_arch_nccl_generation (const char *arch)
{
  int i = arch_index (arch);
  return i < 0 ? -1 : nccl_generation[i];
}

double
dps_gpu_arch_fp8_flops (const char *arch, double bf16_flops)
{
  int i = arch_index (arch);
  return i >= 0 && has_fp8[i] ? 2 * bf16_flops : 0;
}

static const char *const names[DPS_DTYPE_COUNT] = { "fp32", "tf32", "fp16", "bf16" };

const char *
dps_dtype_name (DpsDtype dtype)
{
  g_return_val_if_fail (dtype < DPS_DTYPE_COUNT, "?");
  return names[dtype];
}

/* Parses "fp32", "tf32", "fp16" or "bf16". */
gboolean
dps_dtype_parse (const char *name, DpsDtype *out)
{
  for (int i = 0; i < DPS_DTYPE_COUNT; i++) {
    if (name && g_ascii_strcasecmp (name, names[i]) == 0) {
      *out = (DpsDtype) i;
      return TRUE;
    }
  }
  return FALSE;
}

/* Bytes of one element as stored (tf32 is stored as fp32). */
int
dps_dtype_bytes (DpsDtype dtype)
{
  return dtype == DPS_DTYPE_FP16 || dtype == DPS_DTYPE_BF16 ? 2 : 4;
}

/* NVIDIA datasheets, dense tensor figures (no sparsity), SXM parts unless
 * named: fp32, tf32, fp16, bf16 TFLOP/s, memory GB, GB/s, SMs, and the
 * SMs NCCL's kernels occupy (one block per channel): 24 of the H100's 132
 * measured with Nsight Systems for an all-gather beside a GEMM (NVIDIA
 * developer forum, "Compute-Communication Overlap Causes Severe GEMM
 * Performance Degradation because of Tail Effect", 2025); NCCL opens
 * 16 to 32 channels on NVSwitch systems of that generation.  Assumed for
 * the others in proportion to their NVLink generation's channels: V100 8,
 * A100 16, B200 32; L40S (PCIe, no NVLink) 8.  The V100
 * has no tf32 or bf16 units (fp32 and fp16 stand in).  The architecture
 * is NVIDIA's name for the generation; its tensor cores' dense fp16 FLOP
 * per SM and clock are NVIDIA's architecture whitepapers' (Volta 8 tensor
 * cores an SM of 64 FMA a clock: 1024; Ampere A100 4 of 256: 2048; Hopper
 * 4 of 512: 4096; Blackwell twice Hopper's: 8192, as 2250 TFLOP/s over
 * 148 SMs at ~1.85 GHz; Ada L40S 1024, as 362 TFLOP/s over 142 SMs at
 * 2.52 GHz), which decide what compute.c expects of them.  The Grace
 * superchips' GPUs: GH200 is an H100's die with 96 GB of HBM3 at
 * 4 TB/s (NVIDIA's GH200 datasheet); Blackwell Ultra's per-GPU dense
 * figures as Verda's GB300 NVL72 page tabulates NVIDIA's
 * (verda.com/blog/gb300-nvl72-architecture, read 2026-12-04): GB300
 * 2.5 PFLOP/s fp16/bf16, 1.25 tf32, 80 TFLOP/s fp32, 279 GB, 8 TB/s;
 * HGX B300 2.25, 1.1, 75, 270 GB, 7.7 TB/s; 160 SMs (20,480 CUDA
 * cores at 128 an SM), so 8192 FLOP per SM and clock at ~1.9 GHz, as
 * Blackwell's.  GB200 per GPU as NVIDIA's GB200 NVL72 datasheet gives
 * the rack (topologies/gb200-nvl72.topo): 2.5 PFLOP/s fp16 dense, 13.4 TB
 * and 576 TB/s over 72 GPUs: 186 GB, 8 TB/s; the B200's 148 SMs.
 * Looked up by the tokens in the name at a word's start ("GH200" is not
 * an H200), the more specific rows first. */
static const struct {
  const char *token, *also;
  double fp32, tf32, fp16, bf16, mem_GB, bw_GBps;
  int sms, nccl_sms;
  const char *arch;
  int tensor_flop_per_sm_clock;
} known[] = {
  { "GH200", NULL, 67, 494, 989, 989, 96, 4000, 132, 24, "hopper", 4096 },
  { "H200", NULL, 67, 494, 989, 989, 141, 4800, 132, 24, "hopper", 4096 },
  { "H100", "PCIE", 51, 378, 756, 756, 80, 2000, 114, 16, "hopper", 4096 },
  { "H100", NULL, 67, 494, 989, 989, 80, 3350, 132, 24, "hopper", 4096 },
  { "A100", "40GB", 19.5, 156, 312, 312, 40, 1555, 108, 16, "ampere", 2048 },
  { "A100", "PCIE", 19.5, 156, 312, 312, 80, 1935, 108, 8, "ampere", 2048 },
  { "A100", NULL, 19.5, 156, 312, 312, 80, 2039, 108, 16, "ampere", 2048 },
  { "V100", NULL, 15.7, 15.7, 125, 125, 32, 900, 80, 8, "volta", 1024 },
  { "B200", NULL, 80, 1100, 2250, 2250, 192, 8000, 148, 32, "blackwell", 8192 },
  { "GB200", NULL, 80, 1250, 2500, 2500, 186, 8000, 148, 32, "blackwell", 8192 },
  { "GB300", NULL, 80, 1250, 2500, 2500, 279, 8000, 160, 32, "blackwell", 8192 },
  { "B300", NULL, 75, 1100, 2250, 2250, 270, 7700, 160, 32, "blackwell", 8192 },
  { "L40S", NULL, 91.6, 183, 362, 362, 48, 864, 142, 8, "ada", 1024 },
};

/* Whether token occurs in s where a word starts: at s's start, after a
 * character that is neither letter nor digit ("NVIDIA H100", "DGX H100"
 * once '-' is a space), or after a count's 'X' ("8XH100"); so "GH200" is
 * not an H200 nor "GB200" a B200. */
static gboolean
word_in (const char *s, const char *token)
{
  for (const char *p = strstr (s, token); p; p = strstr (p + 1, token))
    if (p == s || !g_ascii_isalnum (p[-1]) || (p[-1] == 'X' && (p - 1 == s || g_ascii_isdigit (p[-2]))))
      return TRUE;
  return FALSE;
}

/* The known device whose tokens name contains (case and '-', '_' aside),
 * or NULL.  Static: do not free. */
const DpsKnownDevice *
dps_device_lookup (const char *name)
{
  static DpsKnownDevice table[G_N_ELEMENTS (known)];
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    for (gsize i = 0; i < G_N_ELEMENTS (known); i++) {
      DpsDeviceSpec *d = &table[i].spec;
      d->model = (char *) known[i].token;
      d->peak_flops[DPS_DTYPE_FP32] = known[i].fp32 * 1e12;
      d->peak_flops[DPS_DTYPE_TF32] = known[i].tf32 * 1e12;
      d->peak_flops[DPS_DTYPE_FP16] = known[i].fp16 * 1e12;
      d->peak_flops[DPS_DTYPE_BF16] = known[i].bf16 * 1e12;
      d->fp8_flops = dps_gpu_arch_fp8_flops (known[i].arch, d->peak_flops[DPS_DTYPE_BF16]);
      d->memory_bytes = known[i].mem_GB * 1e9;
      d->memory_bw_Bps = known[i].bw_GBps * 1e9;
      table[i].sm_count = known[i].sms;
      table[i].nccl_sms = known[i].nccl_sms;
      table[i].arch = known[i].arch;
      table[i].tensor_flop_per_sm_clock = known[i].tensor_flop_per_sm_clock;
    }
    g_once_init_leave (&done, 1);
  }
  if (!name)
    return NULL;
  g_autofree char *up = g_ascii_strup (name, -1);
  g_strdelimit (up, "-_", ' ');
  for (gsize i = 0; i < G_N_ELEMENTS (known); i++)
    if (word_in (up, known[i].token) && (!known[i].also || strstr (up, known[i].also)))
      return &table[i];
  return NULL;
}
