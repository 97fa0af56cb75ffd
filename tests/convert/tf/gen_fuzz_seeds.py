#!/usr/bin/env python3
"""Seed corpus of fuzz_tf: the small frozen graphs of tf_fidelity.py, one
file per graph (a few kB each).

    gen_fuzz_seeds.py OUTDIR

Needs tensorflow (pip tensorflow-cpu); without it, writes nothing and says so
(the fuzzer then starts from an empty corpus). Nothing is committed.
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    try:
        import tensorflow as tf  # noqa: F401
    except ImportError:
        print("gen_fuzz_seeds.py: tensorflow is not installed; no seeds written")
        return 0
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tf_fidelity as tff
    n = 0
    for name, shape, fn in tff.op_graphs():
        gd, _ = tff.freeze(fn, shape)
        with open(os.path.join(out, name + ".pb"), "wb") as f:
            f.write(gd.SerializeToString())
        n += 1
    print("gen_fuzz_seeds.py: %d seeds in %s" % (n, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
