#!/usr/bin/env python3
"""The OpenCL deployment options (seed 003) end to end through kiterun.

usage: deploy.py KITERUN

On a small graph (convolutions, pooling, inner product, softmax) with random
weights, against the CPU output:
  1. cold start with an empty program-binary cache, KITE_OPENCL_TUNE=1 and a
     kernel time limit far below any launch: every program is built (not
     loaded), the tuned-parameter file gets one entry per launched kernel and
     shape, launches are split, the output matches the CPU
  2. second start with the same folders: every program comes from the binary
     cache, nothing is tuned again, the tuned file is unchanged, the output
     matches
  3. time limit without tuning (fresh tuned file): launches are split on the
     measured time alone, the output matches
Exits 77 (ctest skip) when kiterun finds no OpenCL device.
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

PARAM = """7767517
6 6
Input            data   0 1 data 0=17 1=11 2=5
Convolution      conv1  1 1 data c1 0=7 1=3 4=1 5=1 6=315 9=1
Pooling          pool1  1 1 c1 p1 0=0 1=2 2=2
Convolution      conv2  1 1 p1 c2 0=6 1=1 5=1 6=42
InnerProduct     fc     1 1 c2 f1 0=10 1=1 2=3240
Softmax          sm     1 1 f1 out 0=0
"""


def run(kiterun, param, device, out_dir, env_extra):
    env = dict(os.environ)
    env.update(env_extra)
    cmd = [kiterun, param, "random", "shape=data:[17,11,5]", "device=" + device, "seed=3", "save=" + out_dir]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900, env=env)
    if p.returncode != 0:
        raise RuntimeError("kiterun %s failed:\n%s" % (device, p.stdout))
    return p.stdout


def close(a_dir, b_dir):
    a = np.load(os.path.join(a_dir, "out.npy"))
    b = np.load(os.path.join(b_dir, "out.npy"))
    return a.shape == b.shape and float(np.max(np.abs(a - b))) <= 1e-4


def main():
    kiterun = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        param = os.path.join(tmp, "tiny.param")
        with open(param, "w") as f:
            f.write(PARAM)
        cache = os.path.join(tmp, "cache")
        tuned = os.path.join(tmp, "tuned.txt")
        run(kiterun, param, "cpu", os.path.join(tmp, "cpu"), {})
        env = {"KITE_OPENCL_CACHE_DIR": cache, "KITE_OPENCL_TUNE": "1", "KITE_OPENCL_TUNED_FILE": tuned,
               "KITE_OPENCL_KERNEL_TIME_LIMIT_MS": "0.000001", "KITE_OPENCL_VERBOSE": "1"}

        out = run(kiterun, param, "opencl", os.path.join(tmp, "cold"), env)
        if "running on the CPU" in out or "backends: opencl=" not in out:
            print("no OpenCL device: skipped")
            return 77
        built = re.findall(r"OpenCL program (\w+) built", out)
        loaded = re.findall(r"OpenCL program (\w+) loaded from the binary cache", out)
        tuned_log = re.findall(r"OpenCL tuned (\S+):", out)
        split_log = re.findall(r"OpenCL (\S+) split into (\d+) launches", out)
        if not built or loaded:
            failures.append("cold start: built %s, loaded %s (want all built)" % (built, loaded))
        if not any(f.startswith("opencl-") and f.endswith(".bin") for f in os.listdir(cache)):
            failures.append("cold start: no program binary in %s" % cache)
        if not os.path.exists(tuned):
            failures.append("cold start: no tuned-parameter file")
            tuned_text = ""
        else:
            with open(tuned) as f:
                tuned_text = f.read()
        entries = [line.split()[0].split(":")[0] for line in tuned_text.splitlines()]
        # (innerproduct reduces in work groups of a fixed 64 items: never tuned)
        for k in ("conv2d_x4", "pool2d", "conv2d_1x1", "softmax_c"):
            if k not in entries:
                failures.append("cold start: tuned file has no entry for %s:\n%s" % (k, tuned_text))
        for line in tuned_text.splitlines():
            if not re.match(r"^\S+:\d+,\d+,\d+@\S+ \d+ \d+ \d+ [\d.]+$", line):
                failures.append("tuned file line '%s' is malformed" % line)
        if not tuned_log:
            failures.append("cold start: nothing was tuned")
        if not split_log or max(int(n) for _, n in split_log) < 2:
            failures.append("cold start: no launch was split under the time limit:\n%s" % out)
        if "backends: opencl=5 cpu=1" not in out:
            failures.append("cold start: not every layer ran on OpenCL:\n%s" % out)
        if not close(os.path.join(tmp, "cpu"), os.path.join(tmp, "cold")):
            failures.append("cold start: output differs from the CPU")

        out = run(kiterun, param, "opencl", os.path.join(tmp, "cached"), env)
        built2 = re.findall(r"OpenCL program (\w+) built", out)
        loaded2 = re.findall(r"OpenCL program (\w+) loaded from the binary cache", out)
        if built2 or sorted(loaded2) != sorted(built):
            failures.append("cached start: built %s, loaded %s (want %s loaded)" % (built2, loaded2, built))
        if re.search(r"OpenCL tuned", out):
            failures.append("cached start: tuned again although the tuned file has the entries")
        with open(tuned) as f:
            if f.read() != tuned_text:
                failures.append("cached start: the tuned file changed")
        if not close(os.path.join(tmp, "cpu"), os.path.join(tmp, "cached")):
            failures.append("cached start: output differs from the CPU")

        env3 = dict(env)
        env3["KITE_OPENCL_TUNE"] = "0"
        env3["KITE_OPENCL_TUNED_FILE"] = os.path.join(tmp, "tuned-limit-only.txt")
        out = run(kiterun, param, "opencl", os.path.join(tmp, "limit"), env3)
        if not re.search(r"split into \d+ launches", out):
            failures.append("time limit without tuning: no launch was split:\n%s" % out)
        if os.path.exists(env3["KITE_OPENCL_TUNED_FILE"]):
            failures.append("time limit without tuning: a tuned file was written")
        if not close(os.path.join(tmp, "cpu"), os.path.join(tmp, "limit")):
            failures.append("time limit without tuning: output differs from the CPU")

    for f in failures:
        print("FAIL " + f)
    if not failures:
        print("ok: cold start built %d programs and tuned %d kernels, %d launches split; cached start loaded %d programs"
              % (len(built), len(tuned_log), len(split_log), len(loaded2)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
