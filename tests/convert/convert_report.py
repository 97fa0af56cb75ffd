"""Per-model summary shared by the converter fidelity scripts.

Every fidelity script (caffe/caffe_fidelity.py, tf/tf_fidelity.py,
onnx/run_models.py, onnx/export_torchvision.py) records one row per model:

- ops: the source graph's node count / op types, and the converted model's
  kite layers / layer types (read back from the written .param),
- the conversion time (the converter's process: wall and CPU seconds),
- the max abs diff against the original framework on one seeded input (the
  output with the largest diff relative to its value range is reported),
- the same model after kiteoptimize: layer count, diff / range, and how many
  BatchNorm layers still follow a convolution (must be 0).

`Table.print()` writes the rows as a markdown table at the end of a run.
With the environment variable KITE_CONVERT_RESULTS=FILE each row is also
appended to FILE as one JSON object per line; tests/convert/gen_report.py
turns such files into the table in tools/convert/README.md.
"""
import json
import os
import resource
import subprocess
import time


def read_param(path):
    """The split lines of every layer of a text .param (type, name, nin, nout, blobs..., params...)."""
    with open(path) as f:
        lines = [l.split() for l in f if l.strip()]
    # ncnn reads exactly the declared layer count; later lines are ignored
    # (shared nanodet_m.param has one more line than its header says)
    return lines[2:2 + int(lines[1][0])]


CONV_LIKE = ("Convolution", "Deconvolution", "InnerProduct")  # DepthWise variants included by prefix


def bn_after_conv(path):
    """How many BatchNorm layers read a convolution's / InnerProduct's output directly."""
    lines = read_param(path)
    producer = {}
    for t in lines:
        nin, nout = int(t[2]), int(t[3])
        for b in t[4 + nin:4 + nin + nout]:
            producer[b] = t[0]
    return sum(1 for t in lines if t[0] == "BatchNorm" and producer.get(t[4], "").startswith(CONV_LIKE))


def run_timed(cmd):
    """subprocess.run(cmd), output captured as text -> (result, wall s, CPU s
    of the child: user + system, which a busy machine does not inflate)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    wall = time.time() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run_timed_mem(cmd):
    """run_timed plus the command's peak resident memory in MiB. The command
    runs under a small python process of its own: a child forked straight
    from a large caller (torch loaded) would report the caller's RSS."""
    import sys
    probe = ("import resource, subprocess, sys\n"
             "r = subprocess.run(sys.argv[1:])\n"
             "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
             "sys.stderr.write('\\nKITE_PEAK %d %f\\n' % (u.ru_maxrss, u.ru_utime + u.ru_stime))\n"
             "sys.exit(r.returncode)\n")
    t0 = time.time()
    r = subprocess.run([sys.executable, "-c", probe] + list(cmd), capture_output=True, text=True, errors="replace")
    wall = time.time() - t0
    peak_kb, cpu = 0, 0.0
    lines = r.stderr.rstrip("\n").split("\n")
    if lines and lines[-1].startswith("KITE_PEAK "):
        _, kb, c = lines[-1].split()
        peak_kb, cpu = int(kb), float(c)
        r.stderr = "\n".join(lines[:-1]).rstrip("\n") + "\n"
    return r, wall, cpu, peak_kb / 1024.0


def layer_summary(path):
    layers = read_param(path)
    return len(layers), len(set(t[0] for t in layers))


def worst(pairs):
    """(diff, range) pairs -> the pair with the largest diff / range."""
    best = (0.0, 0.0)
    for d, r in pairs:
        if d / max(r, 1e-30) >= best[0] / max(best[1], 1e-30):
            best = (float(d), float(r))
    return best


class Table:
    def __init__(self, framework, reference):
        self.framework = framework
        self.reference = reference
        self.rows = []

    def add(self, model, src_nodes, src_types, param, convert_s, diffs, ok, opt=None):
        """convert_s: (wall, cpu) seconds of the conversion (run_timed);
        diffs: (max abs diff, output range) per compared output; opt: a
        dict(param=..., diffs=[...]) for the kiteoptimize'd model, or None."""
        layers, types = layer_summary(param)
        d, r = worst(diffs)
        row = dict(framework=self.framework, reference=self.reference, model=model, src_nodes=src_nodes,
                   src_types=src_types, layers=layers, layer_types=types, convert_s=round(convert_s[0], 3),
                   convert_cpu_s=round(convert_s[1], 3),
                   max_diff=d, range=r, ok=bool(ok))
        if opt is not None:
            od, orng = worst(opt["diffs"])
            row.update(opt_layers=layer_summary(opt["param"])[0], opt_rel=od / max(orng, 1e-30),
                       opt_bn_left=bn_after_conv(opt["param"]), opt_ok=bool(opt.get("ok", True)))
        self.rows.append(row)
        dest = os.environ.get("KITE_CONVERT_RESULTS")
        if dest:
            with open(dest, "a") as f:
                f.write(json.dumps(row) + "\n")

    def print(self):
        print()
        for line in markdown(self.rows):
            print(line)


HEADER = ["framework", "model", "source nodes / op types", "kite layers / types", "conversion s (wall / cpu)",
          "max abs diff", "output range", "diff / range", "kiteoptimize: layers, diff / range, BN after conv"]


def markdown(rows):
    out = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for r in rows:
        opt = "-"
        if "opt_layers" in r:
            opt = "%d, %.2g, %d" % (r["opt_layers"], r["opt_rel"], r["opt_bn_left"])
            if not r.get("opt_ok", True):
                opt += " FAIL"
        out.append("| %s | %s | %d / %d | %d / %d | %.2f / %.2f | %.3g | %.3g | %.2g%s | %s |" % (
            "%s (vs %s)" % (r["framework"], r["reference"]), r["model"], r["src_nodes"], r["src_types"],
            r["layers"], r["layer_types"], r["convert_s"], r.get("convert_cpu_s", float("nan")), r["max_diff"], r["range"],
            r["max_diff"] / max(r["range"], 1e-30), "" if r["ok"] else " FAIL", opt))
    return out
