/* nccl-log-header.c — a published reference's '#% key: value' header
 * (tests/reference/README.md): every line, the counts that stand for Rank
 * lines not pasted, and the topology it names.  Declared in nccl-log.h. */
#include "calibrate/nccl-log.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

#include <string.h>

/* Calls fn with every '#% key: value' line of text (a published
 * reference's header: tests/reference/README.md), its line (from 1), key
 * and value stripped; stops at the first fn that returns FALSE, and
 * returns FALSE then. */
gboolean
dps_nccl_log_header_foreach (const char *text, gsize len, DpsNcclLogHeaderFn fn, gpointer data, GError **error)
{
  const char *p = text, *end = text + len;
  for (int ln = 1; p < end; ln++) {
    const char *nl = memchr (p, '\n', (gsize) (end - p));
    const char *e = nl ? nl : end;
    if (e - p > 2 && p[0] == '#' && p[1] == '%') {
      g_autofree char *line = g_strndup (p + 2, (gsize) (e - p - 2));
      char *colon = strchr (line, ':');
      if (colon) {
        *colon = 0;
        if (!fn (ln, g_strstrip (line), g_strstrip (colon + 1), data, error))
          return FALSE;
      }
    }
    p = e + 1;
  }
  return TRUE;
}

typedef struct {
  const char *name;
  int         v[3];   /* ranks, nodes, gpus_per_node; 0 unsaid */
} HeaderCounts;

static gboolean
header_count (int line, const char *key, const char *value, gpointer data, GError **error)
{
  static const char *const keys[] = { "ranks", "nodes", "gpus_per_node" };
  HeaderCounts *c = data;
  for (gsize k = 0; k < G_N_ELEMENTS (keys); k++) {
    gint64 n;
    if (!g_str_equal (key, keys[k]))
      continue;
    if (!dps_parse_int (value, &n) || n < 1 || n > 1 << 20) {
      g_autofree char *q = dps_quote (value);
      return dps_set_error_at (error, c->name, line, "'#%% %s: %s' is not a count", key, q);
    }
    c->v[k] = (int) n;
  }
  return TRUE;
}

/* A published reference's counts: its '#% ranks:' and '#% nodes:' lines,
 * or nodes times '#% gpus_per_node:', into hints->ranks and hints->hosts,
 * which stand for Rank lines not pasted (a paste of the first 100 of 1024
 * ranks, or of 4 of 8 with '...' between); hints unchanged where text has
 * none.  FALSE, error set, for a value that is not a count. */
gboolean
dps_nccl_log_header_counts (const char *name, const char *text, gsize len, DpsNcclLogHints *hints, GError **error)
{
  HeaderCounts c = { .name = name };
  if (!dps_nccl_log_header_foreach (text, len, header_count, &c, error))
    return FALSE;
  int ranks = c.v[0] ? c.v[0] : c.v[1] && c.v[2] ? c.v[1] * c.v[2] : 0;
  if (ranks)
    hints->ranks = ranks;
  if (c.v[1])
    hints->hosts = c.v[1];
  return TRUE;
}

static gboolean
header_topology (int line, const char *key, const char *value, gpointer data, GError **error)
{
  char **topology = data;
  if (g_str_equal (key, "topology") && value[0] && !*topology)
    *topology = g_strdup (value);
  return TRUE;
}

/* The topology a published reference names by its '#% topology:' line
 * (tests/reference/README.md) into *topology, a new string, or NULL for a
 * log without one; FALSE, error set, where the file cannot be read. */
gboolean
dps_nccl_log_file_topology (const char *path, char **topology, GError **error)
{
  *topology = NULL;
  gsize len;
  g_autofree char *text = dps_read_file (path, "log", &len, error);
  return text && dps_nccl_log_header_foreach (text, len, header_topology, topology, error);
}
