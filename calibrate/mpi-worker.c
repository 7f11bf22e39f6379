/* dpscale-mpi-worker — the MPI side of CPU calibration, started by
 * `dpscale calibrate` under mpirun.
 *
 *   dpscale-mpi-worker allreduce SIZES MIN_TIME_S REPS
 *
 * For each size (bytes, comma-separated) it times MPI_Allreduce of floats
 * (sum) out of place and in place, as nccl-tests does: warm-up, then REPS
 * batches of as many iterations as fill MIN_TIME_S / REPS, each batch's time
 * the slowest rank's; the median batch is reported.  The out-of-place result
 * is checked: every element must equal 1 + 2 + ... + n.  Rank 0 prints
 *   # library NAME
 *   size_bytes time_s time_inplace_s wrong
 * one line per size, as soon as it is measured. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Runs iters all-reduces; returns the slowest rank's elapsed time. */
static double
batch (float *send, float *recv, int count, int iters, int in_place)
{
  MPI_Barrier (MPI_COMM_WORLD);
  double t0 = MPI_Wtime ();
  for (int i = 0; i < iters; i++)
    MPI_Allreduce (in_place ? MPI_IN_PLACE : send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double dt = MPI_Wtime () - t0, worst;
  MPI_Allreduce (&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

static double
measure (float *send, float *recv, int count, double min_time, int reps, int in_place)
{
  batch (send, recv, count, 2, in_place);   /* warm-up: connections, caches */
  int iters = 1;
  while (iters < (1 << 20)) {
    double t = batch (send, recv, count, iters, in_place);
    if (t >= min_time / reps / 4)
      break;
    iters *= 2;
  }
  iters = iters < 1 ? 1 : iters * 4;
  double times[64];
  if (reps > 64)
    reps = 64;
  for (int r = 0; r < reps; r++)
    times[r] = batch (send, recv, count, iters, in_place) / iters;
  qsort (times, reps, sizeof (double), cmp_double);
  return times[reps / 2];
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, n;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &n);
  if (argc != 5 || strcmp (argv[1], "allreduce") != 0) {
    if (rank == 0)
      fprintf (stderr, "usage: dpscale-mpi-worker allreduce SIZES MIN_TIME_S REPS\n");
    MPI_Finalize ();
    return 2;
  }
  double min_time = atof (argv[3]);
  int reps = atoi (argv[4]);
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
    int count = bytes >= 4 ? (int) (bytes / 4) : 1;
    float *send = malloc (sizeof (float) * count), *recv = malloc (sizeof (float) * count);
    if (!send || !recv) {
      fprintf (stderr, "dpscale-mpi-worker: out of memory for %.0f bytes\n", bytes);
      MPI_Abort (MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < count; i++)
      send[i] = (float) (rank + 1);
    MPI_Allreduce (send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    long wrong = 0;
    float expect = (float) n * (n + 1) / 2;
    for (int i = 0; i < count; i++)
      wrong += recv[i] != expect;
    long all_wrong;
    MPI_Reduce (&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    double t = measure (send, recv, count, min_time, reps, 0);
    double ti = measure (send, recv, count, min_time, reps, 1);
    if (rank == 0) {
      printf ("%.0f %.9g %.9g %ld\n", (double) count * 4, t, ti, all_wrong);
      fflush (stdout);
    }
    free (send);
    free (recv);
  }
  free (sizes);
  MPI_Finalize ();
  return 0;
}
