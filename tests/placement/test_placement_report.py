#!/usr/bin/env python3
"""kiterun placement=1|2: the report itself.

  python3 tests/placement/test_placement_report.py --kiterun build/tools/kiterun

On a small graph whose rows are known: every line is exactly
`placement <index> <type> <name> <row> [<path>]`, one per layer in layer
order; isa=reference puts every layer on cpu:reference; at the machine's best
ISA the convolution runs on an optimised cpu:<isa> row; a CPU run shows no GPU
rows; output= on an intermediate blob leaves the later layers at `-`;
placement=2 prints the rows chosen at load without running; where a Vulkan or
OpenCL device exists, the rows agree with kiterun's `backends:` counts; and
loop=N's `rss_kb first=N last=N` line.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"^placement (\d+) (\S+) (\S+) (\S+)(?: (\S+))?$")
CPU_ROWS = {"cpu:reference", "cpu:sse2", "cpu:avx", "cpu:avx2", "cpu:avxvnni", "cpu:avx512", "cpu:avx512vnni",
            "cpu:neon", "cpu:arm82"}
ROWS = CPU_ROWS | {"vulkan", "opencl", "custom", "-"}

GRAPH = """7767517
8 9
Input in0 0 1 in0 0=12 1=10 2=8
Convolution conv 1 1 in0 c 0=16 1=3 4=1 5=1 6=1152
ReLU relu 1 1 c r
Split sp 1 2 r a b
Pooling pool 1 1 a p 0=0 1=3 3=1
ConvolutionDepthWise dw 1 1 b d 0=16 1=3 4=1 5=1 6=144 7=16
Eltwise add 2 1 p d s 0=1
Sigmoid sig 1 1 s out
"""
TYPES = ["Input", "Convolution", "ReLU", "Split", "Pooling", "ConvolutionDepthWise", "Eltwise", "Sigmoid"]

failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)


def run(exe, *args):
    p = subprocess.run([exe] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def parse(out):
    """the placement lines as tuples, or None if one is malformed"""
    rows = []
    for line in out.splitlines():
        if line.startswith("placement"):
            m = LINE.match(line)
            if not m:
                print("malformed: %r" % line)
                return None
            rows.append(m.groups())
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiterun", required=True)
    exe = os.path.abspath(ap.parse_args().kiterun)
    tmp = tempfile.mkdtemp(prefix="kite_placement_")
    param = os.path.join(tmp, "g.param")
    with open(param, "w") as f:
        f.write(GRAPH)

    rc, out, err = run(exe, param, "random", "placement=1")
    rows = parse(out)
    check(rc == 0 and rows is not None, "placement=1 runs (exit %d, %s)" % (rc, err.strip()[:200]))
    rows = rows or []
    check([int(r[0]) for r in rows] == list(range(len(TYPES))), "one line per layer, in layer order: %s" % [r[0] for r in rows])
    check([r[1] for r in rows] == TYPES, "types in order: %s" % [r[1] for r in rows])
    check(all(r[3] in ROWS for r in rows), "every row is a known row name: %s" % sorted({r[3] for r in rows}))
    check(all(r[3] in CPU_ROWS for r in rows), "a CPU run has only cpu: rows (no vulkan/opencl, every layer ran)")
    check(not any(r[3] == "-" for r in rows), "every layer ran")
    best = {r[1]: r[3] for r in rows}
    check(best.get("Convolution", "cpu:reference") != "cpu:reference",
          "at the best ISA the convolution runs on an optimised row (%s)" % best.get("Convolution"))
    check(best.get("Input") == "cpu:reference", "the Input layer is the reference row (%s)" % best.get("Input"))
    # the lines come after the run's other output
    lines = out.splitlines()
    first = next((i for i, l in enumerate(lines) if l.startswith("placement")), len(lines))
    check(all(l.startswith("placement ") for l in lines[first:]), "the placement lines close the output")

    rc, out, err = run(exe, param, "random", "placement=1", "isa=reference")
    rows = parse(out) or []
    check(rc == 0 and len(rows) == len(TYPES) and all(r[3] == "cpu:reference" and r[4] is None for r in rows),
          "isa=reference: every layer on cpu:reference without a kernel path: %s" % [r[3:] for r in rows])

    rc, out, err = run(exe, param, "random", "placement=1", "output=r")
    rows = parse(out) or []
    want = ["cpu"] * 3 + ["-"] * 5
    got = ["-" if r[3] == "-" else "cpu" for r in rows]
    check(rc == 0 and got == want, "output=r: the layers after relu did not run and show '-': %s" % [r[3] for r in rows])

    rc, out, err = run(exe, param, "random", "placement=2")
    rows2 = parse(out) or []
    check(rc == 0 and [r[1] for r in rows2] == TYPES and not any(l.startswith("output ") for l in out.splitlines()),
          "placement=2: the rows chosen at load, without a run")
    rc, out, err = run(exe, param, "random", "placement=1")
    rows1 = parse(out) or []
    check([r[3:] for r in rows1] == [r[3:] for r in rows2], "placement=2 agrees with the run where nothing falls back")

    # loop=N: the resident-memory line (issue 20); loops= is the same option
    rc, out, err = run(exe, param, "random", "loop=3")
    m = re.search(r"^rss_kb first=(\d+) last=(\d+)$", out, re.M)
    check(rc == 0 and m is not None and int(m.group(1)) > 0 and int(m.group(2)) > 0,
          "loop=3 prints 'rss_kb first=N last=N' (%s)" % (m.group(0) if m else out.strip()[-200:]))
    rc, out, err = run(exe, param, "random", "loops=2")
    check(rc == 0 and re.search(r"^rss_kb first=\d+ last=\d+$", out, re.M) is not None, "loops=2 is loop=2")
    rc, out, err = run(exe, param, "random")
    check(rc == 0 and "rss_kb" not in out, "a single run prints no rss_kb line")

    rc, out, err = run(exe, param, "random", "placement=3")
    check(rc != 0 and err.startswith("kiterun: "), "placement=3 is refused")

    # a GPU run, where a device exists: the rows agree with the backends: line
    for dev in ("vulkan", "opencl"):
        rc, out, err = run(exe, param, "random", "placement=1", "device=" + dev)
        m = re.search(r"^backends:.* %s=(\d+) cpu=(\d+)$" % dev, out, re.M)
        if rc != 0:
            check(False, "device=%s: exit %d: %s" % (dev, rc, err.strip()[-300:]))
            continue
        if not m or m.group(1) == "0":
            # no such device (or backend not built): kiterun ran on the CPU
            check(not any(r[3] in ("vulkan", "opencl") for r in (parse(out) or [])), "device=%s without a device: no GPU rows" % dev)
            continue
        rows = parse(out) or []
        ngpu = sum(1 for r in rows if r[3] == dev)
        ncpu = sum(1 for r in rows if r[3] in CPU_ROWS)
        check((ngpu, ncpu) == (int(m.group(1)), int(m.group(2))),
              "device=%s: %d %s rows and %d cpu rows, backends: says %s=%s cpu=%s" %
              (dev, ngpu, dev, ncpu, dev, m.group(1), m.group(2)))
        check(not any(r[3] == ("opencl" if dev == "vulkan" else "vulkan") for r in rows), "device=%s: no rows of the other GPU backend" % dev)

    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
