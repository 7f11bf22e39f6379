/* coll-buffers — one measured collective's buffers, as every calibration
 * worker sizes and checks them (gpu-nccl.c; mpi-worker.c's MPI and NCCL
 * modes): floats, each rank sending its rank + 1, as nccl-tests does. */
#pragma once

#include <stddef.h>
#include "sim/coll-types.h"

/* The floats in all for a size of bytes (an all-gather's output, a
 * reduce-scatter's input, as nccl-tests counts them): at least one, and
 * for those two whole shares of the n ranks, at least one each. */
static inline size_t
dps_cal_count (DpsCollOp op, double bytes, size_t n)
{
  size_t count = bytes >= 4 ? (size_t) (bytes / 4) : 1;
  if (op != DPS_OP_ALLREDUCE)
    count = count < n ? n : count / n * n;
  return count;
}

/* The elements of one rank's result (count floats in all) that are wrong:
 * an all-reduce's every element and a reduce-scatter's share are
 * 1 + 2 + ... + n; an all-gather's share j is j + 1. */
static inline long
dps_cal_wrong (DpsCollOp op, const float *recv, size_t count, int n)
{
  size_t per = count / (size_t) n, m = op == DPS_OP_REDUCE_SCATTER ? per : count;
  long wrong = 0;
  for (size_t i = 0; i < m; i++)
    wrong += recv[i] != (op == DPS_OP_ALLGATHER ? (float) (i / per + 1) : (float) n * (n + 1) / 2);
  return wrong;
}
