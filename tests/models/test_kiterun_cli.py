#!/usr/bin/env python3
"""kiterun's command line: inputs, shapes, outputs, save/writebin round trips,
and errors (non-zero exit with one line on stderr, never a crash).

  python3 tests/models/test_kiterun_cli.py --kiterun build/tools/kiterun
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

GRAPH = """7767517
4 5
Input in0 0 1 in0 0=5 1=4 2=3
ReLU relu 1 1 in0 r0 0=0.5
Split sp 1 2 r0 a/x b
ReLU relu2 1 1 b c
"""

TWO_INPUTS = """7767517
3 3
Input in0 0 1 in0
Input in1 0 1 in1
Eltwise add 2 1 in0 in1 sum 0=1
"""



def residual_stack(blocks, ch):
    """blocks of x + conv(relu(conv(x))) and, every other one, of
    conv(x) + conv(relu(conv(x))) (a projection shortcut)"""
    lines = ["Input in0 0 1 x0"]
    for i in range(blocks):
        x, y = "x%d" % i, "x%d" % (i + 1)
        lines.append("Split s%d 1 2 %s t%d u%d" % (i, x, i, i))
        lines.append("Convolution c%d 1 1 u%d v%d 0=%d 1=1 5=1 6=%d 9=1" % (i, i, i, ch, ch * ch))
        lines.append("Convolution d%d 1 1 v%d w%d 0=%d 1=1 5=1 6=%d" % (i, i, i, ch, ch * ch))
        short = "t%d" % i
        if i % 2:
            lines.append("Convolution p%d 1 1 t%d q%d 0=%d 1=1 5=1 6=%d" % (i, i, i, ch, ch * ch))
            short = "q%d" % i
        lines.append("Eltwise e%d 2 1 %s w%d %s 0=1" % (i, short, i, y))
    return "7767517\n%d %d\n%s\n" % (len(lines), len(lines) * 2, "\n".join(lines))


failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL  " + what)
    else:
        print("ok    " + what)


def run(exe, *args):
    p = subprocess.run([exe] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def expect_error(exe, what, *args):
    rc, out, err = run(exe, *args)
    lines = [l for l in err.splitlines() if l.strip() and not l.startswith("kite: warning")]
    check(rc > 0 and len(lines) == 1 and lines[0].startswith("kiterun: "),
          "%s -> exit %d, stderr %r" % (what, rc, err.strip()[:200]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiterun", required=True)
    exe = os.path.abspath(ap.parse_args().kiterun)
    tmp = tempfile.mkdtemp(prefix="kite_cli_")
    try:
        g = os.path.join(tmp, "g.param")
        open(g, "w").write(GRAPH)
        g2 = os.path.join(tmp, "g2.param")
        open(g2, "w").write(TWO_INPUTS)

        # random input from the Input params, default outputs, save with '/' -> '_'
        rc, out, err = run(exe, g, "random", "seed=5", "save=" + os.path.join(tmp, "o1"))
        check(rc == 0, "runs a ReLU/Split graph (%s)" % err.strip())
        check("output a/x: shape [5,4,3]" in out and "output c: shape [5,4,3]" in out, "prints output shapes")
        check("backends: cpu=4" in out, "prints layers per backend")
        a = np.load(os.path.join(tmp, "o1", "a_x.npy"))
        c = np.load(os.path.join(tmp, "o1", "c.npy"))
        check(a.shape == (3, 4, 5) and a.dtype == np.float32, "saves (c,h,w) float32 npy")
        check(a.min() >= -0.5 and a.max() < 1.0 and a.min() < 0 and np.array_equal(c, np.maximum(a, 0)),
              "outputs are leaky-relu (and relu) of U(-1,1) inputs")

        # the same seed gives the same input; another seed another
        rc, out2, _ = run(exe, g, "random", "seed=5")
        rc, out3, _ = run(exe, g, "random", "seed=6")
        line = lambda o: [l for l in o.splitlines() if l.startswith("output c")][0]
        check(line(out) == line(out2) and line(out) != line(out3), "inputs depend on the seed only")

        # input= from npy (of another shape than the declared one: shapecheck=0), output= selects
        x = (np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4) - 10) / 4
        xf = os.path.join(tmp, "x.npy")
        np.save(xf, x)
        rc, out, err = run(exe, g, "random", "input=in0:" + xf, "shapecheck=0", "output=c", "save=" + os.path.join(tmp, "o2"))
        check(rc == 0 and "output a/x" not in out, "output= selects blobs (%s)" % err.strip())
        c = np.load(os.path.join(tmp, "o2", "c.npy"))
        check(np.allclose(c, np.maximum(x, 0)), "input= feeds the npy values")

        # shape= named and unnamed, several inputs, 1-d and 4-d
        rc, out, err = run(exe, g2, "random", "shape=in0:[7]", "shape=in1:[7]", "save=" + os.path.join(tmp, "o3"))
        check(rc == 0 and np.load(os.path.join(tmp, "o3", "sum.npy")).shape == (7,), "named shapes, 1-d (%s)" % err.strip())
        rc, out, err = run(exe, g2, "random", "shape=[2,3,4,5]", "save=" + os.path.join(tmp, "o4"))
        check(rc == 0 and np.load(os.path.join(tmp, "o4", "sum.npy")).shape == (5, 4, 3, 2), "unnamed shape for all inputs, 4-d (%s)" % err.strip())

        # writebin of a weightless graph, loop, threads, device notice
        wb = os.path.join(tmp, "w.bin")
        rc, out, err = run(exe, g, "random", "writebin=" + wb, "loop=3", "threads=2", "device=vulkan")
        check(rc == 0 and os.path.getsize(wb) == 0 and "time: loops=3" in out, "writebin/loop/threads (%s)" % err.strip())
        check(sum(1 for l in out.splitlines() if "vulkan" in l.lower()) == 1, "one-line notice for an unbuilt backend")

        # random weights keep a deep residual stack at the input's scale: the
        # branches are scaled down (tools/common/random_modelbin.h); unscaled,
        # every sum doubles the variance (12 blocks: std x64)
        rs = os.path.join(tmp, "res.param")
        open(rs, "w").write(residual_stack(12, 16))
        rc, out, err = run(exe, rs, "random", "seed=3", "shape=[8,8,16]", "save=" + os.path.join(tmp, "o5"))
        ratio = float(np.load(os.path.join(tmp, "o5", "x12.npy")).std()) / np.sqrt(1 / 3.0) if rc == 0 else float("nan")
        check(rc == 0 and 0.3 < ratio < 3, "residual stack of random weights: output std / input std = %.3g (%s)" % (ratio, err.strip()))

        # device=auto: timed on first use, then read back from the cache; the
        # outputs are the CPU's (within GPU tolerance) whichever device won
        cache = os.path.join(tmp, "devcache")
        rc, out_cpu, err = run(exe, rs, "random", "seed=3", "shape=[8,8,16]", "save=" + os.path.join(tmp, "o6"))
        rc1, out1, err1 = run(exe, rs, "random", "seed=3", "shape=[8,8,16]", "device=auto", "devicecache=" + cache,
                              "save=" + os.path.join(tmp, "o7"))
        rc2, out2, err2 = run(exe, rs, "random", "seed=3", "shape=[8,8,16]", "device=auto", "devicecache=" + cache)
        rc3, out3, err3 = run(exe, rs, "random", "seed=3", "shape=[10,6,16]", "device=auto", "devicecache=" + cache)
        check(rc1 == 0 and "device=auto: " in err1 and " ms" in err1 and "cached" not in err1, "device=auto times the backends (%s)" % err1.strip())
        check(rc2 == 0 and "cached in " + cache in err2, "device=auto reads its choice back (%s)" % err2.strip())
        check(rc3 == 0 and "cached" not in err3, "another input shape is timed again (%s)" % err3.strip())
        if rc == 0 and rc1 == 0:
            a6, a7 = np.load(os.path.join(tmp, "o6", "x12.npy")), np.load(os.path.join(tmp, "o7", "x12.npy"))
            d = float(np.abs(a6 - a7).max()) / max(float(a6.max() - a6.min()), 1e-6)
            check(d <= 1e-3, "device=auto's output matches the CPU's (max diff / range %.2g)" % d)
        expect_error(exe, "device=auto with an index", g, "random", "device=auto:1")

        # errors
        expect_error(exe, "missing param", os.path.join(tmp, "nope.param"), "random")
        expect_error(exe, "missing bin", g, os.path.join(tmp, "nope.bin"))
        expect_error(exe, "unknown option", g, "random", "colour=red")
        expect_error(exe, "bad shape", g2, "random", "shape=in0:[3,x]")
        expect_error(exe, "shape for a non-input blob", g, "random", "shape=c:[3]")
        expect_error(exe, "no shape for an input", g2, "random")
        expect_error(exe, "unknown output", g, "random", "output=zz")
        expect_error(exe, "missing npy", g, "random", "input=in0:" + os.path.join(tmp, "none.npy"))
        bad = os.path.join(tmp, "bad.npy")
        open(bad, "wb").write(b"\x93NUMPY\x01\x00\x10\x00{'descr': '<c8'")
        expect_error(exe, "corrupt npy", g, "random", "input=in0:" + bad)
        badp = os.path.join(tmp, "bad.param")
        open(badp, "w").write("7767517\n2 2\nInput in0 0 1 in0\nNoSuchLayer x 1 1 in0 y\n")
        expect_error(exe, "unknown layer type", badp, "random")
        mism = os.path.join(tmp, "mism.param")
        open(mism, "w").write("7767517\n3 3\nInput in0 0 1 in0\nInput in1 0 1 in1\nEltwise add 2 1 in0 in1 sum 0=1\n")
        expect_error(exe, "mismatched input shapes", mism, "random", "shape=in0:[3]", "shape=in1:[4,5]")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
