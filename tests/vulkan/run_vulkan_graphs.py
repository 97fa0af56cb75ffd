#!/usr/bin/env python3
"""Shared graphs on Vulkan against the CPU, with random weights.

  python3 tests/vulkan/run_vulkan_graphs.py --kiterun build/tools/kiterun \
      [--shared-dir DIR] [--model NAME[:w,h,c]]... [--device N] [--fp16 0|1|2]

For each graph (default: every graph of shapes.txt at its listed shape; a
model given as NAME:w,h,c runs at that input shape): kiterun with the same
random weights (seed 1) on the CPU and with device=vulkan:N; the graph's
outputs, the blobs feeding its detection layers and its last layer's first
input are compared by tests/graph_compare.py's rules (shared with the OpenCL
graph check): dense tensors within 1e-3 of the CPU tensor's range (fp32) or
with cosine >= 0.999 (--fp16 1: fp16 storage, kiterun fp16=1; --fp16 2: also
fp16 arithmetic), detection lists by matching boxes. The run must not print a
validation-layer error, and the `backends:` line must show on the CPU only
Input, the detection post-processing layers (DetectionOutput,
Yolov3DetectionOutput, YoloDetectionOutput) and the types listed in
--allow-cpu (what has no Vulkan driver yet). Exit 0 if all pass.
"""

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import graph_compare  # noqa: E402

CPU_OK = {"Input", "DetectionOutput", "Yolov3DetectionOutput", "YoloDetectionOutput"}


def read_shapes(path):
    shapes = {}
    with open(path) as f:
        for line in f:
            t = line.split(None, 1)
            if len(t) == 2:
                shapes[t[0]] = t[1].strip().replace(" ", "").strip("[]")
    return shapes


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
        layers = graph_compare.parse_layers(param)
        allowed_cpu = sum(1 for t in layers if t[0] in allow)
        input_blob, outputs, detections = graph_compare.compared_blobs(layers)
        saved = dict((o.replace("/", "_") + ".npy", o) for o in outputs)
        with tempfile.TemporaryDirectory() as tmp:
            args = [a.kiterun, param, "random", "shape=%s:[%s]" % (input_blob, shape), "seed=1"]
            args += ["output=" + o for o in outputs]
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
                ok, desc = graph_compare.compare_blob(saved.get(os.path.basename(f), ""), np.load(g), np.load(f), a.fp16, detections)
                print("  %s: %s%s" % (os.path.basename(f), desc, "" if ok else " MISMATCH"))
                if not ok:
                    problems.append("output %s differs from the CPU: %s" % (os.path.basename(f), desc))
            if problems:
                failures.append("%s: %s" % (name, "\n  ".join(problems)))
    for f in failures:
        print("FAIL", f)
    print("%d of %d graphs passed" % (len(models) - len(failures), len(models)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
