/* reference.c — see reference.h. */
#include "calibrate/reference.h"
#include "calibrate/nccl-log.h"
#include "sim/coll.h"
#include "sim/coll-predict.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

#include <stdio.h>
#include <string.h>

void
dps_reference_free (DpsReference *r)
{
  if (!r)
    return;
  g_free (r->path);
  if (r->meta)
    g_hash_table_unref (r->meta);
  dps_cal_data_free (r->data);
  g_free (r);
}

/* The value of a header key, lent; NULL when absent or "unknown". */
const char *
dps_reference_get (const DpsReference *r, const char *key)
{
  const char *v = g_hash_table_lookup (r->meta, key);
  return v && v[0] && g_ascii_strcasecmp (v, "unknown") != 0 ? v : NULL;
}

/* Narrows the masks (start them at what NCCL may choose) by settings such
 * as "NCCL_ALGO=Ring NCCL_PROTO=^LL NCCL_NVLS_ENABLE=0", separated by
 * spaces, commas between settings allowed after a value ("none stated"
 * and other words without '=' are ignored).  NCCL_COLLNET_ENABLE=1 adds
 * CollNet to what NCCL may choose, before any NCCL_ALGO narrows it;
 * NCCL_NVLS_ENABLE=0 and NCCL_PAT_ENABLE=0 take NVLS and PAT away. */
gboolean
dps_nccl_env_masks (const char *env, guint *algo_mask, guint *proto_mask, GError **error)
{
  if (!env)
    return TRUE;
  g_auto (GStrv) words = g_strsplit_set (env, " \t;", -1);
  for (int i = 0; words[i]; i++)
    if (g_str_has_prefix (words[i], "NCCL_COLLNET_ENABLE=1") && strspn (words[i] + 21, ",") == strlen (words[i] + 21))
      *algo_mask |= 1u << DPS_ALGO_COLLNET;
  for (int i = 0; words[i]; i++) {
    char *eq = strchr (words[i], '=');
    if (!eq)
      continue;
    for (gsize n = strlen (eq); n > 1 && eq[n - 1] == ','; n--)
      eq[n - 1] = 0;   /* a comma between settings */
    *eq = 0;
    const char *k = words[i], *v = eq + 1;
    if (g_str_equal (k, "NCCL_ALGO") && !dps_coll_list_mask (k, v, TRUE, algo_mask, error))
      return FALSE;
    if (g_str_equal (k, "NCCL_PROTO") && !dps_coll_list_mask (k, v, FALSE, proto_mask, error))
      return FALSE;
    if (g_str_equal (k, "NCCL_NVLS_ENABLE") && g_str_equal (v, "0"))
      *algo_mask &= ~(1u << DPS_ALGO_NVLS);
    if (g_str_equal (k, "NCCL_PAT_ENABLE") && g_str_equal (v, "0"))
      *algo_mask &= ~(1u << DPS_ALGO_PAT);
  }
  return TRUE;
}

/* NCCL_MIN_NCHANNELS in nccl_env: the channels NCCL runs at least. */
static gboolean
min_channels (DpsReference *r, GError **error)
{
  const char *env = dps_reference_get (r, "nccl_env");
  const char *m = env ? strstr (env, "NCCL_MIN_NCHANNELS=") : NULL;
  if (!m)
    return TRUE;
  gint64 n;
  g_autofree char *v = g_strndup (m + strlen ("NCCL_MIN_NCHANNELS="), strcspn (m + strlen ("NCCL_MIN_NCHANNELS="), " \t;"));
  if (!dps_parse_int (v, &n) || n < 1 || n > 64) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "NCCL_MIN_NCHANNELS=%s is not 1 to 64", v);
    return FALSE;
  }
  r->min_channels = (int) n;
  return TRUE;
}

/* The (at most 32) characters after text's first key, a new string; NULL
 * where key is not in text. */
static char *
after (const char *text, gsize len, const char *key)
{
  const char *k = g_strstr_len (text, (gssize) len, key);
  if (!k)
    return NULL;
  const char *v = k + strlen (key);
  return g_strndup (v, MIN ((gsize) 32, (gsize) (text + len - v)));
}

/* NCCL's version code (2.24.3: 22403, as NCCL_VERSION_CODE) from the
 * header's "nccl" value ("2.26.2+cuda12.8 ...") or else the log's own
 * "NCCL version 2.26.2" or nccl-tests' "nccl-library=22403"; 0 unknown. */
static int
nccl_version (const DpsReference *r, const char *text, gsize len)
{
  int ma, mi, pa, code;
  const char *h = dps_reference_get (r, "nccl");
  if (h && sscanf (h, "%d.%d.%d", &ma, &mi, &pa) == 3)
    return ma * 10000 + mi * 100 + pa;
  g_autofree char *v = after (text, len, "NCCL version ");
  if (v && sscanf (v, "%d.%d.%d", &ma, &mi, &pa) == 3)
    return ma * 10000 + mi * 100 + pa;
  g_autofree char *l = after (text, len, "nccl-library=");
  if (l && sscanf (l, "%d", &code) == 1)
    return code;
  return 0;
}

/* add_meta's: the values, the line each key was given on, the file's name */
typedef struct { GHashTable *meta, *lines; const char *name; } MetaArgs;

/* A header line into the reference's meta; a key given twice is refused */
static gboolean
add_meta (int line, const char *key, const char *value, gpointer data, GError **error)
{
  const MetaArgs *a = data;
  gpointer first = g_hash_table_lookup (a->lines, key);
  if (first) {
    /* which of two would stand is a guess: neither is taken */
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s:%d: '#%% %s:' given twice (first on line %d)", a->name, line,
                 key, GPOINTER_TO_INT (first));
    return FALSE;
  }
  g_hash_table_insert (a->lines, g_strdup (key), GINT_TO_POINTER (line));
  g_hash_table_replace (a->meta, g_strdup (key), g_strdup (value));
  return TRUE;
}

/* Reads the table of text whose run starts at line *start (from 0) into a
 * reference; *start becomes the line where the next table's run starts,
 * 0 when none.  name is used in messages.  Errors: a malformed header
 * value, a table the log reader refuses, a rank count it cannot tell. */
static DpsReference *
parse_table (const char *name, const char *text, gssize len, int *start, GError **error)
{
  if (len < 0)
    len = (gssize) strlen (text);
  g_autoptr (DpsReference) r = g_new0 (DpsReference, 1);
  r->path = g_strdup (name);
  r->meta = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  r->data = dps_cal_data_new ("nccl-tests");
  r->algo_mask = DPS_NCCL_ALGOS;
  r->proto_mask = DPS_ALL_PROTOS;
  g_autoptr (GHashTable) lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  MetaArgs ma = { r->meta, lines, name };
  if (!dps_nccl_log_header_foreach (text, (gsize) len, add_meta, &ma, error))
    return NULL;
  DpsNcclLogHints hints = { .start_line = *start };
  if (!dps_nccl_log_header_counts (name, text, (gsize) len, &hints, error))
    return NULL;
  int ranks = hints.ranks;
  gboolean ok = dps_nccl_log_parse_hinted (name, text, len, &hints, r->data, error);
  *start = hints.next_line;   /* 0 too for a last run that died before its table (NULL, no error) */
  if (!hints.test)
    hints.test = g_strdup (dps_reference_get (r, "test"));   /* the table's own test line, else the header's */
  if (hints.device && *hints.device && !dps_reference_get (r, "gpu"))
    g_hash_table_replace (r->meta, g_strdup ("gpu"), g_steal_pointer (&hints.device));   /* a log's own GPUs */
  g_free (hints.device);
  if (ok) {
    DpsCalPoint *p0 = &g_array_index (r->data->points, DpsCalPoint, 0);
    r->ranks = p0->ranks;
    r->hosts = p0->nodes;
    r->op = dps_nccl_log_op (&hints, r->ranks);
  }
  if (hints.test)
    g_hash_table_replace (r->meta, g_strdup ("test"), g_steal_pointer (&hints.test));   /* the table's own */
  if (!ok)
    return NULL;
  if (ranks && r->ranks != ranks) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: the header says %d ranks, the log's Rank lines %d",
                 name, ranks, r->ranks);
    return NULL;
  }
  /* PAT came with NCCL 2.23 (coll-pat.c) */
  int version = nccl_version (r, text, (gsize) len);
  if (version > 0 && version < 22300)
    r->algo_mask &= ~(1u << DPS_ALGO_PAT);
  if (!dps_nccl_env_masks (dps_reference_get (r, "nccl_env"), &r->algo_mask, &r->proto_mask, error)
      || !min_channels (r, error)) {
    g_prefix_error (error, "%s: nccl_env: ", name);
    return NULL;
  }
  return g_steal_pointer (&r);
}

/* Reads a reference (or a plain nccl-tests log) from text, its first table
 * (dps_reference_load_all reads every table of a log of several). */
DpsReference *
dps_reference_parse (const char *name, const char *text, gssize len, GError **error)
{
  int start = 0;
  return parse_table (name, text, len, &start, error);
}

DpsReference *
dps_reference_load (const char *path, GError **error)
{
  gsize len;
  g_autofree char *data = dps_read_file (path, "reference", &len, error);
  return data ? dps_reference_parse (path, data, (gssize) len, error) : NULL;
}

/* Every table of the log or reference at path, in order (a log of several
 * runs: all_reduce_perf, then all_gather_perf, ...), a new array of
 * DpsReference; each has the line (from 1) where its run starts when there
 * are several, else 0.  A last run with no table after it (it died first)
 * is left out, and *note (when not NULL) says so: a new string, else NULL.
 * NULL on an error in any. */
GPtrArray *
dps_reference_load_all (const char *path, char **note, GError **error)
{
  if (note)
    *note = NULL;
  gsize len;
  g_autofree char *data = dps_read_file (path, "reference", &len, error);
  if (!data)
    return NULL;
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func ((GDestroyNotify) dps_reference_free);
  int start = 0;
  do {
    int line = start;
    GError *e = NULL;
    DpsReference *r = parse_table (path, data, (gssize) len, &start, &e);
    if (!r && !e) {
      if (note)
        *note = g_strdup_printf ("%s:%d: a run with no table after it: left out", path, line + 1);
      break;
    }
    if (!r) {
      g_propagate_error (error, e);
      return NULL;
    }
    r->line = line + 1;
    g_ptr_array_add (all, r);
  } while (start > 0);
  if (all->len == 1)
    ((DpsReference *) all->pdata[0])->line = 0;
  return g_steal_pointer (&all);
}
