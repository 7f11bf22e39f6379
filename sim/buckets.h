/* buckets — PyTorch DDP's gradient buckets (reducer.cpp,
 * compute_bucket_assignment_by_size).
 *
 * Parameters are taken in reverse definition order (roughly the order in
 * which backward produces their gradients) and packed greedily: a tensor
 * joins the open bucket, and the bucket closes as soon as its size reaches
 * the current limit.  The first bucket's limit is first_cap_bytes (PyTorch:
 * 1 MiB after the buckets are rebuilt at the end of the first iteration),
 * every later one's cap_bytes (bucket_cap_mb, default 25 MiB).  A bucket is
 * ready once the backward of the earliest layer holding one of its tensors
 * has run.
 */
#pragma once

#include "sim/model.h"

typedef struct {
  int    first;        /* index into order[] */
  int    n_tensors;
  gint64 numel;
  double bytes;        /* numel x gradient element size */
  int    ready_layer;  /* lowest layer index among its tensors */
} DpsBucket;

typedef struct {
  GArray *buckets;     /* DpsBucket, in launch order */
  int    *order;       /* tensor indices, reverse definition order */
  int     n_tensors;
} DpsBuckets;

DpsBuckets *dps_buckets_assign (const DpsModel *model, double cap_bytes, double first_cap_bytes, int elem_bytes);
void        dps_buckets_free (DpsBuckets *b);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsBuckets, dps_buckets_free)
int         dps_buckets_count (const DpsBuckets *b);
const DpsBucket *dps_buckets_get (const DpsBuckets *b, int i);
