/* profile-file.c — a profile as a key file: dps_profile_save and
 * dps_profile_load (profile.h), every section with its units and ranges
 * (the format is described in profile.h; the measurements' sections are
 * in profile-measure.c, [network] in profile-network.c).  What a profile
 * means for the simulator is in profile.c. */
#include "calibrate/profile.h"
#include "calibrate/profile-measure.h"
#include "calibrate/profile-network.h"
#include "sim/base/keyfile.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

#include <math.h>
#include <string.h>

static void
set_str (GKeyFile *k, const char *g, const char *key, const char *v)
{
  if (v)
    g_key_file_set_string (k, g, key, v);
}

static void
save_level (GKeyFile *k, const char *group, const DpsFitLevel *l)
{
  if (!l->n_regimes)
    return;
  double lat[DPS_FIT_MAX_REGIMES], bw[DPS_FIT_MAX_REGIMES];
  for (int r = 0; r < l->n_regimes; r++) {
    lat[r] = l->alpha_s[r] * 1e6;
    bw[r] = l->bw_Bps[r] / 1e9;
  }
  g_key_file_set_integer (k, group, "ranks", l->ranks);
  g_key_file_set_integer (k, group, "nodes", l->nodes);
  g_key_file_set_integer (k, group, "regimes", l->n_regimes);
  g_key_file_set_double_list (k, group, "max_bytes", (double *) l->max_bytes, l->n_regimes);
  g_key_file_set_double_list (k, group, "latency_us", lat, l->n_regimes);
  g_key_file_set_double_list (k, group, "bw_GBps", bw, l->n_regimes);
  g_key_file_set_double (k, group, "rms_error", l->rms_rel);
  if (l->n_corr) {
    g_key_file_set_double_list (k, group, "correction_bytes", (double *) l->corr_bytes, l->n_corr);
    g_key_file_set_double_list (k, group, "correction", (double *) l->corr_factor, l->n_corr);
  }
  g_key_file_set_integer (k, group, "points", l->n_points);
}

/* [compute]: GEMM peak, copy bandwidth and the measured GEMM points. */
static void
save_compute (GKeyFile *k, const DpsProfile *p)
{
  if (p->gemm_peak_flops > 0)
    g_key_file_set_double (k, "compute", "gemm_fp32_gflops", p->gemm_peak_flops / 1e9);
  if (p->copy_bw_Bps > 0)
    g_key_file_set_double (k, "compute", "copy_GBps", p->copy_bw_Bps / 1e9);
  if (p->gemm->len) {
    GString *g = g_string_new (NULL);
    for (guint i = 0; i < p->gemm->len; i++) {
      const DpsGemmPoint *q = &g_array_index (p->gemm, DpsGemmPoint, i);
      g_string_append_printf (g, "%s%s,%g,%g,%g,%.4g", i ? ";" : "", dps_dtype_name (q->dtype), q->m, q->n, q->k,
                              q->flops / 1e9);
    }
    g_key_file_set_value (k, "compute", "gemm", g->str);
    g_string_free (g, TRUE);
  }
}

/* One [layers.R.NAME] group a set of per-layer times. */
static void
save_layers (GKeyFile *k, const DpsProfile *p)
{
  for (guint i = 0; i < p->layers->len; i++) {
    const DpsLayerTimes *l = p->layers->pdata[i];
    g_autofree char *group = l->ranks > 1 ? g_strdup_printf ("layers.%d.%s", l->ranks, l->model)
                                           : g_strdup_printf ("layers.%s", l->model);
    g_key_file_set_integer (k, group, "batch", l->batch);
    g_autofree double *f = g_new (double, MAX (l->fwd_s->len, 1)), *b = g_new (double, MAX (l->fwd_s->len, 1));
    for (guint j = 0; j < l->fwd_s->len; j++) {
      f[j] = g_array_index (l->fwd_s, double, j) * 1e3;
      b[j] = g_array_index (l->bwd_s, double, j) * 1e3;
    }
    g_key_file_set_double_list (k, group, "forward_ms", f, l->fwd_s->len);
    g_key_file_set_double_list (k, group, "backward_ms", b, l->bwd_s->len);
    if (l->sgd_s > 0)
      g_key_file_set_double (k, group, "sgd_ms", l->sgd_s * 1e3);
    if (l->compute_cv > 0)
      g_key_file_set_double (k, group, "compute_cv", l->compute_cv);
  }
}

/* One [contention.N] group a measured rank count. */
static void
save_contention (GKeyFile *k, const DpsProfile *p)
{
  for (guint i = 0; i < p->contention->len; i++) {
    const DpsContention *ct = &g_array_index (p->contention, DpsContention, i);
    g_autofree char *group = g_strdup_printf ("contention.%d", ct->ranks);
    g_key_file_set_integer (k, group, "ranks", ct->ranks);
    g_key_file_set_double (k, group, "compute", ct->compute);
    g_key_file_set_double (k, group, "comm", ct->comm);
    g_key_file_set_double (k, group, "copy_GBps", ct->copy_Bps / 1e9);
  }
}

/* Writes the profile as dps_write_file does: a regular file whole or not at
 * all, a device in place; errors read "-o PATH: reason". */
gboolean
dps_profile_save (const DpsProfile *p, const char *path, GError **error)
{
  g_autoptr (GKeyFile) k = g_key_file_new ();
  const DpsCalData *d = p->data;
  gboolean other_ops = FALSE;   /* format 2 only where format 1 readers would refuse it */
  for (guint i = 0; i < d->points->len && !other_ops; i++)
    other_ops = g_array_index (d->points, DpsCalPoint, i).op != DPS_OP_ALLREDUCE;
  g_key_file_set_integer (k, "profile", "format", other_ops ? DPS_PROFILE_FORMAT : 1);
  set_str (k, "profile", "backend", d->backend);
  set_str (k, "profile", "created", p->created);
  set_str (k, "profile", "host", d->host);
  set_str (k, "profile", "library", d->library);
  set_str (k, "profile", "devices", d->devices);
  set_str (k, "profile", "env", d->env);
  set_str (k, "profile", "source", d->source);
  if (d->gap_s > 0) {
    g_key_file_set_double (k, "profile", "gap_ms", d->gap_s * 1e3);
    set_str (k, "profile", "gap_waits", d->gap_emulated ? "emulated" : "busy");
    if (d->handoff_s > 0)
      g_key_file_set_double (k, "profile", "handoff_us", d->handoff_s * 1e6);
  }
  g_key_file_set_comment (k, "profile", NULL,
                          " dpscale calibration profile: measurements, the fit, and their origin.\n"
                          " Use it with --calibration FILE (predict, sweep, collective).", NULL);
  if (p->machine_ranks > 0) {
    g_key_file_set_integer (k, "machine", "ranks_per_node", p->machine_ranks);
    if (p->machine_nodes > 1)
      g_key_file_set_integer (k, "machine", "nodes", p->machine_nodes);
    if (p->machine_nodes > 1 && p->machine_link_Bps > 0)
      g_key_file_set_double (k, "machine", "link_gbps", p->machine_link_Bps * 8 / 1e9);
    set_str (k, "machine", "name", p->machine_name);
  }
  for (int g = 0; g < p->fit.n_groups; g++) {
    g_autofree char *group = g_strdup_printf ("fit.%d.%d", p->fit.group[g].ranks, p->fit.group[g].nodes);
    save_level (k, group, &p->fit.group[g]);
  }
  dps_profile_network_save (p, k);
  save_compute (k, p);
  save_layers (k, p);
  save_contention (k, p);
  dps_profile_measures_save (d, k);
  gsize len = 0;
  g_autofree char *text = g_key_file_to_data (k, &len, NULL);
  return dps_write_file (path, "-o", text, len, error);
}

static gboolean
load_level (const DpsKeyFile *kf, const char *g, DpsFitLevel *l, GError **error)
{
  static const char *const keys[] = { "ranks", "nodes", "regimes", "max_bytes", "latency_us", "bw_GBps",
                                       "rms_error", "points", "correction_bytes", "correction", NULL };
  memset (l, 0, sizeof *l);
  gint64 n, pts, ranks, nodes;
  if (!dps_key_file_check_keys (kf, g, keys, error)
      || !dps_key_file_get_int (kf, g, "ranks", TRUE, 0, 2, DPS_TOPO_MAX_GPUS, &ranks, error)
      || !dps_key_file_get_int (kf, g, "nodes", TRUE, 0, 1, ranks, &nodes, error)
      || !dps_key_file_get_int (kf, g, "regimes", TRUE, 0, 1, DPS_FIT_MAX_REGIMES, &n, error)
      || !dps_key_file_get_double (kf, g, "rms_error", FALSE, 0, 0, 1e9, &l->rms_rel, error)
      || !dps_key_file_get_int (kf, g, "points", FALSE, 0, 0, G_MAXINT, &pts, error))
    return FALSE;
  l->n_regimes = (int) n;
  l->n_points = (int) pts;
  l->ranks = (int) ranks;
  l->nodes = (int) nodes;
  const char *lists[] = { "max_bytes", "latency_us", "bw_GBps" };
  for (int i = 0; i < 3; i++) {
    gsize m;
    g_autofree double *v = dps_key_file_get_doubles (kf, g, lists[i], TRUE, &m, error);
    if (!v)
      return FALSE;
    if ((int) m != n) {
      dps_key_file_error (kf, g, lists[i], error, "%zu entries, regimes = %d", m, (int) n);
      return FALSE;
    }
    for (int r = 0; r < n; r++) {
      /* at most 2^60 bytes, 1000 s of latency, 1 PB/s; profiles written
       * before 2026-12-03 gave a latency-only regime 1e21 GB/s (1 / 1e-30
       * s/B): read as unbounded (DPS_FIT_UNBOUNDED_BPS) */
      static const double most[] = { 1152921504606846976.0, 1e9, 1e6 };
      if (i == 2 && fabs (v[r] / 1e21 - 1) < 1e-6)
        v[r] = DPS_FIT_UNBOUNDED_BPS / 1e9;
      if (v[r] < 0 || (i == 2 && v[r] <= 0) || v[r] > most[i]) {
        dps_key_file_error (kf, g, lists[i], error, "%g is out of range (must be %s and at most %.15g)", v[r],
                            i == 2 ? "> 0" : ">= 0", most[i]);
        return FALSE;
      }
      if (i == 0)
        l->max_bytes[r] = v[r];
      else if (i == 1)
        l->alpha_s[r] = v[r] * 1e-6;
      else
        l->bw_Bps[r] = v[r] * 1e9;
    }
  }
  gsize nb, nf;
  g_autofree double *cb = dps_key_file_get_doubles (kf, g, "correction_bytes", FALSE, &nb, error);
  g_autofree double *cf = cb ? dps_key_file_get_doubles (kf, g, "correction", FALSE, &nf, error) : NULL;
  if (!cb || !cf)
    return FALSE;
  if (nb != nf || nb > DPS_FIT_MAX_CORR) {
    dps_key_file_error (kf, g, "correction", error, "%zu entries, correction_bytes has %zu (at most %d)", nf, nb,
                        DPS_FIT_MAX_CORR);
    return FALSE;
  }
  for (gsize i = 0; i < nb; i++) {
    if (!(cb[i] > 0) || !(cf[i] > 0) || (i > 0 && cb[i] <= cb[i - 1])) {
      dps_key_file_error (kf, g, "correction", error, "entry %zu: sizes must increase and factors be positive", i + 1);
      return FALSE;
    }
    /* a measured time over the fitted line: a factor of 1000 is already no fit */
    if (cf[i] < 1e-3 || cf[i] > 1e3) {
      dps_key_file_error (kf, g, "correction", error, "entry %zu: %g is out of range (0.001 to 1000)", i + 1, cf[i]);
      return FALSE;
    }
    l->corr_bytes[i] = cb[i];
    l->corr_factor[i] = cf[i];
  }
  l->n_corr = (int) nb;
  for (int r = 1; r < n - 1; r++)
    if (l->max_bytes[r] <= l->max_bytes[r - 1]) {
      dps_key_file_error (kf, g, "max_bytes", error, "regime bounds must increase");
      return FALSE;
    }
  return TRUE;
}

static DpsProfile *profile_from_keyfile (const DpsKeyFile *kf, const char *path, GError **error);

/* Reads a profile; errors name the file, line and key. */
DpsProfile *
dps_profile_load (const char *path, GError **error)
{
  g_autoptr (DpsKeyFile) kf = dps_key_file_load (path, error);
  return kf ? profile_from_keyfile (kf, path, error) : NULL;
}

/* As dps_profile_load, from text in memory; name is used in messages. */
DpsProfile *
dps_profile_load_data (const char *name, const char *data, gssize len, GError **error)
{
  g_autoptr (DpsKeyFile) kf = dps_key_file_load_data (name, data, len, error);
  return kf ? profile_from_keyfile (kf, name, error) : NULL;
}

/* [profile]'s keys other than format into p (its data d). */
static gboolean
load_profile_keys (const DpsKeyFile *kf, DpsProfile *p, DpsCalData *d, GError **error)
{
  if (!dps_key_file_get_string (kf, "profile", "backend", TRUE, NULL, &d->backend, error)
      || !dps_key_file_get_string (kf, "profile", "created", FALSE, NULL, &p->created, error)
      || !dps_key_file_get_string (kf, "profile", "host", FALSE, NULL, &d->host, error)
      || !dps_key_file_get_string (kf, "profile", "library", FALSE, NULL, &d->library, error)
      || !dps_key_file_get_string (kf, "profile", "devices", FALSE, NULL, &d->devices, error)
      || !dps_key_file_get_string (kf, "profile", "env", FALSE, NULL, &d->env, error)
      || !dps_key_file_get_string (kf, "profile", "source", FALSE, NULL, &d->source, error)
      || !dps_key_file_get_double (kf, "profile", "gap_ms", FALSE, 0, 0, 1e6, &d->gap_s, error)
      || !dps_key_file_get_double (kf, "profile", "handoff_us", FALSE, 0, 0, 1e6, &d->handoff_s, error))
    return FALSE;
  d->gap_s *= 1e-3;
  d->handoff_s *= 1e-6;
  g_autofree char *waits = NULL;
  if (!dps_key_file_get_string (kf, "profile", "gap_waits", FALSE, NULL, &waits, error))
    return FALSE;
  if (waits && !g_str_equal (waits, "busy") && !g_str_equal (waits, "emulated")) {
    dps_key_file_error (kf, "profile", "gap_waits", error, "'%s' is not busy or emulated", waits);
    return FALSE;
  }
  d->gap_emulated = waits && g_str_equal (waits, "emulated");
  return TRUE;
}

/* [machine], where there is one, into p. */
static gboolean
load_machine (const DpsKeyFile *kf, DpsProfile *p, GError **error)
{
  if (!dps_key_file_has_group (kf, "machine"))
    return TRUE;
  gint64 r, nn;
  double link_gbps;
  static const char *const mkeys[] = { "ranks_per_node", "nodes", "name", "link_gbps", NULL };
  if (!dps_key_file_check_keys (kf, "machine", mkeys, error)
      || !dps_key_file_get_int (kf, "machine", "ranks_per_node", TRUE, 0, 1, DPS_TOPO_MAX_GPUS_PER_NODE, &r, error)
      || !dps_key_file_get_int (kf, "machine", "nodes", FALSE, 1, 1, 64, &nn, error)
      || !dps_key_file_get_string (kf, "machine", "name", FALSE, "this machine", &p->machine_name, error)
      || !dps_key_file_get_double (kf, "machine", "link_gbps", FALSE, 0, 0, 1e6, &link_gbps, error))
    return FALSE;
  p->machine_ranks = (int) r;
  p->machine_nodes = (int) nn;
  p->machine_link_Bps = link_gbps * 1e9 / 8;
  return TRUE;
}

/* [compute], where there is one, into p: GEMM peak, copy bandwidth and
 * the measured GEMM points. */
static gboolean
load_compute (const DpsKeyFile *kf, DpsProfile *p, GError **error)
{
  if (!dps_key_file_has_group (kf, "compute"))
    return TRUE;
  static const char *const ckeys[] = { "gemm_fp32_gflops", "copy_GBps", "gemm", NULL };
  double g, c;
  if (!dps_key_file_check_keys (kf, "compute", ckeys, error)
      || !dps_key_file_get_double (kf, "compute", "gemm_fp32_gflops", FALSE, 0, 0, 1e9, &g, error)
      || !dps_key_file_get_double (kf, "compute", "copy_GBps", FALSE, 0, 0, 1e9, &c, error))
    return FALSE;
  p->gemm_peak_flops = g * 1e9;
  p->copy_bw_Bps = c * 1e9;
  g_autofree char *raw = NULL;
  dps_key_file_get_string (kf, "compute", "gemm", FALSE, NULL, &raw, NULL);
  g_auto (GStrv) items = raw ? g_strsplit (raw, ";", -1) : NULL;
  for (int i = 0; items && items[i]; i++) {
    g_auto (GStrv) f = g_strsplit (g_strstrip (items[i]), ",", -1);
    DpsGemmPoint q;
    DpsDtype dt;
    if (!items[i][0])
      continue;
    if (g_strv_length (f) != 5 || !dps_dtype_parse (f[0], &dt) || !dps_parse_double (f[1], &q.m)
        || !dps_parse_double (f[2], &q.n) || !dps_parse_double (f[3], &q.k) || !dps_parse_double (f[4], &q.flops)
        || q.flops < 0) {
      dps_key_file_error (kf, "compute", "gemm", error, "'%s' is not dtype,m,n,k,GFLOP/s", items[i]);
      return FALSE;
    }
    q.dtype = dt;
    q.flops *= 1e9;
    g_array_append_val (p->gemm, q);
  }
  return TRUE;
}

/* One [contention.N] group g into p. */
static gboolean
load_contention (const DpsKeyFile *kf, const char *g, DpsProfile *p, GError **error)
{
  static const char *const ckeys[] = { "ranks", "compute", "comm", "copy_GBps", NULL };
  gint64 r;
  DpsContention ct;
  if (!dps_key_file_check_keys (kf, g, ckeys, error)
      || !dps_key_file_get_int (kf, g, "ranks", TRUE, 0, 1, DPS_TOPO_MAX_GPUS, &r, error)
      || !dps_key_file_get_double (kf, g, "compute", TRUE, 0, 0, 100, &ct.compute, error)
      || !dps_key_file_get_double (kf, g, "comm", TRUE, 0, 0, 100, &ct.comm, error)
      || !dps_key_file_get_double (kf, g, "copy_GBps", TRUE, 0, 1e-6, 1e9, &ct.copy_Bps, error))
    return FALSE;
  ct.ranks = (int) r;
  ct.copy_Bps *= 1e9;
  g_array_append_val (p->contention, ct);
  return TRUE;
}

/* One [layers.R.NAME] or [layers.NAME] group g into p. */
static gboolean
load_layers (const DpsKeyFile *kf, const char *g, DpsProfile *p, GError **error)
{
  static const char *const lkeys[] = { "batch", "forward_ms", "backward_ms", "sgd_ms", "compute_cv", NULL };
  gint64 batch;
  double sgd_ms = 0, cv = 0;
  gsize nf, nb;
  if (!dps_key_file_check_keys (kf, g, lkeys, error)
      || !dps_key_file_get_int (kf, g, "batch", TRUE, 0, 1, 1 << 24, &batch, error))
    return FALSE;
  g_autofree double *f = dps_key_file_get_doubles (kf, g, "forward_ms", TRUE, &nf, error);
  g_autofree double *b = f ? dps_key_file_get_doubles (kf, g, "backward_ms", TRUE, &nb, error) : NULL;
  if (!f || !b || !dps_key_file_get_double (kf, g, "sgd_ms", FALSE, 0, 0, 1e9, &sgd_ms, error)
      || !dps_key_file_get_double (kf, g, "compute_cv", FALSE, 0, 0, 10, &cv, error))
    return FALSE;
  if (nf != nb) {
    dps_key_file_error (kf, g, "backward_ms", error, "%zu entries, forward_ms has %zu", nb, nf);
    return FALSE;
  }
  for (gsize j = 0; j < nf; j++) {
    if (f[j] < 0 || b[j] < 0) {
      dps_key_file_error (kf, g, f[j] < 0 ? "forward_ms" : "backward_ms", error, "negative time");
      return FALSE;
    }
    f[j] *= 1e-3;
    b[j] *= 1e-3;
  }
  /* "layers.R.NAME": R ranks at once; "layers.NAME": one */
  const char *name = g + 7;
  int ranks = 1;
  char *dot = strchr (name, '.');
  if (dot && dot > name && strspn (name, "0123456789") == (gsize) (dot - name)) {
    ranks = (int) MIN (g_ascii_strtoll (name, NULL, 10), DPS_TOPO_MAX_GPUS);
    name = dot + 1;
  }
  DpsLayerTimes *lt = dps_profile_add_layers (p, name, (int) batch, MAX (ranks, 1), f, b, (int) nf);
  lt->sgd_s = sgd_ms * 1e-3;
  lt->compute_cv = cv;
  return TRUE;
}

static DpsProfile *
profile_from_keyfile (const DpsKeyFile *kf, const char *path, GError **error)
{
  static const char *const groups[] = { "profile", "machine", "compute", "network", NULL };
  static const char *const prefixes[] = { "fit.", "layers.", "measure.", "contention.", "run.", NULL };
  static const char *const pkeys[] = { "format", "backend", "created", "host", "library", "devices", "env",
                                       "source", "gap_ms", "gap_waits", "handoff_us", NULL };
  gint64 format;
  if (!dps_key_file_check_groups (kf, groups, prefixes, error)
      || !dps_key_file_require_group (kf, "profile", error)
      || !dps_key_file_get_int (kf, "profile", "format", TRUE, 0, 1, G_MAXINT, &format, error))
    return NULL;
  if (format > DPS_PROFILE_FORMAT) {
    dps_key_file_error (kf, "profile", "format", error,
                        "format %d was written by a newer dpscale (this one reads up to %d)", (int) format,
                        DPS_PROFILE_FORMAT);
    return NULL;
  }
  if (!dps_key_file_check_keys (kf, "profile", pkeys, error))
    return NULL;
  g_autoptr (DpsProfile) p = dps_profile_new (dps_cal_data_new (NULL));
  p->path = g_strdup (path);
  DpsCalData *d = p->data;
  g_free (p->created);
  p->created = NULL;
  if (!load_profile_keys (kf, p, d, error))
    return NULL;
  if (!load_machine (kf, p, error))
    return NULL;
  gsize ngr;
  char **gnames = dps_key_file_groups (kf, &ngr);
  for (gsize i = 0; i < ngr; i++)
    if (g_str_has_prefix (gnames[i], "fit.")) {
      if (p->fit.n_groups == DPS_FIT_MAX_GROUPS) {
        dps_key_file_error (kf, gnames[i], NULL, error, "more than %d fitted groups", DPS_FIT_MAX_GROUPS);
        return NULL;
      }
      if (!load_level (kf, gnames[i], &p->fit.group[p->fit.n_groups++], error))
        return NULL;
    }
  if (!dps_profile_network_load (p, kf, error))
    return NULL;
  if (!load_compute (kf, p, error))
    return NULL;
  gsize ng;
  char **names = dps_key_file_groups (kf, &ng);
  for (gsize i = 0; i < ng; i++) {
    const char *g = names[i];
    if (g_str_has_prefix (g, "run.") && !p->run_section)
      p->run_section = g_strdup (g);
    if (g_str_has_prefix (g, "contention.") && !load_contention (kf, g, p, error))
      return NULL;
    if (g_str_has_prefix (g, "measure.")) {
      if (!dps_profile_measure_load (kf, g, d, error))
        return NULL;
    } else if (g_str_has_prefix (g, "layers.") && !load_layers (kf, g, p, error))
      return NULL;
  }
  /* a machine of one device (one GPU) has no collective to fit; with
   * all-reduces of 2 or more ranks measured, a fit must be there (of
   * all-gathers or reduce-scatters alone, the network fit) */
  gboolean multi = FALSE;
  for (guint i = 0; i < d->points->len; i++) {
    const DpsCalPoint *q = &g_array_index (d->points, DpsCalPoint, i);
    multi |= q->ranks > 1 && q->op == DPS_OP_ALLREDUCE;
  }
  if (!p->fit.n_groups && (multi || (p->machine_ranks != 1 && !p->net.fitted))) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: no [fit.RANKS.NODES] section: not a finished calibration", path);
    return NULL;
  }
  return g_steal_pointer (&p);
}

