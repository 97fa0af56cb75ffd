#!/usr/bin/env python3
"""Run one shared graph with the cross-built kiterun (under its emulator) and
with the host's kiterun, and compare the outputs.

  python3 tests/cross/compare_host.py --kiterun build-aarch64/kiterun-emulated \\
      --host-kiterun build/tools/kiterun --model squeezenet [--shared-dir DIR]

The host run draws random weights (seed 1) and writes them with writebin=;
the target run loads that .bin, so both see the same weights and the same
seeded input. Every output (and the inputs of a final softmax / detection
layer, as tests/models/run_models.py checks) must agree within 1e-4 of the
host output's largest |value|. Shapes come from shapes_emulated.txt here when
KITE_TEST_EMULATED=1, else from the shared shapes.txt. Exit 0 on agreement,
1 on a difference or a failed run, 77 (skip) without a host kiterun.
"""

import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))
import run_models  # noqa: E402  (kiterun invocation, blobs_to_check, read_shapes)

TOLERANCE = 1e-4


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kiterun", required=True, help="the cross-built kiterun (a wrapper that starts the emulator)")
    ap.add_argument("--host-kiterun", default="", help="kiterun built for this machine")
    ap.add_argument("--shared-dir", default=os.environ.get("KITE_SHARED_DIR", ""))
    ap.add_argument("--model", required=True)
    ap.add_argument("--skip-exit-code", type=int, default=77)
    args = ap.parse_args()
    if not args.host_kiterun or not os.path.exists(args.host_kiterun):
        print("skip: no host kiterun (configure with -DKITE_HOST_KITERUN=<x86 build>/tools/kiterun)")
        return args.skip_exit_code
    import numpy as np

    gdir = os.path.join(args.shared_dir, "models", "ncnn")
    shapes_file = os.path.join(gdir, "shapes.txt")
    if os.environ.get("KITE_TEST_EMULATED") == "1":
        shapes_file = os.path.join(HERE, "shapes_emulated.txt")
    shapes = run_models.read_shapes(shapes_file)
    if args.model not in shapes:
        print("FAIL  %s: not listed in %s" % (args.model, shapes_file))
        return 1
    shape = shapes[args.model]
    param = os.path.join(gdir, args.model + ".param")
    with tempfile.TemporaryDirectory(prefix="kite_cross_") as tmp:
        binf = os.path.join(tmp, "weights.bin")
        host_dir, target_dir = os.path.join(tmp, "host"), os.path.join(tmp, "target")
        # int8 graphs: x86 builds reproduce ncnn-x86's approximate reciprocal
        # (_mm_rcp_ss, 12 bits; layer/common/int8.h) in the packed depth-wise
        # int8 path, which other CPUs compute exactly, so requantized values
        # may differ by a step that the following layers amplify. Without
        # packing both sides divide exactly and must agree.
        extra = ["packing=0"] if args.model.endswith("_int8") else []
        err = run_models.kiterun(args.host_kiterun, param, shape, host_dir, 1, "random", ["writebin=" + binf] + extra)
        if err:
            print("FAIL  %s: host run: %s" % (args.model, err))
            return 1
        err = run_models.kiterun(args.kiterun, param, shape, target_dir, 2, binf, extra)
        if err:
            print("FAIL  %s: target run: %s" % (args.model, err))
            return 1
        problems = []
        names = sorted(os.listdir(host_dir))
        if not names:
            problems.append("the host run saved no outputs")
        for f in names:
            h = np.load(os.path.join(host_dir, f))
            tpath = os.path.join(target_dir, f)
            if not os.path.exists(tpath):
                problems.append("%s missing from the target run" % f)
                continue
            t = np.load(tpath)
            if h.shape != t.shape:
                problems.append("%s: shape %s on the target, %s on the host" % (f, t.shape, h.shape))
                continue
            if h.size == 0:
                continue
            scale = max(float(np.abs(h).max()), 1e-30)
            diff = np.abs(h.astype(np.float64) - t)
            if not np.isfinite(t).all() or float(diff.max()) > TOLERANCE * scale:
                i = int(np.nanargmax(diff)) if np.isfinite(diff).any() else 0
                problems.append("%s: max diff %.3g > %g * %.3g (at flat index %d: host %r, target %r)"
                                % (f, float(np.nanmax(diff)), TOLERANCE, scale, i, h.flat[i], t.flat[i]))
            else:
                print("  %s: max diff %.3g (%.2g of the range)" % (f, float(diff.max()), float(diff.max()) / scale))
    if problems:
        print("FAIL  %s %s: %s" % (args.model, shape, "; ".join(problems)))
        return 1
    print("PASS  %s %s" % (args.model, shape))
    return 0


if __name__ == "__main__":
    sys.exit(main())
