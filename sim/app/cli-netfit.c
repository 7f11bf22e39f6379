/* cli-netfit.c — the joint network fit of a profile in the topology's own
 * terms: each fitted figure beside the datasheet figure it scales. */
#include "sim/app/cli-util.h"
#include "calibrate/profile.h"

#include <math.h>

/* v to three significant figures, trailing zeros kept ("0.120", "47.5",
 * "366"), in a new string. */
static char *
sig3 (double v)
{
  int decimals = v > 0 ? (int) MAX (0, 2 - floor (log10 (v))) : 0;
  return g_strdup_printf ("%.*f", MIN (decimals, 9), v);
}

/* Appends the table of p's network fit on spec (the unscaled topology it
 * scales), or a line saying the profile has none. */
void
dps_cli_network_table (GString *o, const DpsProfile *p, const DpsTopoSpec *spec)
{
  const DpsNetFit *f = &p->net;
  if (!f->fitted) {
    g_string_append (o, "network fit: none (a profile from before the joint fit, or of one device)\n");
    return;
  }
  g_string_append_printf (o, "network fit on %s: %d points, rms %.1f%% of log time%s\n", spec->name, f->n_points,
                          100 * f->rms_log, f->ring_only ? " (a ring library: ring alone)" : "");
  g_string_append_printf (o, "  %-26s %8s %8s   %s\n", "figure", "fitted", "+-", "in the topology's terms (+-: ? where NCCL's choice makes a kink)");
  for (int i = 0; i < DPS_NETFIT_N; i++) {
    g_autofree char *terms = NULL, *got = NULL, *sheet = NULL;
    double s = f->scale[i];
    switch (i) {
    case DPS_NETFIT_INTRA_BW:
      terms = g_strdup_printf ("%s of %s GB/s per GPU inside a node", got = sig3 (spec->intra_bw_Bps * s / 1e9),
                               sheet = sig3 (spec->intra_bw_Bps / 1e9));
      break;
    case DPS_NETFIT_NIC_BW:
      terms = spec->n_nics ? g_strdup_printf ("%s of %s GB/s per NIC", got = sig3 (spec->nic_bw_Bps * s / 1e9),
                                              sheet = sig3 (spec->nic_bw_Bps / 1e9))
                           : g_strdup ("no NICs");
      break;
    case DPS_NETFIT_INTRA_LAT:
      terms = g_strdup_printf ("x NCCL's per-step latency inside a node");
      break;
    case DPS_NETFIT_NET_LAT:
      terms = g_strdup_printf ("x NCCL's per-step latency across nodes (%s)", dps_net_transport_name (spec->net_transport));
      break;
    default: {
      double e = spec->nvls_efficiency > 0 ? spec->nvls_efficiency : DPS_NVLS_EFFICIENCY_DEFAULT;
      terms = spec->nvls ? g_strdup_printf ("NVLS reaches %.2f of the NVLink bandwidth (topology: %.2f)",
                                            MIN (1.0, e * s), e)
                         : g_strdup ("no NVLS");
    }
    }
    const char *names[DPS_NETFIT_N] = { "NVLink/PCIe bandwidth", "NIC bandwidth", "latency inside a node",
                                        "latency across nodes", "NVLS efficiency" };
    g_autofree char *sd = f->sd[i] > 0 ? g_strdup_printf ("%.3f", f->sd[i]) : g_strdup ("?");
    if (f->used[i])
      g_string_append_printf (o, "  %-26s %8.3f %8s   %s\n", names[i], s, sd, terms);
    else
      g_string_append_printf (o, "  %-26s %8s %8s   %s (not measured or not exercised: as shipped)\n", names[i], "1", "-", terms);
  }
}
