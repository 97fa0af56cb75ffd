#!/usr/bin/env python3
"""int8 layers under fp16 storage on a GPU backend against the CPU.

  python3 tests/gpu_int8_fp16.py --kiterun build/tools/kiterun --backend vulkan|opencl

A small graph, Input -> int8 Convolution 3x3 (requantized: an int8 blob)
-> int8 ConvolutionDepthWise 3x3 (requantized) -> int8 Convolutions 1x1 and
3x3 (dequantized: float) -> Concat -> max Pooling -> int8 Convolution 1x1
(requantized; squeezenet_ssd_int8's fire modules), runs with random weights on the CPU and on the backend
at fp32, fp16 storage (fp16=1) and fp16 arithmetic (fp16=2), for a few seeds
and odd input shapes. fp16 storage must change only the float parts of the
graph: the network input feeds an int8 layer, so it is quantized from fp32
(kite uploads it quantized on the host), and the three int8 blobs must
equal the CPU's exactly: the float outputs of int8 layers stay fp32 on the
device (OpenCL: float images; Vulkan: VkBlob::f32 blobs, through Concat and
Pooling), so the last layer quantizes fp32 values (rounded to fp16 first, a
few values of c moved by one step); the float output within fp16 rounding
(cosine >= 0.99999).
The outputs compared are the second forward's, a replay of the recording.
Before that fix the input was rounded to fp16 first and about 1% of the
first layer's int8 values moved by one step (cosine 0.996 after 27 layers of
mobilenet_int8). Exits 77 (ctest skip) when kiterun finds no device of the
backend.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

PARAM = """7767517
9 10
Input            data   0 1 data 0=%(w)d 1=%(h)d 2=3
Convolution      conv1  1 1 data a 0=16 1=3 4=1 5=1 6=432 8=102 9=1
ConvolutionDepthWise dw 1 1 a b 0=16 1=3 4=1 5=1 6=144 7=16 8=101 9=1
Split            sp     1 2 b b0 b1
Convolution      conv2  1 1 b0 out 0=24 1=1 5=1 6=384 8=2
Convolution      conv2b 1 1 b1 out2 0=8 1=3 4=1 5=1 6=1152 8=2 9=1
Concat           cat    2 1 out out2 cat
Pooling          pool   1 1 cat p 0=0 1=3 2=2
Convolution      conv3  1 1 p c 0=8 1=1 5=1 6=256 8=102
"""


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiterun", required=True)
    ap.add_argument("--backend", required=True, choices=["vulkan", "opencl"])
    a = ap.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for w, h, seed in ((37, 29, 1), (64, 48, 2), (23, 61, 3)):
            param = os.path.join(tmp, "g.param")
            with open(param, "w") as f:
                f.write(PARAM % {"w": w, "h": h})
            base = [a.kiterun, param, "random", "seed=%d" % seed, "output=a", "output=b", "output=out", "output=c"]
            rc, out = run(base + ["save=" + tmp + "/cpu"])
            if rc != 0:
                print("CPU run failed:\n" + out)
                return 1
            for fp16 in (0, 1, 2):
                d = "%s/gpu%d" % (tmp, fp16)
                rc, out = run(base + ["device=%s:0" % a.backend, "fp16=%d" % fp16, "placement=1", "loop=2", "save=" + d])
                if rc != 0:
                    print("%s run failed:\n%s" % (a.backend, out))
                    return 1
                if "running on the CPU" in out:
                    print("no %s device: skipped" % a.backend)
                    return 77
                on_cpu = [l for l in out.splitlines() if l.startswith("placement") and " cpu" in l and "Input" not in l]
                msg = []
                # c: conv3 quantizes the pooled concat of two int8 layers'
                # float outputs, kept fp32 on the device
                for blob in ("a", "b", "c"):
                    c = np.load("%s/cpu/%s.npy" % (tmp, blob))
                    g = np.load("%s/%s.npy" % (d, blob))
                    n = int(np.sum(c != g))
                    if n:
                        msg.append("int8 blob %s: %d of %d values differ (max %g)" % (blob, n, c.size, np.abs(c - g).max()))
                c = np.load(tmp + "/cpu/out.npy").ravel().astype(np.float64)
                g = np.load(d + "/out.npy").ravel().astype(np.float64)
                cos = float(np.dot(c, g) / (np.linalg.norm(c) * np.linalg.norm(g) + 1e-30))
                rel = float(np.abs(c - g).max() / (c.max() - c.min() + 1e-30))
                if (fp16 == 0 and rel > 1e-5) or cos < 0.99999:
                    msg.append("output: cosine %.7f, max diff %.3g of range" % (cos, rel))
                if "(last run: replayed)" not in out:
                    msg.append("the second forward did not replay the recording (its upload quantizes again)")
                if "Vulkan validation" in out:
                    msg.append("validation layer messages")
                if on_cpu:
                    msg.append("layers on the CPU: %s" % on_cpu)
                print("%s fp16=%d [%d,%d,3] seed %d: cosine %.7f %s" % (a.backend, fp16, w, h, seed, cos,
                                                                     "FAIL: " + "; ".join(msg) if msg else "ok"))
                failures += bool(msg)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
