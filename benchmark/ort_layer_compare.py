#!/usr/bin/env python3
"""Per-layer times of kite against onnxruntime on one converted model, 1 thread.

kite: benchkite's trace (trace=FILE) of NAME.opt.param over --runs loops;
onnxruntime: its profiler (SessionOptions.enable_profiling, 1 intra-op
thread, all graph optimisations) over --runs runs of NAME.onnx. Each layer's
or node's minimum over the runs (wall time: the minimum is the figure least
disturbed by other processes), summed per key: convolutions by (input C,H,W,
weight shape, output C,H,W) from the ONNX graph's shapes (kite's layer names
are the ONNX node names with a _kN suffix; onnxruntime reports its fused
nodes' shapes), other layers by type (kite's BinaryOp/ReLU against
onnxruntime's fused Conv+Add+Relu show up as kite-only rows). Rows sorted by
kite - onnxruntime, the largest loss first.

  python3 benchmark/ort_layer_compare.py --dir /tmp/arch --model resnet50 \
      --benchkite build/benchmark/benchkite [--runs 20]

DIR holds NAME.onnx and NAME.opt.param (tests/convert/onnx/export_torchvision.py
+ kiteoptimize, as benchmark/arch_bench.py makes them).
"""
import argparse
import collections
import json
import os
import re
import subprocess
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import shape_inference


def ort_mins(onnx_path, runs, prefix):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.enable_profiling = True
    so.profile_file_prefix = prefix
    s = ort.InferenceSession(onnx_path, so, providers=["CPUExecutionProvider"])
    i = s.get_inputs()[0]
    x = np.random.default_rng(0).uniform(0, 1, [int(d) for d in i.shape]).astype(np.float32)
    for _ in range(runs):
        s.run(None, {i.name: x})
    f = s.end_profiling()
    with open(f) as fh:
        ev = json.load(fh)
    os.remove(f)
    mins, info = collections.defaultdict(lambda: float("inf")), {}
    for e in ev:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
            continue
        name = e["name"][:-len("_kernel_time")]
        mins[name] = min(mins[name], e["dur"])
        a = e.get("args", {})
        info[name] = (a.get("op_name"), [list(t.values())[0] for t in a.get("input_type_shape", [])],
                      [list(t.values())[0] for t in a.get("output_type_shape", [])])
    return mins, info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--benchkite", required=True)
    ap.add_argument("--runs", type=int, default=20)
    a = ap.parse_args()
    onnx_path = os.path.join(a.dir, a.model + ".onnx")
    param = os.path.join(a.dir, a.model + ".opt.param")
    work = tempfile.mkdtemp(prefix="ort_layer_")
    omins, oinfo = ort_mins(onnx_path, a.runs, os.path.join(work, "ort"))
    ot, kt = collections.defaultdict(float), collections.defaultdict(float)
    for name, us in omins.items():
        op, ins, outs = oinfo[name]
        key = ("Conv", tuple(ins[0][1:]), tuple(ins[1]), tuple(outs[0][1:])) if op in ("Conv", "FusedConv") else (op,)
        ot[key] += us / 1000.0

    m = shape_inference.infer_shapes(onnx.load(onnx_path))
    shape = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
             for v in list(m.graph.value_info) + list(m.graph.input) + list(m.graph.output)}
    shape.update({t.name: list(t.dims) for t in m.graph.initializer})
    nodes = {n.name: n for n in m.graph.node}
    trace = os.path.join(work, "kite.json")
    subprocess.run([a.benchkite, str(a.runs), "1", "0", "-1", "0", "param=" + param, "trace=" + trace],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    with open(trace) as fh:
        t = json.load(fh)
    os.remove(trace)
    os.rmdir(work)
    kmins, kcat = collections.defaultdict(lambda: float("inf")), {}
    for e in t["traceEvents"] if isinstance(t, dict) else t:
        if e.get("ph") == "X":
            kmins[e["name"]] = min(kmins[e["name"]], e["dur"])
            kcat[e["name"]] = e["cat"]
    for name, us in kmins.items():
        base, key = re.sub(r"_k\d+$", "", name), (kcat[name],)
        if kcat[name] in ("Convolution", "ConvolutionDepthWise") and base in nodes:
            n = nodes[base]
            key = ("Conv", tuple(shape[n.input[0]][1:]), tuple(shape[n.input[1]]), tuple(shape[n.output[0]][1:]))
        kt[key] += us / 1000.0
    print("%s: kite %.2f ms, onnxruntime %.2f ms (sums of per-layer minimums over %d runs, 1 thread)"
          % (a.model, sum(kt.values()), sum(ot.values()), a.runs))
    print("| kite ms | onnxruntime ms | difference | ratio | layer (Conv: input CHW, weight, output CHW) |")
    print("|---:|---:|---:|---:|---|")
    for key in sorted(set(kt) | set(ot), key=lambda k: -(kt.get(k, 0) - ot.get(k, 0))):
        k, o = kt.get(key, 0.0), ot.get(key, 0.0)
        print("| %.3f | %.3f | %+.3f | %s | %s |" % (k, o, k - o, "%.2f" % (k / o) if o else "-", key))


if __name__ == "__main__":
    main()
