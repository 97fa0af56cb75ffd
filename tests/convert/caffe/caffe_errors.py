#!/usr/bin/env python3
"""caffe2kite on bad input: every case must exit non-zero with one clear line
on stderr naming the problem, write no output file and not crash.

  python3 caffe_errors.py --caffe2kite BIN --work DIR
"""

import argparse
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import caffe_fidelity as cf  # noqa: E402

GOOD = """
name: "t"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 2 dim: 5 dim: 5 } } }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv" convolution_param { num_output: 3 kernel_size: 3 } }
layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
"""

UNSUPPORTED = GOOD + """
layer { name: "w1" type: "WeirdOp" bottom: "conv" top: "w1" }
layer { name: "w2" type: "WeirdOp" bottom: "w1" top: "w2" }
layer { name: "p" type: "Python" bottom: "w2" top: "p" }
layer { name: "pool" type: "Pooling" bottom: "p" top: "pool" pooling_param { pool: STOCHASTIC kernel_size: 2 } }
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--caffe2kite", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    w = lambda n: os.path.join(args.work, n)  # noqa: E731

    def write(name, data):
        with open(w(name), "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return w(name)

    net = cf.parse_prototxt(GOOD)
    _, blobs, _ = cf.infer(net, np.random.RandomState(3))
    cf.write_caffemodel(w("good.caffemodel"), net, blobs)
    good_model = open(w("good.caffemodel"), "rb").read()
    write("good.prototxt", GOOD)
    wrong = dict(blobs)
    wrong["conv"] = [blobs["conv"][0][:, :, :, :2], blobs["conv"][1]]  # a 3x2 kernel for a 3x3 layer
    cf.write_caffemodel(w("wrong.caffemodel"), net, wrong)

    cases = [
        # (name, prototxt, model, words expected in the error line)
        ("good input converts", "good.prototxt", "good.caffemodel", None),
        ("missing prototxt", "nothere.prototxt", "good.caffemodel", ["cannot open", "nothere.prototxt"]),
        ("garbage prototxt", write("garbage.prototxt", "layer { name: \"x\" type: }}}"), "good.caffemodel", ["prototxt", "line 1"]),
        ("binary as prototxt", "good.caffemodel", "good.caffemodel", ["prototxt"]),
        ("truncated caffemodel", "good.prototxt", write("trunc.caffemodel", good_model[:len(good_model) // 2]), ["caffemodel", "truncated"]),
        ("empty caffemodel", "good.prototxt", write("empty.caffemodel", b""), ["empty"]),
        ("text as caffemodel", "good.prototxt", "good.prototxt", ["caffemodel"]),
        ("wrong blob size", "good.prototxt", "wrong.caffemodel", ["conv", "weight blob"]),
        ("missing weights", write("other.prototxt", GOOD.replace('"conv"', '"conv2"')), "good.caffemodel", ["conv2", "missing"]),
        ("unsupported ops listed at once", write("unsup.prototxt", UNSUPPORTED), "good.caffemodel",
         ["unsupported ops (3 types, 4 nodes)", "WeirdOp x2 (first node 'w1')", "Python x1 (first node 'p')", "Pooling x1 (first node 'pool': pool STOCHASTIC)"]),
        ("bad kernel", write("badk.prototxt", GOOD.replace("kernel_size: 3", "kernel_size: 0")), "good.caffemodel", ["conv", "kernel"]),
        ("undefined bottom", write("undef.prototxt", GOOD.replace('bottom: "conv" top: "conv"', 'bottom: "nope" top: "conv"')),
         "good.caffemodel", ["nope"]),
        ("bad input dims", write("baddim.prototxt", GOOD.replace("dim: 5 dim: 5", "dim: -5 dim: 5")), "good.caffemodel", ["dimension"]),
    ]
    failed = 0
    for name, proto, model, words in cases:
        outp, outb = w("out.param"), w("out.bin")
        for f in (outp, outb):
            if os.path.exists(f):
                os.remove(f)
        r = subprocess.run([args.caffe2kite, w(proto), w(model), outp, outb], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        err = r.stderr.strip()
        if words is None:
            ok = r.returncode == 0 and os.path.exists(outp) and os.path.exists(outb)
        else:
            ok = (r.returncode == 1 and all(x in err for x in words) and not os.path.exists(outp)
                  and not os.path.exists(outb) and "error" in err)
            # one line, except the unsupported-op list (one line per op type)
            ok = ok and (len(err.splitlines()) == 1 or "unsupported" in err)
        print("%s %s: exit %d: %s" % ("ok  " if ok else "FAIL", name, r.returncode, err.replace("\n", " | ")))
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
