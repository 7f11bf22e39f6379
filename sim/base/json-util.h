/* json-util — JSON text from a json-glib builder, for the result writers. */
#pragma once

#include <json-glib/json-glib.h>

char *dps_json_builder_to_text (JsonBuilder *builder, gboolean pretty);
/* Appends the builder's document to out, pretty-printed, with a newline. */
void  dps_json_append (GString *out, JsonBuilder *builder);

/* A member of the object being built: a string, a number (NaN and
 * infinities become null when the text is written), a whole number, a
 * boolean. */
void dps_json_str (JsonBuilder *b, const char *key, const char *v);
void dps_json_num (JsonBuilder *b, const char *key, double v);
void dps_json_int (JsonBuilder *b, const char *key, gint64 v);
void dps_json_bool (JsonBuilder *b, const char *key, gboolean v);
