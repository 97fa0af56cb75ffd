#!/usr/bin/env python3
"""Numerical agreement of kite with ncnn's own implementation.

  python3 tests/fidelity/run.py --kiterun build/tools/kiterun [--layers|--graphs] [-k NAME]

--layers  every case in tests/fidelity/cases/*.py: a one-layer model (Input
          layers in0.., the layer with outputs out0..), random weights and
          inputs from a fixed seed, run by ncnn's Python package and by kiterun,
          outputs compared.
--graphs  every graph in $KITE_SHARED_DIR/models/ncnn (shapes.txt gives the
          input shape): kiterun with random weights writes the .bin it used
          (writebin=), ncnn runs the same .param/.bin on the same input, every
          output blob is compared.
Without either flag both run. Exit status: 0 all passed, 1 something failed;
when ncnn's Python package is missing it prints SKIP and exits 0, or the code
given by --skip-exit-code (ctest passes 77 and reports the test as skipped).
The case format is described in tests/fidelity/README.md.
"""

import argparse
import glob
import importlib.util
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import traceback
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
RESULT_TAG = "@@KITE_FIDELITY@@ "

TAG_FP32 = 0x00000000
TAG_INT8 = 0x000D4B38

DEFAULT_TOLERANCE = 1e-4
# graphs: the bound, 1e-4 of each output's range; int8 graphs too,
# since the int8 layers reproduce ncnn's x86 numerics (rcp, fma, add-half rounding)
GRAPH_TOLERANCE = 1e-4
GRAPH_TOLERANCE_INT8 = 1e-4
FP32_EPS = 1.1920929e-07
ULP_SLACK = 8
# the outputs of these layers are also compared through their inputs (logits,
# raw boxes), which say more than a near-uniform softmax or a detection list
POSTPROCESS_TYPES = ("Softmax", "DetectionOutput", "Yolov3DetectionOutput", "YoloDetectionOutput")
DETECTION_TYPES = ("DetectionOutput", "Yolov3DetectionOutput", "YoloDetectionOutput")


# ---------------------------------------------------------------------------
# ncnn worker: a child process that runs models with ncnn's Python package, so
# that an ncnn crash on one case does not end the whole run

def ncnn_worker():
    import numpy as np
    import ncnn

    out = sys.stdout
    # anything ncnn prints must not be confused with our answers
    sys.stdout = sys.stderr
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        try:
            res = ncnn_run(ncnn, np, req)
        except Exception as e:  # report, keep serving
            res = {"error": "python exception: %s" % e}
        out.write(RESULT_TAG + json.dumps(res) + "\n")
        out.flush()


def ncnn_run(ncnn, np, req):
    net = ncnn.Net()
    opt = net.opt
    opt.use_vulkan_compute = False
    opt.use_fp16_storage = False
    opt.use_fp16_packed = False
    opt.use_fp16_arithmetic = False
    opt.use_bf16_storage = False
    if hasattr(opt, "use_bf16_packed"):
        opt.use_bf16_packed = False
    opt.num_threads = 1
    if net.load_param(req["param"]) != 0:
        return {"error": "ncnn load_param failed"}
    if net.load_model(req["bin"]) != 0:
        return {"error": "ncnn load_model failed"}
    ex = net.create_extractor()
    # ncnn.Mat(numpy) wraps the array without a copy or a refcount; ncnn's
    # in-place layers dereference the refcount, so hand it an owning clone
    keep = []
    for name, path in req["inputs"]:
        arr = np.ascontiguousarray(np.load(path).astype(np.float32))
        mat = ncnn.Mat(arr).clone()
        keep.append((arr, mat))
        if ex.input(name, mat) != 0:
            return {"error": "ncnn input '%s' failed" % name}
    shapes = {}
    # outputs come in graph order (see kiterun): light mode releases consumed blobs
    for name, path in req["outputs"]:
        ret, mat = ex.extract(name)
        if ret != 0:
            return {"error": "ncnn extract '%s' failed with %d" % (name, ret)}
        if mat.dims == 0 or mat.w * mat.h * mat.d * mat.c == 0:
            arr = np.zeros((0,), np.float32)
        else:
            arr = np.array(mat).astype(np.float32)
        np.save(path, arr)
        shapes[name] = list(arr.shape)
    return {"ok": True, "shapes": shapes}


class NcnnWorker:
    def __init__(self):
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--ncnn-worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, bufsize=1)
        # stderr is drained by a thread so ncnn's messages never block it
        import threading
        self.stderr_lines = []

        def drain(p, sink):
            for l in p.stderr:
                sink.append(l.rstrip())
                del sink[:-20]
        threading.Thread(target=drain, args=(self.proc, self.stderr_lines), daemon=True).start()

    def run(self, req):
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
            while True:
                line = self.proc.stdout.readline()
                if not line:
                    break
                if line.startswith(RESULT_TAG):
                    return json.loads(line[len(RESULT_TAG):])
        except (BrokenPipeError, OSError):
            pass
        code = self.proc.wait()
        self.proc = None
        tail = "; ".join(self.stderr_lines[-3:])
        return {"error": "ncnn crashed (exit %s)%s" % (code, (": " + tail) if tail else "")}

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


# ---------------------------------------------------------------------------
# model files

def shape_to_numpy(shape):
    """[w], [w,h], [w,h,c], [w,h,d,c] -> numpy shape"""
    return tuple(reversed(shape))


def input_layer_params(shape):
    keys = {1: ["0"], 2: ["0", "1"], 3: ["0", "1", "2"], 4: ["0", "1", "11", "2"]}[len(shape)]
    return " ".join("%s=%d" % (k, v) for k, v in zip(keys, shape))


def write_case_param(path, case):
    ins = case["inputs"]
    nout = int(case.get("outputs", 1))
    lines = ["7767517", "%d %d" % (len(ins) + 1, len(ins) + nout)]
    for i, s in enumerate(ins):
        lines.append("Input in%d 0 1 in%d %s" % (i, i, input_layer_params(s)))
    blobs = ["in%d" % i for i in range(len(ins))] + ["out%d" % i for i in range(nout)]
    lines.append("%s op0 %d %d %s %s" % (case["type"], len(ins), nout, " ".join(blobs), case.get("params", "")))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_case_bin(path, case, rng, np):
    with open(path, "wb") as f:
        for spec in case.get("weights", []):
            count, typ = int(spec[0]), spec[1]
            if typ == "s8":
                lo, hi = (int(spec[2]), int(spec[3])) if len(spec) >= 4 else (-127, 127)
                v = rng.integers(lo, hi + 1, size=count).astype(np.int8)
                f.write(struct.pack("<I", TAG_INT8))
                f.write(v.tobytes())
                pad = (4 - count % 4) % 4
                f.write(b"\0" * pad)
                continue
            lo, hi = (float(spec[2]), float(spec[3])) if len(spec) >= 4 else (-1.0, 1.0)
            v = rng.uniform(lo, hi, size=count).astype("<f4")
            if typ == 0:
                f.write(struct.pack("<I", TAG_FP32))
            elif typ != 1:
                raise ValueError("weight type must be 0, 1 or 's8', got %r" % (typ,))
            f.write(v.tobytes())


def compare(ref, out, tolerance, np):
    """returns (ok, message)"""
    if ref.size == 0 or out.size == 0:
        if ref.size == 0 and out.size == 0:
            return True, "both empty"
        return False, "ncnn shape %s, kite shape %s" % (list(ref.shape), list(out.shape))
    if ref.shape != out.shape:
        return False, "shape differs: ncnn %s, kite %s (numpy order)" % (list(ref.shape), list(out.shape))
    ref = ref.astype(np.float64)
    out = out.astype(np.float64)
    nan_r, nan_o = np.isnan(ref), np.isnan(out)
    if (nan_r != nan_o).any():
        return False, "NaN at different places (ncnn %d, kite %d NaNs)" % (nan_r.sum(), nan_o.sum())
    inf_r, inf_o = np.isinf(ref), np.isinf(out)
    if (inf_r != inf_o).any() or (ref[inf_r] != out[inf_o]).any():
        return False, "Inf at different places (ncnn %d, kite %d)" % (inf_r.sum(), inf_o.sum())
    fin = np.isfinite(ref)
    if not fin.any():
        return True, "no finite values (NaN/Inf agree)"
    r, o = ref[fin], out[fin]
    hi, lo = float(r.max()), float(r.min())
    scale = hi - lo
    if scale == 0:
        scale = max(abs(hi), abs(lo))
    scale = max(scale, 1e-6)
    diff = np.abs(r - o)
    maxdiff = float(diff.max())
    # differences of a few fp32 ulps of the largest value are rounding noise
    limit = max(tolerance * scale, ULP_SLACK * FP32_EPS * max(abs(hi), abs(lo)))
    if maxdiff <= limit:
        return True, "maxdiff=%.3g limit=%.3g" % (maxdiff, limit)
    with np.errstate(invalid="ignore"):
        full = np.where(fin, np.abs(ref - out), -1.0)
    idx = np.unravel_index(int(np.argmax(full)), ref.shape)
    bad = int((diff > limit).sum())
    return False, "maxdiff=%.3g > limit=%.3g (%d of %d values off; worst at %s: ncnn %.6g kite %.6g)" % (
        maxdiff, limit, bad, diff.size, list(idx), ref[idx], out[idx])


def run_kiterun(kiterun, args, timeout=600):
    try:
        p = subprocess.run([kiterun] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "kiterun timed out after %ds" % timeout
    if p.returncode != 0:
        err = p.stderr.strip().splitlines()
        msg = err[-1] if err else "exit code %d" % p.returncode
        if p.returncode < 0:
            msg = "kiterun crashed (signal %d) %s" % (-p.returncode, msg)
        return False, msg
    return True, p.stdout


# ---------------------------------------------------------------------------
# per-layer cases

def load_case_files(pattern_dir, only_file=None):
    files = sorted(glob.glob(os.path.join(pattern_dir, "*.py")))
    if only_file:
        files = [f for f in files if os.path.basename(f) in (only_file, only_file + ".py") or os.path.abspath(f) == os.path.abspath(only_file)]
    groups = []
    for f in files:
        group = os.path.splitext(os.path.basename(f))[0]
        spec = importlib.util.spec_from_file_location("kite_fidelity_cases_" + group, f)
        mod = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(mod)
            cases = list(getattr(mod, "CASES"))
        except Exception as e:
            groups.append((group, None, "cannot load %s: %s" % (f, e)))
            continue
        groups.append((group, cases, None))
    return groups


def validate_case(case):
    for key in ("name", "type", "inputs"):
        if key not in case:
            return "case lacks '%s'" % key
    if not isinstance(case["inputs"], list):
        return "'inputs' must be a list of shapes ([] for a layer without inputs, like MemoryData)"
    for s in case["inputs"]:
        if not isinstance(s, (list, tuple)) or not 1 <= len(s) <= 4 or any(int(x) <= 0 for x in s):
            return "bad input shape %r" % (s,)
    return None


def run_layer_cases(args, worker, tmp, np):
    groups = load_case_files(args.cases_dir, args.cases)
    passed = failed = 0
    for group, cases, err in groups:
        if err:
            print("FAIL  %s: %s" % (group, err))
            failed += 1
            continue
        seen = set()
        for case in cases:
            name = case.get("name", "?")
            full = "%s::%s" % (group, name)
            if args.k and not any(args.k in s for s in (full, str(case.get("type", "")))):
                continue
            verr = validate_case(case)
            if not verr and name in seen:
                verr = "duplicate case name"
            seen.add(name)
            if verr:
                print("FAIL  %s: %s" % (full, verr))
                failed += 1
                continue
            ok, msg = run_one_case(args, worker, tmp, np, group, case)
            print("%s  %s (%s): %s" % ("PASS" if ok else "FAIL", full, case["type"], msg))
            sys.stdout.flush()
            if ok:
                passed += 1
            else:
                failed += 1
    return passed, failed


def run_one_case(args, worker, tmp, np, group, case):
    d = os.path.join(tmp, "layers", group, case["name"].replace("/", "_"))
    os.makedirs(d, exist_ok=True)
    seed = (zlib.crc32(("%s::%s" % (group, case["name"])).encode()) ^ args.seed) & 0xffffffff
    rng = np.random.default_rng(seed)
    param = os.path.join(d, "model.param")
    binf = os.path.join(d, "model.bin")
    try:
        write_case_param(param, case)
        write_case_bin(binf, case, rng, np)
    except Exception as e:
        return False, "bad case: %s" % e
    ranges = case.get("input_ranges")
    default_range = case.get("input_range", [-1, 1])
    inputs = []
    for i, s in enumerate(case["inputs"]):
        lo, hi = (ranges[i] if ranges and i < len(ranges) and ranges[i] is not None else default_range)
        a = rng.uniform(float(lo), float(hi), size=shape_to_numpy([int(x) for x in s])).astype(np.float32)
        if case.get("input_integer"):
            a = np.floor(a).astype(np.float32)
        p = os.path.join(d, "in%d.npy" % i)
        np.save(p, a)
        inputs.append(("in%d" % i, p))
    nout = int(case.get("outputs", 1))
    outs = ["out%d" % i for i in range(nout)]
    ncnn_dir = os.path.join(d, "ncnn")
    kite_dir = os.path.join(d, "kite")
    os.makedirs(ncnn_dir, exist_ok=True)
    res = worker.run({"param": param, "bin": binf, "inputs": inputs,
                      "outputs": [(o, os.path.join(ncnn_dir, o + ".npy")) for o in outs]})
    if "error" in res:
        return False, "ncnn: %s (check the case)" % res["error"]
    kargs = [param, binf] + ["input=%s:%s" % (n, p) for n, p in inputs] + ["output=%s" % o for o in outs] + \
        ["save=%s" % kite_dir, "threads=1"]
    ok, out = run_kiterun(args.kiterun, kargs)
    if not ok:
        return False, "kite: " + out
    tol = float(case.get("tolerance", args.tolerance or DEFAULT_TOLERANCE))
    msgs = []
    all_ok = True
    for o in outs:
        ref = np.load(os.path.join(ncnn_dir, o + ".npy"))
        kp = os.path.join(kite_dir, o + ".npy")
        if not os.path.exists(kp):
            return False, "kite wrote no %s" % o
        got = np.load(kp)
        ok, m = compare(ref, got, tol, np)
        all_ok = all_ok and ok
        msgs.append(("%s %s " % (o, list(ref.shape)) if nout > 1 else "%s " % list(ref.shape)) + m)
    return all_ok, "; ".join(msgs)


# ---------------------------------------------------------------------------
# per-graph

def parse_param_text(path):
    """(input blobs [(name, shape or None)], output blob names, {blob: (producer type, bottoms)}, has_int8)"""
    with open(path) as f:
        lines = [l.split() for l in f if l.strip()]
    consumed = set()
    produced = []
    producer = {}
    inputs = []
    int8 = False
    for t in lines[2:2 + int(lines[1][0])]:  # the declared layer count, as ncnn reads it
        typ, nin, nout = t[0], int(t[2]), int(t[3])
        bottoms = t[4:4 + nin]
        tops = t[4 + nin:4 + nin + nout]
        kv = dict(x.split("=", 1) for x in t[4 + nin + nout:] if "=" in x)
        consumed.update(bottoms)
        produced.extend(tops)
        for b in tops:
            producer[b] = (typ, bottoms, t)
        if typ.startswith(("Convolution", "InnerProduct", "Deconvolution")) and kv.get("8", "0") != "0":
            int8 = True
        if typ == "Input":
            shape = None
            w, h, c = int(kv.get("0", 0)), int(kv.get("1", 0)), int(kv.get("2", 0))
            if w > 0 and h > 0 and c > 0:
                shape = [w, h, c]
            inputs.append((tops[0], shape))
    outputs = [b for b in produced if b not in consumed]
    return inputs, outputs, producer, int8


def read_shapes(path):
    shapes = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                t = line.split(None, 1)
                if len(t) == 2:
                    shapes[t[0]] = [int(x) for x in t[1].strip().strip("[]").split(",")]
    return shapes


def run_graphs(args, worker, tmp, np):
    gdir = os.path.join(args.shared_dir, "models", "ncnn")
    params = sorted(glob.glob(os.path.join(gdir, "*.param")))
    if not params:
        print("FAIL  graphs: no *.param in %s (set KITE_SHARED_DIR or --shared-dir)" % gdir)
        return 0, 1
    shapes = read_shapes(os.path.join(gdir, "shapes.txt"))
    passed = failed = 0
    for p in params:
        name = os.path.splitext(os.path.basename(p))[0]
        if args.graph and name != args.graph:
            continue
        if args.k and args.k not in name:
            continue
        ok, msg = run_one_graph(args, worker, tmp, np, p, name, shapes.get(name))
        print("%s  graph %s: %s" % ("PASS" if ok else "FAIL", name, msg))
        sys.stdout.flush()
        if ok:
            passed += 1
        else:
            failed += 1
    return passed, failed


def run_one_graph(args, worker, tmp, np, param, name, shape):
    d = os.path.join(tmp, "graphs", name)
    os.makedirs(d, exist_ok=True)
    try:
        inputs, outputs, producer, int8 = parse_param_text(param)
    except Exception as e:
        return False, "cannot parse %s: %s" % (param, e)
    seed = (zlib.crc32(name.encode()) ^ args.seed) & 0xffffffff
    rng = np.random.default_rng(seed)
    in_files = []
    for i, (blob, declared) in enumerate(inputs):
        s = shape if (shape and i == 0) else declared
        if not s:
            return False, "no shape for input '%s' (add it to shapes.txt)" % blob
        a = rng.uniform(-1, 1, size=shape_to_numpy(s)).astype(np.float32)
        f = os.path.join(d, "in%d.npy" % i)
        np.save(f, a)
        in_files.append((blob, f))
    # also the inputs of final softmax / detection layers
    extra = []
    for o in outputs:
        typ, bottoms = producer.get(o, ("", []))[:2]
        if typ in POSTPROCESS_TYPES:
            extra.extend(b for b in bottoms if b not in outputs and b not in extra and b not in dict(inputs))
    detection = set(o for o in outputs if producer.get(o, ("",))[0] in DETECTION_TYPES
                    and all(b in outputs or b in extra for b in producer[o][1]))
    order = {b: i for i, b in enumerate(producer)}
    outputs = sorted(outputs + extra, key=lambda b: order.get(b, 0))
    binf = os.path.join(d, "model.bin")
    kite_dir = os.path.join(d, "kite")
    ncnn_dir = os.path.join(d, "ncnn")
    os.makedirs(ncnn_dir, exist_ok=True)
    kargs = [param, "random", "seed=%d" % (seed & 0x7fffffff), "writebin=%s" % binf, "save=%s" % kite_dir, "threads=1"] + \
        ["input=%s:%s" % (b, f) for b, f in in_files] + ["output=%s" % o for o in outputs]
    ok, out = run_kiterun(args.kiterun, kargs)
    if not ok:
        return False, "kite: " + out
    fname = lambda b: b.replace("/", "_").replace("\\", "_") + ".npy"
    res = worker.run({"param": param, "bin": binf, "inputs": in_files,
                      "outputs": [(o, os.path.join(ncnn_dir, fname(o))) for o in outputs]})
    if "error" in res:
        return False, "ncnn: " + res["error"]
    tol = args.tolerance or (GRAPH_TOLERANCE_INT8 if int8 else GRAPH_TOLERANCE)
    msgs = []
    all_ok = True
    for o in outputs:
        ref = np.load(os.path.join(ncnn_dir, fname(o)))
        got = np.load(os.path.join(kite_dir, fname(o)))
        ok, m = compare(ref, got, tol, np)
        if not ok and o in detection:
            # Random weights give many near-equal scores, so rounding-level
            # differences in the layer's inputs (compared above) can change
            # which boxes pass the threshold / NMS. Check the layer itself:
            # ncnn's detection layer on kite's own inputs must give kite's output.
            ok2, m2 = check_layer_on_kite_inputs(worker, np, d, producer[o], o, kite_dir, fname, got, tol)
            m = "%s; full-graph compare: %s" % (m2, m)
            ok = ok2
        all_ok = all_ok and ok
        msgs.append("%s %s %s" % (o, list(ref.shape), m))
    return all_ok, "; ".join(msgs)


def check_layer_on_kite_inputs(worker, np, d, prod, out_name, kite_dir, fname, got, tol):
    typ, bottoms, tokens = prod
    sub = os.path.join(d, "layer_" + fname(out_name)[:-4])
    os.makedirs(sub, exist_ok=True)
    nin = len(bottoms)
    lines = ["7767517", "%d %d" % (nin + 1, nin + 1)]
    names = ["in%d" % i for i in range(nin)]
    for n in names:
        lines.append("Input %s 0 1 %s" % (n, n))
    nout = int(tokens[3])
    if nout != 1:
        return False, "ncnn's %s on kite's inputs: only single-output layers are checked this way" % typ
    params = [t for t in tokens[4 + nin + nout:] if not t.startswith("-23330=")]
    lines.append("%s op0 %d 1 %s out0 %s" % (typ, nin, " ".join(names), " ".join(params)))
    param = os.path.join(sub, "model.param")
    with open(param, "w") as f:
        f.write("\n".join(lines) + "\n")
    binf = os.path.join(sub, "model.bin")
    open(binf, "wb").close()
    inputs = [(n, os.path.join(kite_dir, fname(b))) for n, b in zip(names, bottoms)]
    for _, p in inputs:
        if not os.path.exists(p):
            return False, "ncnn's %s on kite's inputs: kite's input %s was not saved" % (typ, p)
    ref_path = os.path.join(sub, "ncnn_out0.npy")
    res = worker.run({"param": param, "bin": binf, "inputs": inputs, "outputs": [("out0", ref_path)]})
    if "error" in res:
        return False, "ncnn's %s on kite's inputs: %s" % (typ, res["error"])
    ok, m = compare(np.load(ref_path), got, tol, np)
    return ok, "ncnn's %s on kite's inputs: %s %s" % (typ, "agrees" if ok else "differs", m)


# ---------------------------------------------------------------------------

def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--ncnn-worker":
        ncnn_worker()
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kiterun", default=os.path.join(REPO, "build", "tools", "kiterun"), help="path of the kiterun binary")
    ap.add_argument("--layers", action="store_true", help="run the one-layer cases")
    ap.add_argument("--graphs", action="store_true", help="run the shared sample graphs")
    ap.add_argument("-k", default=None, help="only cases / graphs whose name (group::name) or layer type contains this")
    ap.add_argument("--cases", default=None, help="only this case file (e.g. core or cases/core.py)")
    ap.add_argument("--graph", default=None, help="only the graph of exactly this name")
    ap.add_argument("--cases-dir", default=os.path.join(HERE, "cases"))
    ap.add_argument("--shared-dir", default=os.environ.get("KITE_SHARED_DIR") or os.path.join(REPO, "..", "shared"))
    ap.add_argument("--seed", type=int, default=0, help="mixed into every case's seed")
    ap.add_argument("--tolerance", type=float, default=None, help="override every tolerance")
    ap.add_argument("--keep", default=None, help="keep the generated models, inputs and outputs in this directory")
    ap.add_argument("--skip-exit-code", type=int, default=0, help="exit status when ncnn is not installed (ctest: 77)")
    args = ap.parse_args()
    if not args.layers and not args.graphs:
        args.layers = args.graphs = True

    try:
        import numpy as np
    except ImportError:
        print("SKIP: numpy is not installed")
        return args.skip_exit_code
    try:
        import ncnn  # noqa: F401
    except Exception as e:
        print("SKIP: ncnn's Python package cannot be imported (%s); pip install ncnn to run the fidelity suite" % e)
        return args.skip_exit_code
    if not os.path.isfile(args.kiterun) or not os.access(args.kiterun, os.X_OK):
        print("error: kiterun not found at %s (build it: ninja -C build kiterun, or pass --kiterun)" % args.kiterun)
        return 1
    args.kiterun = os.path.abspath(args.kiterun)

    if args.keep:
        tmp = os.path.abspath(args.keep)
        os.makedirs(tmp, exist_ok=True)
    else:
        tmp = tempfile.mkdtemp(prefix="kite_fidelity_")
    worker = NcnnWorker()
    passed = failed = 0
    try:
        if args.layers:
            p, f = run_layer_cases(args, worker, tmp, np)
            passed += p
            failed += f
        if args.graphs:
            p, f = run_graphs(args, worker, tmp, np)
            passed += p
            failed += f
    except Exception:
        traceback.print_exc()
        failed += 1
    finally:
        worker.close()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    if passed + failed == 0:
        # a ctest that checks nothing must not pass (a graph name the
        # selection does not know, e.g. cut at a dot by CMake's NAME_WE)
        print("FAIL  nothing matched the selection")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
