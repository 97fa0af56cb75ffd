#!/usr/bin/env python3
"""Convert keras.applications and torchvision architectures with random
weights and measure each conversion against its framework (issue 19's
per-model table in tools/convert/README.md). Not a ctest: it needs torch,
torchvision and (for RegNetX002) tf-keras, and takes minutes per model.

For every model: build it with random weights (fixed seed; BatchNorm given
non-trivial statistics), export it (TensorFlow: a frozen GraphDef of the
concrete function; torchvision: torch.onnx.export, the legacy TorchScript
exporter or with --dynamo torch's current default), run the framework on one
seeded input, convert with tensorflow2kite / onnx2kite under a small python
probe that reports the converter's peak resident memory, run kiterun on the
same input, then kiteoptimize and kiterun again. Prints one markdown row per
model: source ops, kite layers, conversion wall / CPU seconds, converter peak
RSS, the source file's size, max abs diff / output range before and after
kiteoptimize. Each model runs in a child process of its own (TensorFlow and
torch are not loaded together; tf-keras needs TF_USE_LEGACY_KERAS=1 before
TensorFlow is imported).

  python3 tools/convert/measure_architectures.py --build build --work /tmp/arch [--dynamo] [models...]

Model names: tf:<keras application>, tfk:<tf-keras application> (legacy
Keras), tv:<torchvision model>; default: the list below.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "convert"))
import convert_report  # noqa: E402

SEED = 20261127
TOL = 1e-4

# name -> input height = width (small sizes: the table is made on 2 cores)
DEFAULT = collections.OrderedDict([
    ("tf:ConvNeXtTiny", 64),
    ("tfk:RegNetX002", 64),
    ("tv:swin_t", 224),          # 7x7 windows at 1/32: 224 is its smallest size
    ("tf:Xception", 75),
    ("tf:EfficientNetV2B0", 64),
    ("tf:MobileNetV3Large", 64),
    ("tf:ResNet50V2", 64),
    ("tf:NASNetMobile", 64),
    ("tv:densenet121", 128),
    ("tv:googlenet", 128),
    ("tv:resnext50_32x4d", 128),
    ("tv:mobilenet_v3_large", 128),
    ("tv:efficientnet_v2_s", 128),
    ("tv:regnet_y_400mf", 128),
])


# other models' sizes where 128 does not fit (tf: 64 unless listed)
SIZES = {"tv:swin_v2_t": 256, "tv:maxvit_t": 224, "tv:vit_b_32": 224, "tv:vit_b_16": 224, "tv:swin_t": 224,
         "tf:InceptionResNetV2": 75, "tf:InceptionV3": 75, "tf:Xception": 75}


def default_size(m):
    return DEFAULT.get(m) or SIZES.get(m) or (64 if m.startswith("tf") else 128)


def tf_child(name, size, legacy, work):
    """frozen .pb + reference; returns (pb path, input npy, reference, op counter)"""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    if legacy:
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
    import numpy as np
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
    tf.keras.utils.set_random_seed(SEED)
    model = getattr(tf.keras.applications, name)(weights=None, input_shape=(size, size, 3),
                                                  classifier_activation=None)
    rng = np.random.default_rng(SEED)
    for layer in model.layers:
        if isinstance(layer, tf.keras.layers.BatchNormalization):
            ws = []
            for w in layer.weights:
                n = w.name.split("/")[-1].split(":")[0]
                lo, hi = (0.5, 2.0) if "variance" in n else (0.5, 1.5) if "gamma" in n else (-0.2, 0.2)
                ws.append(rng.uniform(lo, hi, tuple(w.shape)).astype(np.float32))
            layer.set_weights(ws)
    cf = tf.function(lambda x: model(x, training=False)).get_concrete_function(
        tf.TensorSpec([1, size, size, 3], tf.float32, name="x"))
    frozen = convert_variables_to_constants_v2(cf)
    gd = frozen.graph.as_graph_def()
    pb = os.path.join(work, "model.pb")
    with open(pb, "wb") as f:
        f.write(gd.SerializeToString())
    x = np.random.default_rng(SEED + 1).uniform(-1, 1, (1, size, size, 3)).astype(np.float32)
    ref = frozen(tf.constant(x))
    ref = (ref[0] if isinstance(ref, (list, tuple)) else ref).numpy().reshape(-1)
    inp = os.path.join(work, "input.npy")
    np.save(inp, x[0])  # H, W, C: tensorflow2kite's input keeps TensorFlow's layout
    ops = collections.Counter(n.op for n in gd.node if n.op not in ("Const", "Identity", "NoOp", "Placeholder"))
    return pb, "x", inp, ref, ops


def tv_child(name, size, dynamo, work):
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch
    import torchvision
    torch.manual_seed(SEED)
    model = getattr(torchvision.models, name)(weights=None).eval()
    with torch.no_grad():
        for p in model.parameters():  # torchvision zero-initialises some heads
            if p.dim() >= 1 and not p.any():
                p.normal_(0, 0.02)
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    x = torch.rand(1, 3, size, size)
    path = os.path.join(work, "model.onnx")
    if dynamo:
        torch.onnx.export(model, (x,), None, opset_version=18, input_names=["input"], output_names=["output"],
                          dynamo=True, verbose=False).save(path)
    else:
        torch.onnx.export(model, x, path, opset_version=17, input_names=["input"], output_names=["output"],
                          dynamo=False)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    ref = sess.run(None, {"input": x.numpy()})[0].reshape(-1)
    inp = os.path.join(work, "input.npy")
    np.save(inp, x.numpy()[0])
    ops = collections.Counter(n.op_type for n in onnx.load(path, load_external_data=False).graph.node)
    return path, "input", inp, ref, ops


def run_kite(kiterun, param, binf, in_name, inp, out_dir, ref):
    import numpy as np
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        os.remove(os.path.join(out_dir, f))
    r = subprocess.run([kiterun, param, binf, "input=%s:%s" % (in_name, inp), "save=" + out_dir, "threads=2"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return "kiterun: " + (r.stderr or r.stdout).strip()[-300:], 0.0
    outs = sorted(os.listdir(out_dir))
    if len(outs) != 1:
        return "kite wrote %d outputs" % len(outs), 0.0
    got = np.load(os.path.join(out_dir, outs[0])).reshape(-1)
    if got.size != ref.size:
        return "kite output has %d values, the framework's %d" % (got.size, ref.size), 0.0
    if not np.all(np.isfinite(got)):
        return "kite output not finite", 0.0
    return None, float(np.abs(got - ref).max())


def child(args):
    kind, name = args.one.split(":", 1)
    size = int(args.size)
    work = os.path.join(args.work, args.one.replace(":", "_"))
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
    if kind in ("tf", "tfk"):
        src, in_name, inp, ref, ops = tf_child(name, size, kind == "tfk", work)
        tool = args.tensorflow2kite
    else:
        src, in_name, inp, ref, ops = tv_child(name, size, args.dynamo, work)
        tool = args.onnx2kite
    row = dict(model=args.one, size=size, export_s=round(time.time() - t0, 1), src_mb=os.path.getsize(src) / 2**20,
               src_nodes=sum(ops.values()), src_types=len(ops), ok=False,
               exporter=("dynamo, 18" if args.dynamo else "legacy, 17") if kind == "tv" else
               ("tf-keras" if kind == "tfk" else "Keras 3"))
    param, binf = os.path.join(work, "model.param"), os.path.join(work, "model.bin")
    conv, wall, cpu, peak = convert_report.run_timed_mem([tool, src, param, binf])
    row.update(convert_s=wall, convert_cpu_s=cpu, peak_mb=peak)
    if conv.returncode != 0:
        row["error"] = (conv.stderr or conv.stdout).strip()[-600:]
        return row
    rng = float(ref.max() - ref.min())
    kiterun = args.kiterun
    err, diff = run_kite(kiterun, param, binf, in_name, inp, os.path.join(work, "out"), ref)
    row.update(layers=convert_report.layer_summary(param)[0], layer_types=convert_report.layer_summary(param)[1],
               range=rng, diff=diff)
    if err:
        row["error"] = err
        return row
    oparam, obin = os.path.join(work, "opt.param"), os.path.join(work, "opt.bin")
    r = subprocess.run([args.kiteoptimize, param, binf, oparam, obin],
                       capture_output=True, text=True)
    if r.returncode != 0:
        row["error"] = "kiteoptimize: " + r.stderr.strip()[-300:]
        return row
    oerr, odiff = run_kite(kiterun, oparam, obin, in_name, inp, os.path.join(work, "out_opt"), ref)
    row.update(opt_layers=convert_report.layer_summary(oparam)[0], opt_diff=odiff,
               opt_bn_left=convert_report.bn_after_conv(oparam))
    if oerr:
        row["error"] = "after kiteoptimize: " + oerr
        return row
    row["ok"] = rng > 0 and diff <= TOL * rng and odiff <= TOL * rng and row["opt_bn_left"] == 0
    return row


def markdown(rows):
    out = ["| model | exporter | input | source file | source nodes / op types | kite layers / types | "
           "conversion s (wall / cpu) | peak memory | max abs diff / range | after kiteoptimize: layers, diff / range |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "layers" not in r or "error" in r and "diff" not in r:
            out.append("| %s | %s | %d | %.1f MB | %d / %d | FAIL: %s | | | | |" % (
                r["model"], r["exporter"], r["size"], r["src_mb"], r["src_nodes"], r["src_types"],
                r.get("error", "?").replace("\n", " ").replace("|", "/")[:300]))
            continue
        opt = "-"
        if "opt_diff" in r:
            opt = "%d, %.2g" % (r["opt_layers"], r["opt_diff"] / max(r["range"], 1e-30))
        out.append("| %s | %s | %d | %.1f MB | %d / %d | %d / %d | %.2f / %.2f | %.0f MiB | %.3g / %.3g = %.2g%s | %s |" % (
            r["model"], r["exporter"], r["size"], r["src_mb"], r["src_nodes"], r["src_types"], r["layers"],
            r["layer_types"], r["convert_s"], r["convert_cpu_s"], r["peak_mb"], r["diff"], r["range"],
            r["diff"] / max(r["range"], 1e-30), "" if r["ok"] else " FAIL " + r.get("error", ""), opt))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="the build folder with tools/ (default: build)")
    ap.add_argument("--work", required=True, help="folder for the exported and converted models")
    ap.add_argument("--dynamo", action="store_true", help="torchvision: torch's dynamo exporter (opset 18)")
    ap.add_argument("--size", help="input height = width for every model (default: per model)")
    ap.add_argument("--results", help="append each row as JSON to this file")
    for tool, sub in (("tensorflow2kite", "tools/tensorflow"), ("onnx2kite", "tools/onnx"), ("kiterun", "tools"),
                      ("kiteoptimize", "tools/optimize")):
        ap.add_argument("--" + tool, help="the tool (default: BUILD/%s/%s)" % (sub, tool))
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("models", nargs="*")
    args = ap.parse_args()
    for tool, sub in (("tensorflow2kite", "tools/tensorflow"), ("onnx2kite", "tools/onnx"), ("kiterun", "tools"),
                      ("kiteoptimize", "tools/optimize")):
        if not getattr(args, tool):
            setattr(args, tool, os.path.join(args.build, sub, tool))
    if args.one:
        try:
            row = child(args)
        except Exception as e:  # the export itself failed: one row says so
            row = dict(model=args.one, size=int(args.size), src_mb=0, src_nodes=0, src_types=0, ok=False,
                       exporter="-", error="%s: %s" % (type(e).__name__, e))
        print("KITE_ROW " + json.dumps(row), flush=True)
        return 0
    import importlib.util
    models = args.models or list(DEFAULT)
    need = set(["tensorflow"] if any(m.startswith("tf") for m in models) else []) | set(
        ["tf_keras"] if any(m.startswith("tfk:") for m in models) else []) | set(
        ["torch", "torchvision", "onnxruntime", "onnx"] if any(m.startswith("tv:") for m in models) else [])
    missing = sorted(p for p in need if importlib.util.find_spec(p) is None)
    if missing:
        print("not installed: %s: skipped" % " ".join(missing))
        return 77
    rows, failed = [], 0
    for m in models:
        size = int(args.size) if args.size else default_size(m)
        cmd = [sys.executable, os.path.abspath(__file__), "--one", m, "--size", str(size), "--work", args.work]
        cmd += ["--%s=%s" % (t, getattr(args, t)) for t in ("tensorflow2kite", "onnx2kite", "kiterun", "kiteoptimize")]
        cmd += ["--dynamo"] if args.dynamo else []
        r = subprocess.run(cmd, capture_output=True, text=True)
        row = None
        for line in r.stdout.splitlines():
            if line.startswith("KITE_ROW "):
                row = json.loads(line[9:])
        if row is None:
            row = dict(model=m, size=size, src_mb=0, src_nodes=0, src_types=0, ok=False, exporter="-",
                       error="child failed: " + (r.stderr or r.stdout).strip()[-300:])
        rows.append(row)
        failed += not row["ok"]
        print(("ok   " if row["ok"] else "FAIL ") + markdown([row])[-1], flush=True)
        if args.results:
            with open(args.results, "a") as f:
                f.write(json.dumps(row) + "\n")
    print()
    print("\n".join(markdown(rows)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
