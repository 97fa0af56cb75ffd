#!/usr/bin/env python3
"""Tiny source-framework models for the kitedeploy tests, written from seeded
random weights: a Caffe prototxt + caffemodel (the Caffe protobuf written by
tests/convert/caffe/caffe_fidelity.py's encoder), an ONNX graph (onnx.helper)
and a frozen TensorFlow GraphDef.

Every layer / node / blob name that is not a model input or output starts
with "zq" so that the obfuscation test can look for them in a binary.

  make_fixtures.py OUTDIR [--no-tensorflow]
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "convert", "caffe"))

CAFFE_PROTOTXT = """name: "zqcaffenet"
input: "data"
input_shape { dim: 1 dim: 3 dim: 12 dim: 10 }
layer { name: "zqc_conv1" type: "Convolution" bottom: "data" top: "zqc_conv1_out"
        convolution_param { num_output: 6 kernel_size: 3 pad: 1 } }
layer { name: "zqc_bn1" type: "BatchNorm" bottom: "zqc_conv1_out" top: "zqc_conv1_out" }
layer { name: "zqc_scale1" type: "Scale" bottom: "zqc_conv1_out" top: "zqc_conv1_out" scale_param { bias_term: true } }
layer { name: "zqc_relu1" type: "ReLU" bottom: "zqc_conv1_out" top: "zqc_conv1_out" }
layer { name: "zqc_pool1" type: "Pooling" bottom: "zqc_conv1_out" top: "zqc_pool1_out"
        pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "zqc_conv2" type: "Convolution" bottom: "zqc_pool1_out" top: "zqc_conv2_out"
        convolution_param { num_output: 8 kernel_size: 3 pad: 1 group: 2 } }
layer { name: "zqc_relu2" type: "ReLU" bottom: "zqc_conv2_out" top: "zqc_conv2_out" }
layer { name: "zqc_fc" type: "InnerProduct" bottom: "zqc_conv2_out" top: "zqc_fc_out"
        inner_product_param { num_output: 7 } }
layer { name: "zqc_softmax" type: "Softmax" bottom: "zqc_fc_out" top: "prob" }
"""


def make_caffe(out):
    import caffe_fidelity as cf
    proto = os.path.join(out, "tiny.prototxt")
    with open(proto, "w") as f:
        f.write(CAFFE_PROTOTXT)
    net = cf.parse_prototxt(CAFFE_PROTOTXT)
    shapes, blobs, inputs = cf.infer(net, np.random.RandomState(7))
    cf.write_caffemodel(os.path.join(out, "tiny.caffemodel"), net, blobs)


def make_onnx(out):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.RandomState(11)

    def init(name, *shape, scale=0.3):
        return numpy_helper.from_array(rng.uniform(-scale, scale, shape).astype(np.float32), name)
    inits = [init("zqo_w1", 8, 3, 3, 3), init("zqo_b1", 8), init("zqo_w2", 8, 8, 1, 1), init("zqo_b2", 8),
             init("zqo_fcw", 5, 8), init("zqo_fcb", 5)]
    nodes = [
        helper.make_node("Conv", ["input", "zqo_w1", "zqo_b1"], ["zqo_c1"], name="zqo_conv1", pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["zqo_c1"], ["zqo_r1"], name="zqo_relu1"),
        helper.make_node("Conv", ["zqo_r1", "zqo_w2", "zqo_b2"], ["zqo_c2"], name="zqo_conv2"),
        helper.make_node("Sigmoid", ["zqo_c2"], ["zqo_s2"], name="zqo_sig2"),
        helper.make_node("Mul", ["zqo_c2", "zqo_s2"], ["zqo_m2"], name="zqo_silu2"),
        helper.make_node("GlobalAveragePool", ["zqo_m2"], ["zqo_gap"], name="zqo_pool"),
        helper.make_node("Flatten", ["zqo_gap"], ["zqo_flat"], name="zqo_flatten", axis=1),
        helper.make_node("Gemm", ["zqo_flat", "zqo_fcw", "zqo_fcb"], ["output"], name="zqo_fc", transB=1),
    ]
    g = helper.make_graph(nodes, "zqonnxnet", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 16, 16])],
                          [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 5])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, "tiny.onnx"))


def make_tensorflow(out):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    rng = np.random.RandomState(13)
    g = tf.Graph()
    with g.as_default():
        w1 = tf.constant(rng.uniform(-0.3, 0.3, (3, 3, 2, 6)).astype(np.float32), name="zqt_w1")
        b1 = tf.constant(rng.uniform(-0.1, 0.1, (6,)).astype(np.float32), name="zqt_b1")
        w2 = tf.constant(rng.uniform(-0.3, 0.3, (6, 4)).astype(np.float32), name="zqt_w2")
        x = tf.compat.v1.placeholder(tf.float32, [1, 10, 12, 2], name="x")
        y = tf.nn.conv2d(x, w1, strides=1, padding="SAME", name="zqt_conv")
        y = tf.nn.bias_add(y, b1, name="zqt_bias")
        y = tf.nn.relu(y, name="zqt_relu")
        y = tf.reduce_mean(y, axis=[1, 2], name="zqt_mean")
        y = tf.matmul(y, w2, name="zqt_fc")
        tf.nn.softmax(y, name="tf_out")
    with open(os.path.join(out, "tiny.pb"), "wb") as f:
        f.write(g.as_graph_def().SerializeToString())


# the names the obfuscation test looks for (none but inputs / outputs may
# appear in an obfuscated library)
SECRET_PREFIX = "zq"


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    make_caffe(out)
    make_onnx(out)
    if "--no-tensorflow" not in sys.argv:
        make_tensorflow(out)


if __name__ == "__main__":
    main()
