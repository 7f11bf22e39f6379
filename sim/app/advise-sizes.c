/* advise-sizes.c — see advise-sizes.h. */
#include "sim/app/advise-sizes.h"
#include "sim/app/ddp-setup.h"
#include "sim/base/json-util.h"

typedef DpsAdviseCandidate Candidate;

/* For each GPU count of sizes, the plans at the global batch of base
 * (each on a topology of that size, from pristine: the options before
 * one was set up), the fastest that fits kept. */
GArray *
dps_advise_search_sizes (const DpsDdpOpts *o, const DpsDdpConfig *pristine, double global_batch, const DpsProfile *profile,
              DpsModel *model, const GArray *sizes, GError **error)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (DpsAdviseSizeBest));
  for (guint i = 0; i < sizes->len; i++) {
    DpsAdviseSizeBest sb = { .gpus = (int) g_array_index (sizes, gint64, i) };
    DpsDdpConfig c = *pristine;
    c.global_batch = 0;
    g_autoptr (DpsTopo) topo = NULL;
    if (!dps_ddp_setup (o->topology, profile, model, 0, sb.gpus, &c, &topo, error))
      break;
    GArray *plans = dps_advise_search_plans (&c, (int) (global_batch / sb.gpus), &sb.tried);
    sb.fit = (int) plans->len;
    if (plans->len) {
      sb.found = TRUE;
      sb.best = g_array_index (plans, Candidate, 0);
    }
    for (guint k = sb.found ? 1 : 0; k < plans->len; k++)
      dps_ddp_result_clear (&g_array_index (plans, Candidate, k).r);
    g_array_free (plans, TRUE);
    g_array_append_val (out, sb);
  }
  return out;
}

/* The fastest and the cheapest (per sample) of the sizes' best plans:
 * indices into sizes, -1 when none fits. */
void
dps_advise_fastest_cheapest (const GArray *sizes, int *fastest, int *cheapest)
{
  *fastest = *cheapest = -1;
  for (guint i = 0; i < sizes->len; i++) {
    const DpsAdviseSizeBest *sb = &g_array_index (sizes, DpsAdviseSizeBest, i);
    if (!sb->found)
      continue;
    if (*fastest < 0 || sb->best.r.samples_per_s > g_array_index (sizes, DpsAdviseSizeBest, *fastest).best.r.samples_per_s)
      *fastest = (int) i;
    /* per sample: GPU-seconds a sample, price aside (the same for every size of one topology) */
    double gs = sb->gpus / sb->best.r.samples_per_s;
    if (*cheapest < 0 || gs < g_array_index (sizes, DpsAdviseSizeBest, *cheapest).gpus
                                   / g_array_index (sizes, DpsAdviseSizeBest, *cheapest).best.r.samples_per_s)
      *cheapest = (int) i;
  }
}

/* The sizes' table: each size's fastest plan, the fastest and the
 * cheapest marked, and what the one costs against the other. */
void
dps_advise_report_sizes (GString *out, DpsFormat format, const DpsModel *model, const DpsDdpConfig *base, double global_batch,
              const GArray *sizes)
{
  int fastest, cheapest;
  dps_advise_fastest_cheapest (sizes, &fastest, &cheapest);
  double price = base->price_per_gpu_hour;
  int w = 28;   /* the plan column: as wide as the longest name */
  for (guint i = 0; i < sizes->len; i++)
    if (g_array_index (sizes, DpsAdviseSizeBest, i).found)
      w = dps_advise_plan_width (w, &g_array_index (sizes, DpsAdviseSizeBest, i).best);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  if (format == DPS_FORMAT_CSV)
    g_string_append (out, "gpus,best,strategy,tp,pp,vpp,checkpoint,flash_attention,offload,micro_batch,grad_accum,step_s,"
                          "samples_per_s,samples_per_s_per_gpu,gpu_s_per_sample,usd_per_Msample,memory_GB,"
                          "plans_fit,plans_simulated,plan\n");
  else if (format == DPS_FORMAT_JSON)
    json_builder_begin_array (b);
  else {
    g_string_append_printf (out, "dpscale advise: %s on %s at %u cluster sizes, global batch %g held, analytical "
                            "network model\n\n", model->name, dps_topo_spec (base->topo)->gpu.model, sizes->len,
                            global_batch);
    g_string_append_printf (out, "%-9s %6s %-*s %13s %10s %12s %9s %10s %12s %8s\n", "", "gpus", w, "fastest plan that fits",
                            "micro x accum", "step_ms", "samples/s", "per_GPU", "GPU_s/ksample", "usd/Msample", "mem_GB");
  }
  for (guint i = 0; i < sizes->len; i++) {
    const DpsAdviseSizeBest *sb = &g_array_index (sizes, DpsAdviseSizeBest, i);
    const Candidate *cd = &sb->best;
    const char *mark = (int) i == fastest && (int) i == cheapest ? "both" : (int) i == fastest ? "fastest"
                       : (int) i == cheapest ? "cheapest" : "";
    double per_gpu = sb->found ? cd->r.samples_per_s / sb->gpus : 0, gs = sb->found ? sb->gpus / cd->r.samples_per_s : 0;
    if (format == DPS_FORMAT_CSV) {
      g_string_append_printf (out, "%d,%s,", sb->gpus, mark);
      if (sb->found) {
        g_string_append_printf (out, "%s,%d,%d,%d,%d,%d,%s,%d,%d,", dps_strategy_name (cd->strategy), MAX (cd->tp, 1),
                                MAX (cd->pp, 1), MAX (cd->vpp, 1), cd->ckpt, cd->flash, dps_offload_name (cd->r.offload),
                                cd->micro, cd->accum);
        double v[] = { cd->r.step_mean_s, cd->r.samples_per_s, per_gpu, gs };
        for (gsize k = 0; k < G_N_ELEMENTS (v); k++) {
          dps_csv_num (out, v[k], TRUE);
          g_string_append_c (out, ',');
        }
        dps_csv_num (out, cd->r.cost_per_msample, price > 0);
        g_string_append_c (out, ',');
        dps_csv_num (out, cd->r.memory.total / 1e9, TRUE);
      } else
        g_string_append (out, ",,,,,,,,,,,,,,");
      g_autofree char *name = sb->found ? dps_advise_plan_name (cd) : g_strdup ("");
      g_string_append_printf (out, ",%d,%d,%s\n", sb->fit, sb->tried, name);
      continue;
    }
    if (format == DPS_FORMAT_JSON) {
      json_builder_begin_object (b);
      dps_json_int (b, "gpus", sb->gpus);
      dps_json_str (b, "best", mark);
      dps_json_bool (b, "fits", sb->found);
      if (sb->found) {
        dps_advise_plan_json (b, cd, TRUE);
        dps_json_int (b, "micro_batch", cd->micro);
        dps_json_int (b, "grad_accum", cd->accum);
        dps_json_num (b, "step_s", cd->r.step_mean_s);
        dps_json_num (b, "samples_per_s", cd->r.samples_per_s);
        dps_json_num (b, "samples_per_s_per_gpu", per_gpu);
        dps_json_num (b, "gpu_s_per_sample", gs);
        if (price > 0)
          dps_json_num (b, "usd_per_Msample", cd->r.cost_per_msample);
        dps_json_num (b, "memory_GB", cd->r.memory.total / 1e9);
      }
      dps_json_int (b, "plans_fit", sb->fit);
      dps_json_int (b, "plans_simulated", sb->tried);
      json_builder_end_object (b);
      continue;
    }
    if (!sb->found) {
      g_string_append_printf (out, "%-9s %6d no plan fits (%d simulated)\n", "", sb->gpus, sb->tried);
      continue;
    }
    g_autofree char *name = dps_advise_plan_name (cd), *mk = g_strdup_printf ("%d x %d", cd->micro, cd->accum);
    g_autofree char *usd = price > 0 ? g_strdup_printf ("%.2f", cd->r.cost_per_msample) : g_strdup ("-");
    g_string_append_printf (out, "%-9s %6d %-*s %13s %10.2f %12.1f %9.2f %10.2f %12s %8.1f\n", mark, sb->gpus, w, name,
                            mk, cd->r.step_mean_s * 1e3, cd->r.samples_per_s, per_gpu, gs * 1e3, usd,
                            cd->r.memory.total / 1e9);
  }
  if (format == DPS_FORMAT_JSON) {
    json_builder_end_array (b);
    dps_json_append (out, b);
    return;
  }
  if (format == DPS_FORMAT_CSV)
    return;
  if (fastest < 0) {
    g_string_append (out, "\nno plan fits at any of these sizes: more GPUs, or a device with more memory\n");
    return;
  }
  const DpsAdviseSizeBest *f = &g_array_index (sizes, DpsAdviseSizeBest, fastest), *c = &g_array_index (sizes, DpsAdviseSizeBest, cheapest);
  double f_gs = f->gpus / f->best.r.samples_per_s, c_gs = c->gpus / c->best.r.samples_per_s;
  if (fastest == cheapest)
    g_string_append_printf (out, "\nfastest and cheapest: %d GPUs, the fewest GPU-seconds a sample as well as the "
                            "most samples a second\n", f->gpus);
  else
    g_string_append_printf (out, "\nfastest: %d GPUs, %.2fx the samples/s of the cheapest; cheapest: %d GPUs, whose "
                            "samples cost %.1f%% less than the fastest's (GPU-seconds a sample%s)\n", f->gpus,
                            f->best.r.samples_per_s / c->best.r.samples_per_s, c->gpus, 100 * (1 - c_gs / f_gs),
                            price > 0 ? ", at one price per GPU-hour" : "");
}
