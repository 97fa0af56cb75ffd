#!/usr/bin/env python3
"""No leaks in kite's programs on a shared graph (issue 20): kiterun (CPU,
loop=2), benchkite, caffe2kite (the shared squeezenet_v1.1 prototxt with
seeded random weights) and kiteoptimize on its output, each under valgrind
(--mode valgrind: definite and indirect leaks are errors) or, in a sanitizer
build, under LeakSanitizer (--mode lsan: ASAN_OPTIONS=detect_leaks=1, a leak
makes the program exit non-zero). A program not given is left out; valgrind
missing skips (exit 77).

  python3 tests/reliability/leak_check.py --mode valgrind --shared-dir ../shared \\
      --kiterun build/tools/kiterun --benchkite build/benchmark/benchkite \\
      --caffe2kite build/tools/caffe/caffe2kite --kiteoptimize build/tools/optimize/kiteoptimize
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "convert", "caffe"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["valgrind", "lsan"], required=True)
    ap.add_argument("--shared-dir", required=True)
    ap.add_argument("--kiterun")
    ap.add_argument("--benchkite")
    ap.add_argument("--caffe2kite")
    ap.add_argument("--kiteoptimize")
    a = ap.parse_args()

    if a.mode == "valgrind":
        vg = shutil.which("valgrind")
        if not vg:
            print("valgrind not found: skipped")
            return 77
        # only leaks are checked (the OpenMP runtime and glibc keep what they
        # keep: "still reachable" and "possibly lost" are not errors)
        prefix = [vg, "-q", "--leak-check=full", "--show-leak-kinds=definite,indirect",
                  "--errors-for-leak-kinds=definite,indirect", "--error-exitcode=99"]
    else:
        prefix = []
    env = dict(os.environ)
    if a.mode == "lsan":
        opts = env.get("ASAN_OPTIONS", "")
        env["ASAN_OPTIONS"] = (opts + ":" if opts else "") + "detect_leaks=1"
    env["OMP_NUM_THREADS"] = "1"

    squeeze = os.path.join(a.shared_dir, "models", "ncnn", "squeezenet.param")
    proto = os.path.join(a.shared_dir, "models", "caffe", "squeezenet_v1.1", "deploy.prototxt")
    failures = []
    ran = 0
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        if a.kiterun:
            runs.append(("kiterun", [a.kiterun, squeeze, "random", "shape=[35,35,3]", "loop=2", "threads=1"]))
        if a.benchkite:
            runs.append(("benchkite", [a.benchkite, "1", "1", "0", "-1", "0", "param=" + squeeze, "shape=[35,35,3]"]))
        if a.caffe2kite:
            import caffe_fidelity as cf  # the prototxt reader, shape inference and caffemodel writer

            with open(proto) as f:
                net = cf.parse_prototxt(f.read())
            _, blobs, _ = cf.infer(net, np.random.RandomState(1))
            model = os.path.join(tmp, "squeezenet.caffemodel")
            cf.write_caffemodel(model, net, blobs)
            p, b = os.path.join(tmp, "c.param"), os.path.join(tmp, "c.bin")
            runs.append(("caffe2kite", [a.caffe2kite, proto, model, p, b]))
            if a.kiteoptimize:
                runs.append(("kiteoptimize", [a.kiteoptimize, p, b, os.path.join(tmp, "o.param"),
                                              os.path.join(tmp, "o.bin")]))
        for name, cmd in runs:
            t0 = time.time()
            r = subprocess.run(prefix + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               timeout=600)
            ran += 1
            leak = "definitely lost" in r.stderr or "indirectly lost" in r.stderr or "LeakSanitizer" in r.stderr
            ok = r.returncode == 0 and not leak
            print("%s  %s (%s, %.1f s): exit %d" % ("ok   " if ok else "FAIL ", name, a.mode, time.time() - t0,
                                                   r.returncode))
            if not ok:
                failures.append(name)
                print("  " + " ".join(prefix + cmd))
                print(r.stderr[-4000:])
    if failures:
        print("FAIL  leaks or errors in: " + ", ".join(failures))
        return 1
    print("ok    %d programs, no leak" % ran)
    return 0 if ran else 77


if __name__ == "__main__":
    sys.exit(main())
