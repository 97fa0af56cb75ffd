#!/usr/bin/env python3
"""kiteoptimize keeps outputs: every shared ncnn graph (random weights written
by kiterun writebin=) and a synthetic un-fused graph written here, optimised
with fp32 and with fp16 weights, run by kiterun on the same input.

  python3 optimize_graphs.py --kiterun BIN --kiteoptimize BIN --work DIR
         [--shared-dir DIR] [--graph NAME]... [--skip NAME]...

Checks per graph: kiteoptimize succeeds; no BatchNorm is left right after a
Convolution/Deconvolution/InnerProduct; no more layers than before; every
output (unconsumed blobs, plus the inputs of final Softmax/detection layers)
matches the original within 1e-4 (fp32) or 2e-2 (fp16) of the original's
range; the fp16 .bin holds fp16-tagged buffers and is smaller. The synthetic
graph must lose every BatchNorm, Scale, Dropout, scalar BinaryOp and
activation that follows a convolution, and the zero Padding before one. Exit status 0 or 1.
"""

import argparse
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "models"))
from run_models import blobs_to_check  # noqa: E402

sys.path.insert(0, os.path.join(HERE, ".."))
from convert_report import bn_after_conv, read_param  # noqa: E402

POSTPROCESS = ("Softmax", "DetectionOutput", "Yolov3DetectionOutput", "YoloDetectionOutput")

# conv -> BN -> Scale -> ReLU, depthwise -> scalar mul/add -> Clip, deconv ->
# BN -> Sigmoid, IP -> Dropout -> Flatten -> BN, a Split, a requested output
# after a BatchNorm (must stay); a zero Padding before a stride-2 ReLU6 conv
# (folds into its pads) whose output is multiplied by 1/6 (folds: clip bounds
# scaled), a Padding of value 1 before a depthwise conv (must stay), a scalar
# mul and add before a padded conv (fold: pad value -b/a keeps the border zero),
# a head of 1x1 convs on a pooled [1,1,C] (becomes two InnerProducts)
SYNTHETIC = """7767517
COUNTS
Input            data      0 1 data 0=13 1=11 2=5
Convolution      conv1     1 1 data c1 0=8 1=3 4=1 5=1 6=360
BatchNorm        bn1       1 1 c1 b1 0=8 1=1e-3
Scale            sc1       1 1 b1 s1 0=8 1=1
ReLU             relu1     1 1 s1 r1
Split            split1    1 2 r1 r1a r1b
ConvolutionDepthWise dw    1 1 r1a d1 0=8 1=3 4=1 5=0 6=72 7=8
BinaryOp         mul       1 1 d1 m1 0=2 1=1 2=1.5
BinaryOp         add       1 1 m1 a1 0=0 1=1 2=-0.25
Clip             clip      1 1 a1 cl1 0=-1.0 1=2.0
Deconvolution    deconv    1 1 r1b dc 0=4 1=2 3=2 5=1 6=128
BatchNorm        bn2       1 1 dc b2 0=4 1=1e-5
Sigmoid          sig       1 1 b2 sg
Pooling          gp        1 1 sg gp 0=1 4=1
Flatten          flat0     1 1 gp gpf
Convolution      conv2     1 1 cl1 c2 0=6 1=1 5=1 6=48
BatchNorm        bn3       1 1 c2 b3 0=6 1=1e-5
HardSwish        hs        1 1 b3 hs 0=0.2 1=0.5
Pooling          gp2       1 1 hs p2 0=1 4=1
InnerProduct     fc        1 1 p2 fc 0=7 1=1 2=42
Dropout          drop      1 1 fc fcd
Flatten          flat      1 1 fcd fcf
BatchNorm        bn4       1 1 fcf out 0=7 1=1e-5
Padding          pad0      1 1 data pd0 0=0 1=1 2=1 3=2 4=0 5=0.0
Convolution      convp     1 1 pd0 cp 0=4 1=3 3=2 5=1 6=180 9=3 -23310=2,0.0,6.0
BinaryOp         mulp      1 1 cp cpm 0=2 1=1 2=0.16666667
Padding          pad1      1 1 cpm pd1 0=1 1=1 2=1 3=1 4=0 5=1.0
ConvolutionDepthWise dwp   1 1 pd1 dp 0=4 1=3 5=1 6=36 7=4
BinaryOp         premul    1 1 data pm 0=2 1=1 2=0.5
BinaryOp         preadd    1 1 pm pa 0=0 1=1 2=-1.0
Convolution      convq     1 1 pa cq 0=3 1=3 4=1 5=1 6=135
Pooling          gp3       1 1 cq gq 0=1 4=1
Reshape          rq        1 1 gq rqo 0=1 1=1 2=3
Convolution      hc1       1 1 rqo h1 0=6 1=1 5=1 6=18 9=1
Convolution      hc2       1 1 h1 h2 0=4 1=1 5=1 6=24
Reshape          rf        1 1 h2 head 0=4
"""


def synthetic_param():
    lines = SYNTHETIC.strip().splitlines()
    blobs = set()
    for l in lines[2:]:
        t = l.split()
        nin, nout = int(t[2]), int(t[3])
        blobs.update(t[4 + nin:4 + nin + nout])
    lines[1] = "%d %d" % (len(lines) - 2, len(blobs))
    return "\n".join(lines) + "\n"


def outputs_to_check(param):
    """the blobs run_models.py checks, split into outputs and the inputs of
    post-processing layers, and each blob's producer type"""
    checked = blobs_to_check(param)
    producer = {}
    consumed = set()
    for t in read_param(param):
        nin, nout = int(t[2]), int(t[3])
        consumed.update(t[4:4 + nin])
        for b in t[4 + nin:4 + nin + nout]:
            producer[b] = (t[0], t[4:4 + nin])
    outs = [b for b in checked if b not in consumed]
    return outs, [b for b in checked if b in consumed], producer


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def count_tags(path):
    data = np.fromfile(path, dtype="<u4")
    return int(np.sum(data == 0x01306B47))


def check(args, name, param, shape, work):
    os.makedirs(work, exist_ok=True)
    rng = np.random.RandomState(7)
    w, h, c = shape
    x = rng.uniform(-1, 1, size=(c, h, w)).astype(np.float32)
    inp = os.path.join(work, "in.npy")
    np.save(inp, x)
    first_input = [t for t in read_param(param) if t[0] == "Input"][0]
    in_blob = first_input[4]  # an Input layer has no bottoms: its top comes first
    binf = os.path.join(work, "orig.bin")
    outs, extra, producer = outputs_to_check(param)
    base = [args.kiterun, param, "random", "seed=3", "writebin=" + binf, "input=%s:%s" % (in_blob, inp),
            "save=" + os.path.join(work, "ref")] + ["output=" + o for o in outs + extra]
    r = run(base)
    if r.returncode != 0:
        print("FAIL %s: kiterun (original): %s" % (name, r.stderr.strip()))
        return False
    ok = True
    nlayers = len(read_param(param))
    for mode, tol in (("fp32", 1e-4), ("fp16", 2e-2)):
        po, bo = os.path.join(work, "opt_%s.param" % mode), os.path.join(work, "opt_%s.bin" % mode)
        r = run([args.kiteoptimize, param, binf, po, bo] + (["fp16"] if mode == "fp16" else []))
        if r.returncode != 0:
            print("FAIL %s %s: kiteoptimize: %s" % (name, mode, r.stderr.strip()))
            ok = False
            continue
        stats = r.stderr.strip().replace("kiteoptimize: ", "")
        nbn = bn_after_conv(po)
        nopt = len(read_param(po))
        if nbn or nopt > nlayers:
            print("FAIL %s %s: %d BatchNorm after conv, %d -> %d layers" % (name, mode, nbn, nlayers, nopt))
            ok = False
        # every weight of a float conv-like layer is stored fp16 (int8 layers keep fp32)
        float_layers = [t for t in read_param(param) if t[0].startswith(("Convolution", "Deconvolution", "InnerProduct"))
                        and not any(kv.startswith("8=") and kv != "8=0" for kv in t)]
        if mode == "fp16" and float_layers and count_tags(bo) < len(float_layers):
            print("FAIL %s fp16: no fp16-tagged weight in %s" % (name, bo))
            ok = False
        r = run([args.kiterun, po, bo, "input=%s:%s" % (in_blob, inp), "save=" + os.path.join(work, mode)]
                + ["output=" + o for o in outs + extra])
        if r.returncode != 0:
            print("FAIL %s %s: kiterun (optimised): %s" % (name, mode, r.stderr.strip()))
            ok = False
            continue
        worst = 0.0
        for o in outs + extra:
            if mode == "fp16" and producer[o][0] in POSTPROCESS[1:]:
                continue  # fp16 weights move boxes across thresholds: the heads are compared
            a = np.load(os.path.join(work, "ref", o.replace("/", "_") + ".npy"))
            b = np.load(os.path.join(work, mode, o.replace("/", "_") + ".npy"))
            if a.shape != b.shape:
                print("FAIL %s %s output %s: shape %s vs %s" % (name, mode, o, a.shape, b.shape))
                ok = False
                continue
            if a.size == 0:
                continue
            rng_ = float(a.max() - a.min())
            d = float(np.max(np.abs(a - b)))
            rel = d / max(rng_, 1e-6)
            worst = max(worst, rel)
            if rel > tol:
                print("FAIL %s %s output %s: max diff %.3g, range %.3g" % (name, mode, o, d, rng_))
                ok = False
        print("%s %s %s: %d -> %d layers, max diff / range %.2e (%s)" % ("ok  " if ok else "FAIL", name, mode, nlayers, nopt, worst, stats))
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiterun", required=True)
    ap.add_argument("--kiteoptimize", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--shared-dir", default=os.environ.get("KITE_SHARED_DIR", ""))
    ap.add_argument("--graph", action="append")
    ap.add_argument("--skip", action="append", default=[])
    args = ap.parse_args()

    graphs = {}
    shapes_txt = os.path.join(args.shared_dir, "models", "ncnn", "shapes.txt")
    if os.path.isfile(shapes_txt):
        for line in open(shapes_txt):
            t = line.split()
            if len(t) == 2:
                graphs[t[0]] = (os.path.join(args.shared_dir, "models", "ncnn", t[0] + ".param"),
                                [int(v) for v in t[1].strip("[]").split(",")])
    os.makedirs(args.work, exist_ok=True)
    syn = os.path.join(args.work, "unfused.param")
    with open(syn, "w") as f:
        f.write(synthetic_param())
    graphs["unfused"] = (syn, [13, 11, 5])
    names = args.graph or list(graphs)
    ok = True
    for n in names:
        if n in args.skip:
            continue
        if n not in graphs:
            print("FAIL: unknown graph %s" % n)
            return 1
        passed = check(args, n, graphs[n][0], graphs[n][1], os.path.join(args.work, n))
        # a passing graph's weights go (vgg16 alone writes 1.6 GB); a failing
        # one's stay for inspection, and KITE_KEEP_WORK=1 keeps them all
        if passed and n != "unfused" and os.environ.get("KITE_KEEP_WORK") != "1":
            shutil.rmtree(os.path.join(args.work, n), ignore_errors=True)
        ok = passed and ok
    # the synthetic graph: everything after a conv is fused
    if "unfused" in names and "unfused" not in args.skip:
        left = [t[0] for t in read_param(os.path.join(args.work, "unfused", "opt_fp32.param"))]
        bad = [t for t in left if t in ("Scale", "Dropout", "ReLU", "Clip", "Sigmoid", "HardSwish", "BinaryOp")]
        # bn4 writes the output 'out': once the Dropout and the Flatten of a
        # 1-D blob are gone it follows the InnerProduct and folds in too
        # two Splits stay: the fused conv1 output feeds two layers, the input
        # feeds conv1 and (its Padding folded) convp
        # one Padding stays: pad1's value is 1, not the convolution's zero
        if bad or left.count("BatchNorm") or left.count("Flatten") or left.count("Split") != 2 or left.count("Padding") != 1 \
                or left.count("InnerProduct") != 3 or left.count("Reshape") != 1:
            print("FAIL unfused: layers left after optimisation: %s" % " ".join(left))
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
