/* reference-files — what the training suites' tests share in reading
 * tests/reference/{ddp,fsdp,parallel}: a folder's .ref files, their
 * "#% key: value" lines, and a zoo model at another sequence length. */
#pragma once

#include <glib.h>
#include "sim/model.h"

/* A training suite's table: its file's name, its "#% key: value" facts,
 * and its rows (the test's own struct, one per row of the machine-read
 * block). */
typedef struct {
  char       *file;
  GHashTable *meta;
  GArray     *rows;
} DpsRefTable;

/* Reads path: its facts, and each line after the one starting with header
 * (blank and '#' lines skipped), split on blanks into n_fields fields
 * (asserted), given to row to fill one element of row_size bytes.  The
 * folder's tables, by name: dps_ref_tables.  "-" in a numeric field reads
 * as -1 (not printed): dps_ref_num. */
typedef void (*DpsRefRowFn) (char **fields, void *row);
DpsRefTable *dps_ref_table_read (const char *path, const char *header, guint n_fields, gsize row_size,
                                 DpsRefRowFn row);
GPtrArray   *dps_ref_tables (const char *dir, const char *header, guint n_fields, gsize row_size, DpsRefRowFn row);
void         dps_ref_table_free (gpointer table);
const char  *dps_ref_table_meta (const DpsRefTable *t, const char *key);   /* "" when absent */
double       dps_ref_num (const char *field);
/* The shipped topology a table names ("#% topology:", its first word:
 * jean-zay-a100, v100-mesh-1x100g), else that of its "#% gpu:" fact: H200
 * hgx-h200-roce, H100 dgx-h100, V100 dgx1-v100, else (the A100s)
 * dgx-a100.  A new string. */
char        *dps_ref_topology (const DpsRefTable *t);
/* The median of errs' |values| (double), and in *worst the largest; 0 for none. */
double       dps_ref_median_abs (GArray *errs, double *worst);

/* A "#% key:" value that states a choice: its first word (the rest says
 * why), asserted to be one of choices (NULL-terminated); that choice. */
const char *dps_ref_choice (const char *value, const char *const *choices);

/* The paths of dir's .ref files, by name (asserts the folder opens). */
GPtrArray *dps_ref_files (const char *dir);
/* A "#% key: value" line into meta (key and value stripped): TRUE; any
 * other line: FALSE, meta untouched. */
gboolean   dps_ref_meta_line (GHashTable *meta, const char *line);
/* root/sim/models/name.model with its "seq = " line set to seq tokens. */
DpsModel  *dps_ref_zoo_model (const char *root, const char *name, int seq);
