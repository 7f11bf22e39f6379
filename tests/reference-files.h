/* reference-files — what the training suites' tests share in reading
 * tests/reference/{ddp,fsdp,parallel}: a folder's .ref files, their
 * "#% key: value" lines, and a zoo model at another sequence length. */
#pragma once

#include <glib.h>
#include "sim/model.h"

/* The paths of dir's .ref files, by name (asserts the folder opens). */
GPtrArray *dps_ref_files (const char *dir);
/* A "#% key: value" line into meta (key and value stripped): TRUE; any
 * other line: FALSE, meta untouched. */
gboolean   dps_ref_meta_line (GHashTable *meta, const char *line);
/* root/sim/models/name.model with its "seq = " line set to seq tokens. */
DpsModel  *dps_ref_zoo_model (const char *root, const char *name, int seq);
