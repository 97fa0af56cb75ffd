#!/usr/bin/env python3
"""No layer of the shared benchmark graphs runs on cpu:reference (issue 18).

  python3 tests/placement/check_placement.py --kiterun build/tools/kiterun \
      --shared-dir ../shared --arch x86|arm [--model NAME]... [--threads 2]

Every graph of $KITE_SHARED_DIR/models/ncnn/shapes.txt runs once through
`kiterun GRAPH.param random placement=1` (seeded random weights, as the model
tests) and every `placement` line whose row is cpu:reference is a violation,
unless its layer type is allowed in reference_rows.txt (next to this script;
each entry is justified in layer/README.md, "Layers allowed on the
reference"). x86 runs at the best ISA of the machine and at the input shapes
of reference_rows.txt's `shape x86` lines (else shapes.txt); arm runs at
isa=neon and at the `shape arm` lines, which keep the run under qemu cheap
(`load` there: the rows chosen at load, placement=2, without a forward: for the
graphs whose fixed-size InnerProduct or attention make a forward under qemu
take minutes).

With --onnx-dir DIR --onnx2kite EXE --work DIR --model NAME..., the
architectures the onnx2kite tests build (DIR/NAME.onnx) are converted and run
instead, at their Input layer's shape; there every layer outside the allowed
types is a failure (ctest placement_converted).

The violations of today are listed in reference_rows.txt as
`pending ARCH GRAPH TYPE COUNT` (issue 18). The list is printed on every run;
the test fails on any violation not listed, and on a listed one that no
longer occurs as listed (its count changed: update or delete the line), so the
list can only shrink. Exit status 0 when it all matches, 1 otherwise.
"""

import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LINE = re.compile(r"^placement (\d+) (\S+) (\S+) (\S+)(?: (\S+))?$")


def read_shapes(path):
    shapes = {}
    with open(path) as f:
        for line in f:
            t = line.split(None, 1)
            if len(t) == 2:
                shapes[t[0]] = t[1].strip().replace(" ", "")
    return shapes


def read_data(path, arch):
    allowed, pending, shapes = set(), {}, {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            t = line.split("#", 1)[0].split()
            if not t:
                continue
            bad = "%s:%d: bad line %r" % (path, n, line.rstrip())
            if t[0] == "allowed" and len(t) == 2:
                allowed.add(t[1])
            elif t[0] == "pending" and len(t) == 5 and t[4].isdigit():
                if t[1] == arch:
                    pending[(t[2], t[3])] = int(t[4])
            elif t[0] == "shape" and len(t) == 4:
                if t[1] == arch:
                    shapes[t[2]] = t[3]
            else:
                sys.exit(bad)
    return allowed, pending, shapes


def run_graph(exe, param, shape, isa, threads):
    cmd = [exe, param, "random", "seed=1", "threads=%d" % threads]
    if shape == "load":
        cmd.append("placement=2")
    elif shape:
        cmd += ["shape=" + shape, "placement=1"]
    else:
        cmd.append("placement=1")  # the Input layer's shape
    if isa:
        cmd.append("isa=" + isa)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=900)
    if p.returncode != 0:
        err = p.stderr.strip().splitlines()
        return None, "%s: exit %d: %s" % (" ".join(cmd), p.returncode, err[-1] if err else "")
    rows = []
    for line in p.stdout.splitlines():
        if line.startswith("placement "):
            m = LINE.match(line)
            if not m:
                return None, "malformed line %r" % line
            rows.append(m.groups())
    if not rows:
        return None, "%s printed no placement lines" % " ".join(cmd)
    return rows, None


def check_converted(args):
    """Converted architectures: no layer on cpu:reference beyond the allowed types (no pending list)."""
    names = [n for n in args.model if os.path.exists(os.path.join(args.onnx_dir, n + ".onnx"))]
    if not names:
        print("SKIP: none of %s in %s (the onnx_models fixture makes them)" % (" ".join(args.model), args.onnx_dir))
        return 0
    allowed, _, _ = read_data(args.data, args.arch)
    isa = "neon" if args.arch == "arm" else None
    os.makedirs(args.work, exist_ok=True)
    failures = []
    for name in names:
        param, binf = os.path.join(args.work, name + ".param"), os.path.join(args.work, name + ".bin")
        p = subprocess.run([args.onnx2kite, os.path.join(args.onnx_dir, name + ".onnx"), param, binf],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
        if p.returncode != 0:
            failures.append("%s: onnx2kite failed: %s" % (name, p.stderr.strip()[-300:]))
            continue
        rows, err = run_graph(os.path.abspath(args.kiterun), param, None, isa, args.threads)
        if err:
            failures.append("%s: %s" % (name, err))
            continue
        ref = {}
        for _, typ, _, row, _ in rows:
            if row == "cpu:reference" and typ not in allowed:
                ref[typ] = ref.get(typ, 0) + 1
        kinds = {}
        for r in rows:
            kinds[r[3]] = kinds.get(r[3], 0) + 1
        print("%-20s %s" % (name, " ".join("%s=%d" % kv for kv in sorted(kinds.items()))))
        for typ, n in sorted(ref.items()):
            failures.append("%s: %d %s layer(s) run on cpu:reference (not allowed)" % (name, n, typ))
    for f in failures:
        print("FAIL  " + f)
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiterun", required=True)
    ap.add_argument("--shared-dir", default=os.environ.get("KITE_SHARED_DIR", ""))
    ap.add_argument("--arch", choices=("x86", "arm"), required=True)
    ap.add_argument("--model", action="append", default=[])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--data", default=os.path.join(HERE, "reference_rows.txt"))
    ap.add_argument("--onnx-dir", help="check the architectures the onnx2kite tests build (DIR/NAME.onnx, "
                    "--model NAME...) instead of the shared graphs: converted here, run at their Input's shape")
    ap.add_argument("--onnx2kite")
    ap.add_argument("--work", help="where --onnx-dir's conversions go")
    args = ap.parse_args()
    if args.onnx_dir:
        return check_converted(args)

    gdir = os.path.join(args.shared_dir, "models", "ncnn")
    shapes_txt = os.path.join(gdir, "shapes.txt")
    if not os.path.exists(shapes_txt):
        print("SKIP: %s not found (set KITE_SHARED_DIR)" % shapes_txt)
        return 0
    shapes = read_shapes(shapes_txt)
    allowed, pending, arch_shapes = read_data(args.data, args.arch)
    isa = "neon" if args.arch == "arm" else None
    names = args.model or sorted(shapes)

    failures = []
    found = {}
    total = 0.0
    for name in names:
        shape = arch_shapes.get(name, shapes.get(name))
        t0 = time.time()
        rows, err = run_graph(os.path.abspath(args.kiterun), os.path.join(gdir, name + ".param"), shape, isa,
                              args.threads)
        dt = time.time() - t0
        total += dt
        if err:
            failures.append("%s: %s" % (name, err))
            print("FAIL  %s: %s" % (name, err))
            continue
        ref = {}
        notrun = 0
        for _, typ, _, row, _ in rows:
            if row == "-":
                notrun += 1
            elif row == "cpu:reference" and typ not in allowed:
                ref[typ] = ref.get(typ, 0) + 1
        for typ, n in ref.items():
            found[(name, typ)] = n
        kinds = {}
        for r in rows:
            kinds[r[3]] = kinds.get(r[3], 0) + 1
        print("%-20s %-12s %5.1f s  %s%s" % (name, shape, dt, " ".join("%s=%d" % kv for kv in sorted(kinds.items())),
                                              (" | reference: " + ", ".join("%s x%d" % kv for kv in sorted(ref.items())))
                                              if ref else ""))
        if notrun and shape != "load":
            failures.append("%s: %d layers did not run (a graph's every output is extracted)" % (name, notrun))

    print("\npending (issue 18), %s: layers still on cpu:reference, to be fixed and deleted from %s" %
          (args.arch, os.path.relpath(args.data)))
    checked = set(names)
    for (g, typ), n in sorted(pending.items()):
        if g not in checked:
            continue
        now = found.get((g, typ), 0)
        state = "still" if now == n else "NOW %d" % now
        print("  pending %s %s %s %d   (%s)" % (args.arch, g, typ, n, state))
        if now != n:
            failures.append("pending %s %s %s %d: now %d on cpu:reference: update or delete the line in %s" %
                            (args.arch, g, typ, n, now, os.path.basename(args.data)))
    for (g, typ), n in sorted(found.items()):
        if (g, typ) not in pending:
            failures.append("%s: %d %s layer(s) run on cpu:reference (not allowed, not pending)" % (g, n, typ))
    print("\n%d graphs in %.1f s" % (len(names), total))
    for f in failures:
        print("FAIL  " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
