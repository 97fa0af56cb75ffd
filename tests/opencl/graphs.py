#!/usr/bin/env python3
"""Every shared ncnn graph end to end on an OpenCL device against the CPU.

usage: graphs.py KITERUN SHARED_DIR [--fp16 | --half] [--only a,b] [--skip a,b] [--device N]

Runs kiterun with random weights (seed 1) on the CPU and with device=opencl,
then checks
  - the 'backends:' line: only Input and detection post-processing
    (DetectionOutput, Yolov3DetectionOutput, YoloDetectionOutput) on the CPU
  - every output, the blobs feeding the detection layers and the first input
    of the last layer as dense tensors: fp32 max |a - b| <= 1e-3 of the CPU
    output's range; --fp16 (fp16 storage, float arithmetic) and --half (fp16
    storage and half arithmetic, kiterun fp16=2): cosine similarity >= 0.999
  - detection lists by matching boxes (tests/graph_compare.py: same label,
    IoU >= 0.9, score within 1e-3 (fp32) / 1e-2 (fp16); an unmatched box only
    where its score is within that margin of the confidence threshold or
    where NMS may have removed it on the other side)
--half exits 77 when the device has no cl_khr_fp16 (kiterun reports float
arithmetic). Exits 77 (ctest skip) when kiterun finds no OpenCL device.
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import graph_compare  # noqa: E402

CPU_ALLOWED = {"Input", "DetectionOutput", "Yolov3DetectionOutput", "YoloDetectionOutput"}


def run(kiterun, param, shape_arg, device, out_dir, fp16, outputs):
    cmd = [kiterun, param, "random", shape_arg, "device=" + device, "seed=1", "save=" + out_dir]
    cmd += ["output=" + o for o in outputs]
    if fp16:
        cmd.append("fp16=%d" % fp16)
    env = dict(os.environ)
    if fp16 == 2:
        env["KITE_OPENCL_VERBOSE"] = "1"  # says which arithmetic the session uses
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1200, env=env)
    return p.returncode, p.stdout


def main():
    args = sys.argv[1:]
    fp16 = 2 if "--half" in args else 1 if "--fp16" in args else 0
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
        layers = graph_compare.parse_layers(param)
        types = {}
        for typ, _, _, _, _ in layers:
            types[typ] = types.get(typ, 0) + 1
        input_blob, outputs, detections = graph_compare.compared_blobs(layers)
        saved = {}
        for b in outputs:
            saved[b.replace("/", "_") + ".npy"] = b
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
            if fp16 == 2 and "OpenCL half arithmetic" not in out:
                if "OpenCL float arithmetic" in out:
                    print("the OpenCL device has no cl_khr_fp16: half arithmetic not tested")
                    return 77
                failures.append("%s: kiterun did not report the arithmetic (KITE_OPENCL_VERBOSE):\n%s" % (name, out))
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
                a = np.load(os.path.join(dcl, fn))
                b = np.load(os.path.join(dcpu, fn))
                ok, desc = graph_compare.compare_blob(saved.get(fn, fn), a, b, fp16, detections)
                print("%-20s %-28s opencl=%d cpu=%d %s %s" % (name, fn, ncl, ncpu, desc, "ok" if ok else "MISMATCH"))
                if not ok:
                    status.append("%s: %s" % (fn, desc))
            if status:
                failures.append("%s: %s" % (name, "; ".join(status)))
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
