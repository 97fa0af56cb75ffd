#!/usr/bin/env python3
"""The command-line conventions of every kite tool (tools/common/args.h):

  --help and -h: usage on stdout, exit 0, one line per option
  --version: "<tool> (kite) <version>" on stdout, exit 0
  a wrong option: exit 2, one line on stderr naming it, with a hint to --help
  a missing file: exit 1, one line with the quoted name and the OS reason
and kiterun's refusal of an input whose shape is not the declared one.

  python3 tests/cli/test_cli.py --version 0.1.0 --tool kiterun=build/tools/kiterun ... \
      --script kitedeploy=tools/deploy/kitedeploy.py

Tools not given (not built: no protobuf) are reported as skipped.
"""

import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile

failures = []

# per tool: the arguments of a run whose first input file is missing, and
# that file's name (the tools quote it as 'NAME': No such file or directory)
MISSING = {
    "kiterun": lambda d: ([os.path.join(d, "missing.param"), "random"], os.path.join(d, "missing.param")),
    "caffe2kite": lambda d: ([os.path.join(d, "missing.prototxt"), os.path.join(d, "m.caffemodel"),
                              os.path.join(d, "o.param"), os.path.join(d, "o.bin")], os.path.join(d, "missing.prototxt")),
    "onnx2kite": lambda d: ([os.path.join(d, "missing.onnx"), os.path.join(d, "o.param"), os.path.join(d, "o.bin")],
                            os.path.join(d, "missing.onnx")),
    "tensorflow2kite": lambda d: ([os.path.join(d, "missing.pb"), os.path.join(d, "o.param"), os.path.join(d, "o.bin")],
                                  os.path.join(d, "missing.pb")),
    "tflite2kite": lambda d: ([os.path.join(d, "missing.tflite"), os.path.join(d, "o.param"), os.path.join(d, "o.bin")],
                              os.path.join(d, "missing.tflite")),
    "kiteoptimize": lambda d: ([os.path.join(d, "missing.param"), os.path.join(d, "missing.bin"),
                                os.path.join(d, "o.param"), os.path.join(d, "o.bin")], os.path.join(d, "missing.param")),
    "benchkite": lambda d: (["1", "1", "0", "-1", "0", "param=" + os.path.join(d, "missing.param")],
                            os.path.join(d, "missing.param")),
    "kitequantize": lambda d: (["table", os.path.join(d, "missing.param"), os.path.join(d, "missing.bin"), d,
                                os.path.join(d, "o.table")], os.path.join(d, "missing.param")),
    "kitecheck": lambda d: ([os.path.join(d, "missing.param"), "random"], os.path.join(d, "missing.param")),
    "kitedeploy": lambda d: (["convert", "--config", os.path.join(d, "missing.yml")], os.path.join(d, "missing.yml")),
}
# a usage error that is not an unknown option: a bad value
BAD_VALUE = {
    "kiterun": lambda d: [os.path.join(d, "g.param"), "random", "threads=zero"],
    "caffe2kite": lambda d: ["a", "b", "c", "d", "fp16=7"],
    "onnx2kite": lambda d: ["a", "b", "c", "inputshape=x:[1,-3]"],
    "tensorflow2kite": lambda d: ["a", "b", "c", "input_formats=NHCW"],
    "tflite2kite": lambda d: ["a", "b", "c", "int8=2"],
    "kiteoptimize": lambda d: ["a", "b", "c", "d", "fp16=3"],
    "benchkite": lambda d: ["1", "1", "0", "-1", "0", "shape=[3,x]"],
    "kitequantize": lambda d: ["table", "a", "b", "c", "d", "method=median"],
    "kitecheck": lambda d: ["a", "b", "fp16=7"],
    "kitedeploy": lambda d: ["convert", "--config", "a.yml", "--runtime", "tpu"],
}
# tools with commands whose --help is their own (usage: <tool> <command> ...)
COMMANDS = {"kitequantize": ["table", "int8", "report"]}


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def err_lines(err):
    return [l for l in err.splitlines() if l.strip()]


def test_help(name, exe, prefix=()):
    for flag in ("--help", "-h"):
        what = " ".join([name] + list(prefix) + [flag])
        rc, out, err = run(exe + list(prefix) + [flag])
        usage = " ".join(["usage:", name] + list(prefix))
        check(rc == 0 and out.startswith(usage + " ") and err == "",
              "%s: exit %d, usage on stdout (%r), stderr %r" % (what, rc, out[:40], err[:100]))
        # one line per option: every option row has a description after the spelling
        body = out.split("\n\n", 1)[-1]  # after the usage lines
        rows = [l for l in body.splitlines() if l.startswith("  ")]
        described = [l for l in rows if len(l.strip().split("  ", 1)) == 2 and l.strip().split("  ", 1)[1].strip()]
        check(len(rows) >= 3 and len(described) == len(rows) and any(r.strip().startswith("--version ") for r in rows),
              "%s: %d option rows, %d with a description" % (what, len(rows), len(described)))


def test_tool(name, exe, version, work):
    """exe: the command that runs the tool (a list: the program, or the interpreter and a script)"""
    test_help(name, exe)
    for cmd in COMMANDS.get(name, []):
        test_help(name, exe, [cmd])
    rc, out, err = run(exe + ["--version"])
    check(rc == 0 and out.strip() == "%s (kite) %s" % (name, version) and err == "",
          "%s --version: exit %d, %r" % (name, rc, out.strip()))

    for bad in (["--no-such-option"], ["-x"]):
        args = bad if name == "benchkite" else bad + ["a", "b", "c", "d"]
        rc, out, err = run(exe + args)
        lines = err_lines(err)
        check(rc == 2 and len(lines) == 1 and lines[0].startswith(name + ": error: ") and bad[0] in lines[0]
              and "--help" in lines[0] and out == "",
              "%s %s: exit %d (want 2), stderr %r" % (name, bad[0], rc, err.strip()[:200]))
    rc, out, err = run(exe + BAD_VALUE[name](work))
    lines = err_lines(err)
    check(rc == 2 and len(lines) == 1 and lines[0].startswith(name + ": error: ") and "--help" in lines[0],
          "%s bad value: exit %d (want 2), stderr %r" % (name, rc, err.strip()[:200]))
    if name != "benchkite":  # benchkite without arguments runs its model set
        rc, out, err = run(exe)
        lines = err_lines(err)
        check(rc == 2 and len(lines) == 1 and "--help" in lines[0], "%s without arguments: exit %d (want 2), stderr %r" % (name, rc, err.strip()[:200]))

    args, path = MISSING[name](work)
    rc, out, err = run(exe + args)
    want = "'%s': No such file or directory" % path
    lines = [l for l in err_lines(err) if l.startswith(name + ": error: ")]
    check(rc == 1 and len(lines) == 1 and ("cannot open " + want) in lines[0],
          "%s missing file: exit %d (want 1), stderr %r" % (name, rc, err.strip()[:300]))


def write_npy(path, shape, values=None):
    n = 1
    for s in shape:
        n *= s
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % "".join("%d, " % s for s in shape)
    total = 10 + len(header) + 1
    header += " " * ((total + 63) // 64 * 64 - total) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%df" % n, *([0.25] * n if values is None else values)))


def test_kiterun_shapes(exe, work):
    """The declared Input shape [w,h,c] = [6,5,3]: numpy (3,5,6) runs; (5,6,3) (NHWC) and others are
    refused before running, naming the input, both shapes and the expected layout."""
    g = os.path.join(work, "nchw.param")
    with open(g, "w") as f:
        f.write("7767517\n2 2\nInput data 0 1 data 0=6 1=5 2=3\nReLU relu 1 1 data out\n")
    ok = os.path.join(work, "ok.npy")
    write_npy(ok, (3, 5, 6))
    rc, out, err = run([exe, g, "random", "input=data:" + ok])
    check(rc == 0 and "output out: shape [6,5,3]" in out, "kiterun: an input of the declared shape runs (%s)" % err.strip())
    nhwc = os.path.join(work, "nhwc.npy")
    write_npy(nhwc, (5, 6, 3))
    rc, out, err = run([exe, g, "random", "input=data:" + nhwc])
    lines = err_lines(err)
    check(rc == 1 and len(lines) == 1 and out == "" and "'data'" in lines[0] and "[6,5,3]" in lines[0]
          and "[3,6,5]" in lines[0] and "NHWC" in lines[0] and "NCHW" in lines[0] and "transpose" in lines[0],
          "kiterun: NHWC data for an NCHW model refused: exit %d, %r" % (rc, err.strip()))
    batch = os.path.join(work, "batch.npy")
    write_npy(batch, (1, 3, 5, 6))
    rc, out, err = run([exe, g, "random", "input=data:" + batch])
    check(rc == 1 and "batch" in err and "x[0]" in err, "kiterun: a batch dimension is named: exit %d, %r" % (rc, err.strip()))
    other = os.path.join(work, "other.npy")
    write_npy(other, (3, 7, 7))
    rc, out, err = run([exe, g, "random", "input=data:" + other])
    check(rc == 1 and "[6,5,3]" in err and "[7,7,3]" in err and "shapecheck=0" in err,
          "kiterun: another size refused: exit %d, %r" % (rc, err.strip()))
    rc, out, err = run([exe, g, "random", "input=data:" + other, "shapecheck=0"])
    check(rc == 0 and "output out: shape [7,7,3]" in out, "kiterun: shapecheck=0 runs it (%s)" % err.strip())
    # shape=: another width and height run; another rank or channel count is refused at once, naming the input
    rc, out, err = run([exe, g, "random", "shape=data:[9,4,3]"])
    check(rc == 0 and "output out: shape [9,4,3]" in out, "kiterun: shape= of another size runs (%s)" % err.strip())
    for bad, why in (("[6,5]", "2 axes given, 3 declared"), ("[6,5,4]", "4 channels given")):
        rc, out, err = run([exe, g, "random", "shape=data:" + bad])
        check(rc == 2 and "'data'" in err and why in err and "[6,5,3]" in err,
              "kiterun: shape=%s refused naming the input: exit %d, %r" % (bad, rc, err.strip()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", required=True, help="the CMake project version")
    ap.add_argument("--tool", action="append", default=[], help="NAME=PATH: a program")
    ap.add_argument("--script", action="append", default=[], help="NAME=PATH: a Python script, run with this python3")
    args = ap.parse_args()
    tools = {n: [os.path.abspath(p)] for n, p in (t.split("=", 1) for t in args.tool)}
    tools.update({n: [sys.executable, os.path.abspath(p)] for n, p in (t.split("=", 1) for t in args.script)})
    work = tempfile.mkdtemp(prefix="kite_cli_")
    try:
        with open(os.path.join(work, "g.param"), "w") as f:
            f.write("7767517\n2 2\nInput data 0 1 data 0=4 1=4 2=3\nReLU relu 1 1 data out\n")
        for name in MISSING:
            if name not in tools:
                print("skip  %s: not built" % name)
                continue
            test_tool(name, tools[name], args.version, work)
        if "kiterun" in tools:
            test_kiterun_shapes(tools["kiterun"][0], work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
