/* keyfile — GLib key files (INI: [group], key = value, # comments on their
 * own lines) read with line-precise errors.
 *
 * GKeyFile parses the values; a scan of the text beside it records the line
 * of every group and key, and refuses what GKeyFile would silently accept:
 * duplicate groups or keys, and keys outside a group.  Every error message
 * reads "FILE:LINE: [group] key: what was expected".
 */
#pragma once

#include <glib.h>

typedef struct DpsKeyFile DpsKeyFile;

DpsKeyFile  *dps_key_file_load (const char *path, GError **error);
DpsKeyFile  *dps_key_file_load_data (const char *name, const char *data, gssize len, GError **error);
void         dps_key_file_free (DpsKeyFile *kf);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsKeyFile, dps_key_file_free)

const char  *dps_key_file_name (const DpsKeyFile *kf);
GKeyFile    *dps_key_file_glib (const DpsKeyFile *kf);
gboolean     dps_key_file_has_group (const DpsKeyFile *kf, const char *group);
gboolean     dps_key_file_has_key (const DpsKeyFile *kf, const char *group, const char *key);
int          dps_key_file_line (const DpsKeyFile *kf, const char *group, const char *key);
char       **dps_key_file_groups (const DpsKeyFile *kf, gsize *n);

void         dps_key_file_error (const DpsKeyFile *kf, const char *group, const char *key,
                                 GError **error, const char *fmt, ...) G_GNUC_PRINTF (5, 6);
gboolean     dps_key_file_require_group (const DpsKeyFile *kf, const char *group, GError **error);
gboolean     dps_key_file_check_groups (const DpsKeyFile *kf, const char *const *allowed,
                                        const char *const *prefixes, GError **error);
gboolean     dps_key_file_check_keys (const DpsKeyFile *kf, const char *group,
                                      const char *const *allowed, GError **error);

gboolean     dps_key_file_get_double (const DpsKeyFile *kf, const char *group, const char *key,
                                      gboolean required, double def, double min, double max,
                                      double *out, GError **error);
gboolean     dps_key_file_get_int (const DpsKeyFile *kf, const char *group, const char *key,
                                   gboolean required, gint64 def, gint64 min, gint64 max,
                                   gint64 *out, GError **error);
gboolean     dps_key_file_get_bool (const DpsKeyFile *kf, const char *group, const char *key,
                                    gboolean required, gboolean def, gboolean *out, GError **error);
gboolean     dps_key_file_get_string (const DpsKeyFile *kf, const char *group, const char *key,
                                      gboolean required, const char *def, char **out, GError **error);
gboolean     dps_key_file_get_choice (const DpsKeyFile *kf, const char *group, const char *key,
                                      const char *const *choices, gboolean required, int def,
                                      int *out, GError **error);
/* A list of numbers separated by ';' or ',' (empty entries skipped), its
 * length in *n; absent and not required: an empty list.  NULL with an
 * error naming the key when malformed.  The caller frees it. */
double      *dps_key_file_get_doubles (const DpsKeyFile *kf, const char *group, const char *key,
                                       gboolean required, gsize *n, GError **error);
