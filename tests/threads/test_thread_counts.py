#!/usr/bin/env python3
"""Outputs do not depend on the thread count (issue 18, threads per layer by
its work: src/layer_work.h).

Each graph runs through kiterun with seeded random weights and input at 1, 2
and 16 threads (more threads than this machine has cores: OpenMP allows it),
with the per-layer thread rule at its default (off: every layer takes all
threads), at its tuned value (KITE_THREAD_MIN_WORK=65536) and huge (10^12: every layer with a work
estimate runs on one thread, the others on all), and every
output must be byte-identical to the 1-thread run's. Small input shapes keep
it to a few seconds of CPU.
"""
import argparse
import os
import subprocess
import sys
import tempfile

GRAPHS = [
    # name, shape: grouped 1x1 + ShuffleChannel, SE blocks with HardSwish,
    # group widths 8-24, depth-wise detector, inception branches, group 2
    ("shufflenet", "[64,64,3]"),
    ("mobilenet_v3", "[64,64,3]"),
    ("regnety_400m", "[64,64,3]"),
    ("nanodet_m", "[96,96,3]"),
    ("googlenet", "[224,224,3]"),
    ("alexnet", "[227,227,3]"),
    ("yolo-fastest-1.1", "[96,96,3]"),
    ("efficientnetv2_b0", "[64,64,3]"),
]


def run(kiterun, param, shape, threads, min_work, out_dir):
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
    if min_work is None:
        env.pop("KITE_THREAD_MIN_WORK", None)
    else:
        env["KITE_THREAD_MIN_WORK"] = str(min_work)
    cmd = kiterun + [param, "random", "shape=" + shape, "threads=%d" % threads, "seed=7", "save=" + out_dir]
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit("FAIL: %s exited %d:\n%s" % (" ".join(cmd), r.returncode, r.stdout))
    files = {}
    for f in sorted(os.listdir(out_dir)):
        with open(os.path.join(out_dir, f), "rb") as fh:
            files[f] = fh.read()
    if not files:
        sys.exit("FAIL: %s wrote no output" % " ".join(cmd))
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiterun", required=True, nargs="+", help="kiterun command (an emulator prefix allowed)")
    ap.add_argument("--models", required=True, help="folder of the ncnn benchmark .param files")
    ap.add_argument("--quick", action="store_true",
                    help="leave out googlenet and alexnet (full-size inputs; for emulated runs)")
    args = ap.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, shape in GRAPHS:
            if args.quick and name in ("googlenet", "alexnet"):
                continue
            param = os.path.join(args.models, name + ".param")
            if not os.path.exists(param):
                sys.exit("FAIL: %s is missing" % param)
            base = run(args.kiterun, param, shape, 1, None, os.path.join(tmp, name + "_base"))
            for min_work in (None, 65536, 10**12):
                for threads in (2, 16):
                    d = os.path.join(tmp, "%s_%s_%d" % (name, min_work, threads))
                    got = run(args.kiterun, param, shape, threads, min_work, d)
                    same = got == base
                    print("%-18s %s threads=%-2d KITE_THREAD_MIN_WORK=%-7s %s" %
                          (name, shape, threads, "default" if min_work is None else min_work,
                           "identical" if same else "DIFFERENT"))
                    if not same:
                        failures += 1
    if failures:
        sys.exit("FAIL: %d runs differ from the 1-thread outputs" % failures)
    print("OK")


if __name__ == "__main__":
    main()
