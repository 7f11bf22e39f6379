/* cpu-calibrate — calibration without GPUs: MPI collectives over sizes and
 * rank counts (dpscale launches mpirun itself, oversubscribing when ranks
 * exceed cores), OpenBLAS GEMM throughput, and per-layer times of a model
 * computed with the same GEMMs the CPU runner uses. */
#pragma once

#include "calibrate/caldata.h"
#include "calibrate/profile.h"
#include "sim/model.h"
#include "real/netemu.h"

typedef void (*DpsProgressFn) (const char *message, void *data);

/* Measures op (one of DPS_CAL_OPS) at each rank count (one mpirun each)
 * and size: with MPI on CPU cores, or with NCCL (nccl), one process per
 * GPU; on this machine or over emulated nodes (net; NULL: none).  An
 * all-reduce is timed after d->gap_s without communication where that is
 * set (MPI, one machine); the others back to back.  Errors: no mpirun, no
 * worker program, mpirun failing (a rank that died), a timeout, a wrong
 * result. */
gboolean dps_mpi_collective (gboolean nccl, DpsCollOp op, const DpsNetEmu *net, DpsCalData *d, const int *ranks,
                             int n_ranks, const double *sizes, int n_sizes, double min_time_s, int reps,
                             double timeout_s, DpsProgressFn progress, void *pdata, GError **error);
/* As dps_mpi_collective on this machine's cores, through PyTorch's
 * torch.distributed with the gloo backend (calibrate/gloo-worker.py under
 * dps_launch_python's python3, its ranks started by real/torch-launch.py as
 * a PyTorch job's are): all-reduce and
 * all-gather, as DDP calls them; a reduce-scatter is refused (PyTorch's
 * gloo has none of tensors).  Errors: no worker script, a python3 without
 * torch, a timeout, a wrong result. */
gboolean dps_gloo_collective (DpsCollOp op, DpsCalData *d, const int *ranks, int n_ranks, const double *sizes,
                              int n_sizes, double min_time_s, int reps, double timeout_s, DpsProgressFn progress,
                              void *pdata, GError **error);
/* For each rank count, the slowdowns of compute and all-reduces of bytes
 * overlapping (MPI's, or gloo's where gloo is set) and the copy bandwidth
 * while every rank copies, appended to p->contention. */
gboolean dps_cpu_contention (DpsProfile *p, gboolean gloo, const int *ranks, int n_ranks, double bytes, int gemm_n,
                             double seconds, double timeout_s, GError **error);
gboolean dps_cpu_layer_times_ranks (DpsProfile *p, const DpsModel *m, int batch, const int *ranks, int n_ranks,
                                    double min_time_s, double timeout_s, GError **error);
void     dps_cpu_gemm_sweep (DpsProfile *p, const int *dims, int n_dims, double min_time_s);
/* per-layer times (and *sgd_s, the runner's SGD step; 0 when priced by
 * GEMMs) of one rank */
void     dps_cpu_layer_times (const DpsModel *m, int batch, double min_time_s, double *fwd_s, double *bwd_s,
                              double *sgd_s, double *cv);
double   dps_cpu_gemm_time (int m, int n, int k, double min_time_s);
