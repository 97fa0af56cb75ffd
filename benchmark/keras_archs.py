#!/usr/bin/env python3
"""Keras architectures (tf.keras.applications) through tensorflow2kite and tflite2kite (issue 18).

    python3 benchmark/keras_archs.py --build build --work /tmp/keras_archs [--stage gen check bench] \
        [-k REGEX] [--benchncnn /work/peers/ncnn/build/benchmark/benchncnn] [--cpu-seconds 1.0]

gen:   every architecture of ARCHS, random weights with a fixed seed (batch-norm statistics
       randomised too, classifier_activation=None: the logits), 224x224x3, is written under --work
       as a frozen GraphDef (frozen.pb, the form tensorflow2kite reads) and as a float32 .tflite
       (TFLiteConverter.from_keras_model); QUANT architectures also as a full-int8 .tflite
       (representative data, TFLITE_BUILTINS_INT8) and a dynamic-range one (optimizations=DEFAULT
       without representative data). One seeded uniform [-1, 1) NHWC input; TensorFlow's and the
       TFLite interpreter's outputs are saved beside them.
check: tensorflow2kite / tflite2kite convert each; `kiterun M.param M.bin input=x.npy placement=1`
       runs it; the output is compared with the source framework's (max |diff| / range of the
       reference: fp32 passes below 1e-3; int8 models are reported with top-1 agreement and
       cosine), and every layer on cpu:reference whose type tests/placement/reference_rows.txt
       does not allow is listed.
bench: 1 thread, CPU time (rusage, the machine is shared): kite (benchkite on the converted
       .param) against the TFLite interpreter (XNNPACK, num_threads=1, time.process_time over the
       same number of inferences) and against ncnn's benchncnn on the same .param (where ncnn
       loads it). Kite and ncnn: (cpu(1 + n loops) - cpu(1 loop)) / n as compare_benchncnn.py
       --cpu; the sides alternate per architecture, --rounds rounds, the minimum is kept.

Results go to --work/results.json; the table is printed (benchmark/README.md, "2026-11-27
fourth session"). Nothing is downloaded; delete --work when done (about 1.5 GB).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_benchncnn  # noqa: E402

SEED = 20261127
HW = 224
ARCHS = ["MobileNet", "MobileNetV2", "MobileNetV3Small", "MobileNetV3Large", "EfficientNetB0",
         "EfficientNetV2B0", "ResNet50", "ResNet50V2", "DenseNet121", "InceptionV3", "Xception",
         "NASNetMobile", "ConvNeXtTiny", "RegNetX002", "RegNetY002"]
QUANT = ["MobileNetV2", "ResNet50", "EfficientNetB0"]
FP32_TOL = 1e-3


def load_tf():
    import tensorflow as tf
    return tf


def allowed_reference_types():
    allowed = set()
    with open(os.path.join(HERE, "..", "tests", "placement", "reference_rows.txt")) as f:
        for line in f:
            p = line.split()
            if len(p) == 2 and p[0] == "allowed":
                allowed.add(p[1])
    return allowed


class Quiet:
    """silences stdout/stderr at the file-descriptor level (TensorFlow's C++ logging)"""
    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self.saved = (os.dup(1), os.dup(2))
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.close(null)

    def __exit__(self, *exc):
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        os.close(self.saved[0])
        os.close(self.saved[1])


def build_model(tf, name):
    tf.keras.utils.set_random_seed(SEED)
    model = getattr(tf.keras.applications, name)(weights=None, input_shape=(HW, HW, 3), classifier_activation=None)
    rng = np.random.default_rng(SEED)
    for layer in model.layers:  # batch-norm statistics too, so that folding them is exercised
        if isinstance(layer, tf.keras.layers.BatchNormalization):
            ws = []
            for w in layer.weights:
                n = w.name.split("/")[-1].split(":")[0]
                shape = tuple(w.shape)
                if "variance" in n:
                    ws.append(rng.uniform(0.5, 2.0, shape).astype(np.float32))
                elif "gamma" in n:
                    ws.append(rng.uniform(0.5, 1.5, shape).astype(np.float32))
                else:
                    ws.append(rng.uniform(-0.2, 0.2, shape).astype(np.float32))
            layer.set_weights(ws)
    return model


def tflite_run(path, x, threads=1):
    tf = load_tf()
    interp = tf.lite.Interpreter(model_path=path, num_threads=threads)
    interp.allocate_tensors()
    inp, out = interp.get_input_details()[0], interp.get_output_details()[0]
    xi = x
    if inp["dtype"] != np.float32:
        sc, zp = inp["quantization"]
        xi = np.clip(np.round(x / sc + zp), -128, 127).astype(inp["dtype"])
    interp.set_tensor(inp["index"], xi)
    interp.invoke()
    y = interp.get_tensor(out["index"]).astype(np.float32)
    if out["dtype"] != np.float32:
        sc, zp = out["quantization"]
        y = (y - zp) * sc
    return y, interp


def gen(args, name):
    tf = load_tf()
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
    d = os.path.join(args.work, name)
    os.makedirs(d, exist_ok=True)
    if not hasattr(tf.keras.applications, name):
        with open(os.path.join(d, "absent"), "w") as f:
            f.write("tf.keras.applications has no %s (keras %s)\n" % (name, tf.keras.__version__ if hasattr(tf.keras, "__version__") else "?"))
        print("%-18s not in this keras" % name, flush=True)
        return
    t0 = time.time()
    model = build_model(tf, name)
    x = np.random.default_rng(SEED + 1).uniform(-1, 1, (1, HW, HW, 3)).astype(np.float32)
    np.save(os.path.join(d, "x.npy"), x[0])
    cf = tf.function(lambda t: model(t, training=False)).get_concrete_function(
        tf.TensorSpec([1, HW, HW, 3], tf.float32, name="x"))
    frozen = convert_variables_to_constants_v2(cf)
    with open(os.path.join(d, "frozen.pb"), "wb") as f:
        f.write(frozen.graph.as_graph_def().SerializeToString())
    np.save(os.path.join(d, "ref_tf.npy"), model(tf.constant(x), training=False).numpy())
    variants = [("fp32", {})]
    if name in QUANT:
        variants += [("int8", {"int8": True}), ("dynamic", {"dynamic": True})]
    for tag, opt in variants:
        conv = tf.lite.TFLiteConverter.from_keras_model(model)
        if opt:
            conv.optimizations = [tf.lite.Optimize.DEFAULT]
        if opt.get("int8"):
            def rep():
                r = np.random.default_rng(SEED + 7)
                for _ in range(16):
                    yield [r.uniform(-1, 1, (1, HW, HW, 3)).astype(np.float32)]
            conv.representative_dataset = rep
            conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        with Quiet():
            blob = conv.convert()
        path = os.path.join(d, "model_%s.tflite" % tag)
        with open(path, "wb") as f:
            f.write(blob)
        y, _ = tflite_run(path, x)
        np.save(os.path.join(d, "ref_tfl_%s.npy" % tag), y)
    print("%-18s generated in %.0f s" % (name, time.time() - t0), flush=True)


def variants_of(d, tags=None):
    """(tag, source file, reference .npy, converter) of one architecture folder (only tags, where given)"""
    out = []
    if os.path.exists(os.path.join(d, "frozen.pb")):
        out.append(("tf", "frozen.pb", "ref_tf.npy", "tensorflow2kite"))
    for tag in ("fp32", "int8", "dynamic"):
        if os.path.exists(os.path.join(d, "model_%s.tflite" % tag)):
            out.append(("tflite_" + tag, "model_%s.tflite" % tag, "ref_tfl_%s.npy" % tag, "tflite2kite"))
    return [v for v in out if not tags or v[0] in tags]


def tool_path(args, conv):
    return os.path.join(args.build, "tools", "tensorflow" if conv == "tensorflow2kite" else "tflite", conv)


def check(args, name, res):
    d = os.path.join(args.work, name)
    allowed = allowed_reference_types()
    kiterun = os.path.join(args.build, "tools", "kiterun")
    for tag, src, ref, conv in variants_of(d, args.tags):
        r = res.setdefault(name, {}).setdefault(tag, {})
        param, binf = os.path.join(d, tag + ".param"), os.path.join(d, tag + ".bin")
        t0 = time.time()
        cv = subprocess.run([tool_path(args, conv), os.path.join(d, src), param, binf], capture_output=True, text=True)
        r["convert_s"] = round(time.time() - t0, 2)
        if cv.returncode != 0:
            r["convert"] = "FAIL: " + (cv.stderr or cv.stdout).strip()[-400:]
            print("%-18s %-14s convert FAIL %s" % (name, tag, r["convert"]), flush=True)
            continue
        r["convert"] = "ok"
        with open(param) as f:
            lines = f.read().split("\n")
        r["layers"] = int(lines[1].split()[0])
        outdir = os.path.join(d, "out_" + tag)
        os.makedirs(outdir, exist_ok=True)
        for f in os.listdir(outdir):
            os.remove(os.path.join(outdir, f))
        kr = subprocess.run([kiterun, param, binf, "input=" + os.path.join(d, "x.npy"), "save=" + outdir,
                             "placement=1", "threads=1"], capture_output=True, text=True)
        if kr.returncode != 0:
            r["run"] = "FAIL: " + (kr.stderr or kr.stdout).strip()[-400:]
            print("%-18s %-14s kiterun FAIL %s" % (name, tag, r["run"]), flush=True)
            continue
        ref_rows, paths = {}, {}
        for line in kr.stdout.splitlines():
            p = line.split()
            if len(p) >= 5 and p[0] == "placement":
                if p[4] == "cpu:reference" and p[2] not in allowed:
                    ref_rows[p[2]] = ref_rows.get(p[2], 0) + 1
                key = p[4] + (" " + p[5] if len(p) > 5 else "")
                paths[key] = paths.get(key, 0) + 1
        r["reference"] = ref_rows
        r["rows"] = paths
        outs = sorted(os.listdir(outdir))
        want = np.load(os.path.join(d, ref)).astype(np.float32).reshape(-1)
        if len(outs) != 1:
            r["run"] = "FAIL: outputs %s" % outs
            continue
        got = np.load(os.path.join(outdir, outs[0])).astype(np.float32).reshape(-1)
        if got.size != want.size:
            r["run"] = "FAIL: %d values, reference %d" % (got.size, want.size)
            continue
        rng_ = float(want.max() - want.min())
        r["diff"] = float(np.max(np.abs(got - want)))
        r["rel"] = r["diff"] / max(rng_, 1e-30)
        r["top1"] = bool(np.argmax(got) == np.argmax(want))
        r["cos"] = float(np.dot(got, want) / max(np.linalg.norm(got) * np.linalg.norm(want), 1e-30))
        r["finite"] = bool(np.all(np.isfinite(got)))
        quant = tag in ("tflite_int8", "tflite_dynamic")
        r["run"] = "ok" if r["finite"] and (quant or r["rel"] < FP32_TOL) else "MISMATCH"
        print("%-18s %-14s %3d layers  rel %.2e  top1 %s  cos %.5f  %s  reference: %s" % (
            name, tag, r["layers"], r["rel"], r["top1"], r["cos"], r["run"], ref_rows or "none"), flush=True)


def kite_shape(tag):
    # NHWC input kept in TensorFlow's order: the blob holds H, W, C as kite's c, h, w
    return "[3,%d,%d]" % (HW, HW)


def tflite_cpu_ms(path, n):
    """(CPU ms per inference over n invokes, the minimum wall ms of one)"""
    x = np.random.default_rng(SEED + 1).uniform(-1, 1, (1, HW, HW, 3)).astype(np.float32)
    _, interp = tflite_run(path, x, threads=1)
    for _ in range(3):
        interp.invoke()
    c0 = time.process_time()
    best = 1e30
    for _ in range(n):
        t0 = time.perf_counter()
        interp.invoke()
        best = min(best, time.perf_counter() - t0)
    return (time.process_time() - c0) * 1000.0 / n, best * 1000.0


def bench_cpu_ms(binary, param, shape, n):
    """(CPU ms per inference: (cpu(1 + n loops) - cpu(1 loop)) / n, the program's own minimum wall ms)"""
    c1, _ = compare_benchncnn.run_cpu(binary, param, shape, 1, 1)
    c2, mn = compare_benchncnn.run_cpu(binary, param, shape, 1, 1 + n)
    return (c2 - c1) * 1000.0 / n, mn


def bench(args, name, res):
    d = os.path.join(args.work, name)
    benchkite = os.path.join(args.build, "benchmark", "benchkite")
    for tag, src, ref, conv in variants_of(d, args.tags):
        r = res.get(name, {}).get(tag)
        if not r or r.get("convert") != "ok" or not r.get("run", "").startswith(("ok", "MISMATCH")):
            continue
        param = os.path.join(d, tag + ".param")
        shape = kite_shape(tag)
        try:
            est = compare_benchncnn.run_cpu(benchkite, param, shape, 1, 1)[1]
        except RuntimeError as e:
            r["kite_ms"] = "FAIL " + str(e)[-200:]
            continue
        n = max(4, int(args.cpu_seconds * 1000.0 / max(est, 0.05)))
        best, wall = {}, {}
        for rnd in range(args.rounds):
            sides = ["kite", "tflite", "ncnn", "base"] if rnd % 2 == 0 else ["base", "ncnn", "tflite", "kite"]
            for side in sides:
                try:
                    if side == "kite":
                        t, w = bench_cpu_ms(benchkite, param, shape, n)
                    elif side == "base":
                        if not args.baseline:
                            continue
                        t, w = bench_cpu_ms(args.baseline, param, shape, n)
                    elif side == "ncnn":
                        if not args.benchncnn or best.get("ncnn") == "n/a":
                            continue
                        t, w = bench_cpu_ms(args.benchncnn, param, shape, n)
                    else:
                        if not tag.startswith("tflite"):
                            continue
                        t, w = tflite_cpu_ms(os.path.join(d, src), n)
                except RuntimeError as e:
                    best[side] = "n/a"
                    r[side + "_error"] = str(e)[-300:]
                    continue
                best[side] = min(best.get(side, 1e30), t)
                wall[side] = min(wall.get(side, 1e30), w)
        for side, v in best.items():
            r[side + "_ms"] = v
        for side, v in wall.items():
            r[side + "_wall_ms"] = v
        k, kw = best.get("kite"), wall.get("kite")
        line = "%-18s %-14s kite %8.2f ms (wall min %.2f)" % (name, tag, k, kw)
        for side in ("tflite", "ncnn", "base"):
            v = best.get(side)
            if isinstance(v, float):
                r["kite_" + side] = k / v
                r["kite_" + side + "_wall"] = kw / wall[side]
                line += "  %s %8.2f (%.2f; wall min %.2f: %.2f)" % (side, v, k / v, wall[side], kw / wall[side])
            elif v:
                line += "  %s n/a" % side
        print(line, flush=True)


def fmt_table(res):
    rows = ["| architecture | source | layers | converter | max diff / range | top-1, cosine | placement (cpu:reference) | kite CPU ms | kite/TFLite CPU (wall min) | kite/ncnn CPU (wall min) |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for name in ARCHS:
        if name not in res:
            continue
        for tag, r in res[name].items():
            ref = r.get("reference")
            place = "none" if ref == {} else (", ".join("%s %d" % kv for kv in sorted(ref.items())) if ref else "-")
            def ratio(side):
                v = r.get("kite_" + side)
                return "%.2f" % v if isinstance(v, float) else ("n/a" if r.get(side + "_error") else "-")
            def ratio_w(side):
                v = r.get("kite_" + side + "_wall")
                return " (%.2f)" % v if isinstance(v, float) else ""
            rows.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                name, tag, r.get("layers", "-"), r.get("convert", "-")[:60],
                "%.1e %s" % (r["rel"], r["run"]) if "rel" in r else r.get("run", "-")[:60],
                "%s, %.4f" % ("same" if r["top1"] else "differs", r["cos"]) if "cos" in r else "-",
                place, "%.1f" % r["kite_ms"] if isinstance(r.get("kite_ms"), float) else "-",
                ratio("tflite") + ratio_w("tflite"), ratio("ncnn") + ratio_w("ncnn")))
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--work", default="/tmp/keras_archs")
    ap.add_argument("--stage", nargs="*", default=["gen", "check", "bench"])
    ap.add_argument("-k", default="", help="only architectures matching this regular expression")
    ap.add_argument("--benchncnn", default="/work/peers/ncnn/build/benchmark/benchncnn")
    ap.add_argument("--cpu-seconds", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--tags", nargs="*", default=None,
                    help="only these variants (tf, tflite_fp32, tflite_int8, tflite_dynamic)")
    ap.add_argument("--baseline", default="",
                    help="a second benchkite (e.g. an older build) timed the same way, interleaved: kite/base is printed")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    names = [n for n in ARCHS if re.search(args.k, n)]
    rpath = os.path.join(args.work, "results.json")
    res = json.load(open(rpath)) if os.path.exists(rpath) else {}
    for stage in args.stage:
        for name in names:
            if stage == "gen":
                gen(args, name)
            elif stage == "check":
                check(args, name, res)
            elif stage == "bench":
                bench(args, name, res)
            with open(rpath, "w") as f:
                json.dump(res, f, indent=1)
    print(fmt_table(res))


if __name__ == "__main__":
    main()
