#!/usr/bin/env python3
"""Seeds for fuzz_onnx: small ONNX models covering the converter's paths
(conv/pool/gemm, shape chains, attention-style reshapes, GELU pattern).
usage: gen_fuzz_seeds.py OUTDIR"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_builder import Builder  # noqa: E402


def conv_net():
    b = Builder(13, 1)
    x = b.node("Relu", [b.conv("x", "/c1", 3, 4, 3, 1)], "/r")
    x = b.node("MaxPool", [x], "/p", kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)
    x = b.node("Flatten", [b.node("GlobalAveragePool", [x], "/g")], "", axis=1)
    b.linear_gemm(x, "/fc", 4, 5)
    b.nodes[-1].output[0] = "y"
    return b.model([("x", [1, 3, 7, 7])], [("y", [1, 5])])


def shuffle_net():
    b = Builder(13, 2)
    x = b.conv("x", "/c", 4, 4, 1)
    x1, x2 = b.node("Split", [x, b.const([2, 2])], "", nout=2, axis=1)
    x = b.node("Concat", [x2, x1], "", axis=1)
    bs, c, h, w = (b.dim(x, i, "") for i in range(4))
    x = b.node("Reshape", [x, b.shape_of([bs, 2, b.node("Div", [c, b.const(2)], ""), h, w], "")], "")
    x = b.node("Transpose", [x], "", perm=[0, 2, 1, 3, 4])
    x = b.node("Reshape", [x, b.shape_of([bs, -1, h, w], "")], "")
    x = b.node("ReduceMean", [x], "", axes=[2, 3], keepdims=0)
    b.nodes[-1].output[0] = "y"
    return b.model([("x", [1, 4, 3, 5])], [("y", [1, 4])])


def attention():
    b = Builder(17, 3)
    q = b.linear_matmul("x", "/q", 8, 8)
    q = b.node("Reshape", [q, b.const([1, 5, 2, 4])], "")
    q = b.node("Transpose", [q], "", perm=[0, 2, 1, 3])
    k = b.node("Transpose", [q], "", perm=[0, 1, 3, 2])
    a = b.node("Softmax", [b.node("MatMul", [q, k], "")], "", axis=-1)
    o = b.node("MatMul", [a, q], "")
    o = b.node("Reshape", [b.node("Transpose", [o], "", perm=[0, 2, 1, 3]), b.const([1, 5, 8])], "")
    ln = b.node("LayerNormalization", [o, b.weight("g", np.ones(8, np.float32)), b.weight("bb", np.zeros(8, np.float32))], "", axis=-1)
    g = b.node("Div", [ln, b.const(1.4142135, "", np.float32)], "")
    g = b.node("Mul", [b.node("Add", [b.node("Erf", [g], ""), b.const(1.0, "", np.float32)], ""), ln], "")
    g = b.node("Mul", [g, b.const(0.5, "", np.float32)], "")
    b.node("Gather", [g, b.const(0)], "", axis=1)
    b.nodes[-1].output[0] = "y"
    return b.model([("x", [1, 5, 8])], [("y", [1, 8])])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, fn in [("conv", conv_net), ("shuffle", shuffle_net), ("attention", attention)]:
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(fn().SerializeToString())
    return 0


if __name__ == "__main__":
    sys.exit(main())
