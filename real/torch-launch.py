#!/usr/bin/env python3
"""dpscale's launcher of a PyTorch job's ranks on this machine, as torchrun
--standalone starts them (torchrun itself fails with Debian 12's torch 1.13
under Python 3.11):

    torch-launch.py N SCRIPT [ARGS...]

It starts N processes of `python3 SCRIPT ARGS` with MASTER_ADDR=127.0.0.1,
a free MASTER_PORT, WORLD_SIZE=N, RANK, LOCAL_RANK and LOCAL_WORLD_SIZE set
(what init_process_group's env:// reads), one thread a rank (OMP_NUM_THREADS
and OPENBLAS_NUM_THREADS 1, as torchrun's default, where not set) and glibc's
heap held as calibrate/torch-layers.py holds it while it times the layers
(MALLOC_MMAP_THRESHOLD_ 32 MiB, MALLOC_TRIM_THRESHOLD_ 1 GiB, where not set:
otherwise a step's large tensors are mapped and faulted in anew every step),
so that the job runs as its per-layer file was measured; their output passed
through.  When
one fails, the others are ended and it exits 1 naming the rank; SIGTERM or
SIGINT ends every rank; it exits 0 when all have.
"""
import os
import signal
import socket
import subprocess
import sys


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        print("# error usage: torch-launch.py N SCRIPT [ARGS...]", flush=True)
        sys.exit(2)
    n = int(sys.argv[1])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []

    def stop(*_):
        for p in procs:
            if p.poll() is None:
                p.terminate()
        sys.exit(1)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    base = dict(os.environ)
    for var, value in (("OMP_NUM_THREADS", "1"), ("OPENBLAS_NUM_THREADS", "1"),
                       ("MALLOC_MMAP_THRESHOLD_", str(32 << 20)), ("MALLOC_TRIM_THRESHOLD_", str(1 << 30))):
        base.setdefault(var, value)
    for r in range(n):
        env = dict(base, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE=str(n), RANK=str(r),
                   LOCAL_RANK=str(r), LOCAL_WORLD_SIZE=str(n))
        procs.append(subprocess.Popen([sys.executable] + sys.argv[2:], env=env))
    failed = None
    while procs and failed is None:
        pid, status = os.wait()
        for r, p in enumerate(procs):
            if p.pid == pid:
                p.returncode = os.waitstatus_to_exitcode(status)
                if p.returncode != 0:
                    failed = (r, p.returncode)
        if all(p.returncode is not None for p in procs):
            break
    if failed:
        for p in procs:
            if p.returncode is None:
                p.terminate()
        print("# error rank %d of %d exited with status %d" % (failed[0], n, failed[1]), flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
