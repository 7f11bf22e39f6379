/* reference — a published nccl-tests result with the facts of the system
 * that measured it (tests/reference/README.md): header lines
 * "#% key: value" (system, test, gpu, gpus_per_node, nodes, ranks, fabric,
 * nccl, env, source, topology, ...), then the table exactly as printed,
 * which the nccl-tests log reader reads (its footer may be missing: a
 * pasted table often ends at its last row).  A plain nccl-tests log loads
 * too, with no facts beyond what its own lines say.
 *
 * A log of several runs holds several tables (dps_reference_load_all
 * reads each, dps_reference_parse the first); a reference file holds one.
 *
 * What the header decides: the operation (the log's own "Collective test
 * starting" line; else test: all_reduce_perf, all_gather_perf,
 * reduce_scatter_perf; else busbw / algbw against the ranks and the redop
 * column: dps_nccl_log_op), the rank and host counts where
 * the log has no "#  Rank" lines, the dpscale topology that describes the
 * hardware (topology), and what NCCL was told (env: NCCL_ALGO, NCCL_PROTO
 * in NCCL's syntax, "^" excluding; NCCL_NVLS_ENABLE=0; NCCL_MIN_NCHANNELS,
 * the channels NCCL runs at least: the machine-read
 * "nccl_env" key, beside the source's own words in "env").
 */
#pragma once

#include "calibrate/caldata.h"

typedef struct {
  char       *path;
  GHashTable *meta;        /* "#%" keys -> values (strings), owned */
  DpsCalData *data;        /* the rows; every point has the file's ranks and hosts */
  int         op;          /* DpsCollOp */
  int         ranks, hosts;
  guint       algo_mask, proto_mask;   /* what the environment allowed NCCL */
  int         min_channels;            /* NCCL_MIN_NCHANNELS (0: NCCL's own count) */
  int         line;                    /* where its run starts in a log of several tables (from 1); 0: one */
} DpsReference;

DpsReference *dps_reference_load (const char *path, GError **error);
DpsReference *dps_reference_parse (const char *name, const char *text, gssize len, GError **error);
GPtrArray    *dps_reference_load_all (const char *path, char **note, GError **error);
void          dps_reference_free (DpsReference *r);
const char   *dps_reference_get (const DpsReference *r, const char *key);
gboolean      dps_nccl_env_masks (const char *env, guint *algo_mask, guint *proto_mask, GError **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsReference, dps_reference_free)
