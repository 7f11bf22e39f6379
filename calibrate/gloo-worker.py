#!/usr/bin/env python3
"""dpscale's gloo worker: times torch.distributed's collectives on CPUs with
the gloo backend, as PyTorch's DDP calls them, for `dpscale calibrate
--backend gloo`.

    gloo-worker.py RANKS OP SIZES MIN_TIME_S REPS

OP is allreduce (dist.all_reduce of a float32 tensor, summed in place, as
DDP reduces a bucket) or allgather (dist.all_gather into a list, each rank's
share SIZE / RANKS bytes).  It starts RANKS processes on this machine (one
thread each, rendezvous over a file), and for each size (bytes,
comma-separated) times, as dpscale-mpi-worker does: two warm-ups, then REPS
batches of as many iterations as fill MIN_TIME_S / REPS, each batch's time
the slowest rank's; the median batch is reported.  Every result is checked
(an all-reduce's elements equal 1 + 2 + ... + RANKS, an all-gather's share
j holds j + 1).  Rank 0 prints, in dpscale-mpi-worker's format,

    # library gloo (torch VERSION)
    size_bytes time_s time_s wrong 0 0 0

one line per size as soon as it is measured (in place is all gloo does:
both times are the same).  On an error it prints "# error MESSAGE" and
exits 1.
"""
import os
import sys
import tempfile
import time


def fail(msg):
    print("# error " + msg, flush=True)
    sys.exit(1)


def run(rank, n, op, sizes, min_time, reps, store):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=n)
    if rank == 0:
        print("# library gloo (torch %s)" % torch.__version__, flush=True)
    for size in sizes:
        count = max(1, int(size) // 4 // (n if op == "allgather" else 1))
        if op == "allreduce":
            buf = torch.empty(count, dtype=torch.float32)

            def once():
                dist.all_reduce(buf)
        else:
            mine = torch.full((count,), float(rank + 1), dtype=torch.float32)
            outs = [torch.empty(count, dtype=torch.float32) for _ in range(n)]

            def once():
                dist.all_gather(outs, mine)

        def batch(iters):
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(iters):
                once()
            took = torch.tensor([time.perf_counter() - t0], dtype=torch.float64)
            dist.all_reduce(took, op=dist.ReduceOp.MAX)
            return took.item()

        if op == "allreduce":
            buf.fill_(float(rank + 1))
        batch(2)
        iters = 1
        while iters < (1 << 20) and batch(iters) < min_time / reps / 4:
            iters *= 2
        iters *= 4
        times = sorted(batch(iters) / iters for _ in range(reps))
        # the check: one more collective on known values
        if op == "allreduce":
            buf.fill_(float(rank + 1))
            once()
            wrong = int((buf != n * (n + 1) / 2).sum().item())
        else:
            once()
            wrong = sum(int((o != j + 1).sum().item()) for j, o in enumerate(outs))
        bad = torch.tensor([wrong], dtype=torch.int64)
        dist.all_reduce(bad)
        if rank == 0:
            t = times[len(times) // 2]
            print("%d %.9g %.9g %d 0 0 0" % (int(size), t, t, int(bad.item())), flush=True)
    dist.barrier()
    dist.destroy_process_group()


def main():
    if len(sys.argv) != 6:
        fail("usage: gloo-worker.py RANKS OP SIZES MIN_TIME_S REPS")
    try:
        n, op = int(sys.argv[1]), sys.argv[2]
        sizes = [float(s) for s in sys.argv[3].split(",")]
        min_time, reps = float(sys.argv[4]), int(sys.argv[5])
    except ValueError as e:
        fail("bad arguments: %s" % e)
    if op not in ("allreduce", "allgather"):
        fail("%s: gloo here times allreduce and allgather (PyTorch's gloo has no reduce-scatter of tensors)" % op)
    if n < 1 or reps < 1 or min_time <= 0 or not sizes:
        fail("bad arguments")
    try:
        import torch.multiprocessing as mp
    except ImportError:
        fail("this python3 cannot import torch (Debian: apt-get install python3-torch)")
    fd, store = tempfile.mkstemp(prefix="dpscale-gloo-")
    os.close(fd)
    os.unlink(store)
    try:
        mp.start_processes(run, args=(n, op, sizes, min_time, reps, store), nprocs=n, join=True,
                           start_method="fork")
    except Exception as e:  # a rank's failure, as torch.multiprocessing reports it
        fail(str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__)
    finally:
        if os.path.exists(store):
            os.unlink(store)


if __name__ == "__main__":
    main()
