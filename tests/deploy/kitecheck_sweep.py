#!/usr/bin/env python3
"""kitecheck over every graph in a folder of ncnn .param files (random
weights): a small input first (a quarter of the side in shapes.txt, at
least 32), the listed shape when the graph needs it (fixed InnerProduct
sizes, position embeddings). One summary line per graph; not a ctest (long).

  kitecheck_sweep.py --kitecheck BIN --models DIR [--backends LIST] [--fp16 N] [--timeout S] [name...]
"""
import argparse
import os
import re
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kitecheck", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--backends", default="reference,cpu,vulkan,opencl")
    ap.add_argument("--fp16", default="0")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    shapes = {}
    for line in open(os.path.join(a.models, "shapes.txt")):
        if line.strip():
            n, s = line.split()
            shapes[n] = [int(v) for v in s.strip("[]").split(",")]
    names = a.names or sorted(shapes)
    bad = 0
    for n in names:
        full = shapes[n]
        small = [max(32, full[0] // 4), max(32, full[1] // 4), full[2]]
        t0 = time.time()
        for shp in (small, full):
            cmd = [a.kitecheck, os.path.join(a.models, n + ".param"), "random", "shape=[%s]" % ",".join(map(str, shp)),
                   "backends=" + a.backends, "fp16=" + a.fp16]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
            except subprocess.TimeoutExpired:
                print("%-22s timeout after %d s" % (n, a.timeout))
                bad += 1
                break
            if r.returncode == 1 and "first bad layer:" not in r.stdout and shp is small:
                continue  # the graph needs its own shape (a run-time failure, not a disagreement)
            lines = [l for l in r.stdout.splitlines() if l.startswith("check ")]
            gpu = {b: sum(1 for l in lines if l.split()[4] == b and "ran_on=cpu" not in l) for b in ("vulkan", "opencl")}
            fb = sum(1 for l in lines if "ran_on=cpu" in l)
            last = (r.stdout.strip().splitlines() or [r.stderr.strip()])[-1]
            print("%-22s shape=%-14s %5d checks  on-gpu vulkan %3d opencl %3d  fell-back %3d  %5.0f s  %s" % (
                n, "[%s]" % ",".join(map(str, shp)), len(lines), gpu["vulkan"], gpu["opencl"], fb, time.time() - t0, last))
            if r.returncode != 0:
                bad += 1
                for l in lines:
                    m = re.search(r"max_rel=(\S+) cosine=(\S+)", l)
                    if m and "ran_on" not in l and (float(m.group(1)) > (1e-3 if a.fp16 == "0" else 3e-2) or float(m.group(2)) < (0.99999 if a.fp16 == "0" else 0.999)):
                        print("    " + l)
            sys.stdout.flush()
            break
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
