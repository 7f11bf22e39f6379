/* nccl-issue — one rank's part of a measured collective through NCCL, as
 * both GPU calibrations issue it (gpu-nccl.c, one process driving every
 * GPU; mpi-worker.c, one process a GPU).  Include after nccl.h. */
#pragma once

#include "sim/coll-types.h"

/* Rank `rank` of n's part of op over count floats in all (an all-gather's
 * output, a reduce-scatter's input: count a multiple of n), in place with
 * its share at its place in recv, as nccl-tests does. */
static inline ncclResult_t
dps_nccl_issue (DpsCollOp op, ncclComm_t comm, cudaStream_t s, float *send, float *recv, size_t count, int rank,
                int n, int in_place)
{
  size_t per = count / (size_t) n;
  if (op == DPS_OP_ALLGATHER)
    return ncclAllGather (in_place ? recv + (size_t) rank * per : send, recv, per, ncclFloat, comm, s);
  if (op == DPS_OP_REDUCE_SCATTER)
    return ncclReduceScatter (in_place ? recv : send, in_place ? recv + (size_t) rank * per : recv, per, ncclFloat,
                              ncclSum, comm, s);
  return ncclAllReduce (in_place ? recv : send, recv, count, ncclFloat, ncclSum, comm, s);
}
