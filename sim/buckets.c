/* buckets.c — see buckets.h. */
#include "sim/buckets.h"

/* Assigns the model's parameters to buckets; cap_bytes > 0. */
DpsBuckets *
dps_buckets_assign (const DpsModel *model, double cap_bytes, double first_cap_bytes, int elem_bytes)
{
  g_return_val_if_fail (cap_bytes > 0 && elem_bytes > 0, NULL);
  DpsBuckets *b = g_new0 (DpsBuckets, 1);
  int n = dps_model_n_tensors (model);
  b->n_tensors = n;
  b->order = g_new (int, MAX (n, 1));
  b->buckets = g_array_new (FALSE, TRUE, sizeof (DpsBucket));
  for (int i = 0; i < n; i++)
    b->order[i] = n - 1 - i;
  double limit = first_cap_bytes > 0 ? first_cap_bytes : cap_bytes;
  DpsBucket cur = { .first = 0, .ready_layer = G_MAXINT };
  for (int i = 0; i < n; i++) {
    const DpsTensor *t = dps_model_tensor (model, b->order[i]);
    cur.n_tensors++;
    cur.numel += t->numel;
    cur.bytes += (double) t->numel * elem_bytes;
    cur.ready_layer = MIN (cur.ready_layer, t->layer);
    if (cur.bytes >= limit) {
      g_array_append_val (b->buckets, cur);
      cur = (DpsBucket) { .first = i + 1, .ready_layer = G_MAXINT };
      limit = cap_bytes;
    }
  }
  if (cur.n_tensors > 0)
    g_array_append_val (b->buckets, cur);
  return b;
}

void
dps_buckets_free (DpsBuckets *b)
{
  if (!b)
    return;
  g_array_free (b->buckets, TRUE);
  g_free (b->order);
  g_free (b);
}

int
dps_buckets_count (const DpsBuckets *b)
{
  return (int) b->buckets->len;
}

const DpsBucket *
dps_buckets_get (const DpsBuckets *b, int i)
{
  return &g_array_index (b->buckets, DpsBucket, i);
}
