/* json-util.c — see json-util.h. */
#include "sim/base/json-util.h"

#include <math.h>

/* Replaces every NaN or infinite number below node by null: no JSON reader
 * accepts the "nan.0" or "inf.0" that json-glib would write. */
static void
finite_only (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node)) {
    JsonObjectIter it;
    const char *name;
    JsonNode *member;
    json_object_iter_init (&it, json_node_get_object (node));
    while (json_object_iter_next (&it, &name, &member))
      finite_only (member);
  } else if (JSON_NODE_HOLDS_ARRAY (node)) {
    JsonArray *a = json_node_get_array (node);
    for (guint i = 0; i < json_array_get_length (a); i++)
      finite_only (json_array_get_element (a, i));
  } else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_DOUBLE
             && !isfinite (json_node_get_double (node)))
    json_node_init_null (node);
}

/* Returns the builder's document as text (a new string), pretty-printed or
 * on one line. */
char *
dps_json_builder_to_text (JsonBuilder *builder, gboolean pretty)
{
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (builder);
  finite_only (root);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, pretty);
  return json_generator_to_data (gen, NULL);
}

void
dps_json_str (JsonBuilder *b, const char *key, const char *v)
{
  json_builder_set_member_name (b, key);
  if (v)
    json_builder_add_string_value (b, v);
  else
    json_builder_add_null_value (b);
}

void
dps_json_num (JsonBuilder *b, const char *key, double v)
{
  json_builder_set_member_name (b, key);
  json_builder_add_double_value (b, v);
}

void
dps_json_int (JsonBuilder *b, const char *key, gint64 v)
{
  json_builder_set_member_name (b, key);
  json_builder_add_int_value (b, v);
}

void
dps_json_bool (JsonBuilder *b, const char *key, gboolean v)
{
  json_builder_set_member_name (b, key);
  json_builder_add_boolean_value (b, v);
}

void
dps_json_append (GString *out, JsonBuilder *builder)
{
  g_autofree char *text = dps_json_builder_to_text (builder, TRUE);
  g_string_append (out, text);
  g_string_append_c (out, '\n');
}
