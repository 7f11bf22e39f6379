/* Unit tests of topologies: loading (sim/topo-load.c), the graph, routes
 * and bisection (sim/topo.c). */
#include "sim/topo.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"
#include "test-util.h"
#include "sim/layout.h"

#include <string.h>

#define shipped test_shipped_topo

/* Every shipped file loads and instantiates for 1, 2 and 3 nodes, with
 * nodes x gpus_per_node GPUs, and every GPU reaches every other. */
static void
test_shipped (void)
{
  g_auto (GStrv) names = dps_topo_list_shipped ();
  g_assert_cmpint (g_strv_length (names), >=, 9);
  for (int i = 0; names[i]; i++) {
    for (int nodes = 1; nodes <= 3; nodes++) {
      g_autoptr (DpsTopo) t = shipped (names[i], nodes);
      int k = dps_topo_gpus_per_node (t);
      g_assert_cmpint (dps_topo_n_gpus (t), ==, nodes * k);
      int links[DPS_ROUTE_MAX];
      int last = dps_topo_n_gpus (t) - 1;
      if (last == 0)
        continue;   /* one GPU in all (gh200's node): no other to reach */
      g_assert_cmpint (dps_topo_route (t, 0, last, links), >, 0);
      g_assert_cmpint (dps_topo_route (t, last, 0, links), >, 0);
      /* a route is a connected walk from the source to the destination */
      int n = dps_topo_route (t, 0, last, links);
      g_assert_cmpint (dps_topo_link (t, links[0])->src, ==, dps_topo_gpu_vertex (t, 0));
      g_assert_cmpint (dps_topo_link (t, links[n - 1])->dst, ==, dps_topo_gpu_vertex (t, last));
      for (int j = 1; j < n; j++)
        g_assert_cmpint (dps_topo_link (t, links[j - 1])->dst, ==, dps_topo_link (t, links[j])->src);
    }
  }
}

/* DGX H100: 8 GPUs per node, the GB200 NVL72 rack 72 in one NVLink domain.
 * A network step's latency beyond NCCL's InfiniBand figures is the
 * transport's (sim/net-transport.c): DGX H100's InfiniBand 1 us, the AWS
 * p4de's EFA under aws-ofi-nccl's SENDRECV protocol 48 us, p5's under its
 * RDMA protocol 12 us (each fitted on its own published tables). */
static void
test_sizes (void)
{
  g_autoptr (DpsTopo) h = shipped ("dgx-h100", 64);
  g_assert_cmpint (dps_topo_n_gpus (h), ==, 512);
  g_assert_cmpfloat (fabs (dps_topo_spec (h)->net_extra_s - 1e-6), <, 1e-12);
  const char *efa[] = { "aws-p4de", "aws-p5" };
  for (gsize i = 0; i < G_N_ELEMENTS (efa); i++) {
    g_autoptr (DpsTopo) a = shipped (efa[i], 2);
    g_assert_cmpint (dps_topo_spec (a)->net_transport, ==, i ? DPS_NET_EFA : DPS_NET_EFA_SENDRECV);
    g_assert_cmpfloat (fabs (dps_topo_spec (a)->net_extra_s - (i ? 12e-6 : 48e-6)), <, 1e-12);
  }
  g_autoptr (DpsTopo) g = shipped ("gb200-nvl72", 2);
  g_assert_cmpint (dps_topo_gpus_per_node (g), ==, 72);
  g_assert_true (dps_topo_spec (g)->nvls);
}

/* Bisection bandwidth, by hand:
 * - one DGX H100: 4 GPUs on each side, each 370.8 GB/s into the NVSwitch:
 *   4 x 370.8 = 1483.2 GB/s;
 * - two DGX H100: one node's 8 NICs of 400 Gb/s at 0.97 (48.5 GB/s) = 388 GB/s;
 * - one DGX-1: NVLinks across {0-3}|{4-7} are 0-4:2, 1-5:2, 2-6:1, 3-7:1,
 *   6 links of 20 GB/s = 120, plus PCIe through the host, 4 x 12 = 48:
 *   168 GB/s. */
static void
test_bisection (void)
{
  g_autoptr (DpsTopo) h1 = shipped ("dgx-h100", 1);
  g_autoptr (DpsTopo) h2 = shipped ("dgx-h100", 2);
  g_autoptr (DpsTopo) d1 = shipped ("dgx1-v100", 1);
  g_assert_cmpfloat_with_epsilon (dps_topo_bisection_Bps (h1) / 1e9, 1483.2, 1e-6);
  g_assert_cmpfloat_with_epsilon (dps_topo_bisection_Bps (h2) / 1e9, 388.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (dps_topo_bisection_Bps (d1) / 1e9, 168.0, 1e-6);
}

/* A 2:1 oversubscribed fat tree halves the bisection once the halves sit
 * under different leaves: 8 nodes, 4 per leaf: each leaf's uplink is
 * 32 NICs x 48.5 / 2 = 776 GB/s, against 1552 GB/s of NICs. */
static void
test_oversubscribed_bisection (void)
{
  g_autoptr (DpsTopo) o = shipped ("dgx-h100-oversub2", 8);
  g_assert_cmpfloat_with_epsilon (dps_topo_leaf_uplink_Bps (o) / 1e9, 776.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (dps_topo_bisection_Bps (o) / 1e9, 776.0, 1e-6);
  g_autoptr (DpsTopo) r = shipped ("dgx-h100", 8);   /* rail, one group: no spine */
  g_assert_cmpfloat_with_epsilon (dps_topo_bisection_Bps (r) / 1e9, 1552.0, 1e-6);
}

static int
count_kind (const DpsTopo *t, const int *links, int n, DpsLinkKind kind)
{
  int c = 0;
  for (int i = 0; i < n; i++)
    c += dps_topo_link (t, links[i])->kind == kind;
  return c;
}

/* Rail-optimised: GPU 0 of node 0 to GPU 1 of node 1 crosses to the GPU
 * next to NIC 1 over NVLink (PXN), then stays on rail 1: NIC -> leaf ->
 * NIC, two network links.  On the fat tree across leaves it takes four
 * (NIC-leaf, leaf-spine, spine-leaf, leaf-NIC). */
static void
test_routes (void)
{
  int links[DPS_ROUTE_MAX];
  g_autoptr (DpsTopo) r = shipped ("dgx-h100", 2);
  int n = dps_topo_route (r, 0, 9, links);
  g_assert_cmpint (count_kind (r, links, n, DPS_LINK_NET), ==, 2);
  /* GPU 0 -> NVSwitch -> GPU 1 -> NIC 1 -> leaf -> NIC 1 -> GPU 1 */
  g_assert_cmpint (n, ==, 6);
  g_autoptr (DpsTopo) f = shipped ("dgx-h100-oversub2", 8);
  n = dps_topo_route (f, 0, 8 * 5, links);
  g_assert_cmpint (count_kind (f, links, n, DPS_LINK_NET), ==, 4);
  n = dps_topo_route (f, 0, 8 * 1, links);   /* same leaf */
  g_assert_cmpint (count_kind (f, links, n, DPS_LINK_NET), ==, 2);
  /* Two NVL72 racks on a fat tree (routed by one search a GPU, not a
   * search a pair): GPU 0 to GPU 5 of the other rack leaves by its own NIC
   * 0, crosses leaf, spine and leaf, and arrives by GPU 5's own NIC 5, no
   * NVLink on the way; GPU 0 to GPU 5 of its rack goes through the switch */
  g_autoptr (DpsTopo) x = shipped ("gb200-nvl72", 2);
  n = dps_topo_route (x, 0, 72 + 5, links);
  g_assert_cmpint (n, ==, 6);
  g_assert_cmpint (count_kind (x, links, n, DPS_LINK_NVLINK), ==, 0);
  const DpsVertex *out = dps_topo_vertex (x, dps_topo_link (x, links[0])->dst);
  const DpsVertex *in = dps_topo_vertex (x, dps_topo_link (x, links[n - 1])->src);
  g_assert_true (out->kind == DPS_VX_NIC && out->node == 0 && out->index == 0);
  g_assert_true (in->kind == DPS_VX_NIC && in->node == 1 && in->index == 5);
  n = dps_topo_route (x, 0, 5, links);
  g_assert_cmpint (n, ==, 2);
  g_assert_cmpint (dps_topo_vertex (x, dps_topo_link (x, links[0])->dst)->kind, ==, DPS_VX_NVSWITCH);
}

/* DGX-1's hybrid cube mesh: 6 NVLinks a GPU (16 pairs, 8 of them doubled)
 * hold 3 Hamiltonian cycles over distinct links, so NCCL's one channel per
 * link and direction gives 6 rings: each visits all 8 GPUs, consecutive
 * GPUs one NVLink apart, every ring's reverse among them, and no pair
 * carries more rings one way than it has links. */
static void
test_mesh_ring (void)
{
  g_autoptr (DpsTopo) d = shipped ("dgx1-v100", 1);
  const DpsTopoSpec *s = dps_topo_spec (d);
  g_assert_cmpint (dps_topo_n_rings (d), ==, 6);
  g_assert_true (dps_topo_ring (d, 0) == dps_topo_ring_order (d));
  int use[8][8] = { { 0 } }, links[DPS_ROUTE_MAX];
  for (int r = 0; r < 6; r++) {
    const int *ring = dps_topo_ring (d, r);
    int seen = 0;
    for (int i = 0; i < 8; i++) {
      seen |= 1 << ring[i];
      int n = dps_topo_route (d, ring[i], ring[(i + 1) % 8], links);
      g_assert_cmpint (n, ==, 1);
      g_assert_cmpint (dps_topo_link (d, links[0])->kind, ==, DPS_LINK_NVLINK);
      use[ring[i]][ring[(i + 1) % 8]]++;
    }
    g_assert_cmpint (seen, ==, 0xff);
  }
  for (int i = 0; i < s->n_mesh; i++) {
    g_assert_cmpint (use[s->mesh[i].a][s->mesh[i].b], <=, s->mesh[i].count);
    g_assert_cmpint (use[s->mesh[i].b][s->mesh[i].a], <=, s->mesh[i].count);
    g_assert_cmpint (use[s->mesh[i].a][s->mesh[i].b], ==, use[s->mesh[i].b][s->mesh[i].a]);
  }
  /* channels take the rings in turn */
  g_assert_true (dps_topo_ring (d, 7) == dps_topo_ring (d, 1));
  /* GPUs 0 and 5 share no NVLink: their route goes through the host */
  g_assert_cmpint (dps_topo_route (d, 0, 5, links), ==, 2);
  g_assert_cmpint (count_kind (d, links, 2, DPS_LINK_PCI), ==, 2);
  /* a switched node keeps one ring */
  g_autoptr (DpsTopo) h = shipped ("dgx-h100", 1);
  g_assert_cmpint (dps_topo_n_rings (h), ==, 1);
}

static const char *base =
  "[system]\n"                       /* 1 */
  "name = t\n"                       /* 2 */
  "gpus_per_node = 4\n"              /* 3 */
  "[gpu]\n"                          /* 4 */
  "model = g\n"                      /* 5 */
  "fp32_tflops = 10\n"               /* 6 */
  "memory_GB = 16\n"                 /* 7 */
  "memory_bw_GBps = 900\n"           /* 8 */
  "[intra]\n"                        /* 9 */
  "fabric = nvswitch\n"              /* 10 */
  "bw_GBps = 100\n"                  /* 11 */
  "[nic]\n"                          /* 12 */
  "count = 2\n"                      /* 13 */
  "bw_Gbps = 100\n"                  /* 14 */
  "gpus = 0,1;2,3\n";                /* 15 */

/* The base text is valid. */
static void
test_base_valid (void)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsTopoSpec) s = dps_topo_spec_load_data ("t.topo", base, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpint (s->gpus_per_node, ==, 4);
  g_assert_cmpfloat (s->nic_bw_Bps, ==, 100e9 / 8);
  g_assert_cmpint (s->gpu_nic[3], ==, 1);
}

/* Each malformed case is refused with the file, the line and what was
 * expected. */
static void
test_malformed (void)
{
  static const struct { const char *from, *to, *expect; } cases[] = {
    { "memory_GB = 16", "memory_GB = 16\ncolour = red", "t.topo:8: [gpu] colour: unknown key" },
    { "[gpu]\nmodel = g\nfp32_tflops = 10\nmemory_GB = 16\nmemory_bw_GBps = 900\n", "", "missing section [gpu]" },
    { "bw_GBps = 100", "bw_GBps = -100", "t.topo:11: [intra] bw_GBps: -100 is out of range" },
    { "gpus = 0,1;2,3", "gpus = 0,1;2,7", "t.topo:15: [nic] gpus: GPU 7 does not exist (the node has GPUs 0 to 3)" },
    { "fp32_tflops = 10", "fp32_tflops = ten", "t.topo:6: [gpu] fp32_tflops: expected a number, got 'ten'" },
    { "fp32_tflops = 10", "fp32_tflops = nan", "t.topo:6: [gpu] fp32_tflops: expected a number" },
    { "fp32_tflops = 10", "fp32_tflops = 1e400", "t.topo:6: [gpu] fp32_tflops: expected a number" },
    { "gpus_per_node = 4", "gpus_per_node = 0", "t.topo:3: [system] gpus_per_node: 0 is out of range" },
    { "fabric = nvswitch", "fabric = hypercube", "t.topo:10: [intra] fabric: unknown value 'hypercube'" },
    { "[nic]", "[nics]", "t.topo:12: [nics]: unknown section" },
    { "gpus = 0,1;2,3", "gpus = 0,1;1,3", "GPU 1 is attached to NIC 0 and NIC 1" },
    { "gpus = 0,1;2,3", "gpus = 0,1", "expected 2 entries" },
    { "gpus = 0,1;2,3", "gpus = 0,1;2", "GPU 3 uses no NIC" },
    { "name = t", "name = t\n[gpu]\nmodel = x", "group [gpu] appears twice" },
    { "bw_GBps = 100", "bw_GBps = 100\nnvls = maybe", "t.topo:12: [intra] nvls: expected true or false" },
    { "fabric = nvswitch", "fabric = nvlink-mesh\nlinks = 0-1;1-9", "[intra] links: GPU 9 does not exist" },
    { "fabric = nvswitch", "fabric = pcie\nswitches = 2", "[intra]: missing key uplink_GBps" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) e = NULL;
    g_assert_nonnull (strstr (base, cases[i].from));
    GString *t = g_string_new (base);
    g_string_replace (t, cases[i].from, cases[i].to, 1);
    g_autoptr (DpsTopoSpec) s = dps_topo_spec_load_data ("t.topo", t->str, -1, &e);
    g_string_free (t, TRUE);
    if (s)
      g_test_fail_printf ("case %zu was accepted", i);
    else if (!strstr (e->message, cases[i].expect))
      g_test_fail_printf ("case %zu: '%s' lacks '%s'", i, e->message, cases[i].expect);
  }
}

/* The GPU's generation, which picks NCCL's tuning rows (sim/tune.c):
 * [gpu] arch when given, else the known device the model names
 * (sim/device.c), else none (NCCL's Hopper rows then).  Every shipped
 * topology has one: the RTX 4090's by its key (Ada, no device row), the
 * DGX A100's from its model. */
static void
test_gpu_arch (void)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsTopoSpec) none = dps_topo_spec_load_data ("t.topo", base, -1, &e);
  g_assert_no_error (e);
  g_assert_null (dps_topo_spec_gpu_arch (none));
  GString *t = g_string_new (base);
  g_string_replace (t, "model = g", "model = NVIDIA A100-SXM4-80GB", 1);
  g_autoptr (DpsTopoSpec) named = dps_topo_spec_load_data ("t.topo", t->str, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpstr (dps_topo_spec_gpu_arch (named), ==, "ampere");
  g_string_replace (t, "model = NVIDIA A100-SXM4-80GB", "model = NVIDIA A100-SXM4-80GB\narch = blackwell", 1);
  g_autoptr (DpsTopoSpec) keyed = dps_topo_spec_load_data ("t.topo", t->str, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpstr (dps_topo_spec_gpu_arch (keyed), ==, "blackwell");
  /* FP8: twice bf16's dense rate on Blackwell (device.h), none on the
   * A100 named before; fp8_tflops given wins */
  g_assert_cmpfloat (keyed->gpu.fp8_flops, ==, 2 * keyed->gpu.peak_flops[DPS_DTYPE_BF16]);
  g_assert_cmpfloat (named->gpu.fp8_flops, ==, 0);
  g_string_replace (t, "arch = blackwell", "arch = blackwell\nfp8_tflops = 1234", 1);
  g_autoptr (DpsTopoSpec) fp8 = dps_topo_spec_load_data ("t.topo", t->str, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpfloat (fp8->gpu.fp8_flops, ==, 1234e12);
  g_string_replace (t, "\nfp8_tflops = 1234", "", 1);
  g_string_replace (t, "arch = blackwell", "arch = turing", 1);
  g_assert_null (dps_topo_spec_load_data ("t.topo", t->str, -1, &e));
  g_assert_nonnull (strstr (e->message, "t.topo:6: [gpu] arch: unknown value 'turing'"));
  g_string_free (t, TRUE);
  g_auto (GStrv) names = dps_topo_list_shipped ();
  for (int i = 0; names[i]; i++) {
    g_autoptr (GError) le = NULL;
    g_autofree char *path = dps_topo_find (names[i], &le);
    g_autoptr (DpsTopoSpec) s = path ? dps_topo_spec_load (path, &le) : NULL;
    g_assert_no_error (le);
    if (!dps_topo_spec_gpu_arch (s))
      g_test_fail_printf ("shipped topology %s: its GPU '%s' has no generation", names[i], s->gpu.model);
  }
  g_autofree char *rtx_path = dps_topo_find ("pcie-8x-rtx4090", NULL);
  g_autofree char *a100_path = dps_topo_find ("dgx-a100", NULL);
  g_autoptr (DpsTopoSpec) rtx = dps_topo_spec_load (rtx_path, NULL);
  g_assert_cmpstr (rtx->gpu_arch, ==, "ada");
  g_autoptr (DpsTopoSpec) a100 = dps_topo_spec_load (a100_path, NULL);
  g_assert_null (a100->gpu_arch);
  g_assert_cmpstr (dps_topo_spec_gpu_arch (a100), ==, "ampere");
}

/* A file that does not exist, or a directory, is an I/O error naming it. */
static void
test_bad_paths (void)
{
  g_autoptr (GError) e1 = NULL, e2 = NULL;
  g_assert_null (dps_topo_spec_load ("/nonexistent/x.topo", &e1));
  g_assert_nonnull (strstr (e1->message, "/nonexistent/x.topo"));
  g_assert_null (dps_topo_spec_load ("/tmp", &e2));
  g_assert_nonnull (strstr (e2->message, "is a directory"));
  /* a name that is neither a file nor shipped: the message names the
   * quantity (the command line makes it --topology) and lists the shipped */
  g_autoptr (GError) e3 = NULL;
  g_assert_null (dps_topo_find ("no-such-topology", &e3));
  g_assert_true (g_str_has_prefix (e3->message, "topology: no file 'no-such-topology' and no shipped topology"));
  g_assert_nonnull (strstr (e3->message, "dgx-h100"));
}

/* Instantiation refuses impossible sizes: 0 nodes, several nodes without
 * NICs, more GPUs than the limit. */
static void
test_bad_sizes (void)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsTopoSpec) s = dps_topo_spec_load_data ("t.topo", base, -1, &e);
  g_assert_null (dps_topo_new (s, 0, &e));
  g_assert_nonnull (strstr (e->message, "at least 1"));
  g_clear_error (&e);
  g_assert_null (dps_topo_new (s, DPS_TOPO_MAX_GPUS, &e));
  g_assert_error (e, DPS_ERROR, DPS_ERROR_LIMIT);
  g_clear_error (&e);
  s->n_nics = 0;
  g_assert_null (dps_topo_new (s, 2, &e));
  g_assert_nonnull (strstr (e->message, "without NICs"));
}

/* A log's GPUs against the shipped topologies' models, by the family words
 * of their names: NVIDIA's device names as nccl-tests' Rank lines print
 * them find the topologies with that GPU (GB200's is B200, so a B200 log
 * names the NVL72 racks too; an L40S has its suffix), and another family,
 * or none, is told apart. */
static void
test_gpu_family (void)
{
  static const struct { const char *device, *want; } cases[] = {
    { "NVIDIA H100 80GB HBM3", "aws-p5, dgx-h100, dgx-h100-oversub2, gcp-a3-high, gcp-a3-mega, pcie-8x-h100" },
    { "NVIDIA A100-SXM4-80GB", "aws-p4de, dgx-a100, jean-zay-a100, pcie-8gpu-2x100g" },
    { "Tesla V100-SXM2-32GB", "dgx1-v100, dgx2-v100, v100-mesh-1x100g" },
    { "NVIDIA GB200", "gb200-nvl72, gb200-nvl72-64" },
    { "NVIDIA B200", "gb200-nvl72, gb200-nvl72-64, hgx-b200" },
    { "NVIDIA GeForce RTX 4090", "pcie-8x-rtx4090" },
    { "NVIDIA L40S", "workstation-4gpu" },
    { "NVIDIA H20", NULL },
    { "AMD Instinct MI300X", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree char *got = dps_topo_shipped_for_gpu (cases[i].device);
    g_assert_cmpstr (got, ==, cases[i].want);
  }
  g_autoptr (GError) e = NULL;
  g_autofree char *path = dps_topo_find ("dgx-h100", &e);
  g_autoptr (DpsTopoSpec) h100 = dps_topo_spec_load (path, &e);
  g_assert_no_error (e);
  g_assert_true (dps_topo_gpu_differs (h100, "NVIDIA A100-SXM4-80GB"));
  g_assert_false (dps_topo_gpu_differs (h100, "NVIDIA H100 80GB HBM3"));
  g_assert_false (dps_topo_gpu_differs (h100, "some accelerator"));   /* no family: not told */
  g_assert_false (dps_topo_gpu_differs (h100, NULL));
}

/* Each network transport once (sim/net-transport.c): a name of its own,
 * which a topology's [nic] transport reads back to it, NULL-terminated in
 * the list the loader offers; EFA's RDMA and SENDRECV both send 8 KiB
 * eagerly (aws-ofi-nccl), SENDRECV's read protocol crosses three times. */
static void
test_transports (void)
{
  const char *const *names = dps_net_transport_names ();
  for (int t = 0; t < DPS_NET_TRANSPORTS; t++) {
    g_assert_nonnull (names[t]);
    g_assert_cmpstr (names[t], ==, dps_net_transport_name ((DpsNetTransport) t));
    for (int u = 0; u < t; u++)
      g_assert_cmpstr (names[u], !=, names[t]);
    g_autofree char *text = g_strdup_printf (
      "[system]\nname = t\ngpus_per_node = 8\n"
      "[gpu]\nmodel = g\nbf16_tflops = 100\nfp32_tflops = 10\nmemory_GB = 80\nmemory_bw_GBps = 1000\n"
      "[intra]\nfabric = nvswitch\nbw_GBps = 400\npcie_GBps = 32\n"
      "[nic]\ncount = 8\nbw_Gbps = 400\ngpus = 0;1;2;3;4;5;6;7\ntransport = %s\n", names[t]);
    g_autoptr (GError) e = NULL;
    g_autoptr (DpsTopoSpec) s = dps_topo_spec_load_data ("t.topo", text, -1, &e);
    g_assert_no_error (e);
    g_assert_cmpint (s->net_transport, ==, t);
  }
  g_assert_null (names[DPS_NET_TRANSPORTS]);
  g_assert_cmpfloat (dps_net_transport_eager_bytes (DPS_NET_EFA), ==, 8192);
  g_assert_cmpfloat (dps_net_transport_eager_bytes (DPS_NET_EFA_SENDRECV), ==, 8192);
  g_assert_cmpint (dps_net_transport_crossings (DPS_NET_EFA_SENDRECV), ==, 3);
  g_assert_cmpint (dps_net_transport_crossings (DPS_NET_IB), ==, 2);
}

/* Shipped prices (#45): the topologies of the clouds and GPU clouds that
 * publish an on-demand price carry it, and every price's comment pins its
 * source, a repository file at a commit (40 hex digits) or a dated page
 * (YYYY-MM-DD).  Nine of them today. */
static void
test_prices (void)
{
  g_auto (GStrv) names = dps_topo_list_shipped ();
  g_autoptr (GRegex) pin = g_regex_new ("[0-9a-f]{40}|[0-9]{4}-[0-9]{2}-[0-9]{2}", 0, 0, NULL);
  int priced = 0;
  for (int i = 0; names[i]; i++) {
    g_autoptr (DpsTopoSpec) s = test_shipped_spec (names[i]);
    if (!(s->price_per_gpu_hour_usd > 0))
      continue;
    priced++;
    g_autofree char *path = dps_topo_find (names[i], NULL);
    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    /* the comment lines right above the key */
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    int k = 0;
    while (lines[k] && !g_str_has_prefix (lines[k], "price_per_gpu_hour_usd"))
      k++;
    g_assert_nonnull (lines[k]);
    g_autoptr (GString) comment = g_string_new (NULL);
    for (int j = k - 1; j >= 0 && lines[j][0] == '#'; j--)
      g_string_prepend (comment, lines[j]);
    if (!g_regex_match (pin, comment->str, 0, NULL))
      g_test_fail_printf ("%s: its price's comment pins no source: '%s'", names[i], comment->str);
  }
  g_assert_cmpint (priced, >=, 9);
}

/* Both rank orders (sim/layout.h): every (tensor index, stage, replica)
 * a rank of its own, covering 0..n-1, tensor index r mod tp; tp-pp-dp
 * stage (r / tp) mod pp and replica r / (tp pp), tp-dp-pp replica (r / tp)
 * mod dp and stage r / (tp dp). */
static void
test_layout_order (void)
{
  for (int o = 0; o < DPS_ORDERS; o++) {
    DpsLayout l = { 8, 4, 2, (DpsRankOrder) o };
    int n = l.tp * l.pp * l.dp;
    g_autofree gboolean *seen = g_new0 (gboolean, n);
    for (int d = 0; d < l.dp; d++)
      for (int s = 0; s < l.pp; s++)
        for (int t = 0; t < l.tp; t++) {
          int r = dps_layout_rank (&l, t, s, d);
          g_assert_cmpint (r, >=, 0);
          g_assert_cmpint (r, <, n);
          g_assert_false (seen[r]);
          seen[r] = TRUE;
          g_assert_cmpint (r % l.tp, ==, t);
          if (o == DPS_ORDER_TP_PP_DP) {
            g_assert_cmpint (r / l.tp % l.pp, ==, s);
            g_assert_cmpint (r / (l.tp * l.pp), ==, d);
          } else {
            g_assert_cmpint (r / l.tp % l.dp, ==, d);
            g_assert_cmpint (r / (l.tp * l.dp), ==, s);
          }
        }
  }
}

/* Where the groups land.  Megatron's docstring (megatron/core/
 * parallel_state.py, initialize_model_parallel): 16 GPUs, tp 2, pp 4 (so
 * dp 2) make data-parallel groups [g0, g2], [g1, g3], ... and pipelines
 * [g0, g4, g8, g12]: on nodes of 8 a data-parallel group inside one node
 * (1 node, 2 GPUs), a pipeline over 2 nodes, 2 GPUs on each, crossing
 * between g4 and g8.  In tp-pp-dp on the same nodes the pipeline [g0, g2,
 * g4, g6] stays in node 0 and the data-parallel group [g0, g8] spans 2.  A
 * tensor-parallel group of 16 on nodes of 8: 2 nodes, 8 each. */
static void
test_layout_span (void)
{
  int nn, per;
  gboolean cross;
  DpsLayout meg = { 2, 4, 2, DPS_ORDER_TP_DP_PP }, alt = { 2, 4, 2, DPS_ORDER_TP_PP_DP };
  g_assert_cmpint (dps_layout_rank (&meg, 0, 0, 1), ==, 2);
  g_assert_cmpint (dps_layout_rank (&meg, 0, 1, 0), ==, 4);
  dps_layout_group_span (&meg, DPS_GROUP_DP, 8, &nn, &per, NULL);
  g_assert_cmpint (nn, ==, 1);
  g_assert_cmpint (per, ==, 2);
  dps_layout_group_span (&meg, DPS_GROUP_PP, 8, &nn, &per, &cross);
  g_assert_cmpint (nn, ==, 2);
  g_assert_cmpint (per, ==, 2);
  g_assert_true (cross);
  dps_layout_group_span (&alt, DPS_GROUP_PP, 8, &nn, &per, &cross);
  g_assert_cmpint (nn, ==, 1);
  g_assert_cmpint (per, ==, 4);
  g_assert_false (cross);
  dps_layout_group_span (&alt, DPS_GROUP_DP, 8, &nn, &per, NULL);
  g_assert_cmpint (nn, ==, 2);
  g_assert_cmpint (per, ==, 1);
  DpsLayout wide = { 16, 1, 2, DPS_ORDER_TP_DP_PP };
  dps_layout_group_span (&wide, DPS_GROUP_TP, 8, &nn, &per, NULL);
  g_assert_cmpint (nn, ==, 2);
  g_assert_cmpint (per, ==, 8);
  DpsRankOrder o;
  g_assert_true (dps_rank_order_parse ("TP-PP-DP", &o) && o == DPS_ORDER_TP_PP_DP);
  g_assert_false (dps_rank_order_parse ("dp-tp-pp", &o));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/topo/shipped", test_shipped);
  g_test_add_func ("/topo/transports", test_transports);
  g_test_add_func ("/topo/prices", test_prices);
  g_test_add_func ("/topo/layout-order", test_layout_order);
  g_test_add_func ("/topo/layout-span", test_layout_span);
  g_test_add_func ("/topo/sizes", test_sizes);
  g_test_add_func ("/topo/bisection", test_bisection);
  g_test_add_func ("/topo/bisection-oversubscribed", test_oversubscribed_bisection);
  g_test_add_func ("/topo/routes", test_routes);
  g_test_add_func ("/topo/mesh-ring", test_mesh_ring);
  g_test_add_func ("/topo/load/base-valid", test_base_valid);
  g_test_add_func ("/topo/load/malformed", test_malformed);
  g_test_add_func ("/topo/load/bad-paths", test_bad_paths);
  g_test_add_func ("/topo/load/gpu-arch", test_gpu_arch);
  g_test_add_func ("/topo/load/gpu-family", test_gpu_family);
  g_test_add_func ("/topo/bad-sizes", test_bad_sizes);
  return g_test_run ();
}
