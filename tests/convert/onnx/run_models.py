#!/usr/bin/env python3
"""Converts the generated torchvision-architecture models (make_models.py)
with onnx2kite, runs them in kite (kiterun) and in onnxruntime on the same
random input, and checks max |diff| <= 1e-4 * (output range).

usage: run_models.py ONNX2KITE KITERUN MODELDIR WORKDIR [--optimize KITEOPTIMIZE] [name ...]
Prints per model: ONNX ops used, conversion time, kite layer count, max diff.
With --optimize, each converted model also goes through kiteoptimize: the
optimised model must match onnxruntime within the same tolerance and keep no
BatchNorm right behind a convolution.
"""
import collections
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kite_npy  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import convert_report  # noqa: E402


def main():
    if len(sys.argv) < 5:
        print(__doc__)
        return 2
    onnx2kite, kiterun, mdir, work = sys.argv[1:5]
    args = sys.argv[5:]
    kiteoptimize = None
    if "--optimize" in args:
        i = args.index("--optimize")
        kiteoptimize = args[i + 1]
        del args[i:i + 2]
    names = args or sorted(f[:-5] for f in os.listdir(mdir) if f.endswith(".onnx"))
    import onnx
    import onnxruntime as ort
    os.makedirs(work, exist_ok=True)
    bad = 0
    table = convert_report.Table("onnx", "onnxruntime")
    for name in names:
        path = os.path.join(mdir, name + ".onnx")
        m = onnx.load(path)
        ops = collections.Counter(n.op_type for n in m.graph.node)
        rng = np.random.default_rng(1234)
        inputs = {}
        for vi in m.graph.input:
            shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
            inputs[vi.name] = rng.uniform(-1, 1, shape).astype(np.float32)
        outs = [o.name for o in m.graph.output]
        so = ort.SessionOptions()
        so.intra_op_num_threads = 2
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        expected = sess.run(outs, inputs)
        param, binf = os.path.join(work, name + ".param"), os.path.join(work, name + ".bin")
        r, conv_s, conv_cpu = convert_report.run_timed([onnx2kite, path, param, binf])
        if r.returncode != 0:
            print("FAIL %s: onnx2kite: %s" % (name, r.stderr.strip()))
            bad += 1
            continue
        layers = int(open(param).read().split("\n")[1].split()[0])
        t0 = time.time()
        err, got = kite_npy.run_kite(kiterun, param, binf, inputs, outs, os.path.join(work, name), threads=2)
        run_s = time.time() - t0
        if err:
            print("FAIL %s: kiterun: %s" % (name, err))
            bad += 1
            continue
        diffs = [kite_npy.max_diff(e, got[o]) for o, e in zip(outs, expected)]
        ok = all(d <= 1e-4 * r for d, r in diffs)
        d, r = convert_report.worst(diffs)
        print("%s %s: %d ONNX nodes, %d kite layers, convert %.2f s, kite run %.2f s, max diff %.3g (range %.3g, %.2g of it)" %
              ("ok  " if ok else "FAIL", name, sum(ops.values()), layers, conv_s, run_s, d, r, d / max(r, 1e-30)))
        print("      ops: " + ", ".join("%s x%d" % kv for kv in sorted(ops.items())))
        opt = None
        if kiteoptimize and ok:
            opt = check_optimized(kiteoptimize, kiterun, param, binf, inputs, outs, expected, work, name)
            ok = opt is not None and opt["ok"]
        table.add(name, sum(ops.values()), len(ops), param, (conv_s, conv_cpu), diffs, ok, opt)
        if not ok:
            bad += 1
    table.print()
    return 1 if bad else 0


def check_optimized(kiteoptimize, kiterun, param, binf, inputs, outs, expected, work, name):
    oparam, obin = os.path.join(work, name + ".opt.param"), os.path.join(work, name + ".opt.bin")
    r = subprocess.run([kiteoptimize, param, binf, oparam, obin, "outputs=" + ",".join(kite_npy.blob_name(o) for o in outs)],
                       capture_output=True, text=True, errors="replace")
    if r.returncode != 0:
        print("FAIL %s: kiteoptimize: %s" % (name, r.stderr.strip()))
        return None
    left = convert_report.bn_after_conv(oparam)
    err, got = kite_npy.run_kite(kiterun, oparam, obin, inputs, outs, os.path.join(work, name + "-opt"), threads=2)
    if err:
        print("FAIL %s: optimised model: %s" % (name, err))
        return None
    diffs = [kite_npy.max_diff(e, got[o]) for o, e in zip(outs, expected)]
    ok = left == 0 and all(d <= 1e-4 * r for d, r in diffs)
    d, r = convert_report.worst(diffs)
    print("%s %s after kiteoptimize: %d -> %d layers, %d BatchNorm left after a conv, max diff %.3g (range %.3g)" %
          ("ok  " if ok else "FAIL", name, len(convert_report.read_param(param)), len(convert_report.read_param(oparam)),
           left, d, r))
    return dict(param=oparam, diffs=diffs, ok=ok)


if __name__ == "__main__":
    sys.exit(main())
