#!/usr/bin/env python3
"""dpscale's example PyTorch job: an MLP trained with DistributedDataParallel
over gloo on CPUs, one thread a process, started by torchrun (as `dpscale
validate --torch` starts it):

    python3 -m torch.distributed.run --standalone --nproc_per_node 2 real/torch-ddp-example.py

The hook dpscale reads, which any script can carry: rank 0 prints one line a
training step,

    dpscale-step STEP SECONDS

SECONDS the step's wall time (forward, backward with DDP's all-reduces,
optimizer).  dpscale passes the steps and the per-replica batch it wants in
DPS_STEPS and DPS_BATCH (defaults here 20 and 32).

Its model, for `dpscale --model`: build() below, profiled by
calibrate/torch-layers.py at the same batch:

    python3 calibrate/torch-layers.py real/torch-ddp-example.py:build --input-shape 1024 --batch 32 --threads 1 -o ex.csv
"""
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn

WIDTH, CLASSES = 1024, 10


def build():
    """The model: four 1024-wide linear layers (ReLU between) and a 10-way head."""
    layers = []
    for _ in range(4):
        layers += [nn.Linear(WIDTH, WIDTH), nn.ReLU()]
    layers.append(nn.Linear(WIDTH, CLASSES))
    return nn.Sequential(*layers)


def main():
    steps = int(os.environ.get("DPS_STEPS", "20"))
    batch = int(os.environ.get("DPS_BATCH", "32"))
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(1)
    model = nn.parallel.DistributedDataParallel(build())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(rank)
    for step in range(steps):
        x = torch.randn(batch, WIDTH, generator=gen)
        y = torch.randint(0, CLASSES, (batch,), generator=gen)
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()
        opt.step()
        took = time.perf_counter() - t0
        if rank == 0:
            print("dpscale-step %d %.9f" % (step, took), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
