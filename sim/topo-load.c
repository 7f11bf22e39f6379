/* topo-load.c — see topo-load.h. */
#include "sim/topo-load.h"
#include "sim/base/keyfile.h"
#include "sim/base/error.h"
#include "dps-config.h"

#include <string.h>

static const char *const groups[] = { "system", "gpu", "intra", "nic", "fabric", "nccl", "host", NULL };
static const char *const system_keys[] = { "name", "description", "gpus_per_node", "gpus_per_host", "max_nodes",
                                           "price_per_gpu_hour_usd", NULL };
static const char *const gpu_keys[] = { "model", "arch", "fp32_tflops", "tf32_tflops", "fp16_tflops",
                                        "bf16_tflops", "fp8_tflops", "memory_GB", "memory_bw_GBps", NULL };
static const char *const intra_keys[] = { "fabric", "bw_GBps", "efficiency", "latency_us", "nvls",
                                          "links", "switches", "uplink_GBps", "pcie_GBps", "ring",
                                          "nvls_efficiency", NULL };
static const char *const nic_keys[] = { "count", "bw_Gbps", "efficiency", "gpus", "transport", "latency_us", NULL };
/* in DpsNetTransport's order */
static const char *const fabric_keys[] = { "kind", "latency_us", "nodes_per_leaf", "oversubscription", "sharp", NULL };
static const char *const nccl_keys[] = { "channels", NULL };
static const char *const host_keys[] = { "link_GBps", "memory_GBps", "memory_GB", NULL };
static const char *const intra_choices[] = { "nvswitch", "nvlink-mesh", "pcie", NULL };
static const char *const fabric_choices[] = { "switch", "fat-tree", "rail", NULL };

#define BIG 1e12

/* Splits a raw value on any of seps, trimming blanks; empty items dropped. */
static GStrv
split_list (const char *value, const char *seps)
{
  g_auto (GStrv) parts = g_strsplit_set (value, seps, -1);
  GPtrArray *out = g_ptr_array_new ();
  for (int i = 0; parts[i]; i++) {
    g_strstrip (parts[i]);
    if (parts[i][0])
      g_ptr_array_add (out, g_strdup (parts[i]));
  }
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (out, FALSE);
}

static gboolean
parse_gpu_index (const DpsKeyFile *kf, const char *group, const char *key, const char *text,
                 int k, int *out, GError **error)
{
  gint64 v;
  if (!dps_parse_int (text, &v)) {
    dps_key_file_error (kf, group, key, error, "expected a GPU index, got '%s'", text);
    return FALSE;
  }
  if (v < 0 || v >= k) {
    dps_key_file_error (kf, group, key, error, "GPU %s does not exist (the node has GPUs 0 to %d)",
                        text, k - 1);
    return FALSE;
  }
  *out = (int) v;
  return TRUE;
}

static gboolean
load_gpu (const DpsKeyFile *kf, DpsTopoSpec *s, GError **error)
{
  static const char *const keys[DPS_DTYPE_COUNT] = { "fp32_tflops", "tf32_tflops", "fp16_tflops", "bf16_tflops" };
  double v;
  int arch;
  if (!dps_key_file_require_group (kf, "gpu", error)
      || !dps_key_file_check_keys (kf, "gpu", gpu_keys, error)
      || !dps_key_file_get_string (kf, "gpu", "model", TRUE, NULL, &s->gpu.model, error)
      || !dps_key_file_get_choice (kf, "gpu", "arch", dps_gpu_arch_names, FALSE, -1, &arch, error))
    return FALSE;
  s->gpu_arch = arch >= 0 ? dps_gpu_arch_names[arch] : NULL;
  for (int d = 0; d < DPS_DTYPE_COUNT; d++) {
    gboolean required = d == DPS_DTYPE_FP32;
    if (!dps_key_file_get_double (kf, "gpu", keys[d], required, 0, 1e-6, 1e6, &v, error))
      return FALSE;
    s->gpu.peak_flops[d] = v * 1e12;
  }
  /* missing reduced-precision figures fall back to the next wider type */
  if (!s->gpu.peak_flops[DPS_DTYPE_TF32])
    s->gpu.peak_flops[DPS_DTYPE_TF32] = s->gpu.peak_flops[DPS_DTYPE_FP32];
  if (!s->gpu.peak_flops[DPS_DTYPE_FP16])
    s->gpu.peak_flops[DPS_DTYPE_FP16] = s->gpu.peak_flops[DPS_DTYPE_TF32];
  if (!s->gpu.peak_flops[DPS_DTYPE_BF16])
    s->gpu.peak_flops[DPS_DTYPE_BF16] = s->gpu.peak_flops[DPS_DTYPE_FP16];
  /* FP8: as given, else the architecture's (device.h) */
  if (!dps_key_file_get_double (kf, "gpu", "fp8_tflops", FALSE, 0, 1e-6, 1e6, &v, error))
    return FALSE;
  s->gpu.fp8_flops = v > 0 ? v * 1e12 : dps_gpu_arch_fp8_flops (dps_topo_spec_gpu_arch (s),
                                                                   s->gpu.peak_flops[DPS_DTYPE_BF16]);
  if (!dps_key_file_get_double (kf, "gpu", "memory_GB", TRUE, 0, 1e-3, 1e6, &v, error))
    return FALSE;
  s->gpu.memory_bytes = v * 1e9;
  if (!dps_key_file_get_double (kf, "gpu", "memory_bw_GBps", TRUE, 0, 1e-3, 1e6, &v, error))
    return FALSE;
  s->gpu.memory_bw_Bps = v * 1e9;
  return TRUE;
}

static gboolean
load_mesh (const DpsKeyFile *kf, DpsTopoSpec *s, GError **error)
{
  g_autofree char *raw = NULL;
  if (!dps_key_file_get_string (kf, "intra", "links", TRUE, NULL, &raw, error))
    return FALSE;
  g_auto (GStrv) items = split_list (raw, ";,");
  int n = (int) g_strv_length (items);
  if (n == 0) {
    dps_key_file_error (kf, "intra", "links", error, "expected GPU pairs such as 0-1:2;0-2:1");
    return FALSE;
  }
  s->mesh = g_new0 (DpsMeshLink, n);
  s->n_mesh = n;
  for (int i = 0; i < n; i++) {
    g_auto (GStrv) pc = g_strsplit (items[i], ":", 2);
    g_auto (GStrv) ab = g_strsplit (pc[0], "-", 2);
    gint64 count = 1;
    if (!ab[1] || (pc[1] && (!dps_parse_int (pc[1], &count) || count < 1 || count > 64))) {
      dps_key_file_error (kf, "intra", "links", error,
                          "'%s' is not a link (expected A-B or A-B:COUNT, e.g. 0-3:2)", items[i]);
      return FALSE;
    }
    if (!parse_gpu_index (kf, "intra", "links", ab[0], s->gpus_per_node, &s->mesh[i].a, error)
        || !parse_gpu_index (kf, "intra", "links", ab[1], s->gpus_per_node, &s->mesh[i].b, error))
      return FALSE;
    if (s->mesh[i].a == s->mesh[i].b) {
      dps_key_file_error (kf, "intra", "links", error, "'%s' links a GPU to itself", items[i]);
      return FALSE;
    }
    s->mesh[i].count = (int) count;
  }
  return TRUE;
}

static gboolean
load_intra (const DpsKeyFile *kf, DpsTopoSpec *s, GError **error)
{
  int kind;
  double bw, eff, lat, v;
  gint64 iv;
  if (!dps_key_file_require_group (kf, "intra", error)
      || !dps_key_file_check_keys (kf, "intra", intra_keys, error)
      || !dps_key_file_get_choice (kf, "intra", "fabric", intra_choices, TRUE, 0, &kind, error)
      || !dps_key_file_get_double (kf, "intra", "bw_GBps", TRUE, 0, 1e-6, BIG, &bw, error)
      || !dps_key_file_get_double (kf, "intra", "efficiency", FALSE, 1, 0.01, 1, &eff, error)
      || !dps_key_file_get_double (kf, "intra", "latency_us", FALSE, 0, 0, 1e6, &lat, error)
      || !dps_key_file_get_bool (kf, "intra", "nvls", FALSE, FALSE, &s->nvls, error)
      || !dps_key_file_get_double (kf, "intra", "nvls_efficiency", FALSE, DPS_NVLS_EFFICIENCY_DEFAULT, 0.05, 1,
                                   &s->nvls_efficiency, error)
      || !dps_key_file_get_double (kf, "intra", "pcie_GBps", FALSE, 24, 1e-6, BIG, &v, error))
    return FALSE;
  s->intra = (DpsIntraKind) kind;
  s->intra_bw_Bps = s->intra_nccl_Bps = bw * 1e9 * eff;
  s->intra_latency_s = lat * 1e-6;
  s->pcie_bw_Bps = v * 1e9;
  if (s->nvls && s->intra != DPS_INTRA_NVSWITCH) {
    dps_key_file_error (kf, "intra", "nvls", error, "NVLS needs fabric = nvswitch");
    return FALSE;
  }
  if (s->intra == DPS_INTRA_NVLINK_MESH) {
    if (!load_mesh (kf, s, error))
      return FALSE;
  } else if (dps_key_file_has_key (kf, "intra", "links")) {
    dps_key_file_error (kf, "intra", "links", error, "links are only for fabric = nvlink-mesh");
    return FALSE;
  }
  if (s->intra == DPS_INTRA_PCIE) {
    if (!dps_key_file_get_int (kf, "intra", "switches", FALSE, 1, 1, s->gpus_per_node, &iv, error)
        || !dps_key_file_get_double (kf, "intra", "uplink_GBps", iv > 1, 0, 1e-6, BIG, &v, error))
      return FALSE;
    s->pcie_switches = (int) iv;
    s->pcie_uplink_Bps = v * 1e9;
  } else {
    for (const char *const *k = (const char *const[]) { "switches", "uplink_GBps", NULL }; *k; k++)
      if (dps_key_file_has_key (kf, "intra", *k)) {
        dps_key_file_error (kf, "intra", *k, error, "only for fabric = pcie");
        return FALSE;
      }
  }
  if (dps_key_file_has_key (kf, "intra", "ring")) {
    g_autofree char *raw = NULL;
    dps_key_file_get_string (kf, "intra", "ring", TRUE, NULL, &raw, NULL);
    g_auto (GStrv) items = split_list (raw, ";,");
    int k = s->gpus_per_node;
    if ((int) g_strv_length (items) != k) {
      dps_key_file_error (kf, "intra", "ring", error, "expected all %d GPUs once each, got %u entries",
                          k, g_strv_length (items));
      return FALSE;
    }
    s->ring = g_new (int, k);
    g_autofree gboolean *seen = g_new0 (gboolean, k);
    for (int i = 0; i < k; i++) {
      if (!parse_gpu_index (kf, "intra", "ring", items[i], k, &s->ring[i], error))
        return FALSE;
      if (seen[s->ring[i]]) {
        dps_key_file_error (kf, "intra", "ring", error, "GPU %d appears twice", s->ring[i]);
        return FALSE;
      }
      seen[s->ring[i]] = TRUE;
    }
  }
  return TRUE;
}

static gboolean
load_nics (const DpsKeyFile *kf, DpsTopoSpec *s, GError **error)
{
  int k = s->gpus_per_node;
  s->gpu_nic = g_new (int, k);
  for (int g = 0; g < k; g++)
    s->gpu_nic[g] = -1;
  if (!dps_key_file_has_group (kf, "nic"))
    return TRUE;
  gint64 count;
  double gbps, eff;
  if (!dps_key_file_check_keys (kf, "nic", nic_keys, error)
      || !dps_key_file_get_int (kf, "nic", "count", TRUE, 0, 0, 1024, &count, error))
    return FALSE;
  s->n_nics = (int) count;
  if (count == 0)
    return TRUE;
  int transport = DPS_NET_IB;
  double extra_us;
  if (!dps_key_file_get_double (kf, "nic", "bw_Gbps", TRUE, 0, 1e-6, BIG, &gbps, error)
      || !dps_key_file_get_double (kf, "nic", "efficiency", FALSE, 1, 0.01, 1, &eff, error)
      || !dps_key_file_get_choice (kf, "nic", "transport", dps_net_transport_names (), FALSE, DPS_NET_IB, &transport, error))
    return FALSE;
  if (!dps_key_file_get_double (kf, "nic", "latency_us", FALSE, dps_net_transport_extra_us ((DpsNetTransport) transport),
                                0, 1e6, &extra_us, error))
    return FALSE;
  s->nic_bw_Bps = s->nic_nccl_Bps = gbps * 1e9 / 8 * eff;
  s->net_transport = (DpsNetTransport) transport;
  s->net_extra_s = extra_us * 1e-6;
  s->nic_gpu = g_new (int, count);
  g_autofree char *raw = NULL;
  if (!dps_key_file_get_string (kf, "nic", "gpus", TRUE, NULL, &raw, error))
    return FALSE;
  g_auto (GStrv) per_nic = g_strsplit (raw, ";", -1);
  int entries = (int) g_strv_length (per_nic);
  if (entries > 0 && !g_strstrip (per_nic[entries - 1])[0])
    entries--;   /* a trailing ';' as GKeyFile writes lists */
  if (entries != count) {
    dps_key_file_error (kf, "nic", "gpus", error,
                        "expected %d entries separated by ';' (the GPUs of each NIC), got %d",
                        (int) count, entries);
    return FALSE;
  }
  for (int n = 0; n < count; n++) {
    g_auto (GStrv) gs = split_list (per_nic[n], ",");
    if (!gs[0]) {
      dps_key_file_error (kf, "nic", "gpus", error, "NIC %d has no GPU", n);
      return FALSE;
    }
    for (int i = 0; gs[i]; i++) {
      int g;
      if (!parse_gpu_index (kf, "nic", "gpus", gs[i], k, &g, error))
        return FALSE;
      if (s->gpu_nic[g] >= 0) {
        dps_key_file_error (kf, "nic", "gpus", error, "GPU %d is attached to NIC %d and NIC %d",
                            g, s->gpu_nic[g], n);
        return FALSE;
      }
      s->gpu_nic[g] = n;
      if (i == 0)
        s->nic_gpu[n] = g;
    }
  }
  for (int g = 0; g < k; g++)
    if (s->gpu_nic[g] < 0) {
      dps_key_file_error (kf, "nic", "gpus", error, "GPU %d uses no NIC (every GPU needs one)", g);
      return FALSE;
    }
  return TRUE;
}

static gboolean
load_fabric (const DpsKeyFile *kf, DpsTopoSpec *s, GError **error)
{
  int kind = DPS_FABRIC_SWITCH;
  double lat = 0, over = 1;
  gint64 npl = 1 << 20;
  if (dps_key_file_has_group (kf, "fabric")) {
    if (!dps_key_file_check_keys (kf, "fabric", fabric_keys, error)
        || !dps_key_file_get_choice (kf, "fabric", "kind", fabric_choices, TRUE, 0, &kind, error)
        || !dps_key_file_get_double (kf, "fabric", "latency_us", FALSE, 0, 0, 1e6, &lat, error)
        || !dps_key_file_get_int (kf, "fabric", "nodes_per_leaf", kind != DPS_FABRIC_SWITCH, 1 << 20,
                                  1, 1 << 20, &npl, error)
        || !dps_key_file_get_double (kf, "fabric", "oversubscription", FALSE, 1, 1, 1024, &over, error)
        || !dps_key_file_get_bool (kf, "fabric", "sharp", FALSE, FALSE, &s->sharp, error))
      return FALSE;
    /* SHARP is InfiniBand's (Quantum switches and NCCL's SHARP plugin) */
    if (s->sharp && (s->n_nics == 0 || s->net_transport != DPS_NET_IB)) {
      dps_key_file_error (kf, "fabric", "sharp", error, "SHARP needs InfiniBand NICs ([nic] transport = ib)");
      return FALSE;
    }
  }
  s->fabric = (DpsFabricKind) kind;
  s->fabric_latency_s = lat * 1e-6;
  s->nodes_per_leaf = (int) npl;
  s->oversubscription = over;
  return TRUE;
}

static DpsTopoSpec *
load (const DpsKeyFile *kf, GError **error)
{
  g_autoptr (DpsTopoSpec) s = g_new0 (DpsTopoSpec, 1);
  gint64 k, maxn, hosts_k, ch;
  s->path = g_strdup (dps_key_file_name (kf));
  if (!dps_key_file_check_groups (kf, groups, NULL, error)
      || !dps_key_file_require_group (kf, "system", error)
      || !dps_key_file_check_keys (kf, "system", system_keys, error)
      || !dps_key_file_get_string (kf, "system", "name", TRUE, NULL, &s->name, error)
      || !dps_key_file_get_string (kf, "system", "description", FALSE, "", &s->description, error)
      || !dps_key_file_get_int (kf, "system", "gpus_per_node", TRUE, 0, 1, DPS_TOPO_MAX_GPUS_PER_NODE,
                                &k, error)
      || !dps_key_file_get_int (kf, "system", "max_nodes", FALSE, 0, 0, DPS_TOPO_MAX_GPUS, &maxn, error)
      || !dps_key_file_get_int (kf, "system", "gpus_per_host", FALSE, k, 1, k, &hosts_k, error)
      || !dps_key_file_get_double (kf, "system", "price_per_gpu_hour_usd", FALSE, 0, 0, 1e6,
                                   &s->price_per_gpu_hour_usd, error))
    return NULL;
  if (k % hosts_k != 0) {
    dps_key_file_error (kf, "system", "gpus_per_host", error, "%d does not divide gpus_per_node = %d",
                        (int) hosts_k, (int) k);
    return NULL;
  }
  s->gpus_per_node = (int) k;
  s->gpus_per_host = (int) hosts_k;
  s->max_nodes = (int) maxn;
  if (!load_gpu (kf, s, error) || !load_intra (kf, s, error) || !load_nics (kf, s, error)
      || !load_fabric (kf, s, error))
    return NULL;
  if (dps_key_file_has_group (kf, "nccl") && !dps_key_file_check_keys (kf, "nccl", nccl_keys, error))
    return NULL;
  if (!dps_key_file_get_int (kf, "nccl", "channels", FALSE, MAX (s->n_nics, 2), 1, 64, &ch, error))
    return NULL;
  s->channels = (int) ch;
  /* the host: a GPU's link to it (default: its PCIe), the node's memory
   * bandwidth (0: not stated) */
  double link, mem, cap;
  if ((dps_key_file_has_group (kf, "host") && !dps_key_file_check_keys (kf, "host", host_keys, error))
      || !dps_key_file_get_double (kf, "host", "link_GBps", FALSE, s->pcie_bw_Bps / 1e9, 1e-6, BIG, &link, error)
      || !dps_key_file_get_double (kf, "host", "memory_GBps", FALSE, 0, 1e-6, BIG, &mem, error)
      || !dps_key_file_get_double (kf, "host", "memory_GB", FALSE, 0, 1e-6, BIG, &cap, error))
    return NULL;
  s->host_link_Bps = link * 1e9;
  s->host_mem_Bps = mem * 1e9;
  s->host_mem_bytes = cap * 1e9;
  return g_steal_pointer (&s);
}

/* Loads a topology file; NULL with error (file:line: what) when malformed. */
DpsTopoSpec *
dps_topo_spec_load (const char *path, GError **error)
{
  g_autoptr (DpsKeyFile) kf = dps_key_file_load (path, error);
  return kf ? load (kf, error) : NULL;
}

/* As dps_topo_spec_load, from text in memory; name is used in messages. */
DpsTopoSpec *
dps_topo_spec_load_data (const char *name, const char *data, gssize len, GError **error)
{
  g_autoptr (DpsKeyFile) kf = dps_key_file_load_data (name, data, len, error);
  return kf ? load (kf, error) : NULL;
}

/* Resolves --topology: an existing path, or the name of a shipped file
 * ("dgx-h100" -> topologies/dgx-h100.topo).  Returns a new string. */
char *
dps_topo_find (const char *name_or_path, GError **error)
{
  if (g_file_test (name_or_path, G_FILE_TEST_EXISTS) || strchr (name_or_path, '/'))
    return g_strdup (name_or_path);
  g_autofree char *file = g_str_has_suffix (name_or_path, ".topo") ? g_strdup (name_or_path)
                                                                   : g_strconcat (name_or_path, ".topo", NULL);
  char *p = dps_data_path ("topologies", file);
  if (!p) {
    g_auto (GStrv) names = dps_topo_list_shipped ();
    g_autofree char *list = g_strjoinv (", ", names);
    dps_set_field_error (error, DPS_FIELD_TOPOLOGY, DPS_ERROR_INPUT,
                 "no file '%s' and no shipped topology of that name (shipped: %s)",
                 name_or_path, list);
  }
  return p;
}

/* Names of the shipped topologies, sorted (g_strfreev the result). */
char **
dps_topo_list_shipped (void)
{
  return dps_data_list ("topologies", ".topo");
}

/* Whether w is a GPU family's word: one or two letters, two to four
 * digits and at most one letter more, or four digits ("A100", "GB200",
 * "L40S", "4090"; not "SXM2", "HBM3" or "80GB"). */
static gboolean
family_word (const char *w)
{
  size_t letters = 0, digits = 0;
  while (g_ascii_isalpha (w[letters]))
    letters++;
  while (g_ascii_isdigit (w[letters + digits]))
    digits++;
  const char *rest = w + letters + digits;
  if (letters >= 1 && letters <= 2 && digits >= 2 && digits <= 4)
    return !rest[0] || (g_ascii_isalpha (rest[0]) && !rest[1]);
  return !letters && digits == 4 && !rest[0];
}

/* The GPU families a device or model name names, its words of family_word
 * ("NVIDIA A100-SXM4-80GB" -> A100, "Tesla V100-SXM2-32GB" -> V100, "B200
 * (GB200 NVL72)" -> B200 and GB200, "NVIDIA GeForce RTX 4090" -> 4090). */
static GStrv
families (const char *name)
{
  g_auto (GStrv) w = g_strsplit_set (name, " -_/()", -1);
  GStrvBuilder *b = g_strv_builder_new ();
  for (int i = 0; w[i]; i++)
    if (family_word (w[i]))
      g_strv_builder_add (b, w[i]);
  GStrv out = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  return out;
}

/* 1: device and model name a family in common; 0: each names families,
 * none in common; -1: one names none. */
static int
same_family (const char *device, const char *model)
{
  g_auto (GStrv) a = families (device);
  g_auto (GStrv) b = families (model);
  if (!a[0] || !b[0])
    return -1;
  for (int i = 0; a[i]; i++)
    for (int j = 0; b[j]; j++)
      if (!g_ascii_strcasecmp (a[i], b[j]))
        return 1;
  return 0;
}

/* Whether a topology's GPU is of another family than device's (both
 * known): a log of A100s against dgx-h100; GB200 is B200's. */
gboolean
dps_topo_gpu_differs (const DpsTopoSpec *spec, const char *device)
{
  return device && spec->gpu.model && same_family (device, spec->gpu.model) == 0;
}

/* The shipped topologies whose GPU is of device's family ("NVIDIA H100
 * 80GB HBM3" -> "aws-p5, dgx-h100, ..."), a new string, or NULL (none, or
 * no family in device). */
char *
dps_topo_shipped_for_gpu (const char *device)
{
  if (!device)
    return NULL;
  g_auto (GStrv) names = dps_topo_list_shipped ();
  GString *list = g_string_new (NULL);
  for (int i = 0; names[i]; i++) {
    g_autofree char *file = g_strconcat (names[i], ".topo", NULL);
    g_autofree char *p = dps_data_path ("topologies", file);
    g_autoptr (DpsTopoSpec) s = p ? dps_topo_spec_load (p, NULL) : NULL;
    if (s && s->gpu.model && same_family (device, s->gpu.model) == 1)
      g_string_append_printf (list, "%s%s", list->len ? ", " : "", names[i]);
  }
  return list->len ? g_string_free (list, FALSE) : (g_string_free (list, TRUE), NULL);
}

/* What to say when device's GPUs are not spec's (dps_topo_gpu_differs):
 * "its GPUs are DEVICE, NAME's are MODEL", then middle (may be ""), then
 * the shipped topologies that have them ("(shipped with them: ...)"); a
 * new string, else NULL. */
char *
dps_topo_gpu_mismatch (const DpsTopoSpec *spec, const char *name, const char *device, const char *middle)
{
  if (!dps_topo_gpu_differs (spec, device))
    return NULL;
  g_autofree char *fits = dps_topo_shipped_for_gpu (device);
  return g_strdup_printf ("its GPUs are %s, %s's are %s%s%s%s%s", device, name, spec->gpu.model, middle,
                          fits ? " (shipped with them: " : "", fits ? fits : "", fits ? ")" : "");
}
