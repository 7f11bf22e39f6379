/* json-util.c — see json-util.h. */
#include "sim/base/json-util.h"

/* Returns the builder's document as text (a new string), pretty-printed or
 * on one line. */
char *
dps_json_builder_to_text (JsonBuilder *builder, gboolean pretty)
{
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (builder);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, pretty);
  return json_generator_to_data (gen, NULL);
}
