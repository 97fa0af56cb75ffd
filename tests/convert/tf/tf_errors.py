#!/usr/bin/env python3
"""tensorflow2kite bad input: every case must exit non-zero with one clear
error (or the unsupported-op list, all types at once with their counts and
first node), never crash, and leave no output file behind.

    tf_errors.py --tool build/tools/tensorflow/tensorflow2kite --work DIR
"""
import argparse
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
import numpy as np  # noqa: E402

try:
    import tensorflow as tf  # noqa: E402
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2  # noqa: E402
except ImportError:
    print("tensorflow is not installed (pip install tensorflow-cpu): skipped")
    sys.exit(77)


def frozen_bytes(fn, shape):
    cf = tf.function(fn).get_concrete_function(tf.TensorSpec(shape, tf.float32, name="x"))
    return convert_variables_to_constants_v2(cf).graph.as_graph_def().SerializeToString()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rng = np.random.default_rng(7)
    w = tf.constant(rng.uniform(-1, 1, (3, 3, 4, 4)).astype(np.float32))
    good = frozen_bytes(lambda x: tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME")), [1, 8, 8, 4])
    unsupported = frozen_bytes(lambda x: tf.math.cumsum(tf.math.cumsum(x, 1), 2) + tf.transpose(x, [1, 0, 2, 3])
                               + tf.nn.avg_pool3d(tf.expand_dims(x, 1), 1, 1, "SAME")[:, 0], [1, 8, 8, 4])
    unknown_shape = frozen_bytes(lambda x: tf.nn.relu(x), [None, None, None, 3])

    def write(name, data):
        p = os.path.join(args.work, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    cases = [
        # (name, file, extra args, text the error must contain); the last three
        # are usage errors (exit status 2, tools/common/args.h), the others 1
        ("missing file", os.path.join(args.work, "does_not_exist.pb"), [], "cannot open"),
        ("empty file", write("empty.pb", b""), [], "empty file"),
        ("garbage", write("garbage.pb", bytes(rng.integers(0, 256, 4000, dtype=np.uint8))), [], "GraphDef"),
        ("truncated", write("truncated.pb", good[: len(good) * 2 // 3]), [], "truncated"),
        ("text instead of binary", write("text.pb", b"node { name: 'x' op: 'Placeholder' }\n"), [], "GraphDef"),
        ("unsupported ops", write("unsupported.pb", unsupported), [],
         ["unsupported ops (", "Cumsum x2 (first node", "AvgPool3D x1", "Transpose x1 (first node 'transpose': moving the batch axis)"]),
        ("unknown input dims", write("unknown.pb", unknown_shape), [], "input_shapes"),
        ("bad output name", write("good.pb", good), ["outputs=nope"], "'nope' is not a node"),
        ("bad input format", write("good2.pb", good), ["input_formats=NHCW"], "NHWC, NCHW or NONE"),
        ("bad input shape", write("good3.pb", good), ["input_shapes=1,x,8,4"], "positive ints"),
        ("unknown argument", write("good4.pb", good), ["colour=blue"], "unknown argument"),
        # an input shape that does not fit the model's input: refused at once, naming the input
        ("input shape of another rank", write("good5.pb", good), ["input_shapes=1,2"],
         ["input 'x' (Placeholder)", "[1,2] (rank 2)", "[1,8,8,4] (rank 4)"]),
        ("input shape against a fixed dim", write("good6.pb", good), ["input_shapes=1,8,8,3"],
         ["input 'x' (Placeholder)", "dimension 3 is fixed to 4"]),
        ("NCHW for a rank-2 input", write("good7.pb", frozen_bytes(lambda x: tf.nn.relu(x), [1, 8])), ["input_formats=NCHW"],
         ["input 'x' (Placeholder)", "NCHW for a rank-2 input"]),
        ("more shapes than inputs", write("good8.pb", good), ["input_shapes=1,8,8,4:1,8,8,4"], "2 entries for 1 input"),
    ]
    failures = 0
    usage_errors = ("bad input format", "bad input shape", "unknown argument")
    for name, path, extra, expect in cases:
        param = os.path.join(args.work, "out.param")
        binf = os.path.join(args.work, "out.bin")
        for p in (param, binf):
            if os.path.exists(p):
                os.remove(p)
        r = subprocess.run([args.tool, path, param, binf] + extra, capture_output=True, text=True)
        err = r.stderr
        expects = expect if isinstance(expect, list) else [expect]
        problems = []
        want = 2 if name in usage_errors else 1
        if r.returncode != want:
            problems.append("exit status %d (want %d)" % (r.returncode, want))
        for e in expects:
            if e not in err:
                problems.append("stderr lacks %r" % e)
        left = [p for p in os.listdir(args.work) if p.startswith("out.")]
        if left:
            problems.append("left files %s" % left)
        status = "ok  " if not problems else "FAIL"
        print("%s %-24s %s" % (status, name, err.strip().replace("\n", " | ")[:300]))
        for p in problems:
            print("     " + p)
        failures += bool(problems)
    # and the good graph converts
    r = subprocess.run([args.tool, os.path.join(args.work, "good.pb"), os.path.join(args.work, "ok.param"),
                        os.path.join(args.work, "ok.bin")], capture_output=True, text=True)
    print("%s good graph converts" % ("ok  " if r.returncode == 0 else "FAIL"))
    failures += r.returncode != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
