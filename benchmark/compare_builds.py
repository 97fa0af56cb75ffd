#!/usr/bin/env python3
"""Two benchkite builds on the same graphs, timed in alternating pairs.

On a machine whose speed drifts from second to second (a shared VM), one run
of each build says little: this times build A and build B back to back many
times, swapping which goes first, and prints the median and quartiles of the
per-pair ratio time(B)/time(A) (benchkite's average over the loop count).

  python3 benchmark/compare_builds.py OLD/benchkite NEW/benchkite \
      --models ../shared/models/ncnn --threads 1 --pairs 10 -k vision_transformer
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_ncnn import read_shapes, time_kite  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a", help="benchkite of build A (the reference)")
    ap.add_argument("b", help="benchkite of build B")
    ap.add_argument("--models", required=True, help="folder of .param files with shapes.txt")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--loops", type=int, default=8)
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("-k", default="", help="only graphs whose name contains this")
    args = ap.parse_args()

    shapes = read_shapes(args.models)
    print("| graph | B/A median | first quartile | third quartile | pairs |")
    print("|---|---:|---:|---:|---:|")
    for name in sorted(n for n in shapes if args.k in n):
        param = os.path.join(args.models, name + ".param")
        ratios = []
        for i in range(args.pairs):
            t = {}
            for which in (("a", "b") if i % 2 == 0 else ("b", "a")):
                t[which] = time_kite(getattr(args, which), param, shapes[name], args.threads, args.loops)[1]
            ratios.append(t["b"] / t["a"])
        ratios.sort()
        q = statistics.quantiles(ratios, n=4) if len(ratios) >= 2 else [ratios[0]] * 3
        print("| %s | %.3f | %.3f | %.3f | %d |" % (name, statistics.median(ratios), q[0], q[2], len(ratios)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
