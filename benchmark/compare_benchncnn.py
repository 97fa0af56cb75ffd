#!/usr/bin/env python3
"""benchkite against ncnn's own benchncnn (built from ncnn's source), graph by graph.

Both programs take the same command line (loop count, threads, powersave, gpu
device, cooling down, param=, shape=), load the same .param with zero weights,
do 8 warm-up runs and print `min = ... avg = ...`. For every thread count and
round, every graph runs once per side, the two sides one after the other (the
side that goes first alternates between rounds), so that load from other
processes falls on both. A graph's figure is the minimum over all its rounds
of the per-run minimum (`--stat avg`: of the per-run averages); graphs whose
ratio lands within --recheck of 1.0 or above get --recheck-rounds more rounds.

With --mem, every graph also runs once more per side in its own process under
`/usr/bin/time -f %M` (peak resident set of the whole process, kB) with the
same arguments (--mem-threads threads, --mem-loops loops).

  python3 benchmark/compare_benchncnn.py --benchkite build/benchmark/benchkite \
      --benchncnn /work/peers/ncnn/build/benchmark/benchncnn \
      --models ../shared/models/ncnn --threads 1 2 --loops 8 --rounds 2 --mem
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_ncnn  # noqa: E402

RE_TIME = re.compile(r"min =\s*([\d.]+)\s+max =\s*([\d.]+)\s+avg =\s*([\d.]+)")


def read_shapes(models_dir):
    """name -> "[w,h,c]" as benchkite/benchncnn take it (compare_ncnn.read_shapes)"""
    return {n: "[%s]" % ",".join(str(v) for v in s) for n, s in compare_ncnn.read_shapes(models_dir).items()}


def bench_cmd(binary, param, shape, threads, loops):
    return [binary, str(loops), str(threads), "0", "-1", "0", "param=" + param, "shape=" + shape]


def run_time(binary, param, shape, threads, loops):
    out = subprocess.run(bench_cmd(binary, param, shape, threads, loops), capture_output=True,
                         text=True, timeout=1800)
    m = RE_TIME.search(out.stdout + out.stderr)
    if out.returncode != 0 or not m:
        raise RuntimeError("%s failed on %s: %s" % (os.path.basename(binary), param,
                                                    (out.stderr or out.stdout).strip()[-300:]))
    return float(m.group(1)), float(m.group(3))


def run_mem(binary, param, shape, threads, loops):
    cmd = ["/usr/bin/time", "-f", "maxrss_kb=%M"] + bench_cmd(binary, param, shape, threads, loops)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    m = re.search(r"maxrss_kb=(\d+)", out.stderr)
    if out.returncode != 0 or not m:
        raise RuntimeError("%s failed on %s: %s" % (os.path.basename(binary), param, out.stderr.strip()[-300:]))
    return int(m.group(1)) / 1024.0


def run_cpu(binary, param, shape, threads, loops):
    """user + system CPU seconds of one whole process (os.wait4's rusage) and its min ms"""
    proc = subprocess.Popen(bench_cmd(binary, param, shape, threads, loops), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    out = proc.stdout.read()
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = status
    m = RE_TIME.search(out)
    if status != 0 or not m:
        raise RuntimeError("%s failed on %s: %s" % (os.path.basename(binary), param, out.strip()[-300:]))
    return ru.ru_utime + ru.ru_stime, float(m.group(1))


def cpu_per_inference(binary, param, shape, threads, n):
    """CPU ms of one inference: (cpu(1 + n loops) - cpu(1 loop)) / n, so that start-up, load and the
    8 warm-up runs cancel"""
    c1, _ = run_cpu(binary, param, shape, threads, 1)
    c2, _ = run_cpu(binary, param, shape, threads, 1 + n)
    return (c2 - c1) * 1000.0 / n


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--benchkite", required=True)
    ap.add_argument("--benchncnn", required=True)
    ap.add_argument("--models", required=True, help="folder of .param files with shapes.txt")
    ap.add_argument("--threads", type=int, nargs="*", default=[1, 2], help="none: only --mem")
    ap.add_argument("--loops", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--stat", choices=["min", "avg"], default="min")
    ap.add_argument("--recheck", type=float, default=0.95,
                    help="graphs at or above this ratio get --recheck-rounds more rounds")
    ap.add_argument("--recheck-rounds", type=int, default=2)
    ap.add_argument("--mem", action="store_true", help="also the peak RSS of each side (/usr/bin/time %%M)")
    ap.add_argument("--mem-threads", type=int, default=2)
    ap.add_argument("--mem-loops", type=int, default=4)
    ap.add_argument("--cpu", action="store_true",
                    help="CPU time (user + system) per inference instead of wall time: robust against other "
                         "processes taking the cores, a speed figure at 1 thread only")
    ap.add_argument("--cpu-seconds", type=float, default=0.5,
                    help="--cpu: run about this much CPU time per side and graph beyond the warm-up")
    ap.add_argument("--json", default="", help="write every measurement here")
    ap.add_argument("-k", default="", help="only graphs whose name matches this regular expression")
    args = ap.parse_args()

    shapes = read_shapes(args.models)
    names = sorted((n for n in shapes if re.search(args.k, n)), key=str.lower)
    idx = 0 if args.stat == "min" else 1
    record = {"loops": args.loops, "stat": args.stat, "time": {}, "mem": {}}

    def one_round(threads, graphs, rnd, best):
        if args.cpu:
            return one_round_cpu(threads, graphs, rnd, best)
        for name in graphs:
            param = os.path.join(args.models, name + ".param")
            sides = [("kite", args.benchkite), ("ncnn", args.benchncnn)]
            if rnd % 2:
                sides.reverse()
            for side, binary in sides:
                try:
                    t = run_time(binary, param, shapes[name], threads, args.loops)[idx]
                except Exception as e:  # report and go on with the other graphs
                    print("  %s %s: %s" % (name, side, e), file=sys.stderr)
                    continue
                cur = best.setdefault(name, {}).get(side)
                best[name][side] = t if cur is None else min(cur, t)
                best[name].setdefault(side + "_runs", []).append(t)
            b = best.get(name, {})
            if "kite" in b and "ncnn" in b:
                print("  [%d thr, round %d] %-20s kite %8.2f  ncnn %8.2f  %.2f" % (
                    threads, rnd, name, b["kite"], b["ncnn"], b["kite"] / b["ncnn"]), file=sys.stderr)

    def one_round_cpu(threads, graphs, rnd, best):
        for name in graphs:
            param = os.path.join(args.models, name + ".param")
            b = best.setdefault(name, {})
            if "n" not in b:  # the same number of inferences for both sides, ~--cpu-seconds of the slower
                try:
                    est = max(run_time(args.benchkite, param, shapes[name], threads, 1)[0],
                              run_time(args.benchncnn, param, shapes[name], threads, 1)[0])
                except Exception as e:
                    print("  %s: %s" % (name, e), file=sys.stderr)
                    continue
                b["n"] = max(4, int(args.cpu_seconds * 1000.0 / max(est, 0.05)))
            sides = [("kite", args.benchkite), ("ncnn", args.benchncnn)]
            if rnd % 2:
                sides.reverse()
            for side, binary in sides:
                try:
                    t = cpu_per_inference(binary, param, shapes[name], threads, b["n"])
                except Exception as e:
                    print("  %s %s: %s" % (name, side, e), file=sys.stderr)
                    continue
                if t <= 0:
                    # the 1-loop run cost more than the 1+n-loop one: its load
                    # varied by more than n inferences (page faults, other
                    # processes); not a measurement
                    print("  %s %s: CPU time difference %.2f ms <= 0, round discarded" % (name, side, t), file=sys.stderr)
                    continue
                b[side] = t if side not in b else min(b[side], t)
                b.setdefault(side + "_runs", []).append(t)
            if "kite" in b and "ncnn" in b:
                print("  [%d thr, cpu, round %d, n %d] %-20s kite %8.2f  ncnn %8.2f  %.2f" % (
                    threads, rnd, b["n"], name, b["kite"], b["ncnn"], b["kite"] / b["ncnn"]), file=sys.stderr)

    for threads in args.threads:
        best = {}
        for rnd in range(args.rounds):
            one_round(threads, names, rnd, best)
        close = [n for n in names if n in best and "kite" in best[n] and "ncnn" in best[n]
                 and best[n]["kite"] / best[n]["ncnn"] >= args.recheck]
        for rnd in range(args.rounds, args.rounds + args.recheck_rounds):
            if close:
                one_round(threads, close, rnd, best)
        record["time"][str(threads)] = best
        if args.cpu:
            print("\n### %d thread%s, CPU ms per inference (user + system), best of %d+ rounds\n" % (
                threads, "" if threads == 1 else "s", args.rounds))
        else:
            print("\n### %d thread%s, %s of %d loops, best of %d+ rounds\n" % (
                threads, "" if threads == 1 else "s", args.stat, args.loops, args.rounds))
        print("| graph | kite ms | ncnn ms | kite/ncnn |")
        print("|---|---:|---:|---:|")
        ratios = []
        for name in names:
            b = best.get(name, {})
            if "kite" not in b or "ncnn" not in b:
                print("| %s | %s | %s | failed |" % (name, b.get("kite", "-"), b.get("ncnn", "-")))
                continue
            r = b["kite"] / b["ncnn"]
            ratios.append(r)
            print("| %s | %.2f | %.2f | %s |" % (name, b["kite"], b["ncnn"],
                                                 ("**%.2f**" if r > 1.0 else "%.2f") % r))
        print("| **geometric mean** | | | **%.2f** |" % geomean(ratios))
        above = [n for n in names if n in best and "kite" in best[n] and "ncnn" in best[n]
                 and best[n]["kite"] > best[n]["ncnn"]]
        print("\nabove 1.0: %s" % (", ".join(above) if above else "none"))
        sys.stdout.flush()

    if args.mem:
        print("\n### peak RSS of the process (/usr/bin/time %%M), %d threads, %d loops\n" % (
            args.mem_threads, args.mem_loops))
        print("| graph | kite MB | ncnn MB | kite/ncnn |")
        print("|---|---:|---:|---:|")
        ratios = []
        for name in names:
            param = os.path.join(args.models, name + ".param")
            try:
                k = run_mem(args.benchkite, param, shapes[name], args.mem_threads, args.mem_loops)
                n = run_mem(args.benchncnn, param, shapes[name], args.mem_threads, args.mem_loops)
            except Exception as e:
                print("| %s | error: %s | | |" % (name, str(e).replace("|", "/")[:120]))
                continue
            record["mem"][name] = {"kite": k, "ncnn": n}
            ratios.append(k / n)
            print("| %s | %.1f | %.1f | %s |" % (name, k, n, ("**%.2f**" if k > n else "%.2f") % (k / n)))
            sys.stdout.flush()
        print("| **geometric mean** | | | **%.2f** |" % geomean(ratios))
        above = [n for n in record["mem"] if record["mem"][n]["kite"] > record["mem"][n]["ncnn"]]
        print("\nabove 1.0: %s" % (", ".join(above) if above else "none"))

    if args.json:
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
