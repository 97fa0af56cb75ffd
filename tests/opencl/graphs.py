#!/usr/bin/env python3
"""Every shared ncnn graph end to end on an OpenCL device against the CPU.

usage: graphs.py KITERUN SHARED_DIR [--fp16] [--only a,b] [--skip a,b] [--device N]

Runs kiterun with random weights (seed 1) on the CPU and with device=opencl,
then checks
  - the 'backends:' line: only Input and detection post-processing
    (DetectionOutput, Yolov3DetectionOutput, YoloDetectionOutput) on the CPU
  - every output and the first input of the last layer: fp32 max |a - b| <=
    1e-3 of the CPU output's range;
    --fp16 (fp16 storage): cosine similarity >= 0.999
Exits 77 (ctest skip) when kiterun finds no OpenCL device.
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

CPU_ALLOWED = {"Input", "DetectionOutput", "Yolov3DetectionOutput", "YoloDetectionOutput"}


def run(kiterun, param, shape_arg, device, out_dir, fp16, outputs):
    cmd = [kiterun, param, "random", shape_arg, "device=" + device, "seed=1", "save=" + out_dir]
    cmd += ["output=" + o for o in outputs]
    if fp16:
        cmd.append("fp16=1")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1200)
    return p.returncode, p.stdout


def main():
    args = sys.argv[1:]
    fp16 = "--fp16" in args
    only = skip = None
    device = "opencl"
    for i, a in enumerate(args):
        if a == "--device":
            device = "opencl:" + args[i + 1]
        if a == "--only":
            only = set(args[i + 1].split(","))
        if a == "--skip":
            skip = set(args[i + 1].split(","))
    kiterun, shared = args[0], args[1]
    models = os.path.join(shared, "models", "ncnn")
    shapes = {}
    with open(os.path.join(models, "shapes.txt")) as f:
        for line in f:
            m = re.match(r"(\S+)\s+\[(\d+),(\d+),(\d+)\]", line)
            if m:
                shapes[m.group(1)] = [int(m.group(i)) for i in (2, 3, 4)]
    failures = []
    for name, (w, h, c) in sorted(shapes.items()):
        if (only and name not in only) or (skip and name in skip):
            continue
        param = os.path.join(models, name + ".param")
        types = {}
        input_blob = None
        produced, consumed, last = [], set(), None
        with open(param) as f:
            for line in f.readlines()[2:]:
                t = line.split()
                if len(t) < 4:
                    continue
                types[t[0]] = types.get(t[0], 0) + 1
                if t[0] == "Input" and input_blob is None:
                    input_blob = t[4]
                nb, nt = int(t[2]), int(t[3])
                consumed.update(t[4:4 + nb])
                produced += t[4 + nb:4 + nb + nt]
                last = t
        # the graph's outputs and the first input of its last layer (a final
        # Softmax over one element, as vision_transformer's, says nothing)
        outputs = [b for b in produced if b not in consumed]
        if int(last[2]) > 0 and last[4] not in outputs and last[4] != input_blob:
            outputs.append(last[4])
        allowed = sum(n for t, n in types.items() if t in CPU_ALLOWED)
        shape_arg = "shape=%s:[%d,%d,%d]" % (input_blob, w, h, c)
        with tempfile.TemporaryDirectory() as tmp:
            dcpu, dcl = os.path.join(tmp, "cpu"), os.path.join(tmp, "cl")
            rc, out = run(kiterun, param, shape_arg, "cpu", dcpu, False, outputs)
            if rc != 0:
                failures.append("%s: CPU run failed:\n%s" % (name, out))
                continue
            rc, out = run(kiterun, param, shape_arg, device, dcl, fp16, outputs)
            if rc != 0:
                failures.append("%s: OpenCL run failed:\n%s" % (name, out))
                continue
            m = re.search(r"backends: opencl=(\d+) cpu=(\d+)", out)
            if not m:
                if "running on the CPU" in out:
                    print("no OpenCL device: skipped")
                    return 77
                failures.append("%s: no 'backends: opencl=N cpu=M' line:\n%s" % (name, out))
                continue
            ncl, ncpu = int(m.group(1)), int(m.group(2))
            status = []
            if ncpu > allowed:
                status.append("%d layers on the CPU, only %d allowed" % (ncpu, allowed))
            for fn in sorted(os.listdir(dcpu)):
                a = np.load(os.path.join(dcl, fn)).astype(np.float64).ravel()
                b = np.load(os.path.join(dcpu, fn)).astype(np.float64).ravel()
                if a.shape != b.shape:
                    status.append("%s: shape %s vs %s" % (fn, a.shape, b.shape))
                    continue
                if b.size == 0:
                    continue
                rng = float(b.max() - b.min()) or max(1.0, float(np.abs(b).max()))
                diff = float(np.abs(a - b).max())
                cos = float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30))
                if np.linalg.norm(a) == 0 and np.linalg.norm(b) == 0:
                    cos = 1.0
                ok = cos >= 0.999 if fp16 else diff <= 1e-3 * rng
                print("%-20s %-28s opencl=%d cpu=%d max|diff|=%.3g (%.2g of range) cosine=%.6f %s" % (
                    name, fn, ncl, ncpu, diff, diff / rng, cos, "ok" if ok else "MISMATCH"))
                if not ok:
                    status.append("%s: max diff %.3g (range %.3g), cosine %.6f" % (fn, diff, rng, cos))
            if status:
                failures.append("%s: %s" % (name, "; ".join(status)))
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
