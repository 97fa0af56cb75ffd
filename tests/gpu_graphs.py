#!/usr/bin/env python3
"""Shared ncnn graphs on a GPU backend (Vulkan or OpenCL) against the CPU.

  python3 tests/gpu_graphs.py --kiterun build/tools/kiterun --backend vulkan|opencl
      [--shared-dir DIR] [--shapes FILE] [--fp16 0|1|2[,..]] [--only a,b] [--skip a,b]
      [--load-only a,b] [--device N]
      [--onnx-dir DIR --onnx2kite EXE --work DIR --model NAME[@w,h,c]...]
      [--param FILE.param[@w,h,c]...]

With --onnx-dir, the architectures the onnx2kite tests build
(tests/convert/onnx/make_models.py, DIR/NAME.onnx) are converted into
--work and run instead of the shared graphs, with their converted weights
and at the given input shape (default the Input layer's); --param runs
models converted elsewhere (e.g. real torchvision exports, weights next to
the .param). Several --fp16 values (0,2) run the CPU once per graph.

Every graph of FILE (default ../shared/models/ncnn/shapes.txt; CI passes
tests/cross/shapes_emulated.txt, small input shapes) runs with the same
random weights (seed 1) on the CPU and on the backend with placement=1.
A graph fails when
  - a layer ran on the CPU (any cpu:* row in the placement report, including
    a GPU layer that fell back at run time) other than Input and detection
    post-processing (DetectionOutput, Yolov3DetectionOutput,
    YoloDetectionOutput): the allowed list of issue 17;
  - an output, a blob feeding a detection layer or the last layer's first
    input differs from the CPU's by tests/graph_compare.py's rules (fp32:
    max |diff| <= 1e-3 of the range; --fp16 1 fp16 storage, 2 also fp16
    arithmetic: cosine >= 0.999; detection lists by matching boxes);
  - the run fails, or (Vulkan, KITE_VULKAN_VALIDATION=1) the validation
    layer reports anything.
Graphs in --load-only (big fixed-size ones, too slow for the CPU
emulations of CI) are checked with placement=2 only: the rows chosen at
load, no forward and no comparison (a run-time fallback is not seen there).
Prints one line per graph and precision with the layers on the CPU and the
seconds it took. Exits 0 when all pass, 77 (ctest skip) when kiterun finds
no device of the backend or --onnx-dir holds none of the models, 1 otherwise.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import graph_compare  # noqa: E402

CPU_ALLOWED = {"Input", "DetectionOutput", "Yolov3DetectionOutput", "YoloDetectionOutput"}


def read_shapes(path):
    shapes = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"(\S+)\s+\[(\d+),\s*(\d+),\s*(\d+)\]", line)
            if m:
                shapes[m.group(1)] = "%s,%s,%s" % (m.group(2), m.group(3), m.group(4))
    return shapes


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def placement(out):
    """[(type, name, row)] of kiterun's placement lines"""
    rows = []
    for line in out.splitlines():
        t = line.split()
        if len(t) >= 5 and t[0] == "placement":
            rows.append((t[2], t[3], t[4]))
    return rows


def list_graphs(a):
    """([(name, param, weights, shape or None)], failures); None for nothing
    to run (a skip): the shared graphs (random weights), or the converted
    architectures of --onnx-dir / --param (their own weights)"""
    if not a.onnx_dir and not a.param:
        ncnn_dir = os.path.join(a.shared_dir, "models", "ncnn")
        shapes = read_shapes(a.shapes or os.path.join(ncnn_dir, "shapes.txt"))
        return [(n, os.path.join(ncnn_dir, n + ".param"), "random", shapes[n]) for n in sorted(shapes)], []
    graphs, failures = [], []
    for spec in a.param:
        param, _, shape = spec.partition("@")
        name = os.path.basename(param)[:-len(".param")]
        graphs.append((name, param, param[:-len(".param")] + ".bin", shape or None))
    if a.onnx_dir:
        if not a.onnx2kite or not a.work:
            sys.exit("--onnx-dir needs --onnx2kite and --work")
        models = [m.partition("@") for m in a.model]
        found = [(n, s) for n, _, s in models if os.path.exists(os.path.join(a.onnx_dir, n + ".onnx"))]
        if not found:
            print("SKIP: none of %s in %s (the onnx_models fixture makes them)" % (" ".join(n for n, _, _ in models), a.onnx_dir))
            return None, []
        os.makedirs(a.work, exist_ok=True)
        for name, shape in found:
            param, weights = os.path.join(a.work, name + ".param"), os.path.join(a.work, name + ".bin")
            rc, out = run([a.onnx2kite, os.path.join(a.onnx_dir, name + ".onnx"), param, weights])
            if rc != 0:
                failures.append("%s: onnx2kite failed:\n%s" % (name, out[-1000:]))
                continue
            graphs.append((name, param, weights, shape or None))
    return graphs, failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiterun", required=True)
    ap.add_argument("--backend", required=True, choices=["vulkan", "opencl"])
    ap.add_argument("--shared-dir", default=os.environ.get("KITE_SHARED_DIR", ""))
    ap.add_argument("--shapes", default="")
    ap.add_argument("--fp16", default="0", help="0, 1 or 2, or several: 0,2 (the CPU runs once)")
    ap.add_argument("--only", default="")
    ap.add_argument("--skip", default="")
    ap.add_argument("--load-only", default="")
    ap.add_argument("--device", default="0")
    ap.add_argument("--onnx-dir", help="run the architectures the onnx2kite tests build (DIR/NAME.onnx, --model) "
                    "instead of the shared graphs, converted by --onnx2kite into --work, with their converted weights")
    ap.add_argument("--onnx2kite")
    ap.add_argument("--work")
    ap.add_argument("--model", action="append", default=[], help="NAME[@w,h,c] (with --onnx-dir): the input shape "
                    "to run at (default the Input layer's)")
    ap.add_argument("--param", action="append", default=[], help="PARAM[@w,h,c]: also run this converted model "
                    "(weights PARAM with .bin for .param) instead of the shared graphs")
    a = ap.parse_args()
    precisions = [int(x) for x in a.fp16.split(",")]
    if any(p not in (0, 1, 2) for p in precisions):
        ap.error("--fp16: 0, 1 or 2")
    only = set(x for x in a.only.split(",") if x)
    skip = set(x for x in a.skip.split(",") if x)
    load_only = set(x for x in a.load_only.split(",") if x)
    device = "device=%s:%s" % (a.backend, a.device)
    failures, ran = [], 0
    t_all = time.time()
    graphs, convert_failures = list_graphs(a)
    failures += convert_failures
    if graphs is None:
        return 77
    for name, param, weights, shape in graphs:
        if (only and name not in only) or name in skip:
            continue
        t0 = time.time()
        layers = graph_compare.parse_layers(param)
        input_blob, outputs, detections = graph_compare.compared_blobs(layers)
        saved = dict((o.replace("/", "_") + ".npy", o) for o in outputs)
        base = [a.kiterun, param, weights, "seed=1"] + (["shape=%s:[%s]" % (input_blob, shape)] if shape else [])
        with tempfile.TemporaryDirectory() as tmp:
            loaded = name in load_only
            if not loaded:
                rc, out_cpu = run(base + ["output=" + o for o in outputs] + ["save=" + tmp + "/cpu"])
                if rc != 0:
                    failures.append("%s: CPU run failed:\n%s" % (name, out_cpu[-2000:]))
                    continue
            for fp16 in precisions:
                problems = []
                t1 = time.time()
                if loaded:
                    rc, out = run(base + [device, "fp16=%d" % fp16, "placement=2"])
                else:
                    # two forwards: the second replays the first's recording
                    # (src/gpu/recording.h), and its outputs are the ones saved
                    shutil.rmtree(tmp + "/gpu", ignore_errors=True)
                    rc, out = run(base + ["output=" + o for o in outputs]
                                  + [device, "fp16=%d" % fp16, "placement=1", "loop=2", "save=" + tmp + "/gpu"])
                seg = re.search(r"gpu segments (\d+) \(last run: (\w+)\)", out)
                rows = placement(out)
                if rc == 0 and rows and all(r[2].startswith("cpu") or r[2] == "-" for r in rows) and "running on the CPU" in out:
                    print("no %s device (kiterun: %s): skipped" % (a.backend, [l for l in out.splitlines() if "running on the CPU" in l][:1]))
                    return 77
                ran += 1
                if rc != 0:
                    problems.append("%s run failed (%d):\n%s" % (a.backend, rc, out[-2000:]))
                if "Vulkan validation" in out:
                    problems.append("validation layer messages:\n" + "\n".join(l for l in out.splitlines() if "validation" in l)[:3000])
                on_cpu = [(t, n, r) for t, n, r in rows if r.startswith("cpu")]
                bad = [(t, n, r) for t, n, r in on_cpu if t not in CPU_ALLOWED]
                if rc == 0 and not rows:
                    problems.append("no placement lines in kiterun's output")
                if bad:
                    problems.append("%d layers outside the allowed list ran on the CPU: %s" % (
                        len(bad), ", ".join("%s '%s' (%s)" % b for b in bad[:20])))
                if not loaded and rc == 0:
                    for f in sorted(glob.glob(tmp + "/cpu/*.npy")):
                        fn = os.path.basename(f)
                        g = tmp + "/gpu/" + fn
                        if not os.path.exists(g):
                            problems.append("output %s missing on %s" % (fn, a.backend))
                            continue
                        ok, desc = graph_compare.compare_blob(saved.get(fn, ""), np.load(g), np.load(f), fp16, detections)
                        print("  %s %s: %s%s" % (name, fn, desc, "" if ok else " MISMATCH"))
                        if not ok:
                            problems.append("output %s differs from the CPU: %s" % (fn, desc))
                counts = {}
                for t, _, _ in on_cpu:
                    counts[t] = counts.get(t, 0) + 1
                print("%-20s [%s] %s%s: %d layers, on the CPU: %s  %.1f s%s%s" % (
                    name, shape or "declared", a.backend, " fp16=%d" % fp16 if fp16 else "", len(rows),
                    " ".join("%s:%d" % kv for kv in sorted(counts.items())) or "none",
                    time.time() - t1, " (load only)" if loaded else "",
                    ", %s GPU segments (%s)" % seg.groups() if seg else ", not replayed" if not loaded else ""))
                sys.stdout.flush()
                if problems:
                    failures.append("%s%s: %s" % (name, " fp16=%d" % fp16 if fp16 else "", "\n  ".join(problems)))
    for f in failures:
        print("FAIL", f)
    if a.onnx_dir and not failures:
        shutil.rmtree(a.work, ignore_errors=True)  # the converted models (hundreds of MB)
    print("%d of %d runs passed on %s in %.0f s" % (ran - len(failures), ran, a.backend, time.time() - t_all))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
