#!/usr/bin/env python3
"""kite before/after against the TFLite interpreter on full-int8 .tflite models (issue 18, fifth session).

    python3 benchmark/int8_before_after.py --work /tmp/keras_archs \\
        --before /tmp/old/benchkite /tmp/old/before_int8 --after build/benchmark/benchkite tflite_int8 \\
        [-k REGEX] [--cpu-seconds 0.6] [--rounds 3]

--work is keras_archs.py's folder (its gen stage wrote ARCH/model_int8.tflite); each side is a benchkite
and the name of the converted .param/.bin pair in ARCH/ (keras_archs.py's check stage writes
tflite_int8.param; convert the "before" pair with the older tflite2kite). 1 thread, CPU time (rusage):
kite (cpu(1 + n loops) - cpu(1 loop)) / n, TFLite time.process_time over n invokes (XNNPACK,
num_threads=1); the three sides alternate per architecture and round, the minimum is kept.
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import keras_archs  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--before", nargs=2, metavar=("BENCHKITE", "PARAM_NAME"), required=True)
    ap.add_argument("--after", nargs=2, metavar=("BENCHKITE", "PARAM_NAME"), required=True)
    ap.add_argument("-k", default="")
    ap.add_argument("--cpu-seconds", type=float, default=0.6)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    shape = keras_archs.kite_shape("tflite_int8")
    rows = []
    for name in keras_archs.QUANT:
        if not re.search(args.k, name):
            continue
        d = os.path.join(args.work, name)
        tfl = os.path.join(d, "model_int8.tflite")
        sides = {"before": args.before, "after": args.after}
        est = keras_archs.compare_benchncnn.run_cpu(args.after[0], os.path.join(d, args.after[1] + ".param"), shape, 1, 1)[1]
        n = max(4, int(args.cpu_seconds * 1000.0 / max(est, 0.05)))
        best = {}
        for rnd in range(args.rounds):
            order = ["before", "tflite", "after"] if rnd % 2 == 0 else ["after", "tflite", "before"]
            for side in order:
                if side == "tflite":
                    t, _ = keras_archs.tflite_cpu_ms(tfl, n)
                else:
                    binary, pname = sides[side]
                    t, _ = keras_archs.bench_cpu_ms(binary, os.path.join(d, pname + ".param"), shape, n)
                best[side] = min(best.get(side, 1e30), t)
        layers = {}
        for side in ("before", "after"):
            with open(os.path.join(d, sides[side][1] + ".param")) as f:
                f.readline()
                layers[side] = int(f.readline().split()[0])
        rows.append((name, layers, best))
        print("%-16s layers %d -> %d  kite before %.2f ms  after %.2f ms  TFLite %.2f ms  kite/TFLite %.2f -> %.2f" % (
            name, layers["before"], layers["after"], best["before"], best["after"], best["tflite"],
            best["before"] / best["tflite"], best["after"] / best["tflite"]), flush=True)
    print("| architecture (tflite int8) | layers before -> after | kite before CPU ms | kite after CPU ms | TFLite CPU ms | kite/TFLite before | after |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, layers, b in rows:
        print("| %s | %d -> %d | %.2f | %.2f | %.2f | %.2f | %.2f |" % (name, layers["before"], layers["after"], b["before"], b["after"],
                                                                  b["tflite"], b["before"] / b["tflite"], b["after"] / b["tflite"]))


if __name__ == "__main__":
    main()
