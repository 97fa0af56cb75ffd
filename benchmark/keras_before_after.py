#!/usr/bin/env python3
"""Before/after of a change on the Keras architectures of keras_archs.py (issue 18), interleaved.

    python3 benchmark/keras_before_after.py --work /tmp/keras_archs --kite-before OLD/benchkite \
        --kite-after build/benchmark/benchkite [--rounds 3] [--cpu-seconds 0.8] NAME...

Each --work/NAME folder (keras_archs.py --stage gen) must hold tf_before.param / tfl_before.param
(frozen.pb and model_fp32.tflite converted by the old tensorflow2kite / tflite2kite) and
tf_after.param / tfl_after.param (the new converters). Per architecture and source, 1 thread,
CPU ms per inference ((cpu(1 + n loops) - cpu(1 loop)) / n as compare_benchncnn.py --cpu):
old benchkite on the old .param, new benchkite on the new .param, benchncnn on both, and for
the .tflite the TFLite interpreter (XNNPACK, num_threads=1); the sides alternate per round,
the minimum is kept. A JSON of the figures goes to --json.
"""
import argparse
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_benchncnn as cb  # noqa: E402
import keras_archs as ka  # noqa: E402


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/tmp/keras_archs")
    ap.add_argument("--kite-before", required=True)
    ap.add_argument("--kite-after", required=True)
    ap.add_argument("--benchncnn", default="/work/peers/ncnn/build/benchmark/benchncnn")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cpu-seconds", type=float, default=0.8)
    ap.add_argument("--json", default="")
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    shape = ka.kite_shape("tf")
    res = {}
    for m in args.names:
        for tag, pre in (("tf", "tf"), ("tflite_fp32", "tfl")):
            d = os.path.join(args.work, m)
            p0, p1 = os.path.join(d, pre + "_before.param"), os.path.join(d, pre + "_after.param")
            if not (os.path.exists(p0) and os.path.exists(p1)):
                continue
            est = cb.run_cpu(args.kite_after, p1, shape, 1, 1)[1]
            n = max(4, int(args.cpu_seconds * 1000 / max(est, 0.05)))
            sides = [("kite_before", args.kite_before, p0), ("kite_after", args.kite_after, p1),
                     ("ncnn_before", args.benchncnn, p0), ("ncnn_after", args.benchncnn, p1)]
            if tag != "tf":
                sides.append(("tflite", None, os.path.join(d, "model_fp32.tflite")))
            best = {}
            for r in range(args.rounds):
                for name, b, p in (sides if r % 2 == 0 else sides[::-1]):
                    t = ka.tflite_cpu_ms(p, n)[0] if b is None else cb.cpu_per_inference(b, p, shape, 1, n)
                    best[name] = min(best.get(name, 1e30), t)
            res["%s %s" % (m, tag)] = best
            line = "%-18s %-12s n=%4d " % (m, tag, n) + " ".join("%s %.3f" % kv for kv in best.items())
            line += "  kite/ncnn %.2f -> %.2f" % (best["kite_before"] / best["ncnn_before"], best["kite_after"] / best["ncnn_after"])
            if "tflite" in best:
                line += "  kite/TFLite %.2f -> %.2f" % (best["kite_before"] / best["tflite"], best["kite_after"] / best["tflite"])
            print(line, flush=True)
    for tag in ("tf", "tflite_fp32"):
        ks = [k for k in res if k.endswith(" " + tag)]
        if not ks:
            continue
        b = [res[k]["kite_before"] / res[k]["ncnn_before"] for k in ks]
        a = [res[k]["kite_after"] / res[k]["ncnn_after"] for k in ks]
        line = "%-11s geomean kite/ncnn %.2f (max %.2f) -> %.2f (max %.2f)" % (tag, geomean(b), max(b), geomean(a), max(a))
        if tag != "tf":
            b = [res[k]["kite_before"] / res[k]["tflite"] for k in ks]
            a = [res[k]["kite_after"] / res[k]["tflite"] for k in ks]
            line += ", kite/TFLite %.2f (max %.2f) -> %.2f (max %.2f)" % (geomean(b), max(b), geomean(a), max(a))
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
