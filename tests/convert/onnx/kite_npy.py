"""Helpers shared by the onnx2kite test scripts: kite's blob layout of an
ONNX tensor (the rule onnx2kite uses), blob names, running the tools."""
import os
import subprocess
import time

import numpy as np


def kept_axes(shape):
    """ONNX axes kept in the kite blob: axis 0 dropped when rank >= 2 and it
    is 1, then further size-1 axes from the left while more than 4 remain."""
    k = list(range(len(shape)))
    if len(shape) >= 2 and shape[0] == 1:
        k.pop(0)
    i = 0
    while len(k) > 4 and i < len(k):
        if shape[k[i]] == 1:
            k.pop(i)
        else:
            i += 1
    return k


def kshape(shape):
    s = [shape[a] for a in kept_axes(shape)]
    return s if s else [1]


def blob_name(name):
    return "".join("_" if (ord(ch) <= 32 or ch in "=,") else ch for ch in name) or "_"


def to_kite(arr):
    a = np.ascontiguousarray(arr, dtype=np.float32)
    return a.reshape(kshape(list(a.shape)))


def convert(onnx2kite, model, param, binf, extra=()):
    t0 = time.time()
    r = subprocess.run([onnx2kite, model, param, binf] + list(extra), capture_output=True, text=True, errors="replace")
    return r.returncode, r.stderr.strip(), time.time() - t0


def run_kite(kiterun, param, binf, inputs, outputs, workdir, threads=1, shapecheck=True):
    """inputs: {onnx name: np array}; outputs: onnx names. Returns
    (error or None, {name: flat float32 array})."""
    os.makedirs(workdir, exist_ok=True)
    args = [kiterun, param, binf, "threads=%d" % threads, "save=" + workdir]
    if not shapecheck:  # inputs of another size than the model declares
        args.append("shapecheck=0")
    for i, (name, arr) in enumerate(inputs.items()):
        p = os.path.join(workdir, "in%d.npy" % i)
        np.save(p, to_kite(arr))
        args.append("input=%s:%s" % (blob_name(name), p))
    for name in outputs:
        args.append("output=" + blob_name(name))
    r = subprocess.run(args, capture_output=True, text=True, errors="replace")
    if r.returncode != 0:
        return (r.stderr.strip() or "kiterun exit %d" % r.returncode), None
    res = {}
    for name in outputs:
        p = os.path.join(workdir, blob_name(name).replace("/", "_") + ".npy")
        if not os.path.exists(p):
            return "kiterun wrote no %s" % p, None
        res[name] = np.load(p).reshape(-1)
    return None, res


def max_diff(expected, got):
    """(max abs diff, output range) for two arrays of the same size."""
    e = np.asarray(expected, dtype=np.float64).reshape(-1)
    g = np.asarray(got, dtype=np.float64).reshape(-1)
    if e.size != g.size:
        return float("inf"), 0.0
    if e.size == 0:
        return 0.0, 0.0
    rng = float(e.max() - e.min())
    both_nan = np.isnan(e) & np.isnan(g)
    same_inf = np.isinf(e) & (e == g)
    d = np.abs(e - g)
    d[both_nan | same_inf] = 0
    return float(np.nanmax(np.where(np.isnan(d), np.inf, d))), rng
