#!/usr/bin/env python3
"""Architectures kite has not been tuned on: torchvision models converted by onnx2kite,
timed against ncnn's benchncnn on the same .param and against onnxruntime on the .onnx.

Step 1 (needs torch + torchvision): tests/convert/onnx/export_torchvision.py exports each
model (random weights, seed 0, eval mode, torch.onnx.export opset 17), converts it with
onnx2kite and compares kiterun's logits with onnxruntime's (max abs diff relative to the
output range); its log is kept as DIR/export.log and read back for the table. Skipped
for the models whose DIR/NAME.param already exists (--reexport to redo them).

Step 2: kiteoptimize (fusion, fp32 weights) -> DIR/NAME.opt.param/.bin, the file both
engines run (a user deploys the fused graph; ncnn loads kite's param format).

Step 3: `kiterun NAME.opt.param random placement=1` (1 thread, the machine's best ISA):
the layers on cpu:reference outside tests/placement/reference_rows.txt's allowed types.

Step 4: user CPU time (rusage; system time left out, see user_cpu) per inference at --threads (default 1) of
benchkite, benchncnn (same command line, zero weights, the converted input shape) and
onnxruntime (intra/inter-op threads = --threads, all graph optimisations, random input):
for the two bench programs (cpu(1 + n loops) - cpu(1 loop)) / n as
benchmark/compare_benchncnn.py --cpu does (the 1-loop figure the median of three runs), for onnxruntime the process's rusage around n
runs after 8 warm-up runs; the same n on all three sides (about --cpu-seconds of the
slowest, at least 10), the order of the sides rotating per round, best of --rounds. CPU time, not
wall time: the machine is shared, and other processes' load does not enter the figure
(at 1 thread; at more threads CPU time also counts the spinning of idle workers).

  python3 benchmark/arch_bench.py --dir /tmp/arch --onnx2kite build/tools/onnx/onnx2kite \
      --kiterun build/tools/kiterun --kiteoptimize build/tools/optimize/kiteoptimize \
      --benchkite build/benchmark/benchkite \
      --benchncnn /work/peers/ncnn/build/benchmark/benchncnn [--models NAME[@SIZE] ...] \
      [--rounds 2] [--json out.json]
  python3 benchmark/arch_bench.py --dir /tmp/arch --table-from part1.json part2.json ...
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "placement"))
import compare_benchncnn  # noqa: E402
import check_placement  # noqa: E402

MODELS = ["alexnet", "convnext_tiny", "deeplabv3_mobilenet_v3_large", "densenet121", "efficientnet_b3",
          "efficientnet_v2_s", "googlenet", "inception_v3@299", "lraspp_mobilenet_v3_large", "mnasnet1_0",
          "mobilenet_v3_large", "regnet_x_400mf", "regnet_y_400mf", "resnet50", "resnext50_32x4d",
          "shufflenet_v2_x0_5", "squeezenet1_0", "swin_t", "vgg11_bn", "vit_b_16", "wide_resnet50_2"]

RE_EXPORT = re.compile(r"^(ok  |FAIL) (\S+?): (.*)$")


def ort_worker(onnx_path, threads, n):
    """child process: CPU ms per inference of onnxruntime on onnx_path"""
    import numpy as np
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(onnx_path, so, providers=["CPUExecutionProvider"])
    inp = sess.get_inputs()[0]
    x = np.random.default_rng(0).uniform(0, 1, [int(d) for d in inp.shape]).astype(np.float32)
    for _ in range(8):
        sess.run(None, {inp.name: x})
    t0 = time.perf_counter()
    sess.run(None, {inp.name: x})
    one = (time.perf_counter() - t0) * 1000.0
    if n <= 0:
        print("est_ms %.3f" % one)
        return
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(n):
        sess.run(None, {inp.name: x})
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = r1.ru_utime - r0.ru_utime  # user time, as the bench programs
    print("cpu_ms %.4f" % (cpu * 1000.0 / n))


def run_ort(onnx_path, threads, n):
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--ort-worker", onnx_path, str(threads), str(n)],
                       capture_output=True, text=True, timeout=1800)
    m = re.search(r"(est_ms|cpu_ms) ([\d.]+)", p.stdout)
    if p.returncode != 0 or not m:
        raise RuntimeError("onnxruntime failed on %s: %s" % (onnx_path, (p.stderr or p.stdout).strip()[-300:]))
    return float(m.group(2))


def user_cpu(binary, param, shape, threads, loops):
    """user CPU seconds of one whole bench process (os.wait4's rusage). System time is left
    out: on the loaded machine it varied 0.04-0.26 s between identical runs (page zeroing
    at load), while user time stayed within 0.01 s; both programs draw their blobs and
    workspace from pools, so an inference spends no system time of its own"""
    proc = subprocess.Popen(compare_benchncnn.bench_cmd(binary, param, shape, threads, loops), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    out = proc.stdout.read()
    _, status, ru = os.wait4(proc.pid, 0)
    m = compare_benchncnn.RE_TIME.search(out)
    # benchncnn prints a line of zeros for a graph it could not build
    # ("layer MatMul not exists or registered", "network graph not ready")
    if status != 0 or not m or float(m.group(2)) == 0.0 or "not exists or registered" in out or "graph not ready" in out:
        why = [ln for ln in out.splitlines() if "not exists" in ln or "not ready" in ln or "failed" in ln]
        raise RuntimeError("%s failed on %s: %s" % (os.path.basename(binary), os.path.basename(param),
                                                   "; ".join(why) if why else out.strip()[-300:]))
    return ru.ru_utime


def bench_cpu_ms(binary, param, shape, threads, n, base):
    """user CPU ms of one inference: (cpu(1 + n loops) - base) / n, base the median user time of
    three 1-loop processes (load and the 8 warm-up runs cancel)"""
    return (user_cpu(binary, param, shape, threads, 1 + n) - base) * 1000.0 / n


def read_export_log(path):
    """NAME -> (ok, text) from export_torchvision.py's lines"""
    res = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                m = RE_EXPORT.match(line.rstrip())
                if m and " after kiteoptimize" not in m.group(2):
                    res[m.group(2)] = (m.group(1) == "ok  ", m.group(3))
    return res


def placement(kiterun, param, allowed):
    rows, err = check_placement.run_graph(os.path.abspath(kiterun), param, None, None, 1)
    if err:
        return "error: " + err
    ref = {}
    for _, typ, _, row, _ in rows:
        if row == "cpu:reference" and typ not in allowed:
            ref[typ] = ref.get(typ, 0) + 1
    return "ok" if not ref else "reference: " + ", ".join("%s x%d" % kv for kv in sorted(ref.items()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True, help="work folder for the .onnx/.param/.bin (not committed)")
    ap.add_argument("--onnx2kite")
    ap.add_argument("--kiterun")
    ap.add_argument("--kiteoptimize")
    ap.add_argument("--benchkite")
    ap.add_argument("--benchncnn")
    ap.add_argument("--models", nargs="*", default=MODELS, help="NAME or NAME@SIZE (inception_v3@299)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--cpu-seconds", type=float, default=2.0,
                    help="about this much CPU time per side, graph and round beyond the warm-up (the 1-loop process's CPU time is subtracted: its variation over n inferences is the error)")
    ap.add_argument("--reexport", action="store_true")
    ap.add_argument("--no-bench", action="store_true", help="steps 1-3 only (ctest arch_placement)")
    ap.add_argument("--clean", action="store_true", help="delete --dir when every model passed")
    ap.add_argument("--json", default="")
    ap.add_argument("--table-from", nargs="*", default=[],
                    help="print one table from these --json files (runs split over several processes) and exit")
    args = ap.parse_args()
    if args.table_from:
        rec = {}
        for path in args.table_from:
            with open(path) as f:
                rec.update(json.load(f))
        names = sorted(rec)
        print_table(args, names, rec)
        return 0
    if not (args.kiterun and args.kiteoptimize):
        ap.error("--kiterun and --kiteoptimize are needed")
    if not args.no_bench and not (args.benchkite and args.benchncnn):
        ap.error("--benchkite and --benchncnn are needed without --no-bench")

    os.makedirs(args.dir, exist_ok=True)
    names = [m.partition("@")[0] for m in args.models]
    todo = [m for m in args.models if args.reexport or not os.path.exists(os.path.join(args.dir, m.partition("@")[0] + ".param"))]
    log = os.path.join(args.dir, "export.log")
    if todo:
        if not args.onnx2kite:
            sys.exit("--onnx2kite is needed to export %s" % " ".join(todo))
        try:
            import torch  # noqa: F401
            import torchvision  # noqa: F401
        except ImportError as e:  # CI has no torch (tests/convert/onnx/README.md)
            print("SKIP: %s (the exports need torch and torchvision)" % e)
            return 77
        cmd = [sys.executable, os.path.join(ROOT, "tests", "convert", "onnx", "export_torchvision.py"),
               "--onnx2kite", args.onnx2kite, "--kiterun", args.kiterun, "--out", args.dir, "--threads", "2",
               "--models"] + todo
        print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
        p = subprocess.run(cmd, capture_output=True, text=True)
        with open(log, "a") as f:
            f.write(p.stdout)
        sys.stderr.write(p.stdout)
    exported = read_export_log(log)

    allowed, _, _ = check_placement.read_data(os.path.join(ROOT, "tests", "placement", "reference_rows.txt"), "x86")
    rec = {}
    for name in names:
        param, binf = os.path.join(args.dir, name + ".param"), os.path.join(args.dir, name + ".bin")
        r = rec[name] = {"export": exported.get(name, (False, "not exported"))[1],
                         "export_ok": exported.get(name, (False, ""))[0]}
        if not os.path.exists(param):
            continue
        oparam, obin = os.path.join(args.dir, name + ".opt.param"), os.path.join(args.dir, name + ".opt.bin")
        if not os.path.exists(oparam) or os.path.getmtime(oparam) < os.path.getmtime(param):
            p = subprocess.run([args.kiteoptimize, param, binf, oparam, obin], capture_output=True, text=True)
            if p.returncode != 0:
                r["error"] = "kiteoptimize: " + p.stderr.strip()[-200:]
                continue
        c, h, w = __import__("numpy").load(os.path.join(args.dir, name + "_in.npy")).shape
        r["shape"] = "[%d,%d,%d]" % (w, h, c)
        r["placement"] = placement(args.kiterun, oparam, allowed)
        print("%-30s %s  placement %s  %s" % (name, r["shape"], r["placement"], r["export"]), file=sys.stderr, flush=True)

    if not args.no_bench:
        for name in names:
            r = rec[name]
            if "shape" not in r:
                continue
            oparam = os.path.join(args.dir, name + ".opt.param")
            onnx_path = os.path.join(args.dir, name + ".onnx")
            base = {}
            sides = [("kite", lambda n: bench_cpu_ms(args.benchkite, oparam, r["shape"], args.threads, n, base["kite"])),
                     ("ncnn", lambda n: bench_cpu_ms(args.benchncnn, oparam, r["shape"], args.threads, n, base["ncnn"])),
                     ("ort", lambda n: run_ort(onnx_path, args.threads, n))]
            # n from CPU time, not wall time (a loaded machine stretches the wall
            # several times): a bench process of 1 loop runs 9 inferences after
            # its load, so its CPU time / 9 bounds one inference from above
            est = 0.0
            for side, binary in [("kite", args.benchkite), ("ncnn", args.benchncnn)]:
                try:
                    base[side] = sorted(user_cpu(binary, oparam, r["shape"], args.threads, 1) for _ in range(3))[1]
                    est = max(est, base[side] * 1000.0 / 9)
                except Exception as e:  # benchncnn cannot load it: say why, time the others
                    r[side + "_error"] = str(e).replace("\n", " ")[-300:]
            try:
                run_ort(onnx_path, args.threads, 0)
            except Exception as e:
                r["ort_error"] = str(e)[-300:]
            n = max(10, int(args.cpu_seconds * 1000.0 / max(est, 0.05)))
            r["n"] = n
            for rnd in range(args.rounds):
                order = sides[rnd % 3:] + sides[:rnd % 3]
                for side, fn in order:
                    if side + "_error" in r:
                        continue
                    try:
                        t = fn(n)
                    except Exception as e:
                        r[side + "_error"] = str(e).replace("\n", " ")[-300:]
                        continue
                    if t > 0:
                        r[side] = min(r.get(side, t), t)
                        r.setdefault(side + "_runs", []).append(t)
            print("  %-30s n %3d  kite %s  ncnn %s  ort %s" % (name, n, r.get("kite"), r.get("ncnn"), r.get("ort")),
                  file=sys.stderr, flush=True)

    print_table(args, names, rec)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rec, f, indent=1)
    bad = [n for n in names if not rec[n].get("export_ok") or rec[n].get("placement") != "ok"]
    for n in bad:
        print("FAIL %s: %s; placement %s" % (n, rec[n].get("export", ""), rec[n].get("placement", rec[n].get("error", "-"))))
    if args.clean and not bad:
        import shutil
        shutil.rmtree(args.dir, ignore_errors=True)
    return 1 if bad else 0


def print_table(args, names, rec):
    print("\n### %d thread%s, user CPU ms per inference, best of %d rounds\n" % (
        args.threads, "" if args.threads == 1 else "s", args.rounds))
    print("| architecture | input | kite ms | ncnn ms | onnxruntime ms | kite/ncnn | kite/onnxruntime | placement | kite vs onnxruntime |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|")
    rn, ro = [], []
    for name in names:
        r = rec[name]
        fmt = lambda v: "%.2f" % v if v is not None else "-"  # noqa: E731
        k, nc, o = r.get("kite"), r.get("ncnn"), r.get("ort")
        q = lambda a, b, acc: (acc.append(a / b) or (("**%.2f**" if a > b else "%.2f") % (a / b))) if a and b else "-"  # noqa: E731
        m = re.search(r"max diff (\S+) \(range (\S+), (\S+) of it\)", r.get("export", ""))
        corr = ("%s of range" % m.group(3)) if m and r.get("export_ok") else ("FAIL: " + r.get("export", "")[:80])
        err = r.get("ncnn_error", "-")
        lacks = re.search(r"layer (\S+) not exists", err)
        err = "cannot build it: no %s layer" % lacks.group(1) if lacks else err[:60].replace("|", "/")
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, r.get("shape", "-"), fmt(k), fmt(nc) if nc else err,
            fmt(o), q(k, nc, rn), q(k, o, ro), r.get("placement", r.get("error", "-")), corr))
    print("| **geometric mean** | | | | | **%.2f** | **%.2f** | | |" % (compare_benchncnn.geomean(rn), compare_benchncnn.geomean(ro)))
    above = [n for n in names if rec[n].get("kite") and rec[n].get("ncnn") and rec[n]["kite"] > rec[n]["ncnn"]]
    print("\nkite/ncnn above 1.0: %s" % (", ".join(above) if above else "none"))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--ort-worker":
        ort_worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        sys.exit(0)
    sys.exit(main())
