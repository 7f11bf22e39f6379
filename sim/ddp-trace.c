/* ddp-trace.c — a simulated step as a Chrome trace (see ddp.h,
 * dps_ddp_write_trace). */
#include "sim/ddp.h"
#include "sim/base/file.h"
#include "sim/base/json-util.h"

#include <string.h>

/* Writes the traced trial's step (the one closest to the mean) as a Chrome trace (Perfetto and
 * chrome://tracing open it): process "compute" with one thread per replica,
 * process "communication" with the bucket all-reduces, times in us.  Errors
 * read "trace file PATH: reason". */
gboolean
dps_ddp_write_trace (const DpsDdpResult *r, const char *path, GError **error)
{
  g_return_val_if_fail (r->trace != NULL, FALSE);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "displayTimeUnit");
  json_builder_add_string_value (b, "ms");
  json_builder_set_member_name (b, "traceEvents");
  json_builder_begin_array (b);
  static const char *const procs[] = { "compute", "communication", "optimizer" };
  for (int p = 0; p < 3; p++) {
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "ph"); json_builder_add_string_value (b, "M");
    json_builder_set_member_name (b, "name"); json_builder_add_string_value (b, "process_name");
    json_builder_set_member_name (b, "pid"); json_builder_add_int_value (b, p);
    json_builder_set_member_name (b, "args");
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "name"); json_builder_add_string_value (b, procs[p]);
    json_builder_end_object (b);
    json_builder_end_object (b);
  }
  for (guint i = 0; i < r->trace->len; i++) {
    const DpsTraceEvent *ev = &g_array_index (r->trace, DpsTraceEvent, i);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "name"); json_builder_add_string_value (b, ev->name);
    json_builder_set_member_name (b, "ph"); json_builder_add_string_value (b, "X");
    json_builder_set_member_name (b, "pid"); json_builder_add_int_value (b, ev->lane >= 0 ? 0 : ev->lane == -1 ? 1 : 2);
    json_builder_set_member_name (b, "tid"); json_builder_add_int_value (b, MAX (ev->lane, 0));
    json_builder_set_member_name (b, "ts"); json_builder_add_double_value (b, ev->start_s * 1e6);
    json_builder_set_member_name (b, "dur"); json_builder_add_double_value (b, ev->dur_s * 1e6);
    json_builder_set_member_name (b, "cat");
    json_builder_add_string_value (b, ev->comm ? "allreduce" : ev->lane >= 0 ? "compute" : "optimizer");
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autofree char *text = dps_json_builder_to_text (b, FALSE);
  return dps_write_file (path, "trace file", text, strlen (text), error);
}
