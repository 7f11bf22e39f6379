/* profile — a calibration profile: measurements, the fit, and where they
 * came from, as a GLib key file that can be read and trusted elsewhere.
 *
 * [profile]            format, backend, created, host, library, devices, env, source,
 *                      gap_ms, gap_waits (all-reduces timed each after this long without
 *                      communication, waiting busy or as the emulator's layers)
 * [machine]            (CPU backend) the calibrated machine: ranks_per_node, name
 * [fit.R.N]            the fit for R ranks on N nodes: regimes, max_bytes, latency_us,
 *                      bw_GBps, rms_error
 * [network]            the joint fit of the simulator's own figures (netfit.h): topology
 *                      (what they scale), intra_bw, nic_bw, intra_lat, net_lat, nvls (each a
 *                      multiplier, with NAME_sd), rms_log, points, ring_only
 * [compute]            gemm_fp32_gflops (best), copy_GBps, gemm = dtype,m,n,k,GFLOP/s; ...
 * [layers.R.MODEL]     R ranks computing at once: batch, forward_ms, backward_ms
 *                      (one entry per layer; [layers.MODEL] is one rank),
 *                      sgd_ms, compute_cv (optional: the runner's SGD step, and
 *                      the variation of a step's compute from run to run)
 * [contention.R]       R ranks overlapping compute and all-reduce: compute, comm
 *                      (slowdowns), copy_GBps (one rank's memory bandwidth)
 * [measure.allreduce.R.N]  R ranks on N nodes: size_bytes, time_us, time_inplace_us,
 *                      wrong, held_out, nccl_estimate_us, cv (lists, one entry per size;
 *                      cv: the spread of single timings, gap mode)
 *
 * Using a profile: the fitted latencies and bandwidths replace the
 * topology's and NCCL's defaults (each regime takes one protocol slot, by
 * size), per-layer times replace the roofline for a model measured, and on
 * CPUs the [machine] section describes the topology itself.
 */
#pragma once

#include "calibrate/caldata.h"
#include "calibrate/fit.h"
#include "calibrate/netfit.h"
#include "sim/coll.h"
#include "sim/topo.h"
#include "sim/model.h"

/* The newest profile format this dpscale reads and writes: 2 holds
 * measured all-gathers or reduce-scatters ([measure.allgather.R.N], ...),
 * which a reader of format 1 would refuse as unknown groups; a profile of
 * all-reduces alone is still written as format 1, for older readers. */
#define DPS_PROFILE_FORMAT 2

typedef struct {
  char  *model;
  int    batch;
  int    ranks;            /* measured with this many ranks computing at once */
  GArray *fwd_s, *bwd_s;   /* double per layer */
  double  sgd_s;           /* the runner's SGD step over the model's parameters, 0 unknown */
  double  compute_cv;      /* variation (sd / mean) of a step's compute from run to run, 0 unknown */
} DpsLayerTimes;

typedef struct {
  int    ranks;
  double compute, comm;    /* slowdowns while overlapping (fractions) */
  double copy_Bps;         /* memory copy bandwidth of one rank while all copy */
} DpsContention;

typedef struct {
  char      *path;
  char      *created;
  DpsCalData *data;
  DpsFit     fit;
  int        machine_ranks;        /* CPU machine: ranks per node; 0 if none */
  int        machine_nodes;        /* emulated nodes it was calibrated over (1: one machine) */
  double     machine_link_Bps;     /* their shaped links, bytes/s each way (0: not said, older profiles) */
  char      *machine_name;
  double     gemm_peak_flops;      /* best measured fp32 GEMM, FLOP/s */
  GArray    *gemm;                 /* DpsGemmPoint */
  double     copy_bw_Bps;          /* device-to-device copy bandwidth (GPU), 0 unknown */
  GPtrArray *layers;               /* DpsLayerTimes */
  GArray    *contention;           /* DpsContention, per rank count */
  char      *run_section;          /* a [run.*] section: step times of a training run (refused by validate) */
  DpsNetFit  net;                  /* the joint network fit; net.fitted FALSE in older profiles */
  char      *net_topology;         /* the topology it scales (a shipped name or a path); NULL: the machine */
} DpsProfile;

DpsProfile *dps_profile_new (DpsCalData *data);
void        dps_profile_free (DpsProfile *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsProfile, dps_profile_free)
DpsProfile *dps_profile_load (const char *path, GError **error);
DpsProfile *dps_profile_load_data (const char *name, const char *data, gssize len, GError **error);
gboolean    dps_profile_save (const DpsProfile *p, const char *path, GError **error);
/* How much longer a rank's compute takes while ranks ranks compute at
 * once on the calibrated machine (sharing its cores, caches and memory):
 * the first model measured both alone and at ranks, its layers' total at
 * ranks over alone; 1 where none was. */
double      dps_profile_colocation (const DpsProfile *p, int ranks);
DpsLayerTimes *dps_profile_add_layers (DpsProfile *p, const char *model, int batch, int ranks, const double *fwd,
                                       const double *bwd, int n);
void        dps_profile_apply_params (const DpsProfile *p, int ranks, int nodes, DpsCollParams *params,
                                      guint *algo_mask, guint *proto_mask);
void        dps_profile_apply_topo (const DpsProfile *p, DpsTopoSpec *spec, int ranks, int nodes);
DpsTopoSpec *dps_profile_machine_spec (const DpsProfile *p, int ranks, int nodes);
gboolean    dps_profile_fit_network (DpsProfile *p, const char *topology, GError **error);
gboolean    dps_profile_uses_network (const DpsProfile *p, int ranks, int nodes);
const DpsContention *dps_profile_contention (const DpsProfile *p, int ranks);
/* how long a collective handed over while the replicas go on computing
 * waits to run, measured at the rank count nearest to ranks (0: unknown) */
double      dps_profile_busy_wait (const DpsProfile *p, int ranks);
gboolean    dps_profile_apply_model (const DpsProfile *p, DpsModel *m, int ranks);
/* the entry for m (by name and layer count) measured with the rank count
 * nearest to ranks, the one apply_model takes; NULL when there is none */
const DpsLayerTimes *dps_profile_layers_for (const DpsProfile *p, const DpsModel *m, int ranks);
