#!/usr/bin/env python3
"""Converts the generated torchvision-architecture models (make_models.py)
with onnx2kite, runs them in kite (kiterun) and in onnxruntime on the same
random input, and checks max |diff| <= 1e-4 * (output range).

usage: run_models.py ONNX2KITE KITERUN MODELDIR WORKDIR [--optimize KITEOPTIMIZE]
                     [--second-size H,W] [name ...]
Prints per model: ONNX ops used, conversion time, kite layer count, max diff.
Any input size: each model, converted once at its declared size, also runs
at the second size (default 160,192) and must match onnxruntime there (the
same model with its height and width made symbolic); a model whose source
fixes its size (FIXED_SIZE: ViT's position embedding has 197 tokens) must
instead be reported so by onnx2kite's note, and kiterun must refuse the
second size with kite's fixed-size message (the converter marks the Input
layer) rather than run it.
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

# models whose source fixes the input size, and why
FIXED_SIZE = {"vit_b_16_l2": "the position embedding is a constant of 197 tokens (14x14 patches + class token)",
              "vit_b_16": "the position embedding is a constant of 197 tokens (14x14 patches + class token)"}
FIXED_NOTE = "runs only at the converted input size"

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import convert_report  # noqa: E402


def main():
    if len(sys.argv) < 5:
        print(__doc__)
        return 2
    onnx2kite, kiterun, mdir, work = sys.argv[1:5]
    args = sys.argv[5:]
    kiteoptimize = None
    second = (160, 192)
    if "--second-size" in args:
        i = args.index("--second-size")
        second = tuple(int(v) for v in args[i + 1].split(","))
        del args[i:i + 2]
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
        conv_err = r.stderr
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
        if ok:
            models = [("", param, binf)] + ([("after kiteoptimize ", opt["param"], opt["param"][:-6] + ".bin")] if opt else [])
            ok = check_second_size(kiterun, m, models, conv_err, second, work, name)
        table.add(name, sum(ops.values()), len(ops), param, (conv_s, conv_cpu), diffs, ok, opt)
        if not ok:
            bad += 1
    table.print()
    return 1 if bad else 0


def check_second_size(kiterun, m, models, conv_stderr, hw, work, name):
    """the converted models (converted at the declared size) at input size hw
    against onnxruntime on the model with symbolic height and width"""
    if name in FIXED_SIZE:
        ok = FIXED_NOTE in conv_stderr
        print("%s %s: fixed input size (%s): %s" % ("ok  " if ok else "FAIL", name, FIXED_SIZE[name],
              [ln for ln in conv_stderr.splitlines() if FIXED_NOTE in ln][0] if ok else "onnx2kite did not say so"))
        # and kite refuses the other size (the Input layer is marked fixed) instead of computing wrong output
        return check_refused(kiterun, m, models, hw, work, name) and ok
    if FIXED_NOTE in conv_stderr:
        print("FAIL %s: onnx2kite says the size is fixed: %s" % (name, conv_stderr.strip()))
        return False
    import onnx
    import onnxruntime as ort
    dyn = onnx.ModelProto()
    dyn.CopyFrom(m)
    inputs = {}
    rng = np.random.default_rng(4321)
    for vi in dyn.graph.input:
        d = vi.type.tensor_type.shape.dim
        if len(d) == 4:
            d[2].dim_param, d[3].dim_param = "H", "W"
            shape = [d[0].dim_value, d[1].dim_value, hw[0], hw[1]]
        else:
            shape = [x.dim_value for x in d]
        inputs[vi.name] = rng.uniform(-1, 1, shape).astype(np.float32)
    for o in dyn.graph.output:
        o.type.tensor_type.ClearField("shape")
    del dyn.graph.value_info[:]
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    outs = [o.name for o in dyn.graph.output]
    expected = ort.InferenceSession(dyn.SerializeToString(), so, providers=["CPUExecutionProvider"]).run(outs, inputs)
    ok = True
    for what, param, binf in models:
        err, got = kite_npy.run_kite(kiterun, param, binf, inputs, outs, os.path.join(work, name + "-hw"), threads=2,
                                     shapecheck=False)
        if err:
            print("FAIL %s %sat %dx%d: kiterun: %s" % (name, what, hw[0], hw[1], err))
            ok = False
            continue
        diffs = [kite_npy.max_diff(e, got[o]) for o, e in zip(outs, expected)]
        good = all(d <= 1e-4 * r for d, r in diffs)
        d, r = convert_report.worst(diffs)
        print("%s %s %sat input %dx%d (converted at the declared size): max diff %.3g (range %.3g)" %
              ("ok  " if good else "FAIL", name, what, hw[0], hw[1], d, r))
        ok = ok and good
    return ok


REFUSED = "runs only at its declared input size"


def check_refused(kiterun, m, models, hw, work, name):
    """a model whose size is fixed, given an input of size hw: kiterun must fail
    with the fixed-size message (not run, not fail elsewhere)"""
    rng = np.random.default_rng(4321)
    inputs = {}
    for vi in m.graph.input:
        d = [x.dim_value for x in vi.type.tensor_type.shape.dim]
        if len(d) == 4:
            d[2], d[3] = hw
        inputs[vi.name] = rng.uniform(-1, 1, d).astype(np.float32)
    ok = True
    for what, param, binf in models:
        err, _ = kite_npy.run_kite(kiterun, param, binf, inputs, [o.name for o in m.graph.output],
                                   os.path.join(work, name + "-hw"), threads=2, shapecheck=False)
        good = err is not None and REFUSED in err
        line = [ln for ln in (err or "").splitlines() if REFUSED in ln]
        print("%s %s %sat %dx%d: %s" % ("ok  " if good else "FAIL", name, what, hw[0], hw[1],
              "kite refuses it: " + line[0].strip() if good else "kiterun did not refuse it: %s" % (err or "it ran")))
        ok = ok and good
    return ok


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
