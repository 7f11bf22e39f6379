/* reference-ddp.c — see reference-ddp.h. */
#include "reference-ddp.h"
#include "reference-files.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
ref_free (gpointer p)
{
  Ref *r = p;
  g_free (r->file);
  g_hash_table_unref (r->meta);
  g_array_free (r->rows, TRUE);
  g_free (r);
}

const char *
ref_meta (const Ref *r, const char *key)
{
  const char *v = g_hash_table_lookup (r->meta, key);
  return v ? v : "";
}

/* The cells of a printed table line "| a | b |", stripped of '*'. */
static char **
cells (const char *line)
{
  g_autofree char *s = g_strstrip (g_strdup (line));
  char *t = s;
  if (*t == '|')
    t++;
  if (*t && t[strlen (t) - 1] == '|')
    t[strlen (t) - 1] = 0;
  char **c = g_strsplit (t, "|", -1);
  for (int i = 0; c[i]; i++) {
    GString *g = g_string_new (NULL);
    for (const char *q = c[i]; *q; q++)
      if (*q != '*')
        g_string_append_c (g, *q);
    g_free (c[i]);
    c[i] = g_strstrip (g_string_free (g, FALSE));
  }
  return c;
}

static int
find_col (char **hdr, const char *exact, const char *contains)
{
  for (int i = 0; hdr[i]; i++) {
    g_autofree char *low = g_ascii_strdown (hdr[i], -1);
    if ((exact && g_ascii_strcasecmp (hdr[i], exact) == 0) || (contains && strstr (low, contains)))
      return i;
  }
  return -1;
}

/* Gradient accumulation from the printed table, where it prints it: the
 * steps column ("64 and 32": full precision then mixed, or "256 , 512"
 * when its header names mixed precision first), matched by GPU count. */
static void
accumulation (Ref *r, GPtrArray *table)
{
  if (table->len < 3)
    return;
  g_auto (GStrv) hdr = cells (table->pdata[0]);
  int acc = find_col (hdr, NULL, "accumulation steps");
  if (acc < 0)
    acc = find_col (hdr, NULL, "gradient accumulation");
  if (acc < 0)
    return;
  g_autofree char *acc_low = g_ascii_strdown (hdr[acc], -1);
  gboolean amp_first = strstr (acc_low, "mixed precision,") != NULL;
  /* GPUs from "Nodes" (or "Num Nodes") times "GPUs / node" (else the
   * file's gpus_per_node), or a "GPUs" column */
  int nodes = find_col (hdr, NULL, "nodes"), gpn = find_col (hdr, "GPUs / node", NULL), gpus = find_col (hdr, "GPUs", NULL);
  int per_node = atoi (ref_meta (r, "gpus_per_node"));
  for (guint i = 2; i < table->len; i++) {
    g_auto (GStrv) c = cells (table->pdata[i]);
    int n = (int) g_strv_length (c);
    if (acc >= n)
      continue;
    int g = nodes >= 0 && gpn >= 0 && MAX (nodes, gpn) < n ? atoi (c[nodes]) * atoi (c[gpn])
            : nodes >= 0 && nodes < n && per_node > 0 ? atoi (c[nodes]) * per_node
            : gpus >= 0 && gpus < n ? atoi (c[gpus]) : 0;
    g_auto (GStrv) parts = g_regex_split_simple ("\\s*(?:and|,)\\s*", c[acc], 0, 0);
    if (g <= 0 || g_strv_length (parts) < 2)
      continue;
    for (guint k = 0; k < r->rows->len; k++) {
      Row *row = &g_array_index (r->rows, Row, k);
      gboolean amp = g_str_equal (row->prec, "amp");
      if (row->gpus == g)
        row->accum = MAX (1, atoi (parts[amp == amp_first ? 0 : 1]));
    }
  }
}

Ref *
ref_load (const char *path)
{
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  Ref *r = g_new0 (Ref, 1);
  r->file = g_path_get_basename (path);
  r->meta = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  r->rows = g_array_new (FALSE, FALSE, sizeof (Row));
  g_autoptr (GPtrArray) table = g_ptr_array_new ();
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean block = FALSE;
  for (int i = 0; lines[i]; i++) {
    char *l = lines[i];
    if (dps_ref_meta_line (r->meta, l))
      continue;
    if (g_str_has_prefix (l, "#| "))
      g_ptr_array_add (table, l + 3);
    else if (g_str_has_prefix (l, "gpus nodes precision"))
      block = TRUE;
    else if (block && *l) {
      Row row = { .accum = 1 };
      g_assert_cmpint (sscanf (l, "%d %d %7s %lf %lf", &row.gpus, &row.nodes, row.prec, &row.batch, &row.throughput), ==, 5);
      g_array_append_val (r->rows, row);
    }
  }
  accumulation (r, table);
  /* steps the table does not print but its file infers ("#% accumulation:
   * N (why)") */
  int inferred = atoi (ref_meta (r, "accumulation"));
  for (guint k = 0; inferred > 1 && k < r->rows->len; k++)
    if (g_array_index (r->rows, Row, k).accum == 1)
      g_array_index (r->rows, Row, k).accum = inferred;
  /* a printed batch that is the accumulated one (the file's batch_printed
   * key says so) */
  if (g_str_equal (dps_ref_choice (ref_meta (r, "batch_printed"), (const char *[]) { "micro", "accumulated", NULL }),
                   "accumulated"))
    for (guint k = 0; k < r->rows->len; k++) {
      Row *row = &g_array_index (r->rows, Row, k);
      row->batch = MAX (1, round (row->batch / row->accum));
    }
  return r;
}

GPtrArray *
load_all (void)
{
  GPtrArray *refs = g_ptr_array_new_with_free_func (ref_free);
  g_autoptr (GPtrArray) paths = dps_ref_files (DPS_REFERENCE_DIR);
  for (guint i = 0; i < paths->len; i++)
    g_ptr_array_add (refs, ref_load (paths->pdata[i]));
  g_assert_cmpint (refs->len, >=, 30);
  return refs;
}

/* The row of r with the fewest GPUs in precision prec (NULL if none). */
const Row *
base_row (const Ref *r, const char *prec)
{
  const Row *best = NULL;
  for (guint k = 0; k < r->rows->len; k++) {
    const Row *row = &g_array_index (r->rows, Row, k);
    if (g_str_equal (row->prec, prec) && (!best || row->gpus < best->gpus))
      best = row;
  }
  return best;
}

/* The row of r at gpus GPUs in precision prec (fails if none). */
const Row *
find_row (const Ref *r, int gpus, const char *prec)
{
  for (guint k = 0; k < r->rows->len; k++) {
    const Row *row = &g_array_index (r->rows, Row, k);
    if (row->gpus == gpus && g_str_equal (row->prec, prec))
      return row;
  }
  g_assert_not_reached ();
}

Ref *
load_one (const char *name)
{
  g_autofree char *p = g_build_filename (DPS_REFERENCE_DIR, name, NULL);
  return ref_load (p);
}
