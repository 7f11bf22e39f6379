#!/usr/bin/env python3
"""Cuts resnet18-ddp-ckpt-mi300.json.gz out of a real PyTorch trace (see
README.md: source, licence, what the loader is expected to make of it).

    python3 cut-real-trace.py resnet_act_checkpoint.json.gz resnet18-ddp-ckpt-mi300.json.gz

The source is three profiled steps (ProfilerStep#15-17) of rank 0 of an
8-GPU DDP ResNet-18 run with activation checkpointing on MI300X.  Kept,
nothing in them changed:
  - every cpu_op, user_annotation and cuda_runtime event, and every
    python_function event named "nn.Module: ...", that lies inside
    ProfilerStep#16 (the middle step) on the CPU;
  - every GPU event (kernel, gpu_memcpy, gpu_memset, gpu_user_annotation)
    whose "correlation" is that of a kept runtime call (the work step 16
    launched, however late the GPU ran it), and every GPU event that starts
    inside step 16's CPU window (earlier steps' work the GPU was still
    running then, as the profiler records it);
  - the "fwdbwd" flow events inside the window, every metadata ("M") event
    and every top-level key (deviceProperties, distributedInfo, ...).
Left out: the other two steps, the Python frames (python_function events
not named "nn.Module: ", 11,000 of a step's 12,000: the loader reads
none of them and its figures are the same with them), the "ac2g" flow
events (the loader links launches by correlation), the instant events and
the profiler's own span.  Standard library only; gzip with mtime 0, so
the output is the same each time."""
import gzip
import json
import sys

src, dst = sys.argv[1], sys.argv[2]
with gzip.open(src, "rt") as f:
    d = json.load(f)
ev = d["traceEvents"]
step = next(e for e in ev if e.get("cat") == "user_annotation" and e["name"] == "ProfilerStep#16")
t0, t1 = step["ts"], step["ts"] + step["dur"]


def inside(e):
    return e["ts"] >= t0 and e["ts"] + e.get("dur", 0) <= t1


keep, corr = [], set()
for e in ev:
    if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation", "cuda_runtime", "python_function") \
            and inside(e):
        if e["cat"] == "python_function" and not e["name"].startswith("nn.Module: "):
            continue
        if e["cat"] == "cuda_runtime":
            corr.add(e["args"].get("correlation"))
        keep.append(e)
for e in ev:
    if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation"):
        if e.get("args", {}).get("correlation") in corr or t0 <= e["ts"] <= t1:
            keep.append(e)
    elif e.get("ph") == "M":
        keep.append(e)
    elif e.get("ph") in ("s", "f") and e.get("cat") == "fwdbwd" and t0 <= e["ts"] <= t1:
        keep.append(e)

lines = ["{"]
lines += ["  %s: %s," % (json.dumps(k), json.dumps(v)) for k, v in d.items() if k != "traceEvents"]
lines.append('  "traceEvents": [')
lines.append(",\n".join("  " + json.dumps(e) for e in keep))
lines += ["  ]", "}", ""]
with open(dst, "wb") as f:
    with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=9, mtime=0, filename="") as z:
        z.write("\n".join(lines).encode())
print("%s: %d events" % (dst, len(keep)))
