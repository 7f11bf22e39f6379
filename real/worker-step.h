/* worker-step — one step of a replica's step program (step-program.h),
 * interpreted the same way on CPUs (dpscale-train) and GPUs
 * (dpscale-train-gpu): the micro-batches, the layers' forward and backward
 * (or, emulating, their given times), the loss, the accumulation and the
 * optimizer.  What depends on the device, the collectives and the
 * emulated compute, is the caller's, through DpsWorkerExec. */
#pragma once

#include "real/worker.h"

typedef struct {
  void (*emulate) (void *self, double seconds);  /* compute of this length, emulated */
  void (*issue) (void *self, int op);            /* launch op once compute has produced its input */
  void (*wait) (void *self, int op);             /* compute waits for op (-1: every op issued) */
  void (*release) (void *self, int unit);        /* --check-params: poison the unit's gathered parameters */
  void (*done) (void *self, int act);            /* after each action, act its index */
} DpsWorkerExec;

typedef struct {
  DpsDev                 *dev;
  const DpsWorkerOpts    *opts;
  const DpsWorkerPlan    *plan;
  DpsWorkerBuffers       *bufs;
  DpsTrainNet            *net;   /* NULL when emulating */
  int                     rank, world;
} DpsWorkerReplica;

/* Runs step s's actions in order.  Returns the emulated compute asked for
 * (seconds); *loss is the step's loss (0 when emulating).  An optimizer
 * that fails ends the worker (dps_worker_fail). */
double dps_worker_step (const DpsWorkerReplica *w, int s, const DpsWorkerExec *x, void *self, double *loss);
