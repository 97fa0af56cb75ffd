#!/usr/bin/env python3
"""Shared graphs on Vulkan against the CPU, with random weights.

  python3 tests/vulkan/run_vulkan_graphs.py --kiterun build/tools/kiterun \
      [--shared-dir DIR] [--model NAME[:w,h,c]]... [--device N] [--fp16 0|1|2]

For each graph (default: every graph of shapes.txt at its listed shape; a
model given as NAME:w,h,c runs at that input shape): kiterun with the same
random weights (seed 1) on the CPU and with device=vulkan:N; every output must
match within 1e-3 of the CPU output's range (max abs diff) and cosine >= 0.999,
the run must not print a validation-layer error, and the `backends:` line must
show on the CPU only Input, MemoryData-free detection post-processing
(DetectionOutput, Yolov3DetectionOutput, YoloDetectionOutput) and the types
listed in --allow-cpu (what has no Vulkan driver yet). Exit 0 if all pass.

--fp16 1 runs the Vulkan side with fp16 storage (kiterun fp16=1), --fp16 2
with fp16 storage and arithmetic (fp16=2), against the fp32 CPU run: every
output must then have cosine >= 0.999 (max|diff| is printed, not checked:
fp16 rounding of every blob moves outputs by more than 1e-3 of the range);
a graph ending in a detection layer is compared on that layer's inputs,
since its thresholds turn small differences into other boxes.
"""

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

CPU_OK = {"Input", "DetectionOutput", "Yolov3DetectionOutput", "YoloDetectionOutput"}


def read_shapes(path):
    shapes = {}
    with open(path) as f:
        for line in f:
            t = line.split(None, 1)
            if len(t) == 2:
                shapes[t[0]] = t[1].strip().replace(" ", "").strip("[]")
    return shapes


def layer_types(param):
    with open(param) as f:
        lines = [l.split() for l in f if l.strip()][2:]
    return [t[0] for t in lines], [t[4 + int(t[2])] for t in lines if t[0] == "Input"]


def detection_inputs(param):
    """The input blobs of a graph's final detection layer (thresholds and NMS
    turn fp16 rounding into a different number of boxes), or []."""
    with open(param) as f:
        t = [l.split() for l in f if l.strip()][-1]
    if t[0] not in CPU_OK or t[0] == "Input":
        return []
    return t[4:4 + int(t[2])]


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    return p.returncode, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiterun", required=True)
    ap.add_argument("--shared-dir", default=os.environ.get("KITE_SHARED_DIR", ""))
    ap.add_argument("--model", action="append", default=[])
    ap.add_argument("--device", default="0")
    ap.add_argument("--fp16", type=int, default=0, choices=[0, 1, 2], help="Vulkan with fp16 storage (1) and arithmetic (2)")
    ap.add_argument("--allow-cpu", default="", help="comma-separated layer types that may still run on the CPU")
    a = ap.parse_args()
    ncnn_dir = os.path.join(a.shared_dir, "models", "ncnn")
    shapes = read_shapes(os.path.join(ncnn_dir, "shapes.txt"))
    models = a.model or sorted(shapes)
    allow = CPU_OK | set(t for t in a.allow_cpu.split(",") if t)
    failures = []
    for m in models:
        name, _, shape = m.partition(":")
        shape = shape or shapes[name]
        param = os.path.join(ncnn_dir, name + ".param")
        types, inputs = layer_types(param)
        allowed_cpu = sum(1 for t in types if t in allow)
        with tempfile.TemporaryDirectory() as tmp:
            args = [a.kiterun, param, "random", "shape=%s:[%s]" % (inputs[0], shape), "seed=1"]
            if a.fp16:
                # compare what goes into the detection layer, not its box list
                args += ["output=" + o for o in detection_inputs(param)]
            rc, out_cpu = run(args + ["save=" + tmp + "/cpu"])
            if rc != 0:
                failures.append("%s: CPU run failed:\n%s" % (name, out_cpu[-2000:]))
                continue
            rc, out_vk = run(args + ["device=vulkan:" + a.device, "fp16=%d" % a.fp16, "save=" + tmp + "/vk"])
            problems = []
            if rc != 0:
                problems.append("Vulkan run failed (%d):\n%s" % (rc, out_vk[-2000:]))
            if "Vulkan validation" in out_vk:
                problems.append("validation layer messages:\n" + "\n".join(l for l in out_vk.splitlines() if "validation" in l)[:3000])
            mm = re.search(r"backends: vulkan=(\d+) cpu=(\d+)", out_vk)
            if not mm:
                problems.append("no 'backends: vulkan=N cpu=M' line (no Vulkan device?):\n" + out_vk[-1000:])
            else:
                nvk, ncpu = int(mm.group(1)), int(mm.group(2))
                print("%s [%s]%s: backends: vulkan=%d cpu=%d (allowed on the CPU: %d)" % (name, shape, " fp16=%d" % a.fp16 if a.fp16 else "", nvk, ncpu, allowed_cpu))
                if ncpu > allowed_cpu:
                    problems.append("%d layers ran on the CPU, only %d may (%s)" % (ncpu, allowed_cpu, ", ".join(sorted(allow))))
            for f in sorted(glob.glob(tmp + "/cpu/*.npy")):
                g = tmp + "/vk/" + os.path.basename(f)
                if not os.path.exists(g):
                    problems.append("output %s missing on Vulkan" % os.path.basename(f))
                    continue
                x = np.load(f).astype(np.float64).ravel()
                y = np.load(g).astype(np.float64).ravel()
                if x.shape != y.shape:
                    problems.append("output %s: shape %s vs %s" % (os.path.basename(f), x.shape, y.shape))
                    continue
                if x.size == 0:
                    continue
                rng = max(float(x.max() - x.min()), 1e-12)
                diff = float(np.abs(x - y).max())
                nx, ny = np.linalg.norm(x), np.linalg.norm(y)
                cos = float(np.dot(x, y) / (nx * ny)) if nx > 0 and ny > 0 else (1.0 if nx == ny else 0.0)
                print("  %s: max|diff| %.3g = %.3g of range, cosine %.6f" % (os.path.basename(f), diff, diff / rng, cos))
                if not np.all(np.isfinite(y)) or (a.fp16 == 0 and diff > 1e-3 * rng) or cos < 0.999:
                    problems.append("output %s differs from the CPU: max|diff| %.3g (range %.3g), cosine %.6f" % (os.path.basename(f), diff, rng, cos))
            if problems:
                failures.append("%s: %s" % (name, "\n  ".join(problems)))
    for f in failures:
        print("FAIL", f)
    print("%d of %d graphs passed" % (len(models) - len(failures), len(models)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
