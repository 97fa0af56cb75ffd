#!/usr/bin/env python3
"""kite OpenCL next to kite Vulkan in the same run, plus OpenCL first starts.

  python3 benchmark/opencl_bench.py --benchkite build/benchmark/benchkite \
      --models ../shared/models/ncnn [--device 0] [--vulkan-device 0] [--loops 20]

For every graph of shapes.txt, one after the other in one process tree:
benchkite backend=opencl and backend=vulkan (zero weights, 1 CPU thread,
the same loops), the OpenCL/Vulkan ratio of the average times; then the
OpenCL first start of a fresh process (load_model, which builds or loads the
programs of the net's layers with weights, plus the first inference, which
builds the other programs the net uses and runs the first launches; programs
no layer of the net uses are never built) with empty
cache folders (cold), and again with the folders the cold run filled
(cached). Both runs point the driver's own compile caches (NVIDIA
CUDA_CACHE_PATH, PoCL POCL_CACHE_DIR) at the same fresh folder, so the cold
run cannot profit from earlier runs of the machine. Prints a markdown table.
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


def avg_ms(benchkite, param, shape, loops, device, backend):
    cmd = [benchkite, str(loops), "1", "0", str(device), "0", "param=" + param,
           "shape=[%s]" % ",".join(str(v) for v in shape), "backend=" + backend]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if "running on the CPU" in out.stderr:  # no such device or backend: not a GPU figure
        raise RuntimeError(out.stderr.strip()[-200:])
    m = re.search(r"avg =\s*([\d.]+)", out.stdout)
    if out.returncode != 0 or not m:
        raise RuntimeError((out.stderr or out.stdout).strip()[-300:])
    return float(m.group(1))


def first_start_ms(benchkite, param, shape, device, folder):
    env = dict(os.environ)
    env["KITE_OPENCL_CACHE_DIR"] = os.path.join(folder, "kite")
    env["CUDA_CACHE_PATH"] = os.path.join(folder, "nv")
    env["CUDA_CACHE_DISABLE"] = "0"
    env["POCL_CACHE_DIR"] = os.path.join(folder, "pocl")
    cmd = [benchkite, "1", "1", "0", str(device), "0", "param=" + param,
           "shape=[%s]" % ",".join(str(v) for v in shape), "backend=opencl"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, env=env)
    load = re.search(r"load_model = ([\d.]+) ms", out.stderr)
    first = re.search(r"first_run = ([\d.]+) ms", out.stderr)
    if out.returncode != 0 or not load or not first or "running on the CPU" in out.stderr:
        return float("nan"), float("nan")
    return float(load.group(1)), float(first.group(1))


def fmt(v, digits=2):
    return "-" if v is None or math.isnan(v) else "%.*f" % (digits, v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--benchkite", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--device", type=int, default=0, help="OpenCL device index")
    ap.add_argument("--vulkan-device", type=int, default=0)
    ap.add_argument("--loops", type=int, default=20)
    ap.add_argument("--no-vulkan", action="store_true")
    ap.add_argument("-k", default="")
    ap.add_argument("--no-start", action="store_true", help="time the forwards only, not the first starts")
    a = ap.parse_args()
    shapes = read_shapes(a.models)
    names = sorted(n for n in shapes if a.k in n)
    print("| graph | OpenCL avg ms | Vulkan avg ms | OpenCL/Vulkan | OpenCL cold start ms (load + 1st run) "
          "| cached start ms (load + 1st run) | cached/cold |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        param = os.path.join(a.models, name + ".param")
        shape = shapes[name]
        try:
            cl = avg_ms(a.benchkite, param, shape, a.loops, a.device, "opencl")
        except Exception as e:  # noqa: BLE001
            cl = float("nan")
            print("%s: OpenCL failed: %s" % (name, str(e).replace("\n", " ")[:300]), file=sys.stderr)
        vk = float("nan")
        if not a.no_vulkan:
            try:
                vk = avg_ms(a.benchkite, param, shape, a.loops, a.vulkan_device, "vulkan")
            except Exception as e:  # noqa: BLE001
                print("%s: Vulkan failed: %s" % (name, str(e).replace("\n", " ")[:300]), file=sys.stderr)
        cl0 = cf0 = cl1 = cf1 = float("nan")
        if not a.no_start:
            with tempfile.TemporaryDirectory() as folder:
                cl0, cf0 = first_start_ms(a.benchkite, param, shape, a.device, folder)
                cl1, cf1 = first_start_ms(a.benchkite, param, shape, a.device, folder)
        cold, cached = cl0 + cf0, cl1 + cf1
        print("| %s | %s | %s | %s | %s (%s + %s) | %s (%s + %s) | %s |" % (
            name, fmt(cl), fmt(vk), fmt(cl / vk if vk > 0 else float("nan")),
            fmt(cold, 1), fmt(cl0, 1), fmt(cf0, 1), fmt(cached, 1), fmt(cl1, 1), fmt(cf1, 1),
            fmt(cached / cold if cold > 0 else float("nan"))))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
