#!/usr/bin/env python3
"""Vulkan's int8 dot-product shaders against their portable variants and the CPU.

  python3 tests/gpu_int8_dot.py --kiterun build/tools/kiterun

A small int8 graph with odd shapes, Input -> Convolution 3x3 (21 outputs,
requantized: an int8 blob) -> Convolution 3x3 stride 2 (dequantized, ReLU)
-> grouped ConvolutionDepthWise 3x3 (2 groups of 32 outputs: the grouped
GEMM; requantized) -> InnerProduct (int8), runs with random weights on the
CPU with 1 and 2 threads and on Vulkan with KITE_VULKAN_INT8_DOT=1 (the
packed integer dot product, int8conv_gemm_dot4 / int8gemv_dot4) and =0 (the
portable shaders), fp32. Every output must equal the CPU's exactly (int8
sums are exact and the epilogue is the CPU's), and the placement report
must name the path that ran: int8-dot4 with =1 where the device has the
dot product (else the script says it went untested), int8-gemm / int8-gemv
with =0. Exits 77 (ctest skip) when kiterun finds no Vulkan device.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

PARAM = """7767517
5 5
Input                data  0 1 data 0=%(w)d 1=%(h)d 2=3
Convolution          conv1 1 1 data a 0=21 1=3 4=1 5=1 6=567 8=102
Convolution          conv2 1 1 a b 0=40 1=3 3=2 4=1 5=1 6=7560 8=2 9=1
ConvolutionDepthWise dw    1 1 b c 0=64 1=3 4=1 5=1 6=11520 7=2 8=102
InnerProduct         fc    1 1 c fc 0=13 1=1 2=%(fcw)d 8=1
"""
BLOBS = ("a", "b", "c", "fc")
PATHS = {"1": {"conv1": "int8-dot4", "conv2": "int8-dot4", "dw": "int8-dot4", "fc": "int8-dot4"},
         "0": {"conv1": "int8-gemm", "conv2": "int8-gemm", "dw": "int8-gemm", "fc": "int8-gemv"}}


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    return p.returncode, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiterun", required=True)
    a = ap.parse_args()
    failures = 0
    dot_seen = False
    with tempfile.TemporaryDirectory() as tmp:
        for w, h, seed in ((37, 29, 1), (23, 61, 2)):
            w2, h2 = (w - 1) // 2 + 1, (h - 1) // 2 + 1
            param = os.path.join(tmp, "g.param")
            with open(param, "w") as f:
                f.write(PARAM % {"w": w, "h": h, "fcw": 13 * 64 * w2 * h2})
            base = [a.kiterun, param, "random", "seed=%d" % seed] + ["output=" + b for b in BLOBS]
            ref = None
            for threads in (1, 2):
                d = "%s/cpu%d" % (tmp, threads)
                rc, out = run(base + ["threads=%d" % threads, "save=" + d])
                if rc != 0:
                    print("CPU run (threads=%d) failed:\n%s" % (threads, out))
                    return 1
                outs = {b: np.load("%s/%s.npy" % (d, b)) for b in BLOBS}
                if ref is None:
                    ref = outs
                    continue
                for b in BLOBS:
                    if not np.array_equal(ref[b], outs[b]):
                        print("CPU threads=2 differs from threads=1 in %s (seed %d)" % (b, seed))
                        failures += 1
            for dot in ("1", "0"):
                d = "%s/vk%s" % (tmp, dot)
                env = dict(os.environ, KITE_VULKAN_INT8_DOT=dot)
                rc, out = run(base + ["device=vulkan:0", "placement=1", "loop=2", "save=" + d], env)
                if rc != 0:
                    print("Vulkan run failed:\n" + out)
                    return 1
                if "running on the CPU" in out:
                    print("no Vulkan device: skipped")
                    return 77
                msg = []
                paths = {}
                for line in out.splitlines():
                    f = line.split()
                    if f and f[0] == "placement" and len(f) >= 5:
                        paths[f[3]] = (f[4], f[5] if len(f) > 5 else "")
                want = PATHS[dot]
                if dot == "1" and all(paths.get(n, ("", ""))[1] == PATHS["0"][n] for n in want):
                    print("KITE_VULKAN_INT8_DOT=1: the device has no integer dot product; int8-dot4 untested")
                    want = PATHS["0"]
                elif dot == "1":
                    dot_seen = True
                for n, p in want.items():
                    got = paths.get(n, ("-", ""))
                    if got != ("vulkan", p):
                        msg.append("layer %s ran on %s path '%s', expected vulkan %s" % (n, got[0], got[1], p))
                for b in BLOBS:
                    g = np.load("%s/%s.npy" % (d, b))
                    c = ref[b]
                    if g.shape != c.shape:
                        msg.append("%s: shape %s, CPU %s" % (b, g.shape, c.shape))
                        continue
                    n = int(np.sum(c != g))
                    if n:
                        msg.append("%s: %d of %d values differ from the CPU (max %g)" % (b, n, c.size, np.abs(c - g).max()))
                if "(last run: replayed)" not in out:
                    msg.append("the second forward did not replay the recording")
                if "Vulkan validation" in out:
                    msg.append("validation layer messages")
                print("vulkan KITE_VULKAN_INT8_DOT=%s [%d,%d,3] seed %d: %s" % (
                    dot, w, h, seed, "FAIL: " + "; ".join(msg) if msg else "ok (%s)" % ", ".join(
                        "%s %s" % (n, paths.get(n, ("-", "-"))[1]) for n in PATHS[dot])))
                failures += bool(msg)
    if not dot_seen:
        print("note: int8-dot4 did not run (no device with VK_KHR_shader_integer_dot_product)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
