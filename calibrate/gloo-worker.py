#!/usr/bin/env python3
"""dpscale's gloo worker: times torch.distributed's collectives on CPUs with
the gloo backend, as PyTorch's DDP calls them, for `dpscale calibrate
--backend gloo`.  One process a rank, started as dpscale starts a PyTorch
job (real/torch-launch.py: the same environment, one thread a rank, glibc's
heap held), so that what it measures is what the job meets:

    torch-launch.py RANKS gloo-worker.py OP SIZES MIN_TIME_S REPS

OP is allreduce (dist.all_reduce of a float32 tensor, summed in place, as
DDP reduces a bucket) or allgather (dist.all_gather into a list, each rank's
share SIZE / RANKS bytes).  For each size (bytes, comma-separated) it times,
as dpscale-mpi-worker does: two warm-ups, then REPS batches of as many
iterations as fill MIN_TIME_S / REPS, each batch's time the slowest rank's;
the median batch is reported.  Every result is checked (an all-reduce's
elements equal 1 + 2 + ... + RANKS, an all-gather's share j holds j + 1).
Rank 0 prints, in dpscale-mpi-worker's format,

    # library gloo (torch VERSION)
    size_bytes time_s time_s wrong 0 0 0

one line per size as soon as it is measured (in place is all gloo does:
both times are the same).

    torch-launch.py RANKS gloo-worker.py contention BYTES GEMM_N SECONDS

measures what dpscale-mpi-worker's contention does, through gloo: each rank
times a loop of GEMM_N x GEMM_N fp32 matrix products and a loop of
all-reduces of BYTES (each about SECONDS alone), then both at once (the
all-reduces on a second thread, as DDP's gloo threads run them beside
autograd's), three times over (the median ratio of each: one round on a
shared machine is as noisy as the effect), and its copy bandwidth (64 MiB,
bytes read and written a second) while every rank copies.  Rank 0 prints
the slowest rank's

    contention COMPUTE_SLOWDOWN COMM_SLOWDOWN COPY_BYTES_PER_S

(a slowdown 0.5: 50% longer together than alone).  On an error a rank
prints "# error MESSAGE" and exits 1.
"""
import os
import sys
import time


def fail(msg):
    print("# error " + msg, flush=True)
    sys.exit(1)


def run(rank, n, op, sizes, min_time, reps):
    import torch
    import torch.distributed as dist
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


def contention(rank, n, nbytes, gemm_n, seconds):
    import threading
    import torch
    import torch.distributed as dist
    a = torch.rand(gemm_n, gemm_n)
    b = torch.rand(gemm_n, gemm_n)
    buf = torch.ones(max(1, int(nbytes) // 4))

    def gemms(reps):
        t0 = time.perf_counter()
        for _ in range(reps):
            torch.mm(a, b)
        return time.perf_counter() - t0

    def reduces(iters):
        t0 = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(buf)
        return time.perf_counter() - t0

    def slowest(x):
        t = torch.tensor([x], dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return t.item()

    # the loops' lengths: about `seconds` each alone, the same on every rank
    gemms(1)
    reps = int(seconds / slowest(gemms(3) / 3)) + 1
    reduces(1)
    iters = int(seconds / slowest(reduces(3) / 3)) + 1
    # three rounds of alone, alone, together: the median of each ratio (a
    # shared machine's noise is as large as the effect in one round)
    ratios = ([], [])
    for _ in range(3):
        dist.barrier()
        gemm_alone = gemms(reps)
        dist.barrier()
        comm_alone = reduces(iters)
        dist.barrier()
        took = {}
        th = threading.Thread(target=lambda: took.setdefault("comm", reduces(iters)))
        th.start()
        gemm_together = gemms(reps)
        th.join()
        ratios[0].append(gemm_together / gemm_alone)
        ratios[1].append(took["comm"] / comm_alone)
    src = torch.ones(16 << 20)   # 64 MiB of float32
    dst = torch.empty_like(src)
    dist.barrier()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        dst.copy_(src)
        best = min(best, time.perf_counter() - t0)
    slow = torch.tensor([sorted(ratios[0])[1] - 1, sorted(ratios[1])[1] - 1, -2.0 * src.numel() * 4 / best],
                        dtype=torch.float64)
    dist.all_reduce(slow, op=dist.ReduceOp.MAX)
    if rank == 0:
        print("contention %.6f %.6f %.6g" % (max(slow[0].item(), 0), max(slow[1].item(), 0), -slow[2].item()), flush=True)
    dist.barrier()
    dist.destroy_process_group()


def main():
    if len(sys.argv) != 5:
        fail("usage: torch-launch.py RANKS gloo-worker.py OP SIZES MIN_TIME_S REPS, or ... contention BYTES GEMM_N "
             "SECONDS")
    op = sys.argv[1]
    try:
        rank, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        if op == "contention":
            nbytes, gemm_n, seconds = float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
            job, args = contention, (nbytes, gemm_n, seconds)
            ok = nbytes > 0 and gemm_n > 0 and seconds > 0
        else:
            sizes = [float(s) for s in sys.argv[2].split(",")]
            min_time, reps = float(sys.argv[3]), int(sys.argv[4])
            job, args = run, (op, sizes, min_time, reps)
            ok = reps >= 1 and min_time > 0 and sizes
    except KeyError as e:
        fail("%s is not set: start the ranks with real/torch-launch.py" % e)
    except ValueError as e:
        fail("bad arguments: %s" % e)
    if op not in ("allreduce", "allgather", "contention"):
        fail("%s: gloo here times allreduce and allgather (PyTorch's gloo has no reduce-scatter of tensors)" % op)
    if n < 1 or not ok:
        fail("bad arguments")
    try:
        import torch
        import torch.distributed as dist
    except ImportError:
        fail("this python3 cannot import torch (Debian: apt-get install python3-torch)")
    torch.set_num_threads(1)
    try:
        dist.init_process_group("gloo")   # env://, as torch-launch.py sets it
        job(rank, n, *args)
    except Exception as e:  # a collective's failure, as torch.distributed reports it
        fail(str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__)


if __name__ == "__main__":
    main()
