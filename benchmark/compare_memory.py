#!/usr/bin/env python3
"""Peak resident memory of kite vs ncnn on the same graphs, same arguments.

Each graph runs in a fresh process per side, one after the other:

- kite: `benchkite LOOPS THREADS 0 -1 0 param=G shape=S mem=1` (zero weights,
  light mode, benchncnn's pool allocators). mem=1 resets the process's peak RSS
  (/proc/self/clear_refs) just before load_param and prints the peak during
  load + warm-up + timed runs minus the resident size just before the load.
- ncnn: this script again as a child (`--ncnn-child`), pip `ncnn`: after
  `import ncnn, numpy` it resets the peak RSS the same way, reads VmRSS, then
  loads the same .param with zero weights (DataReaderFromEmpty), runs the same
  warm-up and loop count on the same input with the same thread count and the
  options benchncnn sets (light mode, UnlockedPoolAllocator / PoolAllocator
  with size compare ratio 0, Winograd, sgemm, int8, packing layout, fp16
  storage/arithmetic as --ncnn-fp16 says) and reads VmHWM.

Both figures are "peak RSS of the net": the interpreter, the libraries and
their start-up are excluded the same way on both sides. The processes' whole
peaks (/usr/bin/time's %M) are printed too, for reference.

  python3 benchmark/compare_memory.py --benchkite build/benchmark/benchkite \\
      --models ../shared/models/ncnn --threads 2
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_ncnn import read_shapes  # noqa: E402,F401


def status_kb(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return -1


def reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def run_child(cmd):
    """Runs cmd (under /usr/bin/time where it exists, for the process peak); returns (stdout, stderr, returncode)."""
    if cmd[0] == "/usr/bin/time" and not os.path.exists(cmd[0]):
        cmd = cmd[3:]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    return p.stdout, p.stderr, p.returncode


def kite_memory(benchkite, param, shape, threads, loops, extra=()):
    cmd = ["/usr/bin/time", "-f", "TIME_MAXRSS_KB=%M", benchkite, str(loops), str(threads), "0", "-1", "0",
           "param=" + param, "shape=[%s]" % ",".join(str(v) for v in shape), "mem=1"] + list(extra)
    out, err, rc = run_child(cmd)
    m = re.search(r"peak_rss = ([\d.]+) MB\s+\(before load ([\d.]+) MB, process peak ([\d.]+) MB\)", out)
    if rc != 0 or not m:
        raise RuntimeError("benchkite failed on %s: %s" % (param, (err or out).strip()[-300:]))
    t = re.search(r"TIME_MAXRSS_KB=(\d+)", err)
    return float(m.group(1)), float(t.group(1)) / 1024.0 if t else float(m.group(3))


def ncnn_memory(param, shape, threads, loops, warmup, fp16):
    cmd = ["/usr/bin/time", "-f", "TIME_MAXRSS_KB=%M", sys.executable, os.path.abspath(__file__), "--ncnn-child",
           param, ",".join(str(v) for v in shape), str(threads), str(loops), str(warmup), str(fp16)]
    out, err, rc = run_child(cmd)
    if rc != 0 or not out.strip():
        raise RuntimeError("ncnn failed on %s: %s" % (param, (err or out).strip()[-300:]))
    r = json.loads(out.strip().splitlines()[-1])
    t = re.search(r"TIME_MAXRSS_KB=(\d+)", err)
    return (r["hwm_kb"] - r["rss_before_kb"]) / 1024.0, float(t.group(1)) / 1024.0 if t else r["hwm_kb"] / 1024.0


def ncnn_child(param, shape, threads, loops, warmup, fp16):
    import ncnn
    import numpy as np
    w, h, c = shape
    reset_peak()
    rss_before = status_kb("VmRSS")
    blob_pool = ncnn.UnlockedPoolAllocator()
    blob_pool.set_size_compare_ratio(0.0)
    workspace_pool = ncnn.PoolAllocator()
    workspace_pool.set_size_compare_ratio(0.0)
    net = ncnn.Net()
    opt = net.opt
    opt.lightmode = True
    opt.num_threads = threads
    opt.blob_allocator = blob_pool
    opt.workspace_allocator = workspace_pool
    opt.use_winograd_convolution = True
    opt.use_sgemm_convolution = True
    opt.use_int8_inference = True
    opt.use_vulkan_compute = False
    opt.use_packing_layout = True
    opt.use_fp16_packed = fp16 >= 1
    opt.use_fp16_storage = fp16 >= 1
    opt.use_fp16_arithmetic = fp16 >= 2
    opt.use_bf16_storage = False
    if net.load_param(param) != 0:
        raise SystemExit("ncnn cannot load " + param)
    net.load_model(ncnn.DataReaderFromEmpty())
    data = ncnn.Mat(np.full((c, h, w), 0.01, dtype=np.float32))
    inputs = net.input_names()
    outputs = net.output_names()
    for _ in range(warmup + loops):
        ex = net.create_extractor()
        ex.input(inputs[0], data)
        for o in outputs:
            ex.extract(o)
        del ex
    print(json.dumps({"rss_before_kb": rss_before, "hwm_kb": status_kb("VmHWM")}))
    sys.stdout.flush()
    # no teardown: the pools would be destroyed before the net's last blobs
    # are released (ncnn then prints "still in use" and may crash)
    os._exit(0)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--ncnn-child":
        a = sys.argv[2:]
        ncnn_child(a[0], [int(v) for v in a[1].split(",")], int(a[2]), int(a[3]), int(a[4]), int(a[5]))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--benchkite", required=True)
    ap.add_argument("--models", required=True, help="folder of .param files with shapes.txt")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--loops", type=int, default=4, help="timed runs (benchkite's and benchncnn's default: 4)")
    ap.add_argument("--warmup", type=int, default=8, help="warm-up runs (benchkite's and benchncnn's: 8)")
    ap.add_argument("--ncnn-fp16", type=int, nargs="+", default=[0, 2], choices=[0, 1, 2],
                    help="ncnn's fp16 options, one column each, the ratio against the first: 0 off (fp32 as kite "
                         "runs by default and as compare_ncnn.py times ncnn), 1 storage, 2 storage and arithmetic "
                         "(what benchncnn sets; on x86 only some layers use it, with F16C); default 0 2")
    ap.add_argument("--kite-arg", action="append", default=[], help="extra benchkite argument (fp16=1, ...)")
    ap.add_argument("-k", default="", help="only graphs whose name matches this regular expression")
    args = ap.parse_args()

    shapes = read_shapes(args.models)
    names = sorted(n for n in shapes if re.search(args.k, n))
    # benchkite keeps InnerProduct weights in fp16 by default (fp16w=1, as ncnn's fp16 storage does
    # on x86): against ncnn fp32 (the first column fp16=0) it runs fp32 weights too
    if not any(a.startswith("fp16w=") for a in args.kite_arg):
        args.kite_arg = args.kite_arg + ["fp16w=%d" % (1 if args.ncnn_fp16[0] >= 1 else 0)]
    print("%d threads, loop count %d after %d warm-up runs%s\n"
          % (args.threads, args.loops, args.warmup, "; benchkite " + " ".join(args.kite_arg) if args.kite_arg else ""))
    fp16 = args.ncnn_fp16
    print("| graph | kite MB | " + " | ".join("ncnn fp16=%d MB" % f for f in fp16) + " | kite/ncnn (fp16=%d) | "
          % fp16[0] + " | ".join("kite/ncnn (fp16=%d)" % f for f in fp16[1:]) + (" | " if len(fp16) > 1 else "")
          + "kite process MB | ncnn process MB |")
    print("|---|" + "---:|" * (2 * len(fp16) + 3))
    logs = [[] for _ in fp16]
    above = []
    for name in names:
        param = os.path.join(args.models, name + ".param")
        try:
            k, kp = kite_memory(args.benchkite, param, shapes[name], args.threads, args.loops, args.kite_arg)
            ns = [ncnn_memory(param, shapes[name], args.threads, args.loops, args.warmup, f) for f in fp16]
        except Exception as e:  # report and go on with the other graphs
            print("| %s | error: %s |" % (name, str(e).replace("|", "/").replace("\n", " ")[:160]))
            continue
        ratios = [k / n if n > 0 else float("inf") for n, _ in ns]
        if ratios[0] > 1.0:
            above.append(name)
        for i, r in enumerate(ratios):
            logs[i].append(math.log(r))
        print("| %s | %.1f | %s | %s | %.1f | %.1f |" % (name, k, " | ".join("%.1f" % n for n, _ in ns),
                                                          " | ".join("%.2f" % r for r in ratios), kp, ns[0][1]))
        sys.stdout.flush()
    if logs[0]:
        cells = ["**geometric mean**", ""] + [""] * len(fp16) + [
            "**%.2f**" % math.exp(sum(l) / len(l)) for l in logs] + ["", ""]
        print("| " + " | ".join(cells) + " |")
        print("\n%d of %d graphs above 1.0 against ncnn fp16=%d%s" % (len(above), len(logs[0]), fp16[0],
                                                                 (": " + ", ".join(above)) if above else ""))

if __name__ == "__main__":
    main()
