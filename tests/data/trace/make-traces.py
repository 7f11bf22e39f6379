#!/usr/bin/env python3
"""Writes the torch.profiler trace fixtures in this folder (stdlib only).

Each file is a Chrome-trace JSON object as PyTorch 2.x's
profile.export_chrome_trace() writes it through Kineto, for one small model
trained for two profiled steps (schedule wait=0, warmup=1, active=2):
record_shapes=True, with_stack=True, with_modules=True.  The events, their
categories, names and args keys follow traces that PyTorch 2.x writes (see
README.md for the sources); the durations are the script's own, chosen to
look like a compute-bound step, and are deterministic.

  python3 make-traces.py        # rewrites mlp-cpu.json, mlp-cuda.json, mlp-nomodules.json

The model: MLP_0 (x: [64, 256]) =
  fc1   Linear_0     256 -> 512
  act   ReLU_0
  block Block_0      (Linear_1 512 -> 256, LayerNorm_0 256)
  head  Linear_2     256 -> 10
(mlp-cuda.json: the linears without bias, and ReLU_1 for LayerNorm_0)
then cross_entropy, backward, SGD.step.
"""
import json, sys

BATCH = 64
# (attribute, class instance name, kind, shape, cpu fwd us, cpu bwd us, gpu fwd us, gpu bwd us)
LEAVES = {
    "Linear_0": ("linear", (256, 512), 1220.0, 2360.0, 105.0, 200.0),
    "ReLU_0": ("relu", (512,), 84.0, 110.0, 15.0, 20.0),
    "Linear_1": ("linear", (512, 256), 1180.0, 2300.0, 100.0, 195.0),
    "LayerNorm_0": ("layer_norm", (256,), 190.0, 320.0, 25.0, 45.0),
    "Linear_2": ("linear", (256, 10), 76.0, 140.0, 20.0, 35.0),
    "ReLU_1": ("relu", (256,), 40.0, 55.0, 8.0, 10.0),
}
TREE = ("MLP_0", [("Linear_0", []), ("ReLU_0", []), ("Block_0", [("Linear_1", []), ("LayerNorm_0", [])]),
                  ("Linear_2", [])])
# the GPU fixture: bias-free linears (as in Llama-style models), so that
# each layer holds at most one tensor, as a per-layer CSV row does
TREE_CUDA = ("MLP_0", [("Linear_0", []), ("ReLU_0", []), ("Block_0", [("Linear_1", []), ("ReLU_1", [])]),
                       ("Linear_2", [])])


class Trace:
    def __init__(self, cuda, modules, tree, bias):
        self.cuda, self.modules, self.tree, self.bias = cuda, modules, tree, bias
        self.ev, self.ext, self.corr, self.seq, self.pyid, self.idx = [], 0, 0, 0, 0, 0
        self.pid, self.tid, self.bwd_tid = 2147, 2147, 2201 if cuda else 2147
        self.gpu_t = 0.0
        self.seq_owner = {}

    def x(self, cat, name, ts, dur, tid=None, **args):
        e = {"ph": "X", "cat": cat, "name": name, "pid": self.pid if cat not in ("kernel",) else 0,
             "tid": tid if tid is not None else self.tid, "ts": round(ts, 3), "dur": round(dur, 3)}
        a = dict(args)
        if cat in ("cpu_op", "user_annotation", "cuda_runtime", "kernel"):
            a.setdefault("External id", self.ext)
        if cat in ("cpu_op", "user_annotation", "python_function"):
            a["Ev Idx"] = self.idx
            self.idx += 1
        e["args"] = a
        self.ev.append(e)
        return e

    def op(self, name, ts, dur, dims=None, seq=True, tid=None, fwd_tid=0, seqno=None):
        self.ext += 1
        args = {}
        if seq:
            if seqno is None:
                seqno = self.seq
                self.seq += 1
            args["Sequence number"] = seqno
            args["Fwd thread id"] = fwd_tid
        args["Record function id"] = 0
        if dims is not None:
            args["Input Dims"] = dims
            args["Input type"] = ["float" if d else "" for d in dims]
        self.x("cpu_op", name, ts, dur, tid=tid, **args)
        return seqno

    def launch(self, ts, kname, kdur, tid=None):
        """cudaLaunchKernel at ts (5 us) and its kernel on stream 7."""
        self.corr += 1
        self.x("cuda_runtime", "cudaLaunchKernel", ts, 5.0, tid=tid, cbid=211, correlation=self.corr)
        start = max(self.gpu_t, ts + 6.0)
        self.x("kernel", kname, start, kdur, tid=7, queued=0, device=0, context=1, stream=7,
               correlation=self.corr, grid=[64, 1, 1], block=[256, 1, 1])
        self.ev.append({"ph": "s", "id": self.corr, "pid": self.pid, "tid": tid if tid is not None else self.tid,
                        "ts": ts, "cat": "ac2g", "name": "ac2g", "args": {}})
        self.ev.append({"ph": "f", "id": self.corr, "pid": 0, "tid": 7, "ts": start, "cat": "ac2g", "name": "ac2g",
                        "bp": "e", "args": {}})
        self.gpu_t = start + kdur + 1.0

    def pyfunc(self, name, ts, dur, parent, module=None):
        self.pyid += 1
        args = {"Python parent id": parent, "Python id": self.pyid, "Python thread": 0}
        if module is not None:
            args["Python module id"] = module
        if self.modules or not name.startswith("nn.Module"):
            self.x("python_function", name, ts, dur, **args)
        return self.pyid

    # forward of a leaf module starting at t: returns its end and the seq
    # numbers of the autograd nodes it made
    def leaf_fwd(self, name, t, parent):
        kind, shape, cpu_f, _, gpu_f, _ = LEAVES[name]
        dur = (12.0 + 3 * 5.0) if self.cuda else cpu_f
        mid = self.pyfunc("nn.Module: " + name, t, dur + 4.0, parent, module=len(self.seq_owner))
        self.pyfunc("torch/nn/modules/%s.py(114): forward" % ("linear" if kind == "linear" else kind), t + 1.0,
                    dur + 2.0, mid)
        t0 = t + 2.0
        nodes = []
        if kind == "linear":
            o, i = shape[1], shape[0]
            s = self.op("aten::linear", t0, dur, [[BATCH, i], [o, i], [o] if self.bias else []])
            st = self.op("aten::t", t0 + 1.0, 3.0, [[o, i]])
            if self.bias:
                sa = self.op("aten::addmm", t0 + 5.0, dur - 6.0, [[o], [BATCH, i], [i, o], [], []])
            else:
                sa = self.op("aten::mm", t0 + 5.0, dur - 6.0, [[BATCH, i], [i, o]])
            nodes = [("TBackward0", st, 0.05), ("AddmmBackward0", sa, 0.95)]
            if self.cuda:
                self.launch(t0 + 6.0, "ampere_sgemm_64x32_sliced1x4_tn", gpu_f)
        elif kind == "relu":
            s = self.op("aten::relu", t0, dur, [[BATCH, shape[0]]])
            self.op("aten::clamp_min", t0 + 1.0, dur - 2.0, [[BATCH, shape[0]], []], seq=False)
            nodes = [("ReluBackward0", s, 1.0)]
            if self.cuda:
                self.launch(t0 + 2.0, "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar>", gpu_f)
        else:
            d = shape[0]
            self.op("aten::layer_norm", t0, dur, [[BATCH, d], [], [d], [d], [], []])
            sn = self.op("aten::native_layer_norm", t0 + 1.0, dur - 2.0, [[BATCH, d], [], [d], [d], []])
            nodes = [("NativeLayerNormBackward0", sn, 1.0)]
            if self.cuda:
                self.launch(t0 + 2.0, "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>", gpu_f)
        for n, sq, _ in nodes:
            self.seq_owner[sq] = name
        if kind == "linear" and not self.bias:   # aten::mm for the bias-free linear
            nodes = [("TBackward0", st, 0.05), ("MmBackward0", sa, 0.95)]
        return t + dur + 6.0, nodes

    def module_fwd(self, node, t, parent, order):
        name, children = node
        if not children:
            t, nodes = self.leaf_fwd(name, t, parent)
            order.append((name, nodes))
            return t
        start = t
        ev_index = len(self.ev)
        mid = self.pyfunc("nn.Module: " + name, t, 0.0, parent, module=len(self.seq_owner))
        t += 3.0
        for c in children:
            t = self.module_fwd(c, t, mid, order)
        if self.modules:
            self.ev[ev_index]["dur"] = round(t - start + 2.0, 3)
        return t + 3.0

    def backward(self, t, order, cuda_kernels):
        tid = self.bwd_tid
        fwd_tid = 1
        # the loss's nodes first (not in any module), then the modules in reverse
        for n, sq, dur, g in (("NllLossBackward0", self.loss_seq[1], 9.0, 2.0),
                              ("LogSoftmaxBackward0", self.loss_seq[0], 14.0, 3.0)):
            self.evaluate(n, sq, t, dur, tid, fwd_tid, g)
            t += dur + 2.0
        for name, nodes in reversed(order):
            kind, shape, _, cpu_b, _, gpu_b = LEAVES[name]
            for n, sq, share in reversed(nodes):
                dur = 14.0 if self.cuda else cpu_b * share
                self.evaluate(n, sq, t, dur, tid, fwd_tid, gpu_b * share)
                t += dur + 2.0
            for p in range(0 if kind == "relu" else 2 if self.bias or kind != "linear" else 1):
                self.ext += 1
                self.x("cpu_op", "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", t, 6.0,
                       tid=tid, **{"Record function id": 0})
                self.ext += 1
                self.x("cpu_op", "torch::autograd::AccumulateGrad", t + 1.0, 4.0, tid=tid, **{"Record function id": 0})
                t += 8.0
        return t

    def evaluate(self, node, sq, t, dur, tid, fwd_tid, gpu_us):
        self.op("autograd::engine::evaluate_function: " + node, t, dur, seq=True, tid=tid, fwd_tid=fwd_tid, seqno=sq)
        self.op(node, t + 1.0, dur - 2.0, seq=True, tid=tid, fwd_tid=fwd_tid, seqno=sq)
        if self.cuda:
            self.launch(t + 3.0, "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4>", gpu_us, tid=tid)

    def step(self, n, t):
        self.ext += 1
        ev_step = self.x("user_annotation", "ProfilerStep#%d" % n, t, 0.0)
        start = t
        t += 5.0
        self.ext += 1
        self.x("user_annotation", "Optimizer.zero_grad#SGD.zero_grad", t, 6.0)
        t += 8.0
        top = self.pyfunc("train.py(41): train_step", t, 0.0, None)
        top_ev = len(self.ev) - 1
        order = []
        t = self.module_fwd(self.tree, t + 1.0, top, order)
        # the loss, outside the model
        s0 = self.op("aten::log_softmax", t, 12.0, [[BATCH, 10], [], []])
        s1 = self.op("aten::nll_loss_nd", t + 13.0, 8.0, [[BATCH, 10], [BATCH], [], [], []])
        self.loss_seq = (s0, s1)
        if self.cuda:
            self.launch(t + 1.0, "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float>", 3.0)
            self.launch(t + 14.0, "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float>", 2.0)
        t += 24.0
        ts_bwd = t
        self.ext += 1
        self.x("cpu_op", "aten::ones_like", t, 4.0)
        t = self.backward(t + 6.0, order, None)
        self.ext += 1
        self.x("user_annotation", "Optimizer.step#SGD.step", t, 30.0)
        for k in range(8):
            self.ext += 1
            self.x("cpu_op", "aten::add_", t + 2.0 + 3.5 * k, 3.0, **{"Record function id": 0})
            if self.cuda:
                self.launch(t + 2.0 + 3.5 * k, "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>", 1.5)
        t += 32.0
        if self.cuda:  # loss.item(): the host waits for the stream
            wait = max(0.0, self.gpu_t - t)
            self.ext += 1
            self.x("cpu_op", "aten::item", t, wait + 8.0)
            self.corr += 1
            self.x("cuda_runtime", "cudaMemcpyAsync", t + 2.0, wait + 4.0, cbid=41, correlation=self.corr)
            self.x("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", self.gpu_t, 1.5, tid=7, device=0, context=1,
                   stream=7, correlation=self.corr, bytes=4)
            self.ev[-1]["pid"] = 0
            t += wait + 10.0
        self.ev[top_ev]["dur"] = round(t - self.ev[top_ev]["ts"] - 1.0, 3)
        ev_step["dur"] = round(t - start + 2.0, 3)
        return t + 40.0


def write(path, cuda, modules, tree=TREE, bias=True):
    tr = Trace(cuda, modules, tree, bias)
    t = 1734570000000.0 + 0.5
    for n in (1, 2):
        tr.seq_owner = {}
        t = tr.step(n, t)
    meta = [{"name": "process_name", "ph": "M", "ts": 1734570000000.5, "pid": tr.pid, "tid": 0,
             "args": {"name": "python3"}},
            {"name": "thread_name", "ph": "M", "ts": 1734570000000.5, "pid": tr.pid, "tid": tr.tid,
             "args": {"name": "thread %d (python3)" % tr.tid}}]
    doc = {"schemaVersion": 1,
           "deviceProperties": ([{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "totalGlobalMem": 42297524224,
                                  "computeMajor": 8, "computeMinor": 0, "maxThreadsPerBlock": 1024,
                                  "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
                                  "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152,
                                  "sharedMemPerMultiprocessor": 167936, "numSms": 108,
                                  "sharedMemPerBlockOptin": 166912}] if cuda else []),
           "record_shapes": 1, "with_stack": 1,
           "displayTimeUnit": "ms", "baseTimeNanoseconds": 1734570000000000000,
           "traceEvents": meta + tr.ev, "traceName": path}
    if cuda:
        doc["cuda_runtime_version"] = 12010
        doc["cuda_driver_version"] = 12020
    with open(path, "w") as f:
        f.write(kineto_layout(doc))


def kineto_layout(doc):
    """The document laid out as Kineto's ChromeTraceLogger writes it: the
    header keys one a line, then each event's keys on three or four lines."""
    out = ["{"]
    for k, v in doc.items():
        if k not in ("traceEvents", "traceName"):
            out.append("  %s: %s," % (json.dumps(k), json.dumps(v)))
    out.append('  "traceEvents": [')
    evs = []
    for e in doc["traceEvents"]:
        if e["ph"] in ("s", "f"):   # a flow: no args, its binding point on the end
            evs.append('  {\n    "ph": "%s", "id": %d, "pid": %d, "tid": %d, "ts": %.3f,\n    "cat": "%s", "name": "%s"%s\n  }'
                       % (e["ph"], e["id"], e["pid"], e["tid"], e["ts"], e["cat"], e["name"],
                          ', "bp": "e"' if e["ph"] == "f" else ""))
            continue
        head = ", ".join("%s: %s" % (json.dumps(k), json.dumps(e[k])) for k in ("ph", "cat", "name", "pid", "tid")
                         if k in e)
        lines = ["  {", "    " + head + ","]
        # microseconds with three decimals (nanoseconds), as Kineto prints them
        if "dur" in e:
            lines.append('    "ts": %.3f, "dur": %.3f,' % (e["ts"], e["dur"]))
        else:
            lines.append('    "ts": %.3f,' % e["ts"])
        lines.append('    "args": {')
        lines.append("      " + ", ".join("%s: %s" % (json.dumps(k), json.dumps(v)) for k, v in e["args"].items()))
        lines.append("    }")
        lines.append("  }")
        evs.append("\n".join(lines))
    out.append(",\n".join(evs) + ",")
    # the last event, as Kineto ends every trace
    out.append('  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n    "pid": "", "tid": "", "ts": %.3f\n  }'
               % (doc["traceEvents"][-1]["ts"] + doc["traceEvents"][-1].get("dur", 0) + 5))
    out.append("  ],")
    out.append('  "traceName": %s' % json.dumps(doc["traceName"]))
    out.append("}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    write("mlp-cpu.json", cuda=False, modules=True)
    write("mlp-cuda.json", cuda=True, modules=True, tree=TREE_CUDA, bias=False)
    write("mlp-nomodules.json", cuda=False, modules=False)
