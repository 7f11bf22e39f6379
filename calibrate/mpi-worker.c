/* dpscale-mpi-worker — the MPI side of CPU calibration, started by
 * `dpscale calibrate` under mpirun.
 *
 *   dpscale-mpi-worker allreduce SIZES MIN_TIME_S REPS [GAP_S busy|emulated]
 *   dpscale-mpi-worker allgather|reducescatter SIZES MIN_TIME_S REPS
 *
 * For each size (bytes, comma-separated; an all-gather's whole output, a
 * reduce-scatter's whole input, as nccl-tests counts them, rounded down to
 * whole shares of the ranks) it times MPI_Allreduce, MPI_Allgather or
 * MPI_Reduce_scatter_block of floats
 * (sum) out of place and in place, as nccl-tests does: warm-up, then REPS
 * batches of as many iterations as fill MIN_TIME_S / REPS, each batch's time
 * the slowest rank's; the median batch is reported.  The out-of-place result
 * is checked: every element of an all-reduce (of a reduce-scatter's share)
 * must equal 1 + 2 + ... + n, an all-gather's share j j + 1.  Rank 0 prints
 *   # library NAME
 *   size_bytes time_s time_inplace_s wrong cv handoff_s busy_time_s
 * one line per size, as soon as it is measured (cv: the spread of single
 * timings in GAP_S mode, else 0; handoff_s: in GAP_S mode the median round
 * trip of handing the all-reduce to the thread and being told it is done,
 * less the all-reduce, else 0; busy_time_s: with computing ranks, every
 * other time the all-reduce is handed over while every rank goes on
 * computing (GEMMs, as backward goes on after a bucket fills) until it is
 * done: from the hand-over to the end, the slowest rank's median, which
 * holds the wait for a core and the slowdown of sharing it; else 0).  With GAP_S, time_s is an
 * in-place all-reduce as DDP issues it, handed to a communication thread
 * (as the training runner does) once after GAP_S without
 * communication (the ranks busy, as computing replicas keep their cores,
 * or asleep when they outnumber the cores; "emulated": waiting as the
 * emulator's layers do): the median of REPS x 6,
 * each the slowest rank's.  On a machine shared with others, data left
 * alone for milliseconds leaves the caches, so such an all-reduce is
 * slower than back-to-back ones (measured here: 12.6 MB, 2 ranks, 1.7 ms
 * back to back, 2.0 ms after 3 ms, 3.0 ms after 10 ms, 4.1 ms after 30 ms).
 *
 *   dpscale-mpi-worker contention SIZE GEMM_N SECONDS
 *
 * measures how compute and communication slow each other when they run at
 * once, as DDP overlaps them: every rank times GEMMs (GEMM_N, one thread)
 * alone, all-reduces of SIZE alone, then both together (the all-reduces on a
 * second thread, as the training runner does), and its memory copy
 * bandwidth while every rank copies.  Rank 0 prints
 *   contention COMPUTE_SLOWDOWN COMM_SLOWDOWN COPY_BYTES_PER_S
 * (slowdowns as fractions, the worst rank's; the copy rate the slowest).
 *
 *   dpscale-mpi-worker layers MODEL BATCH SECONDS
 *
 * times the runner's layers (real/train-net.h) in every rank at once, as co-located
 * replicas compute: caches and memory are shared.  Rank 0 prints
 *   layers L FWD_0 .. FWD_L-1 BWD_0 .. BWD_L-1 SGD CV
 * (seconds, the slowest rank's; CV the largest variation of a step's compute)
 *
 *   dpscale-mpi-worker nccl-allreduce|nccl-allgather|nccl-reducescatter SIZES MIN_TIME_S REPS
 *
 * (built with CUDA and NCCL) does the same with NCCL, one process per GPU:
 * each rank takes the GPU of its rank on its node, rank 0 makes the NCCL
 * unique id and MPI broadcasts it, so several machines calibrate the same
 * way under one mpirun. */
#include <mpi.h>
#include <pthread.h>
#include <cblas.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>
#include "sim/model.h"
#include "sim/coll.h"
#include "calibrate/coll-buffers.h"
#include "real/train-net.h"
#include "sim/base/stats.h"
#ifdef DPS_WORKER_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>
#include "calibrate/nccl-issue.h"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs iters all-reduces; returns the slowest rank's elapsed time. */
/* The collective a mode names ("allgather"): all-reduce, all-gather or
 * reduce-scatter; DPS_OP_COUNT for another name. */
static DpsCollOp
w_op (const char *name)
{
  DpsCollOp op;
  return dps_coll_op_parse (name, &op) && op != DPS_OP_BROADCAST ? op : DPS_OP_COUNT;
}

/* One collective of count floats in all (an all-gather's output, a
 * reduce-scatter's input: count a multiple of the n ranks; each rank's
 * share count / n, at its rank's place in place, as nccl-tests does). */
static void
coll (DpsCollOp op, float *send, float *recv, int count, int in_place)
{
  int n, rank;
  MPI_Comm_size (MPI_COMM_WORLD, &n);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  int per = count / n;
  if (op == DPS_OP_ALLGATHER && in_place)
    MPI_Allgather (MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, per, MPI_FLOAT, MPI_COMM_WORLD);
  else if (op == DPS_OP_ALLGATHER)
    MPI_Allgather (send, per, MPI_FLOAT, recv, per, MPI_FLOAT, MPI_COMM_WORLD);
  else if (op == DPS_OP_REDUCE_SCATTER)
    MPI_Reduce_scatter_block (in_place ? MPI_IN_PLACE : send, recv, per, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  else
    MPI_Allreduce (in_place ? MPI_IN_PLACE : send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static double
batch (DpsCollOp op, float *send, float *recv, int count, int iters, int in_place)
{
  MPI_Barrier (MPI_COMM_WORLD);
  double t0 = MPI_Wtime ();
  for (int i = 0; i < iters; i++)
    coll (op, send, recv, count, in_place);
  double dt = MPI_Wtime () - t0, worst;
  MPI_Allreduce (&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

/* The communication thread of GAP_S mode: as the training runner's, it
 * sleeps on a condition until handed an all-reduce, runs it, and says so. */
typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t  cond;
  int             go, done, quit;
  int             finished;     /* set (atomically) as the all-reduce ends */
  float          *buf;
  int             count;
  double          t0, dt;
} GapComm;

static void *
gap_comm_thread (void *data)
{
  GapComm *g = data;
  for (;;) {
    pthread_mutex_lock (&g->lock);
    while (!g->go && !g->quit)
      pthread_cond_wait (&g->cond, &g->lock);
    if (g->quit) {
      pthread_mutex_unlock (&g->lock);
      return NULL;
    }
    g->go = 0;
    pthread_mutex_unlock (&g->lock);
    double t0 = MPI_Wtime ();
    g->t0 = t0;
    MPI_Allreduce (MPI_IN_PLACE, g->buf, g->count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double dt = MPI_Wtime () - t0;
    __atomic_store_n (&g->finished, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock (&g->lock);
    g->dt = dt;
    g->done = 1;
    pthread_cond_broadcast (&g->cond);
    pthread_mutex_unlock (&g->lock);
  }
}

/* GAP_S mode: see the header. */
static double
measure_gapped (float *buf, int count, double gap_s, gboolean emulated, int samples, double *cv, double *handoff,
                double *busy_time)
{
  MPI_Comm node;
  int local;
  MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size (node, &local);
  MPI_Comm_free (&node);
  /* busy while the ranks fit the cores, as computing replicas hold them;
   * as the emulator's layers (real/train-worker.c): busy only while each
   * rank's two threads would have a core */
  int spin = (emulated ? 2 * local : local) <= sysconf (_SC_NPROCESSORS_ONLN);
  /* with computing ranks, as many samples again computing beside it */
  int total = spin && !emulated ? 2 * samples : samples;
  double *t = malloc (sizeof (double) * total), *h = malloc (sizeof (double) * total);
  double *bs = malloc (sizeof (double) * total);
  int nt = 0, nh = 0, nbs = 0;
  enum { N = 256 };   /* the compute beside a busy hand-over: GEMMs of N x N, one thread */
  float *ga = calloc (N * N, 4), *gb = calloc (N * N, 4), *gc = calloc (N * N, 4);
  MPI_Allreduce (MPI_IN_PLACE, buf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);   /* warm-up */
  GapComm g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, buf, count, 0, 0 };
  pthread_t thread;
  pthread_create (&thread, NULL, gap_comm_thread, &g);
  openblas_set_num_threads (1);
  for (int i = 0; i < total; i++) {
    MPI_Barrier (MPI_COMM_WORLD);
    double until = MPI_Wtime () + gap_s;
    if (spin)
      while (MPI_Wtime () < until)
        sched_yield ();
    else {
      struct timespec ts = { (time_t) gap_s, (long) ((gap_s - (time_t) gap_s) * 1e9) };
      nanosleep (&ts, NULL);
    }
    /* handed to the communication thread, as a filled bucket is; every
     * other time, with computing replicas, computing goes on until it is
     * done (backward has more layers) */
    gboolean busy = total > samples && i % 2 == 1;
    double h0 = MPI_Wtime ();
    pthread_mutex_lock (&g.lock);
    g.go = 1;
    g.done = 0;
    __atomic_store_n (&g.finished, 0, __ATOMIC_RELEASE);
    pthread_cond_broadcast (&g.cond);
    pthread_mutex_unlock (&g.lock);
    if (busy)
      while (!__atomic_load_n (&g.finished, __ATOMIC_ACQUIRE) && MPI_Wtime () - h0 < 0.25)   /* bounded */
        cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, ga, N, gb, N, 0.0f, gc, N);
    pthread_mutex_lock (&g.lock);
    while (!g.done)
      pthread_cond_wait (&g.cond, &g.lock);
    double dt = g.dt, end = g.t0 + g.dt - h0;
    pthread_mutex_unlock (&g.lock);
    if (busy)
      MPI_Allreduce (&end, &bs[nbs++], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    else {
      /* the hand-off's round trip: waking the thread and being woken by it */
      double ho = MPI_Wtime () - h0 - dt;
      MPI_Allreduce (&dt, &t[nt++], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      MPI_Allreduce (&ho, &h[nh++], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
  }
  free (ga);
  free (gb);
  free (gc);
  pthread_mutex_lock (&g.lock);
  g.quit = 1;
  pthread_cond_broadcast (&g.cond);
  pthread_mutex_unlock (&g.lock);
  pthread_join (thread, NULL);
  dps_sort_doubles (t, (gsize) nt);
  double m = t[nt / 2];
  /* the 10-90% spread over 2.563 sd of a normal, relative to the median */
  *cv = m > 0 ? (dps_quantile_sorted (t, nt, 0.9) - dps_quantile_sorted (t, nt, 0.1)) / 2.563 / m : 0;
  free (t);
  dps_sort_doubles (h, (gsize) nh);
  *handoff = nh && h[nh / 2] > 0 ? h[nh / 2] : 0;
  dps_sort_doubles (bs, (gsize) nbs);
  *busy_time = nbs && bs[nbs / 2] > 0 ? bs[nbs / 2] : 0;
  free (h);
  free (bs);
  return m;
}

static double
measure (DpsCollOp op, float *send, float *recv, int count, double min_time, int reps, int in_place)
{
  batch (op, send, recv, count, 2, in_place);   /* warm-up: connections, caches */
  int iters = 1;
  while (iters < (1 << 20)) {
    double t = batch (op, send, recv, count, iters, in_place);
    if (t >= min_time / reps / 4)
      break;
    iters *= 2;
  }
  iters = iters < 1 ? 1 : iters * 4;
  double times[64];
  if (reps > 64)
    reps = 64;
  for (int r = 0; r < reps; r++)
    times[r] = batch (op, send, recv, count, iters, in_place) / iters;
  dps_sort_doubles (times, (gsize) reps);
  return times[reps / 2];
}

#ifdef DPS_WORKER_NCCL
#define WCHECK(cond, what)                                                     \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf (stderr, "dpscale-mpi-worker: %s:%d: %s\n", __FILE__, __LINE__, what); \
      MPI_Abort (MPI_COMM_WORLD, 1);                                           \
    }                                                                          \
  } while (0)

static double
nccl_batch (DpsCollOp op, ncclComm_t comm, cudaStream_t s, float *send, float *recv, size_t count, int iters, int in_place)
{
  int rank, n;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &n);
  MPI_Barrier (MPI_COMM_WORLD);
  double t0 = MPI_Wtime ();
  for (int i = 0; i < iters; i++)
    WCHECK (dps_nccl_issue (op, comm, s, send, recv, count, rank, n, in_place) == ncclSuccess, "NCCL collective failed");
  WCHECK (cudaStreamSynchronize (s) == cudaSuccess, "cudaStreamSynchronize failed");
  double dt = MPI_Wtime () - t0, worst;
  MPI_Allreduce (&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

static int
nccl_main (DpsCollOp op, int rank, int n, const char *sizes_arg, double min_time, int reps)
{
  MPI_Comm local;
  int local_rank;
  MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank (local, &local_rank);
  int devices = 0;
  WCHECK (cudaGetDeviceCount (&devices) == cudaSuccess && devices > local_rank, "no GPU for this rank");
  WCHECK (cudaSetDevice (local_rank) == cudaSuccess, "cudaSetDevice failed");
  ncclUniqueId id;
  if (rank == 0)
    WCHECK (ncclGetUniqueId (&id) == ncclSuccess, "ncclGetUniqueId failed");
  MPI_Bcast (&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  WCHECK (ncclCommInitRank (&comm, n, id, rank) == ncclSuccess, "ncclCommInitRank failed");
  cudaStream_t s;
  WCHECK (cudaStreamCreate (&s) == cudaSuccess, "cudaStreamCreate failed");
  if (rank == 0) {
    int v = 0;
    ncclGetVersion (&v);
    printf ("# library NCCL %d.%d.%d\n", v / 10000, v / 100 % 100, v % 100);
    fflush (stdout);
  }
  char *sizes = strdup (sizes_arg);
  for (char *tok = strtok (sizes, ","); tok; tok = strtok (NULL, ",")) {
    size_t count = dps_cal_count (op, atof (tok), (size_t) n);
    float *send, *recv, *host = malloc (sizeof (float) * count);
    WCHECK (host && cudaMalloc ((void **) &send, count * 4) == cudaSuccess
            && cudaMalloc ((void **) &recv, count * 4) == cudaSuccess, "out of memory");
    for (size_t i = 0; i < count; i++)
      host[i] = (float) (rank + 1);
    WCHECK (cudaMemcpy (send, host, count * 4, cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpy failed");
    nccl_batch (op, comm, s, send, recv, count, 1, 0);
    WCHECK (cudaMemcpy (host, recv, count * 4, cudaMemcpyDeviceToHost) == cudaSuccess, "cudaMemcpy failed");
    long wrong = dps_cal_wrong (op, host, count, n), all_wrong = 0;
    MPI_Reduce (&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    double t[2];
    for (int ip = 0; ip < 2; ip++) {
      nccl_batch (op, comm, s, send, recv, count, 5, ip);
      int iters = 1;
      while (iters < (1 << 16) && nccl_batch (op, comm, s, send, recv, count, iters, ip) < min_time / reps / 4)
        iters *= 2;
      iters *= 4;
      double best[64];
      int r = reps < 64 ? reps : 64;
      for (int k = 0; k < r; k++)
        best[k] = nccl_batch (op, comm, s, send, recv, count, iters, ip) / iters;
      dps_sort_doubles (best, (gsize) r);
      t[ip] = best[r / 2];
    }
    if (rank == 0) {
      printf ("%.0f %.9g %.9g %ld\n", (double) count * 4, t[0], t[1], all_wrong);
      fflush (stdout);
    }
    cudaFree (send);
    cudaFree (recv);
    free (host);
  }
  free (sizes);
  ncclCommDestroy (comm);
  return 0;
}
#endif

typedef struct { float *buf; int count; double seconds; int iters; } CommJob;

static void *
comm_job (void *data)
{
  CommJob *j = data;
  double t0 = MPI_Wtime ();
  for (int i = 0; i < j->iters; i++)
    MPI_Allreduce (MPI_IN_PLACE, j->buf, j->count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  j->seconds = MPI_Wtime () - t0;
  return NULL;
}

static double
gemm_loop (int n, int reps, float *a, float *b, float *c)
{
  double t0 = MPI_Wtime ();
  for (int r = 0; r < reps; r++)
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  return MPI_Wtime () - t0;
}

static int
contention_main (int rank, double bytes, int n, double seconds)
{
  openblas_set_num_threads (1);
  int count = bytes >= 4 ? (int) (bytes / 4) : 1;
  float *a = calloc ((size_t) n * n, 4), *b = calloc ((size_t) n * n, 4), *c = calloc ((size_t) n * n, 4);
  float *buf = calloc ((size_t) count, 4);
  if (!a || !b || !c || !buf)
    MPI_Abort (MPI_COMM_WORLD, 1);
  /* sizes of the loops: about `seconds` each when alone */
  gemm_loop (n, 1, a, b, c);
  double one = gemm_loop (n, 3, a, b, c) / 3, worst;
  MPI_Allreduce (&one, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  int reps = (int) (seconds / worst) + 1;
  CommJob j = { buf, count, 0, 1 };
  MPI_Barrier (MPI_COMM_WORLD);
  comm_job (&j);
  j.iters = 3;
  MPI_Barrier (MPI_COMM_WORLD);
  comm_job (&j);
  double per = j.seconds / 3;
  MPI_Allreduce (&per, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  j.iters = (int) (seconds / worst) + 1;
  /* alone */
  MPI_Barrier (MPI_COMM_WORLD);
  double gemm_alone_s = gemm_loop (n, reps, a, b, c);
  MPI_Barrier (MPI_COMM_WORLD);
  comm_job (&j);
  double comm_alone_s = j.seconds;
  /* together: the all-reduces on a second thread, as DDP's runner does */
  MPI_Barrier (MPI_COMM_WORLD);
  pthread_t th;
  pthread_create (&th, NULL, comm_job, &j);
  double gemm_together_s = gemm_loop (n, reps, a, b, c);
  pthread_join (th, NULL);
  double comm_together_s = j.seconds;
  /* memory copy bandwidth while every rank copies */
  size_t mb = 64u << 20;
  char *src = malloc (mb), *dst = malloc (mb);
  memset (src, 1, mb);
  memset (dst, 2, mb);
  MPI_Barrier (MPI_COMM_WORLD);
  double best = 1e30;
  for (int r = 0; r < 5; r++) {
    double t0 = MPI_Wtime ();
    memcpy (dst, src, mb);
    double dt = MPI_Wtime () - t0;
    best = dt < best ? dt : best;
  }
  double mine[3] = { gemm_together_s / gemm_alone_s - 1, comm_together_s / comm_alone_s - 1, -2.0 * mb / best }, all[3];
  MPI_Reduce (mine, all, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf ("contention %.6f %.6f %.6g\n", all[0] > 0 ? all[0] : 0, all[1] > 0 ? all[1] : 0, -all[2]);
    fflush (stdout);
  }
  free (a);
  free (b);
  free (c);
  free (buf);
  free (src);
  free (dst);
  return 0;
}

static int
layers_main (int rank, int n, const char *model_name, int batch, double seconds)
{
  GError *e = NULL;
  DpsModel *m = dps_model_load (model_name, &e);
  if (!m) {
    if (rank == 0)
      fprintf (stderr, "dpscale-mpi-worker: %s\n", e->message);
    return 1;
  }
  int L = dps_model_n_layers (m);
  double *t = calloc (2 * L + 2, sizeof (double)), *worst = calloc (2 * L + 2, sizeof (double));
  MPI_Barrier (MPI_COMM_WORLD);
  if (!dps_train_net_layer_times (m, batch, seconds, t, t + L, t + 2 * L, t + 2 * L + 1)) {
    if (rank == 0)
      fprintf (stderr, "dpscale-mpi-worker: %s is neither an MLP nor a GPT-2 stack\n", m->name);
    return 1;
  }
  MPI_Reduce (t, worst, 2 * L + 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    dps_train_net_print_layers (L, worst);
  free (t);
  free (worst);
  dps_model_free (m);
  return 0;
}

int
main (int argc, char **argv)
{
  int provided;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank, n;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &n);
  if (argc == 5 && strcmp (argv[1], "layers") == 0) {
    int status = layers_main (rank, n, argv[2], atoi (argv[3]), atof (argv[4]));
    MPI_Finalize ();
    return status;
  }
  if (argc == 5 && strcmp (argv[1], "contention") == 0) {
    int status = contention_main (rank, atof (argv[2]), atoi (argv[3]), atof (argv[4]));
    MPI_Finalize ();
    return status;
  }
  int nccl = argc > 1 && strncmp (argv[1], "nccl-", 5) == 0;
  DpsCollOp op = argc > 1 ? w_op (argv[1] + (nccl ? 5 : 0)) : DPS_OP_COUNT;
  double gap_s = argc == 7 && strcmp (argv[1], "allreduce") == 0 ? atof (argv[5]) : 0;
  gboolean emulated = argc == 7 && strcmp (argv[6], "emulated") == 0;
  if ((argc != 5 && !(argc == 7 && gap_s > 0)) || op == DPS_OP_COUNT) {
    if (rank == 0)
      fprintf (stderr, "usage: dpscale-mpi-worker [nccl-]allreduce|allgather|reducescatter SIZES MIN_TIME_S REPS "
               "[GAP_S busy|emulated]\n");
    MPI_Finalize ();
    return 2;
  }
  double min_time = atof (argv[3]);
  int reps = atoi (argv[4]);
  if (nccl) {
#ifdef DPS_WORKER_NCCL
    int status = nccl_main (op, rank, n, argv[2], min_time, reps);
    MPI_Finalize ();
    return status;
#else
    if (rank == 0)
      fprintf (stderr, "dpscale-mpi-worker: built without CUDA and NCCL\n");
    MPI_Finalize ();
    return 2;
#endif
  }
  if (rank == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version (lib, &len);
    char *nl = strchr (lib, '\n');
    if (nl)
      *nl = 0;
    char *comma = strchr (lib, ',');
    if (comma)
      *comma = 0;
    printf ("# library %s\n", lib);
    fflush (stdout);
  }
  char *sizes = strdup (argv[2]);
  for (char *tok = strtok (sizes, ","); tok; tok = strtok (NULL, ",")) {
    double bytes = atof (tok);
    int count = (int) dps_cal_count (op, bytes, (size_t) n);
    float *send = malloc (sizeof (float) * count), *recv = malloc (sizeof (float) * count);
    if (!send || !recv) {
      fprintf (stderr, "dpscale-mpi-worker: out of memory for %.0f bytes\n", bytes);
      MPI_Abort (MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < count; i++)
      send[i] = (float) (rank + 1);
    coll (op, send, recv, count, 0);
    long wrong = dps_cal_wrong (op, recv, (size_t) count, n);
    long all_wrong;
    MPI_Reduce (&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    double ti = measure (op, send, recv, count, min_time, reps, 1);
    double cv = 0, handoff = 0, busy_time = 0;
    double t = gap_s > 0 ? measure_gapped (recv, count, gap_s, emulated, 6 * reps, &cv, &handoff, &busy_time)
                         : measure (op, send, recv, count, min_time, reps, 0);
    if (rank == 0) {
      printf ("%.0f %.9g %.9g %ld %.6g %.6g %.6g\n", (double) count * 4, t, ti, all_wrong, cv, handoff, busy_time);
      fflush (stdout);
    }
    free (send);
    free (recv);
  }
  free (sizes);
  MPI_Finalize ();
  return 0;
}
