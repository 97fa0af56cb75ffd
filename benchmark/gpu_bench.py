#!/usr/bin/env python3
"""kite on the GPU next to ncnn's Vulkan, plus kite's first-start times.

  python3 benchmark/gpu_bench.py --benchkite build/benchmark/benchkite \
      --models ../shared/models/ncnn [--device 0] [--loops 20] [--backend vulkan] [--fp16 0|1|2]

For every graph of shapes.txt: benchkite with the GPU device (zero weights,
as benchncnn) and, for Vulkan, ncnn's pip package with use_vulkan_compute in
the same run (fp32 storage on both sides; --fp16 1 gives both fp16 storage,
--fp16 2 also fp16 arithmetic, ncnn's own GPU default); then kite's load_model time
(create_pipeline of the whole net: weights prepared and uploaded, every
layer's pipelines) in a fresh process with an empty pipeline cache folder
(cold) and again with the folder the cold run filled (warm). The GPU device
(Vulkan instance + device, OpenCL context) is created before, when the param
is loaded: Vulkan's is shown on its own (KITE_VULKAN_TIMING's "device init")
and in "start" = device + load_model, the whole first start of a process.
warm/cold is load_model's ratio (the issue's create_pipeline metric); start
warm/cold the ratio with the device included. Prints a markdown table.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_ncnn import read_shapes, time_kite, time_ncnn  # noqa: E402


def load_ms(benchkite, param, shape, device, backend, cache_dir):
    """(load_model ms, device creation ms or nan)"""
    env = dict(os.environ)
    env["KITE_VULKAN_TIMING"] = "1"
    env["KITE_VULKAN_CACHE_DIR"] = cache_dir
    env["KITE_OPENCL_CACHE_DIR"] = cache_dir
    # NVIDIA's driver keeps its own shader cache on disk, which would make a
    # "cold" run warm after the first: off, so only kite's cache counts
    env["__GL_SHADER_DISK_CACHE"] = "0"
    cmd = [benchkite, "1", "1", "0", str(device), "0", "param=" + param,
           "shape=[%s]" % ",".join(str(v) for v in shape), "backend=" + backend]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, env=env)
    m = re.search(r"load_model = ([\d.]+) ms", out.stderr)
    d = re.search(r"Vulkan timing: device init ([\d.]+) ms", out.stderr)
    return (float(m.group(1)) if m else float("nan")), (float(d.group(1)) if d else float("nan"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--benchkite", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--backend", default="vulkan", choices=["vulkan", "opencl"])
    ap.add_argument("--loops", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--no-ncnn", action="store_true")
    ap.add_argument("--fp16", type=int, default=0, choices=[0, 1, 2])
    ap.add_argument("-k", default="")
    a = ap.parse_args()
    shapes = read_shapes(a.models)
    names = sorted(n for n in shapes if a.k in n)
    print("| graph | kite %s avg ms | ncnn vulkan avg ms | kite/ncnn | load cold ms | load warm ms | warm/cold "
          "| device cold ms | device warm ms | start cold ms | start warm ms | start warm/cold |" % a.backend)
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        param = os.path.join(a.models, name + ".param")
        shape = shapes[name]
        try:
            _, kite = time_kite(a.benchkite, param, shape, 1, a.loops, a.device, ["backend=" + a.backend, "fp16=%d" % a.fp16])
        except Exception as e:  # noqa: BLE001
            print("| %s | failed: %s |" % (name, str(e).replace("\n", " ")[:200]))
            continue
        ncnn_s, ratio = "-", "-"
        if a.backend == "vulkan" and not a.no_ncnn:
            try:
                _, nc = time_ncnn(param, shape, 1, a.loops, a.warmup, vulkan=True, fp16=a.fp16)
                ncnn_s, ratio = "%.2f" % nc, "%.2f" % (kite / nc)
            except Exception as e:  # noqa: BLE001
                ncnn_s = "failed: " + str(e)[:80]
        with tempfile.TemporaryDirectory() as cache:
            cold, dcold = load_ms(a.benchkite, param, shape, a.device, a.backend, cache)
            warm, dwarm = load_ms(a.benchkite, param, shape, a.device, a.backend, cache)
        scold, swarm = cold + dcold, warm + dwarm  # nan without the device figure (OpenCL)
        print("| %s | %.2f | %s | %s | %.1f | %.1f | %.2f | %.1f | %.1f | %.1f | %.1f | %.2f |" % (
            name, kite, ncnn_s, ratio, cold, warm, warm / cold if cold > 0 else float("nan"),
            dcold, dwarm, scold, swarm, swarm / scold if scold > 0 else float("nan")))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
