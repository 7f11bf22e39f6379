/* Unit tests of DDP's bucket assignment (sim/buckets.c). */
#include "sim/buckets.h"

static DpsModel *
five_layers (void)
{
  DpsModel *m = dps_model_new ("five");
  const gint64 sizes[] = { 100, 200, 300, 400, 500 };
  for (int i = 0; i < 5; i++) {
    char n[16];
    g_snprintf (n, sizeof n, "l%d", i);
    dps_model_add_layer (m, n, 1, 0, 0);
    dps_model_add_vector (m, n, sizes[i]);
  }
  return m;
}

/* By hand, with 1-byte elements, a first cap of 450 and a cap of 600:
 * reverse order is 500, 400, 300, 200, 100.  500 >= 450 closes bucket 0;
 * 400 + 300 = 700 >= 600 closes bucket 1; 200 + 100 is left for bucket 2.
 * Bucket 1 is ready when layer 2 (the earlier of layers 3 and 2) is done. */
static void
test_by_hand (void)
{
  g_autoptr (DpsModel) m = five_layers ();
  g_autoptr (DpsBuckets) b = dps_buckets_assign (m, 600, 450, 1);
  g_assert_cmpint (dps_buckets_count (b), ==, 3);
  g_assert_cmpfloat (dps_buckets_get (b, 0)->bytes, ==, 500);
  g_assert_cmpfloat (dps_buckets_get (b, 1)->bytes, ==, 700);
  g_assert_cmpfloat (dps_buckets_get (b, 2)->bytes, ==, 300);
  g_assert_cmpint (dps_buckets_get (b, 0)->ready_layer, ==, 4);
  g_assert_cmpint (dps_buckets_get (b, 1)->ready_layer, ==, 2);
  g_assert_cmpint (dps_buckets_get (b, 2)->ready_layer, ==, 0);
  g_assert_cmpint (b->order[0], ==, 4);
}

/* 4-byte gradients quadruple the bytes: 2000 >= 450 alone, then 1600 and
 * 1200 each reach 600 alone, then 800, then 400 left over. */
static void
test_elem_bytes (void)
{
  g_autoptr (DpsModel) m = five_layers ();
  g_autoptr (DpsBuckets) b = dps_buckets_assign (m, 600, 450, 4);
  g_assert_cmpint (dps_buckets_count (b), ==, 5);
  double sum = 0;
  for (int i = 0; i < 5; i++)
    sum += dps_buckets_get (b, i)->bytes;
  g_assert_cmpfloat (sum, ==, 4 * 1500);
}

/* A cap larger than the model: the first bucket (capped) then one more. */
static void
test_large_cap (void)
{
  g_autoptr (DpsModel) m = five_layers ();
  g_autoptr (DpsBuckets) b = dps_buckets_assign (m, 1e9, 450, 1);
  g_assert_cmpint (dps_buckets_count (b), ==, 2);
  g_assert_cmpfloat (dps_buckets_get (b, 1)->bytes, ==, 1000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/buckets/by-hand", test_by_hand);
  g_test_add_func ("/buckets/elem-bytes", test_elem_bytes);
  g_test_add_func ("/buckets/large-cap", test_large_cap);
  return g_test_run ();
}
