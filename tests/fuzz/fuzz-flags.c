/* libFuzzer target: what command-line values go through: sizes (-b 8G),
 * numbers, whole-number lists (--gpus 1,2,4), element types. */
#include "sim/base/error.h"
#include "sim/coll.h"
#include "sim/device.h"

#include <string.h>

int LLVMFuzzerTestOneInput (const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
  char *s = g_strndup ((const char *) data, size);
  guint64 b;
  double d;
  gint64 i;
  DpsCollOp op;
  DpsAlgo a;
  DpsProto p;
  DpsDtype t;
  if (dps_parse_size (s, &b))
    g_assert (b <= (1ull << 50));
  if (dps_parse_double (s, &d))
    g_assert (d == d);   /* never NaN */
  dps_parse_int (s, &i);
  dps_coll_op_parse (s, &op);
  dps_algo_parse (s, &a);
  dps_proto_parse (s, &p);
  dps_dtype_parse (s, &t);
  g_free (dps_format_size (b));
  g_free (s);
  return 0;
}
