/* device.c — see device.h. */
#include "sim/device.h"

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
