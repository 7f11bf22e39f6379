/* reference-ddp — the loader of the published DDP training tables of
 * tests/reference/ddp/ (.ref files, format in its README): the "#% key:
 * value" facts, the rows of the machine-read block ("gpus nodes precision
 * batch_per_gpu throughput"), and the gradient accumulation each row ran,
 * read from the printed table's own steps column where it prints one (or
 * the file's "#% accumulation:" where it infers it). */
#pragma once

#include <glib.h>

typedef struct {
  int    gpus, nodes, accum;
  char   prec[8];
  double batch, throughput;    /* batch: micro-batch per GPU */
} Row;

typedef struct {
  char       *file;
  GHashTable *meta;            /* "#% key: value" */
  GArray     *rows;            /* Row */
} Ref;

void             ref_free (gpointer p);
const char      *ref_meta (const Ref *r, const char *key);
Ref             *ref_load (const char *path);
Ref             *load_one (const char *name);
GPtrArray       *load_all (void);
const Row       *base_row (const Ref *r, const char *prec);
const Row       *find_row (const Ref *r, int gpus, const char *prec);
