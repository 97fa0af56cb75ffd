#!/usr/bin/env python3
"""kite on the GPU next to ncnn's Vulkan, plus kite's first-start times.

  python3 benchmark/gpu_bench.py --benchkite build/benchmark/benchkite \
      --models ../shared/models/ncnn [--device 0] [--loops 20] [--backend vulkan] [--fp16 0|1|2]

For every graph of shapes.txt: benchkite with the GPU device (zero weights,
as benchncnn) and, for Vulkan, ncnn's pip package with use_vulkan_compute in
the same run (fp32 storage on both sides; --fp16 1 gives both fp16 storage,
--fp16 2 also fp16 arithmetic, ncnn's own GPU default); then kite's first
start in a fresh process with an empty pipeline cache folder (cold) and again
with the folder the cold run filled (warm), three figures each:
  create_pipeline  every layer's create_pipeline (the GPU pipelines: what
                   the cache saves; the weights' device buffers bound; the
                   issue's first-start metric), Net::load_times(); on Vulkan
                   the weight layouts (Winograd filters, conv_pack4 order,
                   fp16 conversion) are not built here but at the end of
                   load_model, straight into the mapped memory, in parallel
                   on every core, and counted in load_model's upload;
  load_model       the whole Net::load_model: the weights read (zeros here),
                   create_pipeline, and the upload: the layouts built and the
                   weights transferred to the device, which no cache can save
                   (a large model's warm start is mostly this:
                   vision_transformer's 340 MB);
  start            Vulkan's instance + device (KITE_VULKAN_TIMING's "device
                   init", created when the param is loaded) + load_model: the
                   whole first start of a process.
Prints a markdown table.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_ncnn import read_shapes, time_kite, time_ncnn  # noqa: E402


def load_ms(benchkite, param, shape, device, backend, cache_dir, fp16):
    """(create_pipeline ms, load_model ms, device creation ms or nan)"""
    env = dict(os.environ)
    env["KITE_VULKAN_TIMING"] = "1"
    env["KITE_VULKAN_CACHE_DIR"] = cache_dir
    env["KITE_OPENCL_CACHE_DIR"] = cache_dir
    # NVIDIA's driver keeps its own shader cache on disk, which would make a
    # "cold" run warm after the first: off, so only kite's cache counts
    env["__GL_SHADER_DISK_CACHE"] = "0"
    cmd = [benchkite, "1", "1", "0", str(device), "0", "param=" + param,
           "shape=[%s]" % ",".join(str(v) for v in shape), "backend=" + backend, "fp16=%d" % fp16]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, env=env)
    m = re.search(r"load_model = ([\d.]+) ms", out.stderr)
    p = re.search(r"load_model = [\d.]+ ms \(weights [\d.]+, create_pipeline ([\d.]+)", out.stderr)
    d = re.search(r"Vulkan timing: device init ([\d.]+) ms", out.stderr)
    nan = float("nan")
    return (float(p.group(1)) if p else nan), (float(m.group(1)) if m else nan), (float(d.group(1)) if d else nan)


def ratio(warm, cold):
    return warm / cold if cold > 0 else float("nan")


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
    ap.add_argument("--no-start", action="store_true", help="time the forwards only, not the cold/warm starts")
    a = ap.parse_args()
    shapes = read_shapes(a.models)
    names = sorted(n for n in shapes if a.k in n)
    if a.no_start:
        print("| graph | kite %s avg ms | ncnn vulkan avg ms | kite/ncnn |" % a.backend)
        print("|---|---|---|---|")
    else:
        print("| graph | kite %s avg ms | ncnn vulkan avg ms | kite/ncnn | create_pipeline cold / warm ms | warm/cold "
          "| load_model cold / warm ms | warm/cold | device cold / warm ms | start cold / warm ms | warm/cold |" % a.backend)
        print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        param = os.path.join(a.models, name + ".param")
        shape = shapes[name]
        try:
            _, kite = time_kite(a.benchkite, param, shape, 1, a.loops, a.device, ["backend=" + a.backend, "fp16=%d" % a.fp16])
        except Exception as e:  # noqa: BLE001
            print("| %s | failed: %s |" % (name, str(e).replace("\n", " ")[:200]))
            continue
        ncnn_s, speed = "-", "-"
        if a.backend == "vulkan" and not a.no_ncnn:
            try:
                _, nc = time_ncnn(param, shape, 1, a.loops, a.warmup, vulkan=True, fp16=a.fp16)
                ncnn_s, speed = "%.2f" % nc, "%.2f" % (kite / nc)
            except Exception as e:  # noqa: BLE001
                ncnn_s = "failed: " + str(e)[:80]
        if a.no_start:
            print("| %s | %.2f | %s | %s |" % (name, kite, ncnn_s, speed))
            sys.stdout.flush()
            continue
        with tempfile.TemporaryDirectory() as cache:
            pcold, cold, dcold = load_ms(a.benchkite, param, shape, a.device, a.backend, cache, a.fp16)
            pwarm, warm, dwarm = load_ms(a.benchkite, param, shape, a.device, a.backend, cache, a.fp16)
        scold, swarm = cold + dcold, warm + dwarm  # nan without the device figure (OpenCL)
        print("| %s | %.2f | %s | %s | %.1f / %.1f | %.2f | %.1f / %.1f | %.2f | %.1f / %.1f | %.1f / %.1f | %.2f |" % (
            name, kite, ncnn_s, speed, pcold, pwarm, ratio(pwarm, pcold), cold, warm, ratio(warm, cold),
            dcold, dwarm, scold, swarm, ratio(swarm, scold)))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
