#!/usr/bin/env python3
"""tflite2kite fidelity: TensorFlow Lite's interpreter vs kite on the same inputs.

    tflite_fidelity.py --tool build/tools/tflite/tflite2kite --kiterun build/tools/kiterun \
                       --work DIR [--modes fp32,fp16,int8] [--inputs N] CASE [CASE...]

CASE: "ops" (small Keras models, a few TFLite ops each), a keras
application (MobileNetV2, MobileNetV3Small, EfficientNetB0, ResNet50,
DenseNet121, NASNetMobile, MobileNet; random weights, weights=None,
classifier_activation=None: logits), or "apps" (all of them).

Each model is converted by tf.lite.TFLiteConverter.from_keras_model three
ways: fp32; fp16 (weights stored FLOAT16 behind DEQUANTIZE); full int8
(representative data set of 32 random inputs, TFLITE_BUILTINS_INT8, float
input and output; the op models also as "int8pt": per-tensor weight scales, and
"int8f": the int8 model converted with int8=0, fp32 layers on dequantized weights).
tflite2kite converts the .tflite, kiterun runs it on the same random NHWC
inputs (uniform [-1, 1), seeded) as tf.lite.Interpreter.

Passes when, per model:
  fp32, fp16: max |kite - tflite| <= 1e-4 * (max - min of the tflite output) on every input,
    and again at a second input size (H + 32, W + 64: the interpreter resized with
    resize_tensor_input, kiterun shapecheck=0) wherever the interpreter accepts it;
  int8: the same top-1 class on >= 99% of the inputs and cosine(kite, tflite) >= 0.99 on every input.
Prints one line per model and mode and a markdown table at the end.
Exit status 77 (skipped) when tensorflow is not installed.
"""
import argparse
import json
import os
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
import numpy as np  # noqa: E402

try:
    import tensorflow as tf  # noqa: E402
except ImportError:
    print("tensorflow is not installed (pip install tensorflow-cpu): skipped")
    sys.exit(77)

SEED = 20261127
TOL = 1e-4
INT8_TOP1 = 0.99
INT8_COS = 0.99

# keras applications: (input H=W, constructor arguments)
APPS = {
    "MobileNetV2": (96, dict(alpha=0.35)),
    "MobileNetV3Small": (96, {}),
    "EfficientNetB0": (64, {}),
    "ResNet50": (64, {}),
    "DenseNet121": (64, {}),
    "NASNetMobile": (96, {}),
    "MobileNet": (96, dict(alpha=0.25)),
}


# layer types the converted op models must have (fp32 conversion): a pattern that
# is recognised gives one layer, e.g. x * LOGISTIC(x) one Swish and no Sigmoid
# the swish conv: one Swish; the squeeze conv's LOGISTIC is fused into it (conv activation 4)
EXPECT_LAYERS = {"reshape_transpose_slice": {"Swish": 1, "Sigmoid": 0}}
# layer types allowed on cpu:reference (tests/placement/reference_rows.txt, layer/README.md)
ALLOWED_REFERENCE = set()
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "placement", "reference_rows.txt")) as _f:
    for _ln in _f:
        if _ln.split()[:1] == ["allowed"]:
            ALLOWED_REFERENCE.add(_ln.split()[1])
# models that run only at the size they were converted at: the rows of a Dense
# on a feature map whose shape TFLite left dynamic are fixed at conversion
FIXED_SIZE = {"dense_on_feature_map"}


def randomise_batchnorm(model, rng):
    for layer in model.layers:
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


def keras_app(name):
    size, kw = APPS[name]
    tf.keras.utils.set_random_seed(SEED)
    ctor = getattr(tf.keras.applications, name)
    model = ctor(weights=None, input_shape=(size, size, 3), classifier_activation=None, **kw)
    randomise_batchnorm(model, np.random.default_rng(SEED))
    return model


def op_models():
    """small keras models: (name, model); each covers a few TFLite ops"""
    L = tf.keras.layers
    out = []

    def make(name, shape, body, batch_size=1):
        tf.keras.utils.set_random_seed(SEED + len(out))
        x = tf.keras.Input(shape=shape, batch_size=batch_size)
        m = tf.keras.Model(x, body(x))
        randomise_batchnorm(m, np.random.default_rng(SEED))
        out.append((name, m))

    # CONV_2D (SAME/VALID, stride, dilation, fused ReLU/ReLU6), DEPTHWISE (multiplier 2), pools, ADD/MUL, MEAN, FC, SOFTMAX
    def convnet(x):
        a = L.Conv2D(8, 3, strides=2, padding="same", activation="relu")(x)
        b = L.DepthwiseConv2D(3, padding="same", depth_multiplier=2)(a)
        b = L.ReLU(6.0)(b)
        c = L.Conv2D(16, 1)(b)
        d = L.Conv2D(16, 3, padding="same", dilation_rate=2)(b)
        e = L.Add()([c, d])
        e = L.MaxPooling2D(3, strides=2, padding="same")(e)
        f = L.AveragePooling2D(2)(e)
        g = L.Conv2D(16, (2, 3), padding="valid")(e)
        g = L.GlobalAveragePooling2D()(g)
        f = L.GlobalAveragePooling2D()(f)
        h = L.Multiply()([f, g])
        h = L.Dense(10)(h)
        return L.Softmax()(h * 4.0)
    make("conv_pool_dense", (23, 21, 3), convnet)

    # CONCATENATION, PAD, RESIZE (bilinear / nearest), TRANSPOSE_CONV, LEAKY_RELU, PRELU, HARD_SWISH, LOGISTIC, TANH
    def decoder(x):
        a = L.Conv2D(6, 3, padding="same")(x)
        a = L.LeakyReLU(negative_slope=0.2)(a)
        b = L.ZeroPadding2D(((1, 2), (0, 1)))(a)
        b = L.Conv2D(6, (4, 2))(b)
        b = L.PReLU(shared_axes=[1, 2])(b)
        c = L.Conv2DTranspose(5, 3, strides=2, padding="same")(b)
        c = L.Activation("hard_swish")(c)
        d = L.UpSampling2D(2, interpolation="bilinear")(a)
        e = L.Resizing(18, 20, interpolation="nearest")(a)  # RESIZE_NEAREST_NEIGHBOR (UpSampling2D: TILE)
        f = L.Concatenate()([c, d, e])
        f = L.BatchNormalization()(f)  # not foldable into a conv: MUL + ADD (kite: one Scale)
        f = L.Conv2D(4, 1, activation="sigmoid")(f)
        g = L.Conv2D(4, 1, activation="tanh")(L.Concatenate()([d, e]))
        return L.Subtract()([f, g])
    make("concat_pad_resize_deconv", (9, 10, 4), decoder)

    # RESHAPE/TRANSPOSE/STRIDED_SLICE/BATCH_MATMUL/SQUEEZE-style rank changes, DIV, squeeze-excite MUL broadcast
    def shapes(x):
        a = L.Conv2D(8, 3, padding="same")(x)
        s = L.GlobalAveragePooling2D(keepdims=True)(a)
        s = L.Conv2D(8, 1, activation="sigmoid")(s)
        a = L.Multiply()([a, s])
        t = L.Reshape((6 * 7, 8))(a)
        t = L.Dense(5)(t)          # FULLY_CONNECTED per row (or BATCH_MATMUL)
        t = L.Permute((2, 1))(t)   # TRANSPOSE
        t = t[:, 1:4, :]           # STRIDED_SLICE
        t = L.Flatten()(t)
        t = L.Dense(12, activation="relu")(t)
        u = L.Conv2D(4, 3, activation="swish")(x)  # LOGISTIC + MUL: one Swish in kite (EXPECT_LAYERS)
        u = L.Flatten()(u)
        return L.Concatenate()([t / 3.0, u])
    make("reshape_transpose_slice", (6, 7, 3), shapes)

    # Dense on a feature map with the batch left open (as keras.applications build
    # ConvNeXt): Keras 3's Tensordot, whose row count TFLite computes with SHAPE /
    # GATHER / REDUCE_PROD / CONCATENATION of constants and dynamic output shapes
    def tensordot(x):
        a = L.Conv2D(8, 3, padding="same")(x)
        return L.Dense(5)(L.Dense(6, activation="gelu")(a))
    make("dense_on_feature_map", (5, 6, 3), tensordot, batch_size=None)
    return out


def convert_tflite(model, mode, size_hw, channels, rng):
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    if mode == "fp16":
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.target_spec.supported_types = [tf.float16]
    elif mode in ("int8", "int8pt", "int8f"):
        shape = (1,) + tuple(model.input_shape[1:])

        def rep():
            r = np.random.default_rng(SEED + 7)
            for _ in range(32):
                yield [r.uniform(-1, 1, shape).astype(np.float32)]
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = rep
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        if mode == "int8pt":  # per-tensor weight scales instead of per-channel
            conv._experimental_disable_per_channel = True
    with quiet():
        return conv.convert()


class quiet:
    """silences stdout/stderr at the file-descriptor level (the converter's C++ logging)"""
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


def tflite_ops(path):
    """(operator count, distinct op types) of the main subgraph"""
    try:
        from tensorflow.lite.python import schema_py_generated as s
    except ImportError:
        return 0, 0
    with open(path, "rb") as f:
        buf = f.read()
    m = s.Model.GetRootAsModel(buf, 0)
    sg = m.Subgraphs(0)
    codes = set()
    for i in range(sg.OperatorsLength()):
        oc = m.OperatorCodes(sg.Operators(i).OpcodeIndex())
        codes.add(max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode()))
    return sg.OperatorsLength(), len(codes)


def read_param_layers(path):
    with open(path) as f:
        lines = [l.split() for l in f if l.strip()]
    layers = lines[2:2 + int(lines[1][0])]
    return len(layers), len(set(t[0] for t in layers)), sum(1 for t in layers if any(p.startswith("8=") for p in t))


def run_case(args, name, model, mode, table):
    d = os.path.join(args.work, name + "_" + mode)
    os.makedirs(d, exist_ok=True)
    shape = (1,) + tuple(model.input_shape[1:])
    rng = np.random.default_rng(SEED)
    t0 = time.time()
    blob = convert_tflite(model, mode, shape[1:3], shape[-1], rng)
    tfl_s = time.time() - t0
    path = os.path.join(d, "model.tflite")
    with open(path, "wb") as f:
        f.write(blob)
    param, binf = os.path.join(d, "model.param"), os.path.join(d, "model.bin")
    before = os.times()
    t0 = time.time()
    # int8f: the int8 model with int8=0 (its int8 weights dequantized into fp32 layers)
    r = subprocess.run([args.tool, path, param, binf] + (["int8=0"] if mode == "int8f" else []), capture_output=True, text=True)
    conv_wall = time.time() - t0
    after = os.times()
    conv_cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    if r.returncode != 0:
        print("FAIL %s %s: tflite2kite: %s" % (name, mode, (r.stderr or r.stdout).strip()))
        return False
    if mode == "fp32" and name in EXPECT_LAYERS:
        with open(param) as f:
            types = [ln.split()[0] for ln in f.read().splitlines()[2:] if ln.strip()]
        for t, want in EXPECT_LAYERS[name].items():
            if types.count(t) != want:
                print("FAIL %s %s: %d %s layers, expected %d" % (name, mode, types.count(t), t, want))
                return False
    with quiet():
        interp = tf.lite.Interpreter(model_path=path)
    interp.allocate_tensors()
    inp = interp.get_input_details()[0]
    outd = interp.get_output_details()[0]
    int8 = mode.startswith("int8")
    n = args.inputs if int8 else max(1, min(args.inputs, 3))
    worst_rel, worst_abs, worst_rng = 0.0, 0.0, 0.0
    agree, cos_min = 0, 1.0
    kite_s = 0.0
    for k in range(n):
        x = rng.uniform(-1, 1, shape).astype(np.float32)
        interp.set_tensor(inp["index"], x)
        interp.invoke()
        ref = interp.get_tensor(outd["index"]).astype(np.float32)
        if outd["dtype"] != np.float32:  # quantized output: its real values
            sc, zp = outd["quantization"]
            ref = (ref - zp) * sc
        npy = os.path.join(d, "input.npy")
        np.save(npy, x[0])  # (H, W, C): the converted model takes NHWC
        outdir = os.path.join(d, "out")
        os.makedirs(outdir, exist_ok=True)
        t0 = time.time()
        kr = subprocess.run([args.kiterun, param, binf, "input=" + npy, "save=" + outdir, "placement=%d" % (k == 0)],
                            capture_output=True, text=True)
        kite_s += time.time() - t0
        if kr.returncode != 0:
            print("FAIL %s %s: kiterun: %s" % (name, mode, (kr.stderr or kr.stdout).strip()))
            return False
        # no layer on cpu:reference beyond the allowed types (issue 18, tests/placement)
        on_ref = [ln.split()[2] + " " + ln.split()[3] for ln in kr.stdout.splitlines()
                  if ln.startswith("placement ") and len(ln.split()) >= 5 and ln.split()[4] == "cpu:reference"
                  and ln.split()[2] not in ALLOWED_REFERENCE]
        if on_ref:
            print("FAIL %s %s: %d layers on cpu:reference: %s" % (name, mode, len(on_ref), ", ".join(on_ref[:5])))
            return False
        outs = [f for f in os.listdir(outdir) if f.endswith(".npy")]
        if len(outs) != 1:
            print("FAIL %s %s: kiterun wrote %s" % (name, mode, outs))
            return False
        got = np.load(os.path.join(outdir, outs[0])).astype(np.float32)
        os.remove(os.path.join(outdir, outs[0]))
        ref = ref.reshape(-1)
        got = got.reshape(-1)
        if got.size != ref.size:
            print("FAIL %s %s: kite output has %d values, tflite %d" % (name, mode, got.size, ref.size))
            return False
        diff = float(np.max(np.abs(got - ref)))
        rngv = float(ref.max() - ref.min())
        rel = diff / max(rngv, 1e-30)
        if rel >= worst_rel:
            worst_rel, worst_abs, worst_rng = rel, diff, rngv
        agree += int(np.argmax(got) == np.argmax(ref))
        cos = float(np.dot(got, ref) / max(np.linalg.norm(got) * np.linalg.norm(ref), 1e-30))
        cos_min = min(cos_min, cos)
    second = "-"
    if name in FIXED_SIZE:
        second = "converted size only"
    elif not int8:
        # the same files at another input size, wherever TFLite's interpreter takes it
        hw2 = (shape[1] + 32, shape[2] + 64)
        x2 = rng.uniform(-1, 1, (1,) + hw2 + shape[3:]).astype(np.float32)
        ref2 = None
        try:
            with quiet():
                interp2 = tf.lite.Interpreter(model_path=path)
            in2 = interp2.get_input_details()[0]
            interp2.resize_tensor_input(in2["index"], list(x2.shape))
            interp2.allocate_tensors()
            interp2.set_tensor(in2["index"], x2)
            interp2.invoke()
            ref2 = interp2.get_tensor(interp2.get_output_details()[0]["index"]).astype(np.float32).reshape(-1)
        except Exception as e:  # noqa: BLE001  the source does not run at that size
            second = "tflite refuses %dx%d (%s)" % (hw2[0], hw2[1], type(e).__name__)
        if ref2 is not None:
            npy2 = os.path.join(d, "input2.npy")
            np.save(npy2, x2[0])
            outdir2 = os.path.join(d, "out2")
            os.makedirs(outdir2, exist_ok=True)
            kr = subprocess.run([args.kiterun, param, binf, "input=" + npy2, "shapecheck=0", "save=" + outdir2],
                                capture_output=True, text=True)
            outs2 = [f for f in os.listdir(outdir2) if f.endswith(".npy")] if kr.returncode == 0 else []
            if len(outs2) != 1:
                print("FAIL %s %s at %dx%d: kiterun: %s" % (name, mode, hw2[0], hw2[1], (kr.stderr or kr.stdout).strip()[-300:]))
                return False
            got2 = np.load(os.path.join(outdir2, outs2[0])).astype(np.float32).reshape(-1)
            os.remove(os.path.join(outdir2, outs2[0]))
            rel2 = float(np.max(np.abs(got2 - ref2))) / max(float(ref2.max() - ref2.min()), 1e-30) if got2.size == ref2.size else float("inf")
            second = "at %dx%d %.2g" % (hw2[0], hw2[1], rel2)
            if not rel2 <= TOL:
                print("FAIL %s %s at %dx%d: max diff / range %.3g (%d vs %d values)" % (name, mode, hw2[0], hw2[1], rel2, got2.size, ref2.size))
                return False
    nops, ntypes = tflite_ops(path)
    layers, ltypes, int8_layers = read_param_layers(param)
    if int8:
        # top-1 is asked of the classifiers (the keras applications); the small op
        # models end in ReLU / sigmoid outputs whose ties make top-1 meaningless
        ok = (agree >= INT8_TOP1 * n or name not in APPS) and cos_min >= INT8_COS
        verdict = "top-1 %d/%d, min cosine %.5f, max diff/range %.3g" % (agree, n, cos_min, worst_rel)
    else:
        ok = worst_rel <= TOL
        verdict = "max diff %.3g / range %.3g = %.2g over %d input(s); second size: %s" % (worst_abs, worst_rng, worst_rel, n, second)
    print("%s %s %s: %d ops / %d types -> %d layers / %d types (%d int8), tflite2kite %.2f s (cpu %.2f), %s"
          % ("ok  " if ok else "FAIL", name, mode, nops, ntypes, layers, ltypes, int8_layers, conv_wall, conv_cpu, verdict),
          flush=True)
    row = dict(model=name, mode=mode, input=list(shape[1:]), ops=nops, op_types=ntypes, layers=layers,
               layer_types=ltypes, int8_layers=int8_layers, tflite_bytes=len(blob), convert_s=round(conv_wall, 3),
               convert_cpu_s=round(conv_cpu, 3), inputs=n, max_rel=worst_rel, max_diff=worst_abs, range=worst_rng,
               top1=agree, cos_min=cos_min, second_size=second, ok=bool(ok))
    table.append(row)
    dest = os.environ.get("KITE_CONVERT_RESULTS")
    if dest:
        with open(dest, "a") as f:
            f.write(json.dumps(row) + "\n")
    return ok


def print_table(rows):
    print()
    print("| model (input) | mode | TFLite ops / types | kite layers / types (int8) | tflite2kite s (wall / cpu) | inputs | result |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        if r["mode"].startswith("int8"):
            res = "top-1 %d/%d, min cosine %.5f" % (r["top1"], r["inputs"], r["cos_min"])
        else:
            res = "max diff %.3g / range %.3g = %.2g" % (r["max_diff"], r["range"], r["max_rel"])
        print("| %s (%s) | %s | %d / %d | %d / %d (%d) | %.2f / %.2f | %d | %s%s |"
              % (r["model"], "x".join(str(v) for v in r["input"]), r["mode"], r["ops"], r["op_types"], r["layers"],
                 r["layer_types"], r["int8_layers"], r["convert_s"], r["convert_cpu_s"], r["inputs"], res,
                 "" if r["ok"] else " **FAIL**"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--kiterun", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--modes", default="fp32,fp16,int8")
    ap.add_argument("--inputs", type=int, default=100, help="random inputs per int8 model (fp32/fp16: 3)")
    ap.add_argument("cases", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    tf.get_logger().setLevel("ERROR")
    models = []
    for c in args.cases:
        if c == "ops":
            # the op models also as int8 with per-tensor weight scales and as int8 with int8=0
            models += [(n, m, ["int8pt", "int8f"]) for n, m in op_models()]
        elif c == "apps":
            models += [(a, None, []) for a in APPS]
        elif c in APPS:
            models.append((c, None, []))
        else:
            print("unknown case '%s' (ops, apps, %s)" % (c, ", ".join(APPS)))
            return 2
    rows = []
    failed = 0
    for name, model, extra in models:
        if model is None:
            model = keras_app(name)
        modes = args.modes.split(",")
        for mode in modes + [m for m in extra if "int8" in modes]:
            try:
                ok = run_case(args, name, model, mode, rows)
            except Exception as e:  # a converter failure of TFLite itself is a test failure too
                print("FAIL %s %s: %s: %s" % (name, mode, type(e).__name__, e))
                ok = False
            failed += 0 if ok else 1
    print_table(rows)
    print("\n%d of %d cases failed" % (failed, len(rows) if failed == 0 else failed + sum(r["ok"] for r in rows)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
