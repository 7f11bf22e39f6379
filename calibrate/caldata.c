/* caldata.c — see caldata.h. */
#include "calibrate/caldata.h"
#include "sim/coll.h"

#include <stdio.h>
#include <string.h>

DpsCalData *
dps_cal_data_new (const char *backend)
{
  DpsCalData *d = g_new0 (DpsCalData, 1);
  d->points = g_array_new (FALSE, TRUE, sizeof (DpsCalPoint));
  d->backend = g_strdup (backend);
  return d;
}

void
dps_cal_data_free (DpsCalData *d)
{
  if (!d)
    return;
  g_array_free (d->points, TRUE);
  g_free (d->backend);
  g_free (d->library);
  g_free (d->host);
  g_free (d->devices);
  g_free (d->env);
  g_free (d->source);
  g_free (d);
}

void
dps_cal_data_add (DpsCalData *d, int ranks, int nodes, double bytes, double time_s, double time_ip_s, int wrong)
{
  DpsCalPoint p = { .ranks = ranks, .nodes = nodes, .bytes = bytes, .time_s = time_s, .time_ip_s = time_ip_s,
                    .wrong = wrong };
  g_array_append_val (d->points, p);
}

guint64
dps_cal_point_group (const DpsCalPoint *p)
{
  return (guint64) p->op << 56 | (guint64) (p->ranks & 0xfffffff) << 28 | (guint64) (p->nodes & 0xfffffff);
}

/* nccl-tests' bus bandwidth of a point, bytes/s. */
double
dps_cal_busbw_Bps (const DpsCalPoint *p)
{
  return p->bytes / p->time_s * dps_coll_busbw_factor (p->op, p->ranks);
}

void
dps_cal_data_set_cores (DpsCalData *d, int cores)
{
  g_free (d->devices);
  d->devices = g_strdup_printf ("%d CPU cores", cores);
}

int
dps_cal_data_cores (const DpsCalData *d)
{
  int n = 0;
  char rest[16] = "";
  if (!d->devices || sscanf (d->devices, "%d CPU core%15s", &n, rest) != 2 || strcmp (rest, "s") != 0 || n < 1)
    return 0;
  return n;
}

gboolean
dps_cal_data_on_cpu (const DpsCalData *d)
{
  return d->backend && g_str_has_prefix (d->backend, "cpu-");
}
