#!/usr/bin/env python3
"""Two benchkite binaries (before / after a change) and onnxruntime on the same
converted models, 1 thread, user CPU time per inference (the machine may be
shared: CPU time, not wall time), as benchmark/arch_bench.py measures it:
benchkite (user(1 + n loops) - user(1 loop)) / n, the 1-loop figure the median
of three; onnxruntime (1 intra-op thread, all graph optimisations) the
worker's user time around n runs after 8 warm-ups; best of --rounds, the
three sides interleaved per round.

  python3 benchmark/ort_cpu_ratio.py --dir /tmp/arch --before OLD/benchkite \
      --after build/benchmark/benchkite --models convnext_tiny:14 vit_b_16:6

DIR holds NAME.opt.param (arch_bench.py / export_torchvision.py + kiteoptimize)
and NAME.onnx; NAME:N runs N timed inferences.
"""
import argparse
import resource
import subprocess
import sys

ORT = """
import onnxruntime as ort, numpy as np, resource, sys
so = ort.SessionOptions(); so.intra_op_num_threads = 1; so.inter_op_num_threads = 1
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
s = ort.InferenceSession(sys.argv[1], so, providers=["CPUExecutionProvider"])
i = s.get_inputs()[0]
x = np.random.default_rng(0).uniform(0, 1, [int(d) for d in i.shape]).astype(np.float32)
for _ in range(8): s.run(None, {i.name: x})
n = int(sys.argv[2]); r0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
for _ in range(n): s.run(None, {i.name: x})
print((resource.getrusage(resource.RUSAGE_SELF).ru_utime - r0) / n * 1000)
"""


def user_cpu(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - r0


def kite_ms(bench, param, n):
    one = sorted(user_cpu([bench, "1", "1", "0", "-1", "0", "param=" + param]) for _ in range(3))[1]
    full = user_cpu([bench, str(1 + n), "1", "0", "-1", "0", "param=" + param])
    return (full - one) / n * 1000.0


def ort_ms(onnx, n):
    out = subprocess.run([sys.executable, "-c", ORT, onnx, str(n)], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--models", nargs="+", required=True, help="NAME:N")
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    print("| model | before ms | after ms | onnxruntime ms | before/ort | after/ort | after/before |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for spec in a.models:
        name, n = spec.split(":") if ":" in spec else (spec, "10")
        n = int(n)
        param, onnx = "%s/%s.opt.param" % (a.dir, name), "%s/%s.onnx" % (a.dir, name)
        b, f, o = [], [], []
        for _ in range(a.rounds):
            b.append(kite_ms(a.before, param, n))
            f.append(kite_ms(a.after, param, n))
            o.append(ort_ms(onnx, n))
        b, f, o = min(b), min(f), min(o)
        print("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |" % (name, b, f, o, b / o, f / o, f / b), flush=True)


if __name__ == "__main__":
    main()
