#!/usr/bin/env python3
"""kite vs ncnn on the same graphs, same machine, same thread count, same run.

For every graph: benchkite (zero weights, as benchncnn does) and ncnn's Python
package (pip `ncnn`, zero weights through DataReaderFromEmpty, fp32 as kite
runs by default) are timed with the same loop count after the same warm-up.
Prints a markdown table with the ratio time(kite)/time(ncnn) per graph and the
geometric mean.

  python3 benchmark/compare_ncnn.py --benchkite build/benchmark/benchkite \
      --models ../shared/models/ncnn --threads 1 2 --loops 8
"""
import argparse
import math
import os
import re
import subprocess
import sys
import time


def read_shapes(models_dir):
    shapes = {}
    path = os.path.join(models_dir, "shapes.txt")
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2:
                shapes[parts[0]] = [int(v) for v in parts[1].strip("[]").split(",")]
    return shapes


def time_kite(benchkite, param, shape, threads, loops, gpu_device=-1, extra=(), env=None):
    cmd = [benchkite, str(loops), str(threads), "0", str(gpu_device), "0", "param=" + param,
           "shape=[%s]" % ",".join(str(v) for v in shape)] + list(extra)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, env=env)
    m = re.search(r"min =\s*([\d.]+)\s+max =\s*([\d.]+)\s+avg =\s*([\d.]+)", out.stdout)
    if out.returncode != 0 or not m:
        raise RuntimeError("benchkite failed on %s: %s" % (param, (out.stderr or out.stdout).strip()[-300:]))
    return float(m.group(1)), float(m.group(3))


def time_ncnn(param, shape, threads, loops, warmup, vulkan=False, fp16=0):
    import ncnn
    import numpy as np
    net = ncnn.Net()
    net.opt.use_vulkan_compute = vulkan
    net.opt.num_threads = threads
    # fp16=1: fp16 storage, 2: fp16 storage and arithmetic (ncnn's GPU defaults)
    net.opt.use_fp16_storage = fp16 >= 1
    net.opt.use_fp16_packed = fp16 >= 1
    net.opt.use_fp16_arithmetic = fp16 >= 2
    net.opt.use_bf16_storage = False
    if net.load_param(param) != 0:
        raise RuntimeError("ncnn cannot load " + param)
    net.load_model(ncnn.DataReaderFromEmpty())
    w, h, c = shape
    data = ncnn.Mat(np.zeros((c, h, w), dtype=np.float32))
    inputs = net.input_names()
    outputs = net.output_names()

    def run():
        ex = net.create_extractor()
        ex.input(inputs[0], data)
        for o in outputs:
            ex.extract(o)

    for _ in range(warmup):
        run()
    times = []
    for _ in range(loops):
        t0 = time.perf_counter()
        run()
        times.append((time.perf_counter() - t0) * 1000.0)
    return min(times), sum(times) / len(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--benchkite", required=True)
    ap.add_argument("--models", required=True, help="folder of .param files with shapes.txt")
    ap.add_argument("--threads", type=int, nargs="+", default=[1])
    ap.add_argument("--loops", type=int, default=8)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("-k", default="", help="only graphs whose name contains this")
    args = ap.parse_args()

    shapes = read_shapes(args.models)
    names = sorted(n for n in shapes if args.k in n)
    for threads in args.threads:
        print("\n### %d thread%s, loop count %d\n" % (threads, "" if threads == 1 else "s", args.loops))
        print("| graph | kite avg ms | ncnn avg ms | kite/ncnn |")
        print("|---|---:|---:|---:|")
        logs = []
        for name in names:
            param = os.path.join(args.models, name + ".param")
            try:
                _, kite_avg = time_kite(args.benchkite, param, shapes[name], threads, args.loops)
                _, ncnn_avg = time_ncnn(param, shapes[name], threads, args.loops, args.warmup)
            except Exception as e:  # report and go on with the other graphs
                print("| %s | error: %s | | |" % (name, str(e).replace("|", "/")[:120]))
                continue
            ratio = kite_avg / ncnn_avg
            logs.append(math.log(ratio))
            print("| %s | %.2f | %.2f | %.2f |" % (name, kite_avg, ncnn_avg, ratio))
            sys.stdout.flush()
        if logs:
            print("| **geometric mean** | | | **%.2f** |" % math.exp(sum(logs) / len(logs)))


if __name__ == "__main__":
    main()
