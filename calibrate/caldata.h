/* caldata — measured collective times, whatever measured them (MPI on
 * CPUs, NCCL on GPUs, imported nccl-tests logs): one point per (operation,
 * rank count, message size), in nccl-tests' size convention: an
 * all-reduce's bytes are each rank's buffer, an all-gather's its whole
 * output and a reduce-scatter's its whole input (n times a rank's share). */
#pragma once

#include <glib.h>
#include "sim/coll-types.h"

typedef struct {
  DpsCollOp op;         /* all-reduce, all-gather or reduce-scatter (0: all-reduce) */
  int     ranks;
  int     nodes;
  double  bytes;
  double  time_s;       /* out-of-place */
  double  time_ip_s;    /* in-place; 0 when not measured */
  int     wrong;        /* elements that failed the correctness check; -1 unknown */
  double  estimate_s;   /* the library's own estimate (ncclGroupSimulateEnd); 0 none */
  double  cv;           /* spread of single timings (gap mode): robust sd / median; 0 unknown */
  double  handoff_s;    /* gap mode: handing it to a communication thread and back, less the
                         * all-reduce (median); 0 unknown */
  double  busy_time_s;  /* gap mode, computing ranks: handed over while every rank computes on
                         * until it is done, from the hand-over to its end (median); 0 unknown */
  gboolean held_out;    /* not used in the fit: it checks the fit */
} DpsCalPoint;

typedef struct {
  int    dtype;         /* DpsDtype */
  double m, n, k;
  double flops;         /* FLOP/s reached */
} DpsGemmPoint;

typedef struct {
  GArray *points;       /* DpsCalPoint */
  char   *backend;      /* "cpu-mpi", "gpu-nccl", "nccl-tests" */
  char   *library;      /* "Open MPI 4.1.4", "NCCL 2.28.9" */
  char   *host;
  char   *devices;      /* GPU or CPU names */
  char   *env;          /* NCCL_ALGO=... and similar */
  char   *source;       /* files imported, command run */
  double  gap_s;        /* > 0: each all-reduce on one machine (time_s, in place) timed after this
                         * long without communication, as DDP issues them once a step (emulated
                         * nodes, all-gathers, reduce-scatters: back to back, out of place);
                         * 0: back to back */
  gboolean gap_emulated; /* the gap waited as the emulator's layers wait (else busy while the
                          * ranks fit the cores, as computing replicas are) */
  double  handoff_s;    /* gap mode: the median of the points' handoff_s, what a collective
                         * launched on an idle communication thread waits; 0 unknown */
} DpsCalData;

DpsCalData *dps_cal_data_new (const char *backend);
void        dps_cal_data_free (DpsCalData *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsCalData, dps_cal_data_free)
void        dps_cal_data_add (DpsCalData *d, int ranks, int nodes, double bytes, double time_s,
                              double time_ip_s, int wrong);
/* The operations calibration measures and imports (their names in a
 * profile's groups, "measure.allgather.8.1", are dps_coll_op_name's). */
#define DPS_CAL_OPS ((1u << DPS_OP_ALLREDUCE) | (1u << DPS_OP_ALLGATHER) | (1u << DPS_OP_REDUCE_SCATTER))
/* The group a point belongs to, as a key: its operation, rank and node
 * counts (each count below 2^28). */
guint64     dps_cal_point_group (const DpsCalPoint *p);
double      dps_cal_busbw_Bps (const DpsCalPoint *p);   /* nccl-tests' busbw of its operation */
/* The CPU cores an MPI calibration ran on, as its devices line says them
 * ("N CPU cores", which dps_cal_data_set_cores writes); 0 for any other
 * devices line. */
void        dps_cal_data_set_cores (DpsCalData *d, int cores);
/* Whether d was measured on CPU cores ("cpu-mpi", "cpu-gloo"), not GPUs. */
gboolean     dps_cal_data_on_cpu (const DpsCalData *d);
int         dps_cal_data_cores (const DpsCalData *d);
