#!/usr/bin/env python3
"""First start on the GPU, kite next to ncnn: from the GPU runtime's creation
to the first output, cold (empty caches) and warm (the caches the cold run
filled), each side in a fresh process.

  python3 benchmark/gpu_start.py --benchkite build/benchmark/benchkite \
      --models ../shared/models/ncnn [--device 0] [-k NAME] [--fp16 0|1|2]

kite: benchkite with KITE_VULKAN_TIMING=1, start = Vulkan instance + device
("device init") + Net::load_model (the pipelines, from kite's pipeline cache
folder when warm, and the weights' upload) + the first forward (first_run).
ncnn: pip `ncnn` in a fresh Python process; after `import ncnn` (not timed):
create_gpu_instance, Net with use_vulkan_compute, load_param, load_model
(zero weights, as benchncnn), the first extract of every output. Both sides
point the NVIDIA driver's shader disk cache at one fresh folder per graph and
side (__GL_SHADER_DISK_CACHE_PATH), so cold is cold and warm may use what
the cold run left there, as an app's second start does. Zero weights on both
sides; the process's own start (exec, Python's import) is not counted on
either. Prints a markdown table.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_ncnn import read_shapes  # noqa: E402

NCNN_START = r"""
import sys, time
import numpy as np
import ncnn
param, w, h, c, fp16 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
data = np.zeros((c, h, w), dtype=np.float32)
t0 = time.perf_counter()
if hasattr(ncnn, "create_gpu_instance"):
    ncnn.create_gpu_instance()
net = ncnn.Net()
net.opt.use_vulkan_compute = True
net.opt.num_threads = 1
net.opt.use_fp16_storage = fp16 >= 1
net.opt.use_fp16_packed = fp16 >= 1
net.opt.use_fp16_arithmetic = fp16 >= 2
if net.load_param(param) != 0:
    sys.exit("ncnn cannot load " + param)
net.load_model(ncnn.DataReaderFromEmpty())
ex = net.create_extractor()
ex.input(net.input_names()[0], ncnn.Mat(data))
for o in net.output_names():
    ex.extract(o)
print("start_ms %.3f" % ((time.perf_counter() - t0) * 1000.0))
"""


def kite_start(benchkite, param, shape, device, fp16, folder):
    env = dict(os.environ)
    env["KITE_VULKAN_TIMING"] = "1"
    env["KITE_VULKAN_CACHE_DIR"] = os.path.join(folder, "kite")
    env["__GL_SHADER_DISK_CACHE_PATH"] = os.path.join(folder, "nv")
    os.makedirs(env["__GL_SHADER_DISK_CACHE_PATH"], exist_ok=True)
    cmd = [benchkite, "1", "1", "0", str(device), "0", "param=" + param,
           "shape=[%s]" % ",".join(str(v) for v in shape), "backend=vulkan", "fp16=%d" % fp16]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    text = out.stdout + out.stderr
    d = re.search(r"Vulkan timing: device init ([\d.]+) ms", text)
    m = re.search(r"load_model = ([\d.]+) ms", text)
    f = re.search(r"first_run = ([\d.]+) ms", text)
    if out.returncode != 0 or not (d and m and f):
        return float("nan")
    return float(d.group(1)) + float(m.group(1)) + float(f.group(1))


def ncnn_start(param, shape, fp16, folder):
    env = dict(os.environ)
    env["__GL_SHADER_DISK_CACHE_PATH"] = os.path.join(folder, "nv")
    os.makedirs(env["__GL_SHADER_DISK_CACHE_PATH"], exist_ok=True)
    w, h, c = shape
    out = subprocess.run([sys.executable, "-c", NCNN_START, param, str(w), str(h), str(c), str(fp16)],
                         capture_output=True, text=True, timeout=600, env=env)
    m = re.search(r"start_ms ([\d.]+)", out.stdout)
    return float(m.group(1)) if m else float("nan")


def fmt(v):
    return "-" if math.isnan(v) else "%.1f" % v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--benchkite", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--fp16", type=int, default=0, choices=[0, 1, 2])
    ap.add_argument("-k", default="", help="only graphs whose name contains this")
    ap.add_argument("--names", default="", help="only these graphs (comma-separated, exact names)")
    a = ap.parse_args()
    shapes = read_shapes(a.models)
    names = sorted(n for n in shapes if a.k in n)
    if a.names:
        wanted = a.names.split(",")
        missing = [n for n in wanted if n not in shapes]
        if missing:
            sys.exit("gpu_start.py: no such graph in %s: %s" % (a.models, ", ".join(missing)))
        names = [n for n in names if n in wanted]
    print("| graph | kite cold ms | kite warm ms | ncnn cold ms | ncnn warm ms | warm kite/ncnn |")
    print("|---|---:|---:|---:|---:|---:|")
    ratios = []
    for name in names:
        param = os.path.join(a.models, name + ".param")
        with tempfile.TemporaryDirectory() as kf, tempfile.TemporaryDirectory() as nf:
            kc = kite_start(a.benchkite, param, shapes[name], a.device, a.fp16, kf)
            kw = kite_start(a.benchkite, param, shapes[name], a.device, a.fp16, kf)
            nc = ncnn_start(param, shapes[name], a.fp16, nf)
            nw = ncnn_start(param, shapes[name], a.fp16, nf)
        r = kw / nw if nw > 0 and not math.isnan(kw) else float("nan")
        if not math.isnan(r):
            ratios.append(r)
        print("| %s | %s | %s | %s | %s | %s |" % (name, fmt(kc), fmt(kw), fmt(nc), fmt(nw),
                                                   "-" if math.isnan(r) else "%.2f" % r))
        sys.stdout.flush()
    if ratios:
        print("\nwarm start kite/ncnn geomean over %d graphs: %.2f; above 0.5: %d" % (
            len(ratios), math.exp(sum(math.log(r) for r in ratios) / len(ratios)), sum(r > 0.5 for r in ratios)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
