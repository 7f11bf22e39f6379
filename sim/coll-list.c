/* coll-list.c — see coll.h (dps_coll_list_mask). */
#include "sim/coll.h"
#include "sim/base/error.h"

/* NCCL's list syntax, as NCCL_ALGO and NCCL_PROTO take it: names
 * separated by commas, in any case, the whole list excluding them when it
 * starts with '^' ("^NVLS", "Tree,Ring", "simple").  A list names exactly
 * what may run; an exclusion takes its names from *mask (start it at what
 * NCCL may choose).  NVLSTree is NVLS across nodes here, and
 * CollNetDirect and CollNetChain (or CollNet) are collnet (coll-collnet.c),
 * PAT pat (coll-pat.c); hier, dpscale's own, may be named.
 * key names the setting in messages.  FALSE with error on an unknown name
 * or a list that leaves nothing to run (*mask then unchanged). */
gboolean
dps_coll_list_mask (const char *key, const char *list, gboolean algo, guint *mask, GError **error)
{
  gboolean exclude = list[0] == '^';
  guint m = 0;
  g_auto (GStrv) names = g_strsplit (list + (exclude ? 1 : 0), ",", -1);
  for (int i = 0; names[i]; i++) {
    char *n = g_strstrip (names[i]);
    if (!n[0])
      continue;
    if (algo) {
      DpsAlgo a;
      if (g_ascii_strcasecmp (n, "nvlstree") == 0)
        a = DPS_ALGO_NVLS;
      else if (g_ascii_strncasecmp (n, "collnet", 7) == 0)
        a = DPS_ALGO_COLLNET;
      else if (!dps_algo_parse (n, &a)) {
        g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                     "%s: unknown algorithm '%s' (NCCL's Ring, Tree, NVLS, NVLSTree, CollNet, PAT, or hier)", key, n);
        return FALSE;
      }
      m |= 1u << a;
    } else {
      DpsProto p;
      if (!dps_proto_parse (n, &p)) {
        g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: unknown protocol '%s' (LL, LL128, Simple)", key, n);
        return FALSE;
      }
      m |= 1u << p;
    }
  }
  guint out = exclude ? *mask & ~m : m;
  if (!out) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s=%s leaves nothing NCCL could run", key, list);
    return FALSE;
  }
  *mask = out;
  return TRUE;
}
