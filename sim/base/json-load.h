/* json-load — the one way dpscale parses JSON text (Hugging Face configs,
 * torch.profiler traces), bounded before json-glib sees it: json-glib's
 * parser recurses once per level of nesting (100,000 levels, which a 1 KB
 * gzip inflates to, overflow the stack) and keeps every value as a node
 * (about 80 bytes a number, 600 an object), so the text is first scanned
 * once, in linear time and no memory, for its depth and its number of
 * values and objects. */
#pragma once

#include <json-glib/json-glib.h>

/* Arrays and objects within each other: a torch.profiler trace nests 8
 * deep (tests/data/trace), a config.json 3. */
#define DPS_JSON_MAX_DEPTH 64
/* Values of any kind, and objects among them: the resnet18 trace of
 * tests/data/trace holds 150 thousand values in 2.3 MB, so a trace of
 * 64 MiB (the most a file may hold) about 4.3 million, 430 thousand of
 * them objects; json-glib holds 8 million numbers in about 0.7 GB. */
#define DPS_JSON_MAX_VALUES (8u << 20)
#define DPS_JSON_MAX_OBJECTS (1u << 20)

JsonParser *dps_json_load (const char *name, const char *data, gssize len, const char *what, GError **error);
