#!/usr/bin/env python3
"""tensorflow2kite fidelity: TensorFlow's own output vs kite's on the same input.

    tf_fidelity.py --tool build/tools/tensorflow/tensorflow2kite --kiterun build/tools/kiterun \
                   --work DIR CASE [CASE...]

CASE: a keras application (MobileNet, MobileNetV2, MobileNetV3Small, ResNet50,
InceptionV3, EfficientNetB0, DenseNet121; random weights with a fixed seed,
batch-norm statistics randomised too so that folding them is exercised) or
"ops" (small graphs, one or a few TF ops each), or "all".

Each graph is frozen with convert_variables_to_constants_v2, run by
TensorFlow on a seeded random NHWC input, converted with tensorflow2kite
(input given NHWC: the .npy holds (H, W, C)) and run with kiterun. Passes when
max |kite - tf| <= 1e-4 * (max(tf) - min(tf)) for every graph (5e-3 for
the three "fp16_" graphs converted with fp16=1 weights). Prints one line
per graph: ops, conversion time, max diff. Nothing is downloaded; fixtures
are written under --work only.
"""
import argparse
import collections
import os
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import convert_report  # noqa: E402

try:
    import tensorflow as tf  # noqa: E402
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2  # noqa: E402
except ImportError:
    print("tensorflow is not installed (pip install tensorflow-cpu): skipped")
    sys.exit(77)

SEED = 20261121
# layer types allowed on cpu:reference (tests/placement/reference_rows.txt, layer/README.md)
ALLOWED_REFERENCE = set()
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "placement", "reference_rows.txt")) as _f:
    for _ln in _f:
        if _ln.split()[:1] == ["allowed"]:
            ALLOWED_REFERENCE.add(_ln.split()[1])
TOL = 1e-4
CONVERT_STDERR = {}  # graph name -> tensorflow2kite's stderr

# (name, input H=W, extra constructor arguments)
APPS = {
    "MobileNet": (64, {}),
    "MobileNetV2": (64, {}),
    "MobileNetV3Small": (64, {}),
    "ResNet50": (64, {}),
    "InceptionV3": (75, {}),
    "EfficientNetB0": (64, {}),
    "DenseNet121": (64, {}),
    "ConvNeXtTiny": (64, {}),
    "RegNetX002": (64, {}),
}


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
                else:  # beta, moving_mean
                    ws.append(rng.uniform(-0.2, 0.2, shape).astype(np.float32))
            layer.set_weights(ws)


def freeze(fn, shape):
    cf = tf.function(fn).get_concrete_function(tf.TensorSpec(shape, tf.float32, name="x"))
    frozen = convert_variables_to_constants_v2(cf)
    return frozen.graph.as_graph_def(), frozen


# any input size: each application, converted at its size above, also runs at
# this (height, width) and must match TensorFlow's same model built for it
# (same seed, so the same weights). MobileNetV2/V3 and EfficientNet size their
# stride-2 padding from the input's parity at every stage (keras' correct_pad)
# when the model is built: sizes of the same parity at every stride build the
# same graph, so the second size is a multiple of 32 like the first.
SECOND_SIZE = {"InceptionV3": (107, 91)}
SECOND_SIZE_DEFAULT = (96, 128)
FIXED_NOTE = "runs only at the converted input size"


def keras_model(name, hw):
    tf.keras.utils.set_random_seed(SEED)
    ctor = getattr(tf.keras.applications, name)
    model = ctor(weights=None, input_shape=(hw[0], hw[1], 3), classifier_activation=None, **APPS[name][1])
    randomise_batchnorm(model, np.random.default_rng(SEED))
    return model


def keras_app(name):
    size = APPS[name][0]
    model = keras_model(name, (size, size))
    return freeze(lambda x: model(x, training=False), [1, size, size, 3])


def check_second_size(name, args):
    """the application converted at its APPS size (run_graph's model.param and
    opt.param) run at SECOND_SIZE against TensorFlow at that size"""
    work = os.path.join(args.work, name)
    hw = SECOND_SIZE.get(name, SECOND_SIZE_DEFAULT)
    model = keras_model(name, hw)
    stems = ("model", "opt")
    lines, ok = [], True
    if FIXED_NOTE in CONVERT_STDERR.get(name, ""):
        # frozen at a static shape, TensorFlow folded size-dependent shapes to
        # constants (Keras 3 Dense on a feature map: Tensordot's Reshape to
        # [H*W, C]); frozen with unknown height and width, the graph keeps them
        note = [ln for ln in CONVERT_STDERR[name].splitlines() if FIXED_NOTE in ln][0]
        lines.append("%-30s ok    frozen at a fixed shape: %s" % (name, note.split("note: ")[-1][:160]))
        size = APPS[name][0]
        gd, _ = freeze(lambda x: model(x, training=False), [1, None, None, 3])
        pb = os.path.join(work, "frozen_dyn.pb")
        with open(pb, "wb") as f:
            f.write(gd.SerializeToString())
        conv = subprocess.run([args.tool, pb, os.path.join(work, "dyn.param"), os.path.join(work, "dyn.bin"),
                               "input_shapes=1,%d,%d,3" % (size, size)], capture_output=True, text=True)
        if conv.returncode != 0 or FIXED_NOTE in conv.stderr:
            return False, "\n".join(lines + ["%-30s FAIL  frozen with unknown height and width: %s" % (name, conv.stderr.strip())])
        stems = ("dyn",)
    x = np.random.default_rng(SEED + 2).uniform(-1, 1, (1, hw[0], hw[1], 3)).astype(np.float32)
    want = model(tf.constant(x), training=False).numpy()
    want = want.reshape(want.shape[1:])
    np.save(os.path.join(work, "input_hw.npy"), x[0])
    for stem in stems:
        what = {"model": "", "opt": "after kiteoptimize ", "dyn": "frozen with unknown height and width, "}[stem]
        param = os.path.join(work, stem + ".param")
        if not os.path.exists(param):
            continue
        err, diff, good = run_kite(args, param, param[:-6] + ".bin", os.path.join(work, "out_hw_" + stem), want, False,
                                   input_npy=os.path.join(work, "input_hw.npy"))
        rng_ = float(np.max(want) - np.min(want))
        lines.append("%-30s %s  %sat input %dx%d (converted at %d): %s" % (
            name, "ok  " if good and not err else "FAIL", what, hw[0], hw[1], APPS[name][0],
            err or "max diff %.3g (range %.3g)" % (diff, rng_)))
        ok = ok and good and not err
    return ok, "\n".join(lines)


def const(rng, *shape, scale=0.5):
    return tf.constant(rng.uniform(-scale, scale, shape).astype(np.float32))


def op_graphs():
    """small graphs: (name, input shape NHWC, function)"""
    rng = np.random.default_rng(SEED)
    g = []
    w33 = const(rng, 3, 3, 5, 8)
    g.append(("conv_same_s2_odd", [1, 13, 11, 5], lambda x: tf.nn.conv2d(x, w33, [1, 2, 2, 1], "SAME")))
    w52 = const(rng, 5, 2, 5, 6)
    g.append(("conv_same_s3_asym", [1, 14, 9, 5], lambda x: tf.nn.conv2d(x, w52, [1, 3, 2, 1], "SAME")))
    g.append(("conv_valid_dilated_bias_relu", [1, 15, 12, 5],
              lambda x: tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w33, 1, "VALID", dilations=2), const(rng, 8)))))
    g.append(("conv_explicit_pad_relu6", [1, 9, 10, 5],
              lambda x: tf.nn.relu6(tf.nn.conv2d(x, w33, 1, [[0, 0], [2, 1], [0, 3], [0, 0]]) * 3.0)))
    wg = const(rng, 3, 3, 2, 6)
    g.append(("conv_grouped", [1, 8, 9, 4], lambda x: tf.nn.conv2d(x, wg, 1, "SAME")))
    wd = const(rng, 3, 3, 5, 2)
    g.append(("depthwise_mult2_s2_same", [1, 12, 13, 5],
              lambda x: tf.nn.depthwise_conv2d(x, wd, [1, 2, 2, 1], "SAME")))
    wd1 = const(rng, 5, 5, 5, 1)
    g.append(("depthwise_leaky", [1, 11, 10, 5],
              lambda x: tf.nn.leaky_relu(tf.nn.depthwise_conv2d(x, wd1, [1, 1, 1, 1], "SAME"), 0.1)))
    sc, of, mu, var = const(rng, 8), const(rng, 8), const(rng, 8), tf.constant(rng.uniform(0.5, 2, 8).astype(np.float32))
    g.append(("conv_fused_batchnorm_folded", [1, 9, 9, 5], lambda x: tf.compat.v1.nn.fused_batch_norm(
        tf.nn.conv2d(x, w33, 1, "SAME"), sc, of, mu, var, epsilon=1e-3, is_training=False)[0]))
    sc5, of5, mu5, var5 = const(rng, 5), const(rng, 5), const(rng, 5), tf.constant(rng.uniform(0.5, 2, 5).astype(np.float32))
    g.append(("fused_batchnorm_standalone", [1, 7, 6, 5], lambda x: tf.nn.sigmoid(tf.compat.v1.nn.fused_batch_norm(
        x, sc5, of5, mu5, var5, epsilon=1e-3, is_training=False)[0])))
    wt = const(rng, 3, 3, 6, 5)
    g.append(("deconv_same_s2_bias_relu", [1, 5, 4, 5], lambda x: tf.nn.relu(tf.nn.bias_add(
        tf.nn.conv2d_transpose(x, wt, [1, 10, 8, 6], 2, "SAME"), const(rng, 6)))))
    g.append(("deconv_same_s2_odd_out", [1, 5, 4, 5], lambda x: tf.nn.conv2d_transpose(x, wt, [1, 9, 7, 6], 2, "SAME")))
    wt2 = const(rng, 4, 3, 6, 5)
    g.append(("deconv_valid_s3", [1, 4, 5, 5], lambda x: tf.nn.conv2d_transpose(x, wt2, [1, 13, 15, 6], 3, "VALID")))
    g.append(("deconv_valid_s2_extra", [1, 4, 5, 5], lambda x: tf.nn.conv2d_transpose(x, wt2, [1, 11, 12, 6], 2, "VALID")))
    g.append(("maxpool_same_odd", [1, 11, 9, 4], lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME")))
    # LayerNorm as Keras writes it: moments with SquaredDifference on activations
    ln_g, ln_b = const(rng, 6), const(rng, 6)

    def layer_norm(x):
        mean, var = tf.nn.moments(x, axes=[3], keepdims=True)
        return tf.nn.batch_normalization(x, mean, var, ln_b, ln_g, 1e-6)
    g.append(("layernorm_moments_squared_difference", [1, 5, 7, 6], layer_norm))
    g.append(("squared_difference_activations", [1, 4, 5, 3], lambda x: tf.math.squared_difference(x, tf.nn.relu(x))))
    # Keras 3's graph shapes: a jit-compiled function left as a (Stateful)PartitionedCall
    # (nested), exact GELU (erfc), a Dense on a feature map (Tensordot: rows of a reshape)
    wdw = const(rng, 3, 3, 6, 1)
    wtd = const(rng, 6, 10)

    @tf.function(jit_compile=True)
    def dwconv(x):
        return tf.nn.depthwise_conv2d(x, wdw, [1, 1, 1, 1], "SAME")

    @tf.function(jit_compile=True)
    def block(x):
        return dwconv(x) + x

    g.append(("function_call_gelu_tensordot", [1, 5, 6, 6],
              lambda x: tf.tensordot(tf.nn.gelu(block(x), approximate=False), wtd, 1)))
    g.append(("gelu_erf_form", [1, 4, 5, 3], lambda x: 0.5 * x * (1.0 + tf.math.erf(x / 1.4142135623730951))))
    g.append(("avgpool_same_excludes_pad", [1, 10, 11, 4], lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME")))
    g.append(("avgpool_valid", [1, 10, 11, 4], lambda x: tf.nn.avg_pool2d(x, [2, 3], [2, 1], "VALID")))
    g.append(("activations", [1, 5, 6, 7], lambda x: tf.concat(
        [tf.nn.tanh(x), tf.nn.elu(x), tf.nn.sigmoid(x), tf.nn.softplus(x), x * tf.nn.sigmoid(x),
         x * tf.nn.relu6(x + 3.0) / 6.0, tf.abs(x), tf.exp(x), tf.square(x), tf.nn.relu(x)], axis=3)))
    g.append(("hardswish_keras", [1, 6, 5, 4], lambda x: tf.concat(
        [x * (tf.nn.relu6(x + 3.0) / 6.0), tf.nn.relu6(x + 3.0) * (1.0 / 6.0)], axis=3) * 2.0))
    g.append(("scale_bias_standalone", [1, 6, 5, 4], lambda x: tf.nn.relu(
        tf.nn.max_pool2d(x, 2, 1, "VALID") * const(rng, 4) + const(rng, 1, 1, 1, 4))))
    g.append(("unary_positive", [1, 4, 5, 3], lambda x: tf.concat(
        [tf.sqrt(tf.abs(x) + 0.1), tf.math.rsqrt(tf.abs(x) + 0.1), tf.math.log(tf.abs(x) + 0.1), -x], axis=3)))
    g.append(("mean_spatial_keepdims", [1, 7, 9, 6], lambda x: tf.reduce_mean(x, [1, 2], keepdims=True) * x))
    g.append(("mean_spatial", [1, 7, 9, 6], lambda x: tf.reduce_mean(x, [1, 2])))
    g.append(("max_spatial", [1, 7, 9, 6], lambda x: tf.reduce_max(x, [1, 2])))
    g.append(("mean_channels_keepdims", [1, 7, 9, 6], lambda x: tf.reduce_mean(x, 3, keepdims=True)))
    g.append(("sum_height", [1, 7, 9, 6], lambda x: tf.reduce_sum(x, 1)))
    g.append(("pad_constant", [1, 5, 6, 3], lambda x: tf.pad(x, [[0, 0], [1, 2], [3, 0], [0, 0]], constant_values=0.5)))
    g.append(("pad_channels", [1, 5, 6, 3], lambda x: tf.pad(x, [[0, 0], [0, 0], [0, 0], [2, 1]])))
    g.append(("mirrorpad_reflect", [1, 6, 7, 3], lambda x: tf.pad(x, [[0, 0], [2, 1], [1, 2], [0, 0]], "REFLECT")))
    g.append(("concat_channels_and_const", [1, 5, 6, 3],
              lambda x: tf.concat([x, x * 2.0, const(rng, 1, 5, 6, 2)], axis=-1)))
    g.append(("concat_height_width", [1, 5, 6, 3], lambda x: tf.concat([tf.concat([x, x + 1.0], 1), tf.concat([x, x], 1)], 2)))
    g.append(("binary_broadcast", [1, 5, 6, 4], lambda x: tf.concat([
        x + const(rng, 4), x * const(rng, 1, 1, 1, 4), x - const(rng, 5, 6, 4), 1.0 - x, 2.0 / (tf.abs(x) + 1.0),
        tf.maximum(x, 0.1), tf.minimum(x, const(rng, 6, 1)), x * tf.reduce_mean(x, [1, 2], keepdims=True),
        x / (tf.abs(tf.reduce_max(x, 3, keepdims=True)) + 1.0)], axis=3)))
    wm = const(rng, 24, 10)
    g.append(("reshape_matmul_softmax", [1, 2, 3, 4], lambda x: tf.nn.softmax(
        tf.nn.bias_add(tf.matmul(tf.reshape(x, [1, -1]), wm), const(rng, 10)))))
    wm2 = const(rng, 7, 6)
    g.append(("matmul_transpose_b_relu", [1, 1, 1, 6], lambda x: tf.nn.relu(
        tf.matmul(tf.squeeze(x, [1, 2]), wm2, transpose_b=True))))
    g.append(("reshape_to_rank4", [1, 4, 6, 3], lambda x: tf.reshape(x, [1, 6, 3, 4]) + 1.0))
    g.append(("reshape_rank3_softmax", [1, 4, 6, 3], lambda x: tf.nn.softmax(tf.reshape(x, [1, 8, 9]))))
    g.append(("expanddims_squeeze", [1, 4, 6, 3], lambda x: tf.expand_dims(tf.squeeze(
        tf.reduce_mean(x, [1], keepdims=True), [1]), 2)))
    g.append(("strided_slice", [1, 8, 9, 6], lambda x: tf.concat(
        [x[:, 1:6, 2:, 1:4], x[:, 2:7, :-2, 3:]], axis=3)))
    g.append(("strided_slice_shrink", [1, 8, 9, 6], lambda x: x[:, 3, :, :] * 2.0))
    g.append(("slice", [1, 8, 9, 6], lambda x: tf.slice(x, [0, 1, 2, 0], [1, 5, -1, 4])))
    g.append(("softmax_channels", [1, 5, 4, 6], lambda x: tf.nn.softmax(x, axis=-1)))
    g.append(("transpose", [1, 5, 4, 6], lambda x: tf.concat([
        tf.transpose(x, [0, 2, 1, 3]), tf.transpose(tf.transpose(x, [0, 3, 1, 2]), [0, 3, 2, 1])], axis=3) + 1.0))
    g.append(("transpose_rank3", [1, 4, 6, 3], lambda x: tf.transpose(tf.reshape(x, [1, 12, 6]), [0, 2, 1])))
    g.append(("resize_bilinear_half_pixel", [1, 5, 4, 3], lambda x: tf.image.resize(x, [9, 11], "bilinear")))
    g.append(("resize_bilinear_align_corners", [1, 5, 4, 3],
              lambda x: tf.compat.v1.image.resize_bilinear(x, [9, 11], align_corners=True)))
    g.append(("resize_nearest_x2", [1, 5, 4, 3], lambda x: tf.image.resize(x, [10, 8], "nearest")))
    g.append(("resize_nearest_legacy", [1, 5, 4, 3],
              lambda x: tf.compat.v1.image.resize_nearest_neighbor(x, [7, 9])))
    g.append(("addn", [1, 5, 4, 6], lambda x: tf.add_n([x, x * 2.0, tf.nn.relu(x)])))
    g.append(("shape_chain_reshape", [1, 4, 6, 3], lambda x: tf.reshape(x, tf.stack([tf.shape(x)[0], -1]))))
    return g


def run_graph(name, graph_def, fn, in_shape, args, tf_ops, nchw=False, fp16=False, table=None):
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    pb = os.path.join(work, "frozen.pb")
    with open(pb, "wb") as f:
        f.write(graph_def.SerializeToString())
    rng = np.random.default_rng(SEED + 1)
    x = rng.uniform(-1, 1, in_shape).astype(np.float32)
    ref = fn(tf.constant(x))
    ref = (ref[0] if isinstance(ref, (list, tuple)) else ref).numpy()
    # NHWC without the batch: (H, W, C); with nchw, kite's own (C, H, W)
    np.save(os.path.join(work, "input.npy"), x[0].transpose(2, 0, 1) if nchw else x[0])
    if nchw:
        ref = ref.transpose(0, 3, 1, 2)
    param, binf = os.path.join(work, "model.param"), os.path.join(work, "model.bin")
    fmt = (["input_formats=NCHW", "output_formats=NCHW"] if nchw else []) + (["fp16=1"] if fp16 else [])
    conv, conv_wall, conv_cpu = convert_report.run_timed([args.tool, pb, param, binf] + fmt)
    CONVERT_STDERR[name] = conv.stderr or ""
    conv_ms = conv_wall * 1000
    if conv.returncode != 0:
        return False, "%-30s conversion failed: %s" % (name, (conv.stderr or conv.stdout).strip())
    want = ref.reshape(ref.shape[1:]) if ref.ndim >= 2 and ref.shape[0] == 1 else ref
    err, diff, ok = run_kite(args, param, binf, os.path.join(work, "out"), want, fp16)
    if err:
        return False, "%-30s %s" % (name, err)
    rng_ = float(np.max(want) - np.min(want))
    ops = collections.Counter(n.op for n in graph_def.node if n.op not in ("Const", "Identity", "NoOp", "Placeholder"))
    n_layers = len(convert_report.read_param(param))
    line = "%-30s %s  convert %6.0f ms  layers %4d  max diff %.3g (range %.3g, %.2g of range)  ops: %s" % (
        name, "ok  " if ok else "FAIL", conv_ms, n_layers, diff, rng_, diff / max(rng_, 1e-30),
        " ".join("%s:%d" % kv for kv in sorted(ops.items())))
    tf_ops.update(ops)
    opt = None
    if args.kiteoptimize:
        # the optimised model: same tolerance, no BatchNorm left behind a conv
        oparam, obin = os.path.join(work, "opt.param"), os.path.join(work, "opt.bin")
        r = subprocess.run([args.kiteoptimize, param, binf, oparam, obin], capture_output=True, text=True)
        if r.returncode != 0:
            return False, line + "\n%-30s kiteoptimize failed: %s" % (name, (r.stderr or r.stdout).strip())
        err, odiff, ook = run_kite(args, oparam, obin, os.path.join(work, "out_opt"), want, fp16)
        if err:
            return False, line + "\n%-30s optimised: %s" % (name, err)
        nbn = convert_report.bn_after_conv(oparam)
        ook = ook and nbn == 0
        opt = dict(param=oparam, diffs=[(odiff, rng_)], ok=ook)
        line += "\n%-30s %s  after kiteoptimize: layers %4d  max diff %.3g  %d BatchNorm after a conv" % (
            name, "ok  " if ook else "FAIL", len(convert_report.read_param(oparam)), odiff, nbn)
        ok = ok and ook
    if table is not None:
        table.add(name, sum(ops.values()), len(ops), param, (conv_wall, conv_cpu), [(diff, rng_)], ok, opt)
    return ok, line


def run_kite(args, param, binf, out_dir, want, fp16, input_npy=None):
    """kiterun on input_npy (default: input.npy next to param) -> (error or None,
    max diff, within tolerance); another input size than the model's needs shapecheck=0"""
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        os.remove(os.path.join(out_dir, f))
    cmd = [args.kiterun, param, binf, "input=x:" + (input_npy or os.path.join(os.path.dirname(param), "input.npy")),
           "save=" + out_dir]
    if input_npy:
        cmd.append("shapecheck=0")
    run = subprocess.run(cmd + ["placement=1"], capture_output=True, text=True)
    if run.returncode != 0:
        return "kiterun failed: %s" % (run.stderr or run.stdout).strip(), 0.0, False
    # keras applications: no layer on cpu:reference beyond the allowed types
    # (issue 18, tests/placement); the op graphs are not held to it (Softplus
    # has no CPU driver yet)
    app = os.path.basename(os.path.dirname(param)) in APPS
    on_ref = [] if not app else [ln.split()[2] + " " + ln.split()[3] for ln in run.stdout.splitlines()
              if ln.startswith("placement ") and len(ln.split()) >= 5 and ln.split()[4] == "cpu:reference"
              and ln.split()[2] not in ALLOWED_REFERENCE]
    if on_ref:
        return "%d layers on cpu:reference: %s" % (len(on_ref), ", ".join(on_ref[:5])), 0.0, False
    outs = sorted(os.listdir(out_dir))
    if len(outs) != 1:
        return "expected one output, kite wrote %s" % outs, 0.0, False
    got = np.load(os.path.join(out_dir, outs[0]))
    if got.size != want.size or (got.shape != want.shape and got.squeeze().shape != want.squeeze().shape):
        return "shape mismatch: kite %s, tf %s" % (got.shape, want.shape), 0.0, False
    got = got.reshape(want.shape)
    diff = float(np.max(np.abs(got - want)))
    rng_ = float(np.max(want) - np.min(want))
    # fp16 weights: 2^-11 relative per weight, a few hundred terms per output
    tol = 5e-3 if fp16 else TOL
    return None, diff, bool(diff <= tol * max(rng_, 1e-6) and np.all(np.isfinite(got)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--kiterun", required=True)
    ap.add_argument("--kiteoptimize", help="also check every graph after kiteoptimize")
    ap.add_argument("--work", required=True)
    ap.add_argument("cases", nargs="+")
    args = ap.parse_args()
    cases = list(APPS) + ["ops"] if args.cases == ["all"] else args.cases
    failures = 0
    tf_ops = collections.Counter()
    table = convert_report.Table("tensorflow", "TensorFlow")
    for case in cases:
        if case == "ops":
            for name, shape, fn in op_graphs():
                gd, frozen = freeze(fn, shape)
                ok, line = run_graph("op_" + name, gd, frozen, shape, args, tf_ops)
                print(line, flush=True)
                failures += not ok
            # inputs and outputs declared NCHW: no permutes, kite's own layout;
            # fp16=1: weights stored as fp16 (tolerance 5e-3 of the range)
            for name, shape, fn in op_graphs():
                if name in ("conv_same_s2_odd", "strided_slice"):
                    gd, frozen = freeze(fn, shape)
                    ok, line = run_graph("nchw_" + name, gd, frozen, shape, args, tf_ops, nchw=True)
                    print(line, flush=True)
                    failures += not ok
                if name in ("conv_fused_batchnorm_folded", "reshape_matmul_softmax", "deconv_valid_s3"):
                    gd, frozen = freeze(fn, shape)
                    ok, line = run_graph("fp16_" + name, gd, frozen, shape, args, tf_ops, fp16=True)
                    print(line, flush=True)
                    failures += not ok
        elif case in APPS:
            t0 = time.time()
            gd, frozen = keras_app(case)
            build_s = time.time() - t0
            size = APPS[case][0]
            ok, line = run_graph(case, gd, frozen, [1, size, size, 3], args, tf_ops, table=table)
            print(line + "  (tf build+freeze %.1f s)" % build_s, flush=True)
            if ok:
                ok, line = check_second_size(case, args)
                print(line, flush=True)
            failures += not ok
        else:
            print("unknown case", case)
            return 2
    print("TF ops covered: " + " ".join(sorted(tf_ops)))
    if table.rows:
        table.print()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
