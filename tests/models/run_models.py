#!/usr/bin/env python3
"""Run the shared sample graphs through kiterun with random weights.

  python3 tests/models/run_models.py --kiterun build/tools/kiterun [--model NAME] [--shared-dir DIR]

For every graph in $KITE_SHARED_DIR/models/ncnn/shapes.txt (or just --model):
run kiterun with random weights (seed 1) at the listed input shape twice with
threads=1 and once with threads=2, and check every output (and the inputs of
a final Softmax / detection layer): finite, not all empty, identical when the
random weights are written with writebin= and loaded back from that file, that the two single-thread runs are bit-identical, and that the
2-thread run agrees within 1e-5 relative (to the largest |value| of the
output). Exit status 0 if every graph passes, 1 otherwise.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))


def read_shapes(path):
    shapes = {}
    with open(path) as f:
        for line in f:
            t = line.split(None, 1)
            if len(t) == 2:
                shapes[t[0]] = t[1].strip().replace(" ", "")
    return shapes


POSTPROCESS_TYPES = ("Softmax", "DetectionOutput", "Yolov3DetectionOutput", "YoloDetectionOutput")


def blobs_to_check(param):
    """every blob without a consumer, plus the inputs of final softmax /
    detection layers (a random-weight detector may legitimately detect nothing)"""
    with open(param) as f:
        lines = [l.split() for l in f if l.strip()]
    lines = lines[2:2 + int(lines[1][0])]  # the declared layer count, as ncnn reads it
    consumed, produced, producer = set(), [], {}
    for t in lines:
        nin, nout = int(t[2]), int(t[3])
        bottoms, tops = t[4:4 + nin], t[4 + nin:4 + nin + nout]
        consumed.update(bottoms)
        produced.extend(tops)
        for b in tops:
            producer[b] = (t[0], bottoms)
    outs = [b for b in produced if b not in consumed]
    extra = []
    for o in outs:
        typ, bottoms = producer[o]
        if typ in POSTPROCESS_TYPES:
            extra += [b for b in bottoms if b not in outs and b not in extra and producer.get(b, ("Input",))[0] != "Input"]
    return outs + extra


def kiterun(exe, param, shape, out_dir, threads, weights="random", extra=()):
    cmd = [exe, param, weights, "seed=1", "shape=" + shape, "threads=%d" % threads, "save=" + out_dir] + list(extra)
    cmd += ["output=" + b for b in blobs_to_check(param)]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        return "timed out: " + " ".join(cmd)
    if p.returncode != 0:
        err = p.stderr.strip().splitlines()
        why = err[-1] if err else "exit code %d" % p.returncode
        if p.returncode < 0:
            why = "crashed with signal %d; %s" % (-p.returncode, why)
        return why
    return None


def check_model(np, exe, gdir, name, shape, tmp):
    param = os.path.join(gdir, name + ".param")
    if not os.path.exists(param):
        return ["%s.param not found in %s" % (name, gdir)]
    runs = {}
    os.makedirs(os.path.join(tmp, name), exist_ok=True)
    binf = os.path.join(tmp, name, "weights.bin")
    # a: random weights, also written out; b: the same again; t2: 2 threads;
    # bin: the written .bin loaded back must give exactly run a's outputs
    plan = [("a", 1, "random", ["writebin=" + binf]), ("b", 1, "random", []), ("t2", 2, "random", []), ("bin", 1, binf, [])]
    if os.environ.get("KITE_TEST_EMULATED") == "1":
        # under qemu-user (every run costs ~30x native) the repeat run is left
        # out (the native pass checks determinism) and the 2-thread run loads
        # the written .bin: threads and the .bin round trip are checked by one
        # run, within the 2-thread tolerance (exactly in the native pass)
        plan = [plan[0], ("t2", 2, binf, [])]
    for tag, threads, weights, extra in plan:
        d = os.path.join(tmp, name, tag)
        err = kiterun(exe, param, shape, d, threads, weights, extra)
        if err:
            return ["%s run (threads=%d, weights %s): %s" % (tag, threads, os.path.basename(weights), err)]
        files = sorted(os.listdir(d))
        runs[tag] = {f: np.load(os.path.join(d, f)) for f in files}
    problems = []
    if not runs["a"]:
        problems.append("no outputs saved")
    nonempty = 0
    for f, a in runs["a"].items():
        if a.size == 0:
            # no detections is a valid answer; the runs must agree on it
            for tag in [t for t in ("b", "t2") if t in runs]:
                if runs[tag].get(f) is None or runs[tag][f].size != 0:
                    problems.append("%s is empty in one run but not in another" % f)
            continue
        nonempty += 1
        if not np.isfinite(a).all():
            problems.append("%s has %d non-finite values" % (f, int((~np.isfinite(a)).sum())))
            continue
        b = runs["b"].get(f) if "b" in runs else a
        if b is None or b.shape != a.shape or not np.array_equal(a, b):
            problems.append("%s differs between two identical runs" % f)
        w = runs["bin"].get(f) if "bin" in runs else a
        if w is None or w.shape != a.shape or not np.array_equal(a, w):
            problems.append("%s differs when the weights come from the writebin= file" % f)
        t = runs["t2"].get(f)
        if t is None or t.shape != a.shape:
            problems.append("%s: threads=2 shape %s vs %s" % (f, None if t is None else t.shape, a.shape))
        else:
            scale = max(float(np.abs(a).max()), 1e-30)
            diff = float(np.abs(a.astype(np.float64) - t).max())
            if diff > 1e-5 * scale:
                problems.append("%s: threads=1 vs 2 max diff %.3g > 1e-5 * %.3g" % (f, diff, scale))
    if runs["a"] and nonempty == 0:
        problems.append("every output is empty")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kiterun", default=os.path.join(REPO, "build", "tools", "kiterun"))
    ap.add_argument("--shared-dir", default=os.environ.get("KITE_SHARED_DIR") or os.path.join(REPO, "..", "shared"))
    ap.add_argument("--model", default=None, help="only this graph (name in shapes.txt)")
    args = ap.parse_args()
    import numpy as np

    gdir = os.path.join(args.shared_dir, "models", "ncnn")
    shapes_file = os.path.join(gdir, "shapes.txt")
    if not os.path.exists(shapes_file):
        print("error: %s not found (set KITE_SHARED_DIR or --shared-dir)" % shapes_file)
        return 1
    shapes = read_shapes(shapes_file)
    if os.environ.get("KITE_TEST_EMULATED") == "1":
        # under qemu-user: the smaller shapes the graphs allow
        shapes.update(read_shapes(os.path.join(REPO, "tests", "cross", "shapes_emulated.txt")))
    names = [args.model] if args.model else sorted(shapes)
    tmp = tempfile.mkdtemp(prefix="kite_models_")
    failed = 0
    try:
        for name in names:
            if name not in shapes:
                print("FAIL  %s: not listed in %s" % (name, shapes_file))
                failed += 1
                continue
            problems = check_model(np, os.path.abspath(args.kiterun), gdir, name, shapes[name], tmp)
            if problems:
                failed += 1
                print("FAIL  %s %s: %s" % (name, shapes[name], "; ".join(problems)))
            else:
                print("PASS  %s %s" % (name, shapes[name]))
            sys.stdout.flush()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (len(names) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
