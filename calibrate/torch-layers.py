#!/usr/bin/env python3
"""torch-layers.py - a PyTorch model's per-layer profile for `dpscale --model FILE.csv`.

Builds the model (an importable MODULE:FUNCTION, or FILE.py:FUNCTION, that
returns a torch.nn.Module; or --hf-config config.json when transformers is
importable), runs a few SGD training steps on random inputs and writes one
CSV row per layer in forward order:

  layer,params,tensors,activation_bytes,tied_to,forward_ms,backward_ms,flops,kernels

  params            the layer's parameters, each tensor counted once (a weight
                    shared with an earlier layer is that layer's: tied_to)
  tensors           their shapes in definition order, ';' between (DDP's buckets)
  activation_bytes  bytes the layer's operations save for backward over the
                    whole batch (saved_tensors_hooks; each storage once,
                    parameters left out)
  forward_ms, backward_ms  the mean over the timed steps (see below)
  flops             the layer's forward FLOPs per sample (a multiply-add is 2):
                    its matrix products and convolutions
  kernels           what the forward launches, as dpscale's compute model
                    times it on any GPU (sim/model-csv.c): per kind (gemm,
                    conv, attention, memory) the count, FLOPs and bytes per
                    sample, weight elements, score-matrix bytes, 1 / K and
                    1 / a GEMM's rows a sample (its tokens)

with comments naming the device, the dtype and the batch.

Layers are the leaf modules (--layers leaf, the default) or the top-level
children (--layers top; a ModuleList or Sequential gives its children), plus
any module holding parameters of its own.  Timing partitions each pass: every
moment of the forward (from the model's call to the loss) belongs to the
innermost layer running, or, between layers, to the next layer to start (the
attention arithmetic between two Linear layers goes to the second; after the
last layer, the loss goes to it); every moment of the backward (from
loss.backward() to its return) belongs to the layer whose output gradient
arrived last (a hook on each layer's output), the loss's backward to the
first layer to get one.  So the per-layer times sum to the timed passes.
The kernels are the ATen operators the first (untimed) forward runs,
seen below autograd (TorchDispatchMode) and given to layers as the times
are: a matrix product or convolution with a parameter operand is a GEMM
(conv), one between activations attention; views launch nothing; every
other operator is a memory-bound pass reading and writing its tensors.
Bytes count 2 an element whatever the dtype (a 2-byte element each, as
the zoo's generators do), a non-floating tensor its own bytes over 2, a
dropout mask a byte an element (the GPU's native_dropout; the CPU's
decomposition into bernoulli_, div_ and mul is counted as that one
kernel); a pass whose output ends in seq x seq is over attention's scores.
Clocks: the host clock on the CPU (its operations are synchronous), CUDA
events on a GPU (synchronised once a step).  The step the file reports
(# step_ms) is timed apart, without hooks, in steps interleaved with the
hooked ones: forward + loss + backward, and the optimizer's step.  Each
layer's times and the step are means over the steps, hooked and plain
alike, that took at most 1.2 times their median (a step held up by the
machine's other work is left out).

  python3 calibrate/torch-layers.py mymodels:build --seq 512 --batch 8 -o my.csv
  dpscale predict --model my.csv --topology dgx-h100 --gpus 64
"""
import argparse
import importlib
import importlib.util
import json
import os
import statistics
import sys
import time

PROG = "torch-layers.py"


def fail(msg, code=2):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(code)


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG, description="A PyTorch model's per-layer profile for dpscale --model.")
    p.add_argument("model", nargs="?", help="MODULE:FUNCTION or FILE.py:FUNCTION returning a torch.nn.Module")
    p.add_argument("--hf-config", help="a Hugging Face config.json (needs transformers) instead of MODULE:FUNCTION")
    p.add_argument("--batch", type=int, default=8, help="samples per step (default 8)")
    p.add_argument("--seq", type=int, help="token inputs: sequences of this many tokens")
    p.add_argument("--vocab", type=int, help="token ids below this (default: the first nn.Embedding's size)")
    p.add_argument("--input-shape", help="float inputs of this shape per sample, e.g. 3x224x224")
    p.add_argument("--steps", type=int, default=3, help="timed steps, each with and without hooks (default 3)")
    p.add_argument("--warmup", type=int, default=2, help="untimed steps first (default 2)")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"],
                   help="the model's parameters and float inputs (default float32)")
    p.add_argument("--layers", default="leaf", choices=["leaf", "top"], help="a row per leaf module or top-level child")
    p.add_argument("--threads", type=int, default=0, help="torch.set_num_threads on the CPU (default: torch's)")
    p.add_argument("--clock", default="wall", choices=["wall", "cpu"],
                   help="on the CPU: wall time (default), or the process's CPU time (with --threads 1: a step's "
                        "time on an unloaded core, whatever else the machine runs)")
    p.add_argument("-o", "--output", default="-", help="the CSV to write (default: standard output)")
    a = p.parse_args(argv)
    if (a.model is None) == (a.hf_config is None):
        fail("give a model MODULE:FUNCTION or --hf-config config.json (one of them)")
    if a.model and ":" not in a.model:
        fail(f"model '{a.model}': expected MODULE:FUNCTION or FILE.py:FUNCTION")
    for flag, v, lo in (("--batch", a.batch, 1), ("--steps", a.steps, 1), ("--warmup", a.warmup, 0),
                        ("--seq", a.seq, 1), ("--vocab", a.vocab, 1), ("--threads", a.threads, 0)):
        if v is not None and v < lo:
            fail(f"{flag}: {v} is below {lo}")
    if (a.seq is None) == (a.input_shape is None) and not a.hf_config:
        fail("give --seq N (token inputs) or --input-shape CxHxW (float inputs), one of them")
    if a.clock == "cpu" and (a.device != "cpu" or a.threads != 1):
        fail("--clock cpu: only with --device cpu and --threads 1 (one thread's CPU time is its wall time alone)")
    if a.input_shape:
        try:
            a.shape = [int(d) for d in a.input_shape.lower().split("x")]
            assert all(d >= 1 for d in a.shape)
        except (ValueError, AssertionError):
            fail(f"--input-shape: '{a.input_shape}' is not a shape like 3x224x224")
    return a


def build_model(a, torch):
    if a.hf_config:
        try:
            import transformers
        except ImportError:
            fail("--hf-config: transformers is not importable here (pip install transformers), "
                 "or give a MODULE:FUNCTION that builds the model")
        try:
            cfg = transformers.AutoConfig.from_pretrained(a.hf_config)
        except (OSError, ValueError, json.JSONDecodeError) as e:
            fail(f"--hf-config: {a.hf_config}: {e}")
        cfg.use_cache = False
        try:
            model = transformers.AutoModelForCausalLM.from_config(cfg)
        except ValueError:
            model = transformers.AutoModel.from_config(cfg)
        if a.seq is None:
            a.seq = min(getattr(cfg, "max_position_embeddings", 512) or 512, 512)
        if a.vocab is None:
            a.vocab = cfg.vocab_size
        return model, f"{a.hf_config} ({type(model).__name__})"
    mod_name, fn_name = a.model.rsplit(":", 1)
    sys.path.insert(0, os.getcwd())
    try:
        if mod_name.endswith(".py"):
            spec = importlib.util.spec_from_file_location(os.path.basename(mod_name)[:-3], mod_name)
            if spec is None or not os.path.isfile(mod_name):
                fail(f"model '{a.model}': no file {mod_name}")
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        else:
            mod = importlib.import_module(mod_name)
    except ImportError as e:
        fail(f"model '{a.model}': cannot import {mod_name}: {e}")
    fn = getattr(mod, fn_name, None)
    if not callable(fn):
        fail(f"model '{a.model}': {mod_name} has no function {fn_name}")
    model = fn()
    if not isinstance(model, torch.nn.Module):
        fail(f"model '{a.model}': {fn_name}() returned a {type(model).__name__}, not a torch.nn.Module")
    return model, f"{a.model} ({type(model).__name__})"


def find_units(model, mode, torch):
    """The modules timed as layers: leaf modules, or top-level children (a
    container's children instead of it), and any module with parameters of
    its own.  Returns [(qualified name, module)], in definition order."""
    containers = (torch.nn.ModuleList, torch.nn.ModuleDict, torch.nn.Sequential)
    units, seen = [], set()

    def add(name, m):
        if id(m) not in seen:
            seen.add(id(m))
            units.append((name, m))

    def walk(prefix, m, depth):
        own = any(True for _ in m.parameters(recurse=False))
        kids = list(m.named_children())
        if depth > 0 and (not kids or own or (mode == "top" and not isinstance(m, containers))):
            add(prefix, m)
            if mode == "top" and not isinstance(m, containers):
                return
        for n, c in kids:
            walk(f"{prefix}.{n}" if prefix else n, c, depth + 1)

    walk("", model, 0)
    return units


def storage_key(t):
    try:
        s = t.untyped_storage()
    except AttributeError:
        s = t.storage()
    return s.data_ptr(), s.nbytes()


class Recorder:
    """Hooks on the units: forward open/close events, the backward's output
    gradient events, and (in the activation step) saved tensors."""

    def __init__(self, torch, units, cuda, clock=time.perf_counter):
        self.torch, self.units, self.cuda, self.clock = torch, units, cuda, clock
        self.handles, self.events, self.bevents = [], [], []
        self.stack, self.act, self.pending, self.last = [], [0] * len(units), 0, None
        self.saved, self.param_keys = set(), set()
        self.on_open = None   # called with a unit that opens between layers

    def now(self):
        if self.cuda:
            e = self.torch.cuda.Event(enable_timing=True)
            e.record()
            return e
        return self.clock()

    def attach(self):
        for i, (_, m) in enumerate(self.units):
            self.handles.append(m.register_forward_pre_hook(self._pre(i)))
            self.handles.append(m.register_forward_hook(self._post(i)))

    def detach(self):
        for h in self.handles:
            h.remove()
        self.handles = []

    def _pre(self, i):
        def hook(mod, inp):
            self.events.append(("open", i, self.now()))
            if not self.stack and self.pending:   # saved between layers: the next layer's
                self.act[i] += self.pending
                self.pending = 0
            if not self.stack and self.on_open:
                self.on_open(i)
            self.stack.append(i)
        return hook

    def _post(self, i):
        def grad_hook(g):
            self.bevents.append((i, self.now()))

        def hook(mod, inp, out):
            self.events.append(("close", i, self.now()))
            if self.stack:
                self.stack.pop()
            self.last = i
            outs = out if isinstance(out, (tuple, list)) else [out]
            for t in outs:
                if isinstance(t, self.torch.Tensor) and t.requires_grad:
                    t.register_hook(grad_hook)
        return hook

    def pack(self, t):
        key = storage_key(t)
        if key[0] not in self.param_keys and key not in self.saved:
            self.saved.add(key)
            if self.stack:
                self.act[self.stack[-1]] += key[1]
            else:
                self.pending += key[1]
        return t


# ATen operators that multiply matrices: FLOPs from their operands' shapes
GEMM_OPS = {"mm", "addmm", "bmm", "baddbmm", "addbmm", "mv", "addmv", "dot", "convolution"}
FUSED_ATTENTION_OPS = {"_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention"}
FACTORY_NO_WRITE = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided"}


def gemm_flops(name, args, out, torch):
    """FLOPs (a multiply-add is 2) and the reduction length K of an ATen
    matrix product or convolution."""
    if name == "convolution":
        x, w, transposed = args[0], args[1], args[6]
        k = w.shape[1] * w[0, 0].numel()
        return 2.0 * (x.numel() if transposed else out.numel()) * k, k
    a, b = (args[1], args[2]) if name.startswith("add") or name == "baddbmm" else (args[0], args[1])
    k = a.shape[-1]
    return 2.0 * out.numel() * k, k


class Kernels:
    """The forward's ATen operators, each given to the layer running (or,
    between layers, the next to start; after the last, the last), summed
    per kind (see the top)."""

    def __init__(self, torch, rec, seq, param_keys):
        from torch.utils._python_dispatch import TorchDispatchMode
        self.torch, self.rec, self.seq, self.param_keys = torch, rec, seq, param_keys
        self.per_unit, self.pending, self.masks = {}, [], set()
        outer = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                outer.record(func, args, out)
                return out

        self.mode = Mode()
        rec.on_open = self.flush

    def add(self, kind, flops, nbytes, weights, score, over_k, over_rows=0.0):
        op = (kind, flops, nbytes, weights, score, over_k, over_rows)
        if self.rec.stack:
            self.put(self.rec.stack[-1], op)
        else:
            self.pending.append(op)

    def put(self, unit, op):
        agg = self.per_unit.setdefault(unit, {})
        a = agg.setdefault(op[0], [0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
        a[0] += 1
        for j in range(1, 7):
            a[j] += op[j]

    def flush(self, unit):
        for op in self.pending:
            self.put(unit, op)
        self.pending = []

    def units(self, t):
        """t's bytes in 2-byte elements: its elements for a floating tensor
        (any dtype), a dropout mask's at a byte each, its bytes / 2 else."""
        if storage_key(t)[0] in self.masks:
            return 0.5 * t.numel()
        return float(t.numel()) if t.is_floating_point() else t.numel() * t.element_size() / 2.0

    def is_scores(self, t):
        return self.seq is not None and t.dim() >= 2 and t.shape[-1] == self.seq and t.shape[-2] == self.seq

    def record(self, func, args, out):
        torch = self.torch
        name = func.overloadpacket.__name__
        outs = [t for t in (out if isinstance(out, (tuple, list)) else [out]) if isinstance(t, torch.Tensor)]
        ins = [t for t in args if isinstance(t, torch.Tensor)]
        for t in args:
            if isinstance(t, (tuple, list)):
                ins += [u for u in t if isinstance(u, torch.Tensor)]
        if not outs or name in FACTORY_NO_WRITE:
            return
        writes = any(r.alias_info is not None and r.alias_info.is_write for r in func._schema.returns)
        in_keys = {storage_key(t)[0] for t in ins}
        if not writes and all(storage_key(t)[0] in in_keys for t in outs):
            return                                   # a view: no kernel
        if name in ("bernoulli_", "bernoulli"):      # dropout's mask, drawn in place on the CPU
            self.masks.update(storage_key(t)[0] for t in outs)
            return
        if writes and all(storage_key(t)[0] in self.masks for t in outs):
            return                                   # the CPU's scaling of the mask: the GPU's one kernel
        params = [t for t in ins if storage_key(t)[0] in self.param_keys]
        acts = [t for t in ins if storage_key(t)[0] not in self.param_keys]
        if name in GEMM_OPS:
            flops, k = gemm_flops(name, args, outs[0], torch)
            weights = sum(t.numel() for t in params if t.dim() >= 2)
            kind = "conv" if name == "convolution" else "gemm" if weights else "attention"
            nbytes = sum(self.units(t) for t in acts + outs)
            score = sum(self.units(t) for t in acts + outs if self.is_scores(t)) if kind == "attention" else 0.0
            # its rows, the batch's (a sequence's tokens each), over which
            # the weight's gradient reduces in backward
            rows = outs[0].numel() / outs[0].shape[-1] if outs[0].dim() >= 1 and outs[0].shape[-1] else 0
            self.add(kind, flops, nbytes, float(weights), score, flops / k if k else 0.0,
                     flops / rows if kind == "gemm" and rows else 0.0)
        elif name in FUSED_ATTENTION_OPS:
            q, k = args[0], args[1]
            flops = 4.0 * q.numel() * k.shape[-2]
            self.add("attention", flops, sum(self.units(t) for t in args[:3]) + self.units(outs[0]), 0.0, 0.0, 0.0)
        else:
            # a gather reads the rows it writes, not its whole table
            reads = outs[0].numel() if name == "embedding" else sum(self.units(t) for t in acts)
            written = [t for t in outs if not writes or t is outs[0]]
            nbytes = reads + sum(self.units(t) for t in written)
            score = "score" if any(self.is_scores(t) for t in outs) else ""
            self.add("memory" + score, 0.0, nbytes, 0.0, nbytes if score else 0.0, 0.0)

    def cells(self, unit, batch):
        """The layer's flops and kernels cells, per sample."""
        agg = self.per_unit.get(unit, {})
        out, flops = [], 0.0
        for kind in ("gemm", "conv", "attention", "memory", "memoryscore"):
            if kind not in agg:
                continue
            n, f, nb, w, sc, over_k, over_rows = agg[kind]
            flops += f
            inv_k = over_k / f if kind == "gemm" and f > 0 else 0.0
            # 1 / rows a sample: the batch's rows are batch x a sample's
            inv_rows = min(1.0, over_rows / f * batch) if kind == "gemm" and f > 0 else 0.0
            out.append(":".join([kind.replace("memoryscore", "memory"), str(n), num(f / batch), num(nb / batch),
                                 num(w), num(sc / batch), num(inv_k), num(inv_rows)]))
        return num(flops / batch), ";".join(out)


def num(x):
    """x as written to the file: a whole number exactly, else 12 digits."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e18 else format(x, ".12g")


def partition(rec, t0, t1, b0, b1, n, ms):
    """Per-unit forward and backward times of one hooked step (see the top)."""
    fwd, bwd = [0.0] * n, [0.0] * n
    prev, stack, last = t0, [], None
    for kind, i, t in rec.events:
        fwd[stack[-1] if stack else i] += ms(prev, t)
        if kind == "open":
            stack.append(i)
        elif stack:
            stack.pop()
            last = i
        prev = t
    if last is not None:
        fwd[stack[-1] if stack else last] += ms(prev, t1)
    prev, cur = b0, None
    for i, t in rec.bevents:
        bwd[i if cur is None else cur] += ms(prev, t)
        prev, cur = t, i
    if cur is not None:
        bwd[cur] += ms(prev, b1)
    return fwd, bwd


def loss_of(out, torch):
    if hasattr(out, "logits"):
        out = out.logits
    elif isinstance(out, dict):
        out = next(v for v in out.values() if isinstance(v, torch.Tensor))
    elif isinstance(out, (tuple, list)):
        out = out[0]
    return out.float().pow(2).mean()


def param_rows(units, order, model):
    """Each unit's parameters (only its own when other units lie inside it),
    taken in forward order: those no earlier unit holds, and the earlier unit
    it shares all its weights with (tied), if any."""
    inner = [any(u is not m for _, u in units if any(c is u for c in m.modules())) for _, m in units]
    owner, rows = {}, {}
    for i in order:
        m = units[i][1]
        plist = list(m.parameters(recurse=not inner[i]))
        own, shared = [], set()
        for p in plist:
            if id(p) in owner:
                shared.add(owner[id(p)])
            else:
                owner[id(p)] = i
                own.append(p)
        rows[i] = (own, plist, shared)
    left = [p for p in model.parameters() if id(p) not in owner]
    return rows, left


def keep_heap():
    """On the CPU a step's tensors are allocated and freed every step, and
    glibc gives blocks past its thresholds back to the system and maps them
    again, so that every step faults its pages in anew: on a 2-core VM that
    made steps of 27-54 ms where they take 21-22, and a layer's time the
    kernel's as much as its own.  Holding the heap (glibc's mallopt: no
    trimming, no mmap below 32 MiB) times the layers; on the GPU torch's
    caching allocator does the same, and elsewhere this does nothing."""
    try:
        import ctypes
        libc = ctypes.CDLL(None)
        m_trim_threshold, m_mmap_threshold = -1, -3
        libc.mallopt(m_trim_threshold, 1 << 30)
        libc.mallopt(m_mmap_threshold, 32 << 20)
    except (OSError, AttributeError):
        pass


def main(argv):
    a = parse_args(argv)
    if a.threads:
        # the BLAS torch calls (OpenBLAS on Debian) keeps threads of its own,
        # as many as the cores unless told before it loads: they spin
        # between calls, and with --clock cpu their time was counted as the
        # step's (a 2-core machine: steps of 44-59 ms where one thread took
        # 28-35)
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(var, str(a.threads))
    if a.device == "cpu":
        keep_heap()
    try:
        import torch
    except ImportError:
        fail("PyTorch is not importable here (Debian: apt-get install python3-torch; or pip install torch)", 1)
    if a.threads:
        torch.set_num_threads(a.threads)
    if a.device == "cuda" and not torch.cuda.is_available():
        fail("--device cuda: torch sees no CUDA device here")
    dtype = getattr(torch, a.dtype)
    dev = torch.device(a.device)
    torch.manual_seed(1)
    model, what = build_model(a, torch)
    model = model.to(device=dev, dtype=dtype).train()
    units = find_units(model, a.layers, torch) or [(type(model).__name__, model)]   # a lone module: one layer
    if a.seq is not None:
        vocab = a.vocab or next((m.num_embeddings for m in model.modules() if isinstance(m, torch.nn.Embedding)), None)
        if vocab is None:
            fail("--seq: the model has no nn.Embedding to take the vocabulary from; give --vocab N")
        x = torch.randint(0, vocab, (a.batch, a.seq), device=dev)
    else:
        x = torch.randn([a.batch] + a.shape, device=dev, dtype=dtype)
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    cuda = a.device == "cuda"
    clock = time.process_time if a.clock == "cpu" else time.perf_counter

    def sync():
        if cuda:
            torch.cuda.synchronize()

    def ms(t0, t1):
        return t0.elapsed_time(t1) if cuda else (t1 - t0) * 1e3

    clk = clock

    def step(rec=None, kern=None):
        opt.zero_grad(set_to_none=True)
        sync()
        clock = rec or Recorder(torch, [], cuda, clk)
        if rec:
            rec.attach()
        t0 = clock.now()
        if kern:
            with torch.autograd.graph.saved_tensors_hooks(rec.pack, lambda t: t), kern.mode:
                loss = loss_of(model(x), torch)
        else:
            loss = loss_of(model(x), torch)
        t1 = clock.now()
        b0 = clock.now()
        loss.backward()
        b1 = clock.now()
        opt.step()
        o1 = clock.now()
        sync()
        if rec:
            rec.detach()
        return t0, t1, b0, b1, o1

    try:
        rec = Recorder(torch, units, cuda, clock)
        rec.param_keys = {storage_key(p)[0] for p in model.parameters()}
        kern = Kernels(torch, rec, a.seq, rec.param_keys)
        step(rec, kern)                            # activations, kernels and the forward order, untimed
        if rec.pending and rec.last is not None:   # saved after the last layer (the loss): its
            rec.act[rec.last] += rec.pending
        if rec.last is not None:
            kern.flush(rec.last)
        for _ in range(a.warmup):
            step()
        n = len(units)
        fwds, bwds, plain, optim = [], [], [], []
        for k in range(2 * a.steps):
            # hooked and plain steps alternate, each first in turn, so that
            # what else the machine does weighs on both alike
            if (k % 2 == 0) == (k % 4 < 2):
                t0, t1, b0, b1, o1 = step()
                plain.append(ms(t0, t1) + ms(b0, b1))
                optim.append(ms(b1, o1))
            else:
                r = Recorder(torch, units, cuda, clock)
                t0, t1, b0, b1, _ = step(r)
                f, b = partition(r, t0, t1, b0, b1, n, ms)
                fwds.append(f)
                bwds.append(b)
        # means over the steps that took at most 1.2 x the median: a step that
        # the machine's other work held up weighs nothing, in both alike
        tot = [sum(f) + sum(b) for f, b in zip(fwds, bwds)]
        keep = [k for k, t in enumerate(tot) if t <= 1.2 * statistics.median(tot)]
        fsum = [sum(fwds[k][i] for k in keep) / len(keep) for i in range(n)]
        bsum = [sum(bwds[k][i] for k in keep) / len(keep) for i in range(n)]
        kept = [t for t in plain if t <= 1.2 * statistics.median(plain)]
    except RuntimeError as e:
        fail(f"the training step failed on {a.device} in {a.dtype}: {str(e).splitlines()[0]}", 1)

    first = {}
    for kind, i, _ in rec.events:
        first.setdefault(i, len(first))
    order = sorted(range(len(units)), key=lambda i: first.get(i, len(units) + i))   # never run: last
    rows, left = param_rows(units, order, model)
    names = [nm for nm, _ in units]
    plist = list(model.parameters())
    total, count = sum(p.numel() for p in plist), len(plist)
    device = torch.cuda.get_device_name(dev) if cuda else "cpu"
    inp = f"{a.seq} tokens" if a.seq is not None else "x".join(map(str, a.shape))
    step_ms = statistics.mean(kept)
    layer_ms = sum(fsum) + sum(bsum)
    out = [f"# calibrate/torch-layers.py: {what}, {a.layers} modules as layers, {a.steps} timed SGD steps",
           f"# device: {device}",
           f"# dtype: {a.dtype}",
           f"# batch: {a.batch}",
           f"# input: {inp} a sample; threads {torch.get_num_threads()}; clock {a.clock if not cuda else 'CUDA events'}; "
           f"torch {torch.__version__}",
           f"# parameters: {total} in {count} tensors (sum(p.numel()), len(list(model.parameters())))",
           f"# step_ms: {step_ms:.6f} forward+loss+backward without hooks (the mean of {len(kept)} "
           f"of {a.steps}, between the hooked steps); optimizer {statistics.median(optim):.6f}; the layers sum to "
           f"{layer_ms:.6f} ({len(keep)} of {a.steps} hooked steps)",
           "layer,params,tensors,activation_bytes,tied_to,forward_ms,backward_ms,flops,kernels"]
    if left:   # parameters of no timed module (the root's own): a row of their own, first, no time
        shapes = ";".join("x".join(map(str, p.shape)) if p.dim() else "1" for p in left)
        out.append(f"(model),{sum(p.numel() for p in left)},{shapes},0,,0,0,0,")
    for i in order:
        own, allp, shared = rows[i]
        tied = ""
        ps = own
        if not own and allp and len(shared) == 1:
            tied, ps = names[shared.pop()], allp       # all its weights are an earlier layer's
        shapes = ";".join("x".join(map(str, p.shape)) if p.dim() else "1" for p in ps)
        flops, kernels = kern.cells(i, a.batch)
        out.append(f"{names[i]},{sum(p.numel() for p in ps)},{shapes},{rec.act[i]},{tied},"
                   f"{fsum[i]:.6f},{bsum[i]:.6f},{flops},{kernels}")
    text = "\n".join(out) + "\n"
    if a.output == "-":
        sys.stdout.write(text)
    else:
        tmp = a.output + ".tmp"
        try:
            with open(tmp, "w") as f:
                f.write(text)
            os.replace(tmp, a.output)
        except OSError as e:
            if os.path.exists(tmp):
                os.unlink(tmp)
            fail(f"-o: {a.output}: {e.strerror}", 1)
    print(f"{PROG}: {what} on {device} in {a.dtype}, batch {a.batch}: {total} parameters in {count} tensors, "
          f"{len(units)} layers; layers {layer_ms:.3f} ms against a step's forward+backward {step_ms:.3f} ms",
          file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
