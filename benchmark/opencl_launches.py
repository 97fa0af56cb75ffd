#!/usr/bin/env python3
"""OpenCL launches per forward of every shared graph, launch fusions off and on.

  python3 benchmark/opencl_launches.py --kiterun build/tools/kiterun \
      --models ../shared/models/ncnn [--device 0] [--only a,b] [--by-layer a,b] [--us 12]

For every graph of shapes.txt (full input size, random weights): one kiterun
forward on OpenCL with KITE_OPENCL_LAUNCHES=1, which prints the launches the
recorded forward replays (the number NVIDIA's driver pays ~12 us of host time
each for: benchmark/opencl_launch_cost.cpp), once with the launch fusions
switched off (every KITE_OPENCL_FUSE_* variable at 0) and once as they are
(on unless the environment says otherwise). Prints a markdown table with the
host time the difference saves at --us microseconds per launch, then the
by-layer-type counts of the --by-layer graphs (on). The counts need no GPU:
PoCL gives the same launches as NVIDIA's driver (neither splits a launch
unless KITE_OPENCL_KERNEL_TIME_LIMIT_MS is set).
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_ncnn import read_shapes  # noqa: E402

# the launch fusions' switches (cl::fusion_on)
FUSIONS = ["KITE_OPENCL_FUSE_CONCAT", "KITE_OPENCL_FUSE_PAD", "KITE_OPENCL_FUSE_RESIDUAL", "KITE_OPENCL_FUSE_CROP",
           "KITE_OPENCL_FUSE_DWPW"]

LINE = re.compile(r"kite: OpenCL launches per forward: (\d+) in (\d+) segments \((\d+) launches not recorded\)"
                  r" \| by layer:([^|]*)\| by kernel:(.*)")


def launches(kiterun, param, shape, device, fused):
    env = dict(os.environ)
    env["KITE_OPENCL_LAUNCHES"] = "1"
    if not fused:
        for f in FUSIONS:
            env[f] = "0"
    cmd = [kiterun, param, "random", "device=opencl:%d" % device,
           "shape=[%s]" % ",".join(str(v) for v in shape)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, env=env)
    found = [LINE.search(l) for l in out.stderr.splitlines()]
    found = [m for m in found if m]
    if out.returncode != 0 or not found:
        raise RuntimeError((out.stderr or out.stdout).strip()[-300:])
    m = max(found, key=lambda m: int(m.group(1)))  # the forward's session (not a weight upload's)
    n = int(m.group(1))
    if n == 0:  # not recorded (a layer waited on the host): every launch of the one forward
        n = int(m.group(3))
    by_layer = dict((k, int(v)) for k, v in (e.split("=") for e in m.group(4).split()))
    return n, by_layer


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kiterun", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--only", default="", help="comma-separated graphs (default: all of shapes.txt)")
    ap.add_argument("--by-layer", default="", help="graphs whose by-layer-type counts to print")
    ap.add_argument("--us", type=float, default=12.0, help="host time per launch (us) for the estimate")
    a = ap.parse_args()
    shapes = read_shapes(a.models)
    only = [g for g in a.only.split(",") if g]
    detail = [g for g in a.by_layer.split(",") if g]
    rows, layers = [], {}
    for g in sorted(shapes, key=str.lower):
        if only and g not in only:
            continue
        param = os.path.join(a.models, g + ".param")
        try:
            off, _ = launches(a.kiterun, param, shapes[g], a.device, False)
            on, by = launches(a.kiterun, param, shapes[g], a.device, True)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print("%s: %s" % (g, e), file=sys.stderr)
            continue
        rows.append((g, off, on))
        layers[g] = by
        print("%s: %d -> %d" % (g, off, on), file=sys.stderr, flush=True)
    print("| graph | launches, fusions off | launches, on | fewer | host time saved at %g us/launch (ms) |" % a.us)
    print("|---|---:|---:|---:|---:|")
    for g, off, on in rows:
        print("| %s | %d | %d | %d | %.2f |" % (g, off, on, off - on, (off - on) * a.us / 1000.0))
    if rows:
        toff = sum(r[1] for r in rows)
        ton = sum(r[2] for r in rows)
        print("| **all %d** | %d | %d | %d | %.2f |" % (len(rows), toff, ton, toff - ton, (toff - ton) * a.us / 1000.0))
    for g in detail:
        if g in layers:
            print("\n%s by layer type (on): %s" % (g, ", ".join("%s %d" % kv for kv in
                                                                sorted(layers[g].items(), key=lambda kv: -kv[1]))))


if __name__ == "__main__":
    main()
