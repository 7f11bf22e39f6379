/* cli-topo.c — `dpscale topo`: check a topology file and describe the
 * cluster it makes for a node count. */
#include "sim/app/cli.h"
#include "sim/app/cli-util.h"
#include "sim/topo-load.h"
#include "sim/layout.h"
#include "sim/tune.h"
#include "sim/base/error.h"
#include "sim/base/json-util.h"

#include <math.h>

#include <stdio.h>

/* A class of directed links: their kind, ends and figures, and how many. */
typedef struct {
  const char *kind, *from, *to;
  double      bw_Bps, latency_s;
  int         count;
} LinkClass;

/* The directed links grouped by (kind, source kind, destination kind,
 * bandwidth, latency), in the order first met (a new array). */
static GArray *
link_classes (const DpsTopo *t)
{
  GArray *classes = g_array_new (FALSE, FALSE, sizeof (LinkClass));
  g_autoptr (GHashTable) at = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (int l = 0; l < dps_topo_n_links (t); l++) {
    const DpsLink *lk = dps_topo_link (t, l);
    const DpsVertex *a = dps_topo_vertex (t, lk->src), *b = dps_topo_vertex (t, lk->dst);
    LinkClass c = { dps_link_kind_name (lk->kind), dps_vertex_kind_name (a->kind), dps_vertex_kind_name (b->kind),
                    lk->bw_Bps, lk->latency_s, 1 };
    char *key = g_strdup_printf ("%s %s %s %.17g %.17g", c.kind, c.from, c.to, c.bw_Bps, c.latency_s);
    gpointer i = g_hash_table_lookup (at, key);
    if (i) {
      g_array_index (classes, LinkClass, GPOINTER_TO_UINT (i) - 1).count++;
      g_free (key);
    } else {
      g_array_append_val (classes, c);
      g_hash_table_insert (at, key, GUINT_TO_POINTER (classes->len));
    }
  }
  return classes;
}

static void
describe_link_counts (GString *out, const DpsTopo *t)
{
  g_autoptr (GArray) classes = link_classes (t);
  g_string_append (out, "links (directed; each physical link is one each way):\n");
  g_string_append_printf (out, "  %-6s %-11s    %-11s %15s %11s %8s\n", "kind", "from", "to",
                          "bandwidth", "latency", "count");
  for (guint i = 0; i < classes->len; i++) {
    const LinkClass *c = &g_array_index (classes, LinkClass, i);
    g_string_append_printf (out, "  %-6s %-11s -> %-11s %10.1f GB/s %8.2f us %8d\n", c->kind, c->from, c->to,
                            c->bw_Bps / 1e9, c->latency_s * 1e6, c->count);
  }
}

/* --format csv: the link classes, one row each. */
static void
links_csv (GString *out, const DpsTopo *t)
{
  g_autoptr (GArray) classes = link_classes (t);
  g_string_append (out, "kind,from,to,bandwidth_GBps,latency_us,count\n");
  for (guint i = 0; i < classes->len; i++) {
    const LinkClass *c = &g_array_index (classes, LinkClass, i);
    g_string_append_printf (out, "%s,%s,%s,%.6g,%.6g,%d\n", c->kind, c->from, c->to, c->bw_Bps / 1e9,
                            c->latency_s * 1e6, c->count);
  }
}

/* --format json: what the table says, as numbers with units in their
 * names. */
static void
describe_json (GString *out, const DpsTopo *t, int used)
{
  const DpsTopoSpec *s = dps_topo_spec (t);
  int k = s->gpus_per_node, N = dps_topo_n_nodes (t);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  dps_json_str (b, "name", s->name);
  dps_json_str (b, "path", s->path);
  dps_json_int (b, "nodes", N);
  dps_json_int (b, "gpus_per_node", k);
  dps_json_int (b, "gpus", dps_topo_n_gpus (t));
  dps_json_int (b, "gpus_in_use", used > 0 && used < dps_topo_n_gpus (t) ? used : dps_topo_n_gpus (t));
  json_builder_set_member_name (b, "gpu");
  json_builder_begin_object (b);
  dps_json_str (b, "model", s->gpu.model);
  dps_json_str (b, "arch", dps_topo_spec_gpu_arch (s));
  for (int d = 0; d < DPS_DTYPE_COUNT; d++) {
    g_autofree char *key = g_strdup_printf ("%s_flops", dps_dtype_name ((DpsDtype) d));
    dps_json_num (b, key, s->gpu.peak_flops[d]);
  }
  dps_json_num (b, "memory_bytes", s->gpu.memory_bytes);
  dps_json_num (b, "memory_bw_Bps", s->gpu.memory_bw_Bps);
  json_builder_end_object (b);
  dps_json_str (b, "intra", dps_intra_kind_name (s->intra));
  dps_json_bool (b, "nvls", s->nvls);
  dps_json_int (b, "nics", s->n_nics);
  dps_json_num (b, "nic_bw_Bps", s->n_nics ? s->nic_bw_Bps : NAN);
  dps_json_str (b, "transport", s->n_nics ? dps_net_transport_name (s->net_transport) : NULL);
  dps_json_str (b, "fabric", dps_fabric_kind_name (s->fabric));
  dps_json_bool (b, "sharp", s->sharp);
  dps_json_int (b, "channels", s->channels);
  int one = dps_tune_nvswitch_channels (s);   /* NCCL's search on an NVSwitch node's NVLinks, 0 elsewhere */
  dps_json_int (b, "channels_one_node", one > 0 ? one : s->channels);
  dps_json_num (b, "price_per_gpu_hour_usd", s->price_per_gpu_hour_usd > 0 ? s->price_per_gpu_hour_usd : NAN);
  json_builder_set_member_name (b, "bandwidth_Bps");
  json_builder_begin_object (b);
  dps_json_num (b, "gpu_into_node", dps_topo_gpu_intra_bw_Bps (t));
  dps_json_num (b, "node_into_network", s->n_nics ? s->n_nics * s->nic_bw_Bps : NAN);
  dps_json_num (b, "leaf_to_spine", dps_topo_leaf_uplink_Bps (t) > 0 ? dps_topo_leaf_uplink_Bps (t) : NAN);
  dps_json_num (b, "bisection", dps_topo_bisection_Bps (t));
  json_builder_end_object (b);
  g_autoptr (GArray) classes = link_classes (t);
  json_builder_set_member_name (b, "links");
  json_builder_begin_array (b);
  for (guint i = 0; i < classes->len; i++) {
    const LinkClass *c = &g_array_index (classes, LinkClass, i);
    json_builder_begin_object (b);
    dps_json_str (b, "kind", c->kind);
    dps_json_str (b, "from", c->from);
    dps_json_str (b, "to", c->to);
    dps_json_num (b, "bandwidth_Bps", c->bw_Bps);
    dps_json_num (b, "latency_s", c->latency_s);
    dps_json_int (b, "count", c->count);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);
  dps_json_append (out, b);
}

/* used: the GPUs asked for (--gpus), fewer than the nodes hold, or 0 */
static void
describe (GString *out, const DpsTopo *t, gboolean all_links, int used)
{
  const DpsTopoSpec *s = dps_topo_spec (t);
  int k = s->gpus_per_node, N = dps_topo_n_nodes (t);
  g_string_append_printf (out, "%s (%s)\n", s->name, s->path ? s->path : "built in");
  if (s->description && s->description[0])
    g_string_append_printf (out, "  %s\n", s->description);
  g_string_append_printf (out, "%d node%s x %d GPUs = %d GPUs", N, N > 1 ? "s" : "", k, dps_topo_n_gpus (t));
  if (used > 0 && used < dps_topo_n_gpus (t))
    g_string_append_printf (out, ", %d of them in use (--gpus)", used);
  g_string_append (out, "\n\n");
  g_string_append_printf (out, "GPU            %s: %.0f TFLOP/s bf16, %.0f fp16, %.0f tf32, %.1f fp32; "
                          "%.0f GB at %.0f GB/s\n", s->gpu.model,
                          s->gpu.peak_flops[DPS_DTYPE_BF16] / 1e12, s->gpu.peak_flops[DPS_DTYPE_FP16] / 1e12,
                          s->gpu.peak_flops[DPS_DTYPE_TF32] / 1e12, s->gpu.peak_flops[DPS_DTYPE_FP32] / 1e12,
                          s->gpu.memory_bytes / 1e9, s->gpu.memory_bw_Bps / 1e9);
  const char *arch = dps_topo_spec_gpu_arch (s);
  if (arch)
    g_string_append_printf (out, "architecture   %s%s\n", arch, s->gpu_arch ? "" : " (from the model's name)");
  else {
    g_autofree char *names = g_strjoinv (", ", (char **) dps_gpu_arch_names);
    g_string_append_printf (out, "architecture   not known from the model's name: NCCL's Hopper tables are used "
                            "([gpu] arch, one of %s, to say)\n", names);
  }
  g_string_append_printf (out, "inside a node  %s", dps_intra_kind_name (s->intra));
  if (s->intra == DPS_INTRA_NVLINK_MESH)
    g_string_append_printf (out, ", %d GPU pairs linked, %.1f GB/s per NVLink", s->n_mesh, s->intra_bw_Bps / 1e9);
  if (s->intra == DPS_INTRA_PCIE)
    g_string_append_printf (out, ", %d switch%s", s->pcie_switches, s->pcie_switches > 1 ? "es" : "");
  g_string_append_printf (out, "%s\n", s->nvls ? ", NVLS (in-switch reduction)" : "");
  g_string_append (out, "ring order     ");
  for (int i = 0; i < k && i < 32; i++)
    g_string_append_printf (out, "%s%d", i ? " " : "", dps_topo_ring_order (t)[i]);
  g_string_append (out, k > 32 ? " ...\n" : "\n");
  if (s->n_nics) {
    g_string_append_printf (out, "NICs           %d x %.1f GB/s reachable each; GPU -> NIC:", s->n_nics,
                            s->nic_bw_Bps / 1e9);
    for (int g = 0; g < k && g < 16; g++)
      g_string_append_printf (out, " %d:%d", g, s->gpu_nic[g]);
    g_string_append (out, k > 16 ? " ...\n" : "\n");
  } else {
    g_string_append (out, "NICs           none (a single machine)\n");
  }
  g_string_append_printf (out, "between nodes  %s", dps_fabric_kind_name (s->fabric));
  if (s->fabric != DPS_FABRIC_SWITCH)
    g_string_append_printf (out, ", %d nodes per leaf, oversubscription %.3g:1", s->nodes_per_leaf,
                            s->oversubscription);
  if (N > 1)
    g_string_append_printf (out, ", %d leaf switch%s", dps_topo_n_leaves (t), dps_topo_n_leaves (t) == 1 ? "" : "es");
  if (s->sharp)
    g_string_append (out, "; the switches reduce (SHARP: CollNet with NCCL_COLLNET_ENABLE=1)");
  g_string_append (out, "\n");
  int one = dps_tune_nvswitch_channels (s);   /* NCCL's search on an NVSwitch node's NVLinks, 0 elsewhere */
  if (one > 0)
    g_string_append_printf (out, "NCCL channels  %d across nodes, %d inside one node\n", s->channels, one);
  else
    g_string_append_printf (out, "NCCL channels  %d\n", s->channels);
  if (s->price_per_gpu_hour_usd > 0)   /* the file's comment says whose and when */
    g_string_append_printf (out, "price          %.2f USD a GPU-hour, on demand (the file names its source; "
                            "--price-per-gpu-hour overrides)\n", s->price_per_gpu_hour_usd);
  g_string_append_c (out, '\n');

  g_string_append (out, "bandwidth per level (GB/s, per direction):\n");
  g_string_append_printf (out, "  %-38s %10.1f\n", "one GPU into its node's fabric", dps_topo_gpu_intra_bw_Bps (t) / 1e9);
  if (s->n_nics) {
    g_string_append_printf (out, "  %-38s %10.1f\n", "one node into the network", s->n_nics * s->nic_bw_Bps / 1e9);
    g_string_append_printf (out, "  %-38s %10.1f\n", "  per GPU", s->n_nics * s->nic_bw_Bps / 1e9 / k);
  }
  if (dps_topo_leaf_uplink_Bps (t) > 0)
    g_string_append_printf (out, "  %-38s %10.1f\n", "one leaf switch to the spine", dps_topo_leaf_uplink_Bps (t) / 1e9);
  g_string_append_printf (out, "  %-38s %10.1f\n", N > 1 ? "bisection (half the nodes to the rest)"
                                                         : "bisection (half the GPUs to the rest)",
                          dps_topo_bisection_Bps (t) / 1e9);
  g_string_append_printf (out, "\ngraph: %d vertices, %d directed links\n", dps_topo_n_vertices (t),
                          dps_topo_n_links (t));
  describe_link_counts (out, t);
  if (all_links) {
    g_string_append (out, "\nevery link:\n");
    for (int l = 0; l < dps_topo_n_links (t); l++) {
      const DpsLink *lk = dps_topo_link (t, l);
      const DpsVertex *a = dps_topo_vertex (t, lk->src), *b = dps_topo_vertex (t, lk->dst);
      g_string_append_printf (out, "  %6d  %s %d.%d -> %s %d.%d  %.1f GB/s\n", l, dps_vertex_kind_name (a->kind),
                              a->node, a->index, dps_vertex_kind_name (b->kind), b->node, b->index, lk->bw_Bps / 1e9);
    }
  }
}

/* The machine prof calibrated, as a topology of its own nodes (NULL for a
 * profile of imported logs, which describes no machine); --nodes and
 * --gpus (0: not given) do not apply to it (a note says so). */
static DpsTopoSpec *
calibrated_machine (const DpsProfile *prof, int nodes, int gpus)
{
  if (prof->machine_ranks <= 0)
    return NULL;
  if (nodes > 0 || gpus > 0)
    dps_cli_note ("topo: --nodes and --gpus do not apply to a calibrated machine: shown as measured");
  /* machine_ranks: the most ranks measured, over all its (emulated) nodes */
  return dps_profile_machine_spec (prof, prof->machine_ranks, MAX (prof->machine_nodes, 1));
}

int
dps_cmd_topo (int argc, char **argv)
{
  char *topology = NULL;
  g_autofree char *calibration = NULL;
  int nodes = DPS_UNSET_INT, gpus = DPS_UNSET_INT, tp = DPS_UNSET_INT, pp = DPS_UNSET_INT;
  gboolean list = FALSE, all_links = FALSE;
  g_autofree char *format_s = NULL, *order_s = NULL;
  GOptionEntry entries[] = {
    { "topology", 't', 0, G_OPTION_ARG_STRING, &topology, "Topology file or shipped name (default dgx-h100)", "NAME|FILE" },
    { "nodes", 0, 0, G_OPTION_ARG_INT, &nodes, "Number of nodes (default 1; was -n)", "N" },
    { "gpus", 'g', 0, G_OPTION_ARG_INT, &gpus, "Number of GPUs (instead of --nodes)", "G" },
    { "links", 0, 0, G_OPTION_ARG_NONE, &all_links, "List every directed link", NULL },
    { "tp", 0, 0, G_OPTION_ARG_INT, &tp, "With --pp: where a layout's groups land; tensor parallel GPUs a group (default 1)", "T" },
    { "pp", 0, 0, G_OPTION_ARG_INT, &pp, "Pipeline stages (default 1); data parallel over the rest of the GPUs", "P" },
    { "rank-order", 0, 0, G_OPTION_ARG_STRING, &order_s, DPS_CLI_RANK_ORDER_HELP, "ORDER" },
    { "list", 'l', 0, G_OPTION_ARG_NONE, &list, "List the shipped topologies", NULL },
    { "calibration", 'C', 0, G_OPTION_ARG_FILENAME, &calibration, "Show a profile's fitted network figures beside the topology's", "FILE" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_s, "table (default), csv (the link classes) or json (the description and its link classes)", "FMT" },
    G_OPTION_ENTRY_NULL
  };
  GError *error = NULL;
  dps_cli_deprecated ("topo", dps_cli_nodes_alias, argc, argv);
  if (!dps_cli_parse ("topo", "A topology file describes one kind of node and the network between nodes;\n"
                      "the node count is given here.  FILE may be a path or a shipped name.",
                      entries, &argc, &argv, &error))
    return dps_cli_fail ("topo", error);
  g_autofree char *positional = argc > 1 ? g_strdup (argv[1]) : NULL;
  if (argc > 2 || (positional && topology)) {
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option: give one topology (FILE or --topology)");
    return dps_cli_fail ("topo", error);
  }
  DpsFormat format;
  if (!dps_cli_int_given ("--nodes", &nodes, 0, &error)
      || !dps_cli_int_given ("--gpus", &gpus, 0, &error) || !dps_cli_format (format_s, &format, &error))
    return dps_cli_fail ("topo", error);
  gboolean layout = tp != DPS_UNSET_INT || pp != DPS_UNSET_INT;
  DpsRankOrder order;
  if (!dps_cli_int_given ("--tp", &tp, 1, &error) || !dps_cli_int_given ("--pp", &pp, 1, &error)
      || !dps_cli_rank_order (order_s, layout, &order, &error))
    return dps_cli_fail ("topo", error);
  if (format != DPS_FORMAT_TABLE && (calibration || all_links || list || layout)) {
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--format: %s with a topology's description alone, not with "
                 "--calibration, --links, --list, --tp or --pp", format == DPS_FORMAT_CSV ? "csv" : "json");
    return dps_cli_fail ("topo", error);
  }
  if (list && (positional || topology || calibration || all_links || nodes || gpus)) {
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--list: lists the shipped topologies, with no other topology, "
                 "--calibration, --links, --nodes or --gpus");
    return dps_cli_fail ("topo", error);
  }
  if (list) {
    g_auto (GStrv) names = dps_topo_list_shipped ();
    for (int i = 0; names[i]; i++) {
      g_autofree char *file = g_strconcat (names[i], ".topo", NULL);
      g_autofree char *p = dps_data_path ("topologies", file);
      g_autoptr (DpsTopoSpec) s = p ? dps_topo_spec_load (p, NULL) : NULL;
      printf ("%-22s %s\n", names[i], s ? s->name : "(does not load: run dpscale topo on it)");
    }
    return 0;
  }
  int n_gpus;
  g_autoptr (DpsProfile) prof = calibration ? dps_profile_load (calibration, &error) : NULL;
  if (calibration && !prof)
    return dps_cli_fail ("topo", error);
  const char *name = positional ? positional : topology;
  if (!name && prof && prof->net_topology)
    name = prof->net_topology;   /* the topology its figures scale */
  /* a profile of this machine (no cluster named in it): the machine as it
   * calibrated it, the datasheet its network fit scales */
  g_autoptr (DpsTopoSpec) machine = !name && prof && !prof->net_topology ? calibrated_machine (prof, nodes, gpus) : NULL;
  g_autoptr (DpsTopo) t = machine ? dps_topo_new (machine, MAX (prof->machine_nodes, 1), &error)
                                  : dps_cli_topology (name, nodes, gpus, &n_gpus, &error);
  g_free (topology);
  if (!t)
    return dps_cli_fail ("topo", error);
  g_autoptr (GString) out = g_string_new (NULL);
  if (format == DPS_FORMAT_CSV)
    links_csv (out, t);
  else if (format == DPS_FORMAT_JSON)
    describe_json (out, t, machine ? 0 : n_gpus);
  else
    describe (out, t, all_links, machine ? 0 : n_gpus);
  if (layout) {
    /* the GPUs asked for (--gpus), as predict lays them out, not the whole
     * nodes that hold them */
    int n = machine ? dps_topo_n_gpus (t) : n_gpus;
    if (n % (tp * pp) != 0) {
      g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--tp/--pp: tp %d x pp %d does not divide the %d GPUs", tp, pp,
                   n);
      return dps_cli_fail ("topo", error);
    }
    DpsLayout l = { tp, pp, n / (tp * pp), order };
    const DpsTopoSpec *s = dps_topo_spec (t);
    g_string_append_c (out, '\n');
    dps_layout_describe (out, &l, s->gpus_per_node, 4);
    /* a kind's groups run their collectives (the pipeline its sends) at
     * once, so those crossing nodes share the node's NICs (as predict
     * prices each group beside its siblings, sim/coll.c) */
    gboolean across = FALSE;
    for (int kind = DPS_GROUP_TP; kind <= DPS_GROUP_DP; kind++) {
      int spans, per;
      gboolean p2p = FALSE;
      dps_layout_group_span (&l, (DpsGroupKind) kind, s->gpus_per_node, &spans, &per, &p2p);
      across |= spans > 1 || p2p;
    }
    int busy = MIN (n, s->gpus_per_node);
    if (across && s->n_nics > 0)
      g_string_append_printf (out, "  across nodes             a node's %d GPUs share its %d NIC%s (%.1f GB/s each way): "
                              "%.1f GB/s a GPU while a kind's groups cross at once\n", busy, s->n_nics,
                              s->n_nics == 1 ? "" : "s", s->nic_bw_Bps / 1e9,
                              s->nic_bw_Bps * MIN (s->n_nics, busy) / busy / 1e9);
  }
  if (prof) {
    g_string_append_c (out, '\n');
    dps_cli_network_table (out, prof, dps_topo_spec (t));
  }
  dps_cli_emit (NULL, out, NULL);
  return 0;
}
