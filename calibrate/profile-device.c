/* profile-device.c — see profile-device.h. */
#include "calibrate/profile-device.h"

#include <string.h>

/* The device the profile measured on: the first GPU of [profile] devices
 * (without its "0:" and peer links), or NULL for CPU cores or none named.
 * A new string (g_free it). */
char *
dps_profile_device_name (const DpsProfile *p)
{
  const char *d = p->data->devices;
  if (!d || !*d || g_str_has_suffix (d, "cores") || g_str_has_prefix (p->data->backend ? p->data->backend : "", "cpu"))
    return NULL;
  const char *colon = strchr (d, ':');
  const char *start = colon && colon - d < 4 ? colon + 1 : d;
  gsize len = strcspn (start, ";");
  const char *p2p = g_strstr_len (start, (gssize) len, " p2p(");
  if (p2p)
    len = (gsize) (p2p - start);
  return g_strstrip (g_strndup (start, len));
}

static const char *
where (const DpsProfile *p)
{
  return p->path ? p->path : "the profile";
}

/* Gives m the profile's layer times for ranks (the entry
 * dps_profile_layers_for picks) as they apply to target: as measured
 * (target NULL: the profile's own machine), transferred, or refused (see
 * profile-device.h).  *note receives a line for the report (a new string;
 * NULL with DPS_LAYERS_NONE, or when used as measured on its own machine). */
DpsLayersUse
dps_profile_use_layers (const DpsProfile *p, DpsModel *m, int ranks, const DpsDeviceSpec *target,
                        const DpsComputeParams *cp, char **note)
{
  *note = NULL;
  if (!dps_profile_layers_for (p, m, ranks))
    return DPS_LAYERS_NONE;
  if (!target) {
    dps_profile_apply_model (p, m, ranks);
    return DPS_LAYERS_MEASURED;
  }
  g_autofree char *name = dps_profile_device_name (p);
  if (!name) {
    *note = g_strdup_printf ("times in %s measured on CPU cores (%s): not used for the %s, "
                             "whose kernels' rooflines time the layers", where (p),
                             p->data->devices ? p->data->devices : "no device named", target->model);
    return DPS_LAYERS_REFUSED;
  }
  const DpsKnownDevice *from = dps_device_lookup (name), *to = dps_device_lookup (target->model);
  if (!from) {
    *note = g_strdup_printf ("times in %s measured on a %s, a GPU dpscale has no figures for: "
                             "not transferred to the %s, not used", where (p), name, target->model);
    return DPS_LAYERS_REFUSED;
  }
  dps_profile_apply_model (p, m, ranks);
  if (from == to) {
    *note = g_strdup_printf ("times in %s measured on a %s, the same GPU as the %s: used as measured", where (p),
                             name, target->model);
    return DPS_LAYERS_MEASURED;
  }
  double ratio = dps_compute_transfer (m, &from->spec, target, cp);
  *note = g_strdup_printf ("transferred from %s (%s in %s) to %s: compute x %.2f (compute-bound parts by peak %s "
                           "FLOP/s, memory-bound parts by bandwidth)", from->spec.model, name, where (p),
                           target->model, ratio, dps_dtype_name (cp->dtype));
  return DPS_LAYERS_TRANSFERRED;
}
