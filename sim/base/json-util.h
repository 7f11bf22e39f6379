/* json-util — JSON text from a json-glib builder, for the result writers. */
#pragma once

#include <json-glib/json-glib.h>

char *dps_json_builder_to_text (JsonBuilder *builder, gboolean pretty);
