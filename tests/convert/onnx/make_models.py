#!/usr/bin/env python3
"""Builds the torchvision architectures as ONNX graphs with random weights.

torch/torchvision are not installed here (their wheels pull gigabytes), so
each architecture is written node by node with onnx.helper in the form
torch.onnx.export (torch 2.x, eval mode) emits for it: Conv with BatchNorm
folded (mobilenet_v2 keeps BatchNormalization nodes, the unfolded form), ReLU6
as Clip with Constant bounds, SiLU as Sigmoid*Mul, HardSwish/HardSigmoid,
GlobalAveragePool + Flatten or ReduceMean, Gemm(transB=1) classifiers,
channel shuffle as Shape->Gather->Div->Unsqueeze->Concat->Reshape, Transpose,
Reshape, chunk as Split, and ViT's patch embedding, class token
(Expand + Concat), position embedding Add, LayerNormalization (opset 17),
nn.MultiheadAttention decomposed into MatMul/Reshape/Transpose/Gather/Softmax
as F.multi_head_attention_forward traces, and GELU as Div/Erf/Add/Mul/Mul.

usage: make_models.py OUTDIR [name ...]   (names: see MODELS; vit_b_16 is the
full 12-layer model, vit_b_16_l2 the 2-encoder-layer CI variant)
"""
import os
import sys

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_builder import Builder  # noqa: E402

IN = [("input", [1, 3, 224, 224])]
OUT = [("output", [1, 1000])]


def head(b, x, c):
    x = b.node("GlobalAveragePool", [x], "/avgpool")
    x = b.node("Flatten", [x], "", axis=1)
    return x


def resnet18():
    b = Builder(13, 18)
    x = b.node("Relu", [b.conv("input", "/conv1", 3, 64, 7, 2, 3)], "/relu")
    x = b.node("MaxPool", [x], "/maxpool", ceil_mode=0, kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2])
    cin = 64
    for li, (c, s) in enumerate([(64, 1), (128, 2), (256, 2), (512, 2)], 1):
        for bi in range(2):
            sc = "/layer%d/layer%d.%d" % (li, li, bi)
            st = s if bi == 0 else 1
            y = b.node("Relu", [b.conv(x, sc + "/conv1", cin, c, 3, st)], sc + "/relu")
            y = b.conv(y, sc + "/conv2", c, c, 3, 1)
            idn = x
            if st != 1 or cin != c:
                idn = b.conv(x, sc + "/downsample/downsample.0", cin, c, 1, st, 0)
            x = b.node("Relu", [b.node("Add", [y, idn], sc)], sc + "/relu_1")
            cin = c
    x = head(b, x, 512)
    y = b.linear_gemm(x, "/fc", 512, 1000)
    b.nodes[-1].output[0] = "output"
    return b.model(IN, OUT)


def mobilenet_v2():
    b = Builder(13, 2)

    def cbr(x, sc, cin, cout, k, s, g=1, act=True):
        y = b.bn(b.conv(x, sc + "/0", cin, cout, k, s, g=g, bias=False), sc + "/1", cout)
        return b.relu6(y, sc + "/2") if act else y

    x = cbr("input", "/features/features.0", 3, 32, 3, 2)
    cin, idx = 32, 1
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            st = s if i == 0 else 1
            sc = "/features/features.%d/conv" % idx
            hid = cin * t
            y = x
            j = 0
            if t != 1:
                y = cbr(y, sc + "/conv.%d" % j, cin, hid, 1, 1)
                j += 1
            y = cbr(y, sc + "/conv.%d" % j, hid, hid, 3, st, g=hid)
            y = b.bn(b.conv(y, sc + "/conv.%d" % (j + 1), hid, c, 1, 1, bias=False), sc + "/conv.%d" % (j + 2), c)
            if st == 1 and cin == c:
                y = b.node("Add", [x, y], "/features/features.%d" % idx)
            x = y
            cin = c
            idx += 1
    x = cbr(x, "/features/features.18", 320, 1280, 1, 1)
    x = b.node("GlobalAveragePool", [x], "")
    x = b.node("Flatten", [x], "", axis=1)
    x = b.node("Dropout", [x], "/classifier/classifier.0")  # kept to exercise its removal
    b.linear_gemm(x, "/classifier/classifier.1", 1280, 1000)
    b.nodes[-1].output[0] = "output"
    return b.model(IN, OUT)


def _div8(v):
    n = max(8, int(v + 4) // 8 * 8)
    return n + 8 if n < 0.9 * v else n


def mobilenet_v3_small():
    b = Builder(17, 3)

    def act(x, sc, kind):
        return b.node("HardSwish", [x], sc) if kind == "HS" else b.node("Relu", [x], sc)

    x = act(b.conv("input", "/features/features.0/0", 3, 16, 3, 2), "/features/features.0/2", "HS")
    cin = 16
    cfg = [(3, 16, 16, True, "RE", 2), (3, 72, 24, False, "RE", 2), (3, 88, 24, False, "RE", 1),
           (5, 96, 40, True, "HS", 2), (5, 240, 40, True, "HS", 1), (5, 240, 40, True, "HS", 1),
           (5, 120, 48, True, "HS", 1), (5, 144, 48, True, "HS", 1), (5, 288, 96, True, "HS", 2),
           (5, 576, 96, True, "HS", 1), (5, 576, 96, True, "HS", 1)]
    for i, (k, exp, out, se, a, s) in enumerate(cfg, 1):
        sc = "/features/features.%d/block" % i
        y = x
        j = 0
        if exp != cin:
            y = act(b.conv(y, sc + "/block.0/0", cin, exp, 1), sc + "/block.0/2", a)
            j = 1
        y = act(b.conv(y, sc + "/block.%d/0" % j, exp, exp, k, s, g=exp), sc + "/block.%d/2" % j, a)
        j += 1
        if se:
            sq = _div8(exp // 4)
            ssc = sc + "/block.%d" % j
            z = b.node("GlobalAveragePool", [y], ssc + "/avgpool")
            z = b.node("Relu", [b.conv(z, ssc + "/fc1", exp, sq, 1)], ssc + "/relu")
            z = b.node("HardSigmoid", [b.conv(z, ssc + "/fc2", sq, exp, 1)], ssc + "/scale_activation", alpha=1.0 / 6, beta=0.5)
            y = b.node("Mul", [z, y], ssc)
            j += 1
        y = b.conv(y, sc + "/block.%d/0" % j, exp, out, 1)
        if s == 1 and cin == out:
            y = b.node("Add", [y, x], "/features/features.%d" % i)
        x = y
        cin = out
    x = act(b.conv(x, "/features/features.12/0", 96, 576, 1), "/features/features.12/2", "HS")
    x = b.node("GlobalAveragePool", [x], "/avgpool")
    x = b.node("Flatten", [x], "", axis=1)
    x = b.node("HardSwish", [b.linear_gemm(x, "/classifier/classifier.0", 576, 1024)], "/classifier/classifier.1")
    b.linear_gemm(x, "/classifier/classifier.3", 1024, 1000)
    b.nodes[-1].output[0] = "output"
    return b.model(IN, OUT)


def shufflenet_v2_x1_0():
    b = Builder(14, 4)

    def shuffle(x, sc):
        bs = b.dim(x, 0, sc)
        ch = b.dim(x, 1, sc)
        h = b.dim(x, 2, sc)
        w = b.dim(x, 3, sc)
        cpg = b.node("Div", [ch, b.const(2, sc)], sc)
        x = b.node("Reshape", [x, b.shape_of([bs, 2, cpg, h, w], sc)], sc)
        x = b.node("Transpose", [x], sc, perm=[0, 2, 1, 3, 4])
        return b.node("Reshape", [x, b.shape_of([bs, -1, h, w], sc)], sc)

    x = b.node("Relu", [b.conv("input", "/conv1/conv1.0", 3, 24, 3, 2)], "/conv1/conv1.2")
    x = b.node("MaxPool", [x], "/maxpool", ceil_mode=0, kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2])
    cin = 24
    for si, (rep, c) in enumerate([(4, 116), (8, 232), (4, 464)], 2):
        bf = c // 2
        for i in range(rep):
            sc = "/stage%d/stage%d.%d" % (si, si, i)
            if i == 0:
                y1 = b.conv(x, sc + "/branch1/branch1.0", cin, cin, 3, 2, g=cin)
                y1 = b.node("Relu", [b.conv(y1, sc + "/branch1/branch1.2", cin, bf, 1)], sc + "/branch1/branch1.4")
                y2 = b.node("Relu", [b.conv(x, sc + "/branch2/branch2.0", cin, bf, 1)], sc + "/branch2/branch2.2")
                y2 = b.conv(y2, sc + "/branch2/branch2.3", bf, bf, 3, 2, g=bf)
                y2 = b.node("Relu", [b.conv(y2, sc + "/branch2/branch2.5", bf, bf, 1)], sc + "/branch2/branch2.7")
                x = b.node("Concat", [y1, y2], sc, axis=1)
            else:
                x1, x2 = b.node("Split", [x, b.const([bf, bf], sc)], sc, nout=2, axis=1)
                y2 = b.node("Relu", [b.conv(x2, sc + "/branch2/branch2.0", bf, bf, 1)], sc + "/branch2/branch2.2")
                y2 = b.conv(y2, sc + "/branch2/branch2.3", bf, bf, 3, 1, g=bf)
                y2 = b.node("Relu", [b.conv(y2, sc + "/branch2/branch2.5", bf, bf, 1)], sc + "/branch2/branch2.7")
                x = b.node("Concat", [x1, y2], sc, axis=1)
            x = shuffle(x, sc)
            cin = c
    x = b.node("Relu", [b.conv(x, "/conv5/conv5.0", 464, 1024, 1)], "/conv5/conv5.2")
    x = b.node("ReduceMean", [x], "", axes=[2, 3], keepdims=0)
    b.linear_gemm(x, "/fc", 1024, 1000)
    b.nodes[-1].output[0] = "output"
    return b.model(IN, OUT)


def squeezenet1_1():
    b = Builder(13, 5)

    def fire(x, sc, cin, sq, e1, e3):
        s = b.node("Relu", [b.conv(x, sc + "/squeeze", cin, sq, 1)], sc + "/squeeze_activation")
        a = b.node("Relu", [b.conv(s, sc + "/expand1x1", sq, e1, 1)], sc + "/expand1x1_activation")
        c = b.node("Relu", [b.conv(s, sc + "/expand3x3", sq, e3, 3)], sc + "/expand3x3_activation")
        return b.node("Concat", [a, c], sc, axis=1)

    def pool(x, sc):
        return b.node("MaxPool", [x], sc, ceil_mode=1, kernel_shape=[3, 3], pads=[0, 0, 0, 0], strides=[2, 2])

    x = b.node("Relu", [b.conv("input", "/features/features.0", 3, 64, 3, 2, 0)], "/features/features.1")
    x = pool(x, "/features/features.2")
    x = fire(x, "/features/features.3", 64, 16, 64, 64)
    x = fire(x, "/features/features.4", 128, 16, 64, 64)
    x = pool(x, "/features/features.5")
    x = fire(x, "/features/features.6", 128, 32, 128, 128)
    x = fire(x, "/features/features.7", 256, 32, 128, 128)
    x = pool(x, "/features/features.8")
    x = fire(x, "/features/features.9", 256, 48, 192, 192)
    x = fire(x, "/features/features.10", 384, 48, 192, 192)
    x = fire(x, "/features/features.11", 384, 64, 256, 256)
    x = fire(x, "/features/features.12", 512, 64, 256, 256)
    x = b.node("Relu", [b.conv(x, "/classifier/classifier.1", 512, 1000, 1)], "/classifier/classifier.2")
    x = b.node("GlobalAveragePool", [x], "/classifier/classifier.3")
    b.node("Flatten", [x], "", axis=1)
    b.nodes[-1].output[0] = "output"
    return b.model(IN, OUT)


def efficientnet_b0():
    b = Builder(13, 6)
    x = b.silu(b.conv("input", "/features/features.0/features.0.0", 3, 32, 3, 2), "/features/features.0/features.0.2")
    cin = 32
    stage = 1
    for e, k, s, _cin, cout, n in [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
                                   (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]:
        for i in range(n):
            st = s if i == 0 else 1
            sc = "/features/features.%d/features.%d.%d/block" % (stage, stage, i)
            exp = cin * e
            y = x
            j = 0
            if exp != cin:
                y = b.silu(b.conv(y, sc + "/block.0/block.0.0", cin, exp, 1), sc + "/block.0/block.0.2")
                j = 1
            y = b.silu(b.conv(y, sc + "/block.%d/block.%d.0" % (j, j), exp, exp, k, st, g=exp), sc + "/block.%d/block.%d.2" % (j, j))
            j += 1
            sq = max(1, cin // 4)
            ssc = sc + "/block.%d" % j
            z = b.node("GlobalAveragePool", [y], ssc + "/avgpool")
            z = b.silu(b.conv(z, ssc + "/fc1", exp, sq, 1), ssc + "/activation")
            z = b.node("Sigmoid", [b.conv(z, ssc + "/fc2", sq, exp, 1)], ssc + "/scale_activation")
            y = b.node("Mul", [z, y], ssc)
            j += 1
            y = b.conv(y, sc + "/block.%d/block.%d.0" % (j, j), exp, cout, 1)
            if st == 1 and cin == cout:
                y = b.node("Add", [y, x], "/features/features.%d/features.%d.%d" % (stage, stage, i))
            x = y
            cin = cout
        stage += 1
    x = b.silu(b.conv(x, "/features/features.8/features.8.0", 320, 1280, 1), "/features/features.8/features.8.2")
    x = b.node("GlobalAveragePool", [x], "/avgpool")
    x = b.node("Flatten", [x], "", axis=1)
    b.linear_gemm(x, "/classifier/classifier.1", 1280, 1000)
    b.nodes[-1].output[0] = "output"
    return b.model(IN, OUT)


def vit_b_16(layers=12):
    b = Builder(17, 7)
    D, H, MLP, P = 768, 12, 3072, 16
    hd = D // H
    x = b.conv("input", "/conv_proj", 3, D, P, P, 0)
    n = b.dim("input", 0, "")
    hgt = b.dim("input", 2, "")
    wid = b.dim("input", 3, "")
    nh = b.node("Div", [hgt, b.const(P)], "")
    nw = b.node("Div", [wid, b.const(P)], "")
    x = b.node("Reshape", [x, b.shape_of([n, D, b.node("Mul", [nh, nw], "")], "")], "")
    x = b.node("Transpose", [x], "", perm=[0, 2, 1])
    # class_token.expand(n, -1, -1): -1 entries become the token's own sizes
    shp = b.shape_of([n, -1, -1], "")
    eq = b.node("Equal", [shp, b.const([-1, -1, -1])], "")
    ones = b.node("ConstantOfShape", [b.const([3])], "", value=onnx.numpy_helper.from_array(np.array([1], dtype=np.int64)))
    shp = b.node("Where", [eq, ones, shp], "")
    cls = b.node("Expand", [b.weight("class_token", b.randn(1, 1, D, scale=0.5)), shp], "")
    x = b.node("Concat", [cls, x], "", axis=1)
    x = b.node("Add", [x, b.weight("encoder.pos_embedding", b.randn(1, 197, D, scale=0.02))], "/encoder")

    def ln(x, sc):
        pre = sc.strip("/").replace("/", ".")
        return b.node("LayerNormalization", [x, b.weight(pre + ".weight", b.rng.uniform(0.5, 1.5, D).astype(np.float32)),
                                             b.weight(pre + ".bias", b.randn(D, scale=0.1))], sc, axis=-1, epsilon=1e-6)

    for li in range(layers):
        sc = "/encoder/layers/encoder_layer_%d" % li
        a = ln(x, sc + "/ln_1")
        asc = sc + "/self_attention"
        q = b.node("Transpose", [a], asc, perm=[1, 0, 2])            # batch_first -> (L, N, E)
        tl = b.dim(q, 0, asc)
        bsz = b.dim(q, 1, asc)
        proj = b.linear_matmul(q, asc + "/in_proj", D, 3 * D)          # in_proj packed
        proj = b.node("Reshape", [proj, b.shape_of([tl, bsz, 3, D], asc)], asc)   # unflatten(-1, (3, E))
        proj = b.node("Unsqueeze", [proj, b.const([0], asc)], asc)
        proj = b.node("Transpose", [proj], asc, perm=[3, 1, 2, 0, 4])  # transpose(0, -2)
        proj = b.node("Squeeze", [proj, b.const([3], asc)], asc)
        qkv = [b.node("Gather", [proj, b.const(i, asc)], asc, axis=0) for i in range(3)]
        heads = b.node("Mul", [bsz, b.const(H, asc)], asc)
        qkv = [b.node("Transpose", [b.node("Reshape", [t, b.shape_of([tl, heads, hd], asc)], asc)], asc, perm=[1, 0, 2]) for t in qkv]
        qkv = [b.node("Reshape", [t, b.shape_of([bsz, H, tl, hd], asc)], asc) for t in qkv]
        # scaled_dot_product_attention as the opset-14+ symbolic writes it
        last = b.node("Slice", [b.node("Shape", [qkv[0]], asc), b.const([-1], asc), b.const([np.iinfo(np.int64).max], asc)], asc)
        scale = b.node("Div", [b.const(1.0, asc, np.float32), b.node("Sqrt", [b.node("Cast", [last], asc, to=1)], asc)], asc)
        sq = b.node("Sqrt", [scale], asc)
        qs = b.node("Mul", [qkv[0], sq], asc)
        ks = b.node("Mul", [b.node("Transpose", [qkv[1]], asc, perm=[0, 1, 3, 2]), sq], asc)
        att = b.node("Softmax", [b.node("MatMul", [qs, ks], asc)], asc, axis=-1)
        o = b.node("MatMul", [att, qkv[2]], asc)
        o = b.node("Transpose", [o], asc, perm=[2, 0, 1, 3])
        o = b.node("Reshape", [o, b.shape_of([b.node("Mul", [bsz, tl], asc), D], asc)], asc)
        o = b.linear_gemm(o, asc + "/out_proj", D, D)
        o = b.node("Reshape", [o, b.shape_of([tl, bsz, D], asc)], asc)
        o = b.node("Transpose", [o], asc, perm=[1, 0, 2])
        x = b.node("Add", [o, x], sc)
        m = ln(x, sc + "/ln_2")
        m = b.linear_matmul(m, sc + "/mlp/mlp.0", D, MLP)
        g = b.node("Div", [m, b.const(1.4142135381698608, sc, np.float32)], sc + "/mlp/mlp.1")
        g = b.node("Erf", [g], sc + "/mlp/mlp.1")
        g = b.node("Add", [g, b.const(1.0, sc, np.float32)], sc + "/mlp/mlp.1")
        g = b.node("Mul", [m, g], sc + "/mlp/mlp.1")
        g = b.node("Mul", [g, b.const(0.5, sc, np.float32)], sc + "/mlp/mlp.1")
        m = b.linear_matmul(g, sc + "/mlp/mlp.3", MLP, D)
        x = b.node("Add", [x, m], sc)
    x = ln(x, "/encoder/ln")
    x = b.node("Gather", [x, b.const(0)], "", axis=1)
    b.linear_gemm(x, "/heads/head", D, 1000)
    b.nodes[-1].output[0] = "output"
    return b.model(IN, OUT)


def convnext_s2():
    """torchvision's convnext_tiny reduced to two stages of one block each
    (widths 48 and 96), as the legacy exporter writes it: LayerNorm2d as
    Transpose/LayerNormalization/Transpose, the block's Linear layers as
    MatMul on the channels-last 4-D tensor (where converting at one input size
    once baked the token count into the layers), exact GELU, layer scale and
    the residual Add; 2x2 stride-2 downsampling, GlobalAveragePool, Gemm."""
    b = Builder(17, 11)

    def ln(x, sc, c):
        pre = sc.strip("/").replace("/", ".")
        return b.node("LayerNormalization", [x, b.weight(pre + ".weight", b.rng.uniform(0.5, 1.5, c).astype(np.float32)),
                                             b.weight(pre + ".bias", b.randn(c, scale=0.1))], sc, axis=-1, epsilon=1e-6)

    def ln2d(x, sc, c):
        x = b.node("Transpose", [x], sc, perm=[0, 2, 3, 1])
        return b.node("Transpose", [ln(x, sc, c)], sc, perm=[0, 3, 1, 2])

    def block(x, sc, c):
        y = b.conv(x, sc + "/block/block.0", c, c, 7, 1, 3, g=c)
        y = b.node("Transpose", [y], sc + "/block/block.1", perm=[0, 2, 3, 1])
        y = ln(y, sc + "/block/block.2", c)
        y = b.linear_matmul(y, sc + "/block/block.3", c, 4 * c)
        g = b.node("Div", [y, b.const(1.4142135381698608, sc, np.float32)], sc + "/block/block.4")
        g = b.node("Add", [b.node("Erf", [g], sc + "/block/block.4"), b.const(1.0, sc, np.float32)], sc + "/block/block.4")
        y = b.node("Mul", [b.node("Mul", [y, g], sc + "/block/block.4"), b.const(0.5, sc, np.float32)], sc + "/block/block.4")
        y = b.linear_matmul(y, sc + "/block/block.5", 4 * c, c)
        y = b.node("Transpose", [y], sc + "/block/block.6", perm=[0, 3, 1, 2])
        y = b.node("Mul", [b.weight(sc.strip("/").replace("/", ".") + ".layer_scale",
                                    b.rng.uniform(0.5, 1.5, (c, 1, 1)).astype(np.float32)), y], sc)
        return b.node("Add", [y, x], sc)

    x = b.conv("input", "/features/features.0/features.0.0", 3, 48, 4, 4, 0)
    x = ln2d(x, "/features/features.0/features.0.1", 48)
    x = block(x, "/features/features.1/features.1.0", 48)
    x = ln2d(x, "/features/features.2/features.2.0", 48)
    x = b.conv(x, "/features/features.2/features.2.1", 48, 96, 2, 2, 0)
    x = block(x, "/features/features.3/features.3.0", 96)
    x = b.node("GlobalAveragePool", [x], "/avgpool")
    x = ln2d(x, "/classifier/classifier.0", 96)
    x = b.node("Flatten", [x], "/classifier/classifier.1", axis=1)
    b.linear_gemm(x, "/classifier/classifier.2", 96, 1000)
    b.nodes[-1].output[0] = "output"
    return b.model(IN, OUT)


MODELS = {
    "convnext_s2": convnext_s2,
    "resnet18": resnet18,
    "mobilenet_v2": mobilenet_v2,
    "mobilenet_v3_small": mobilenet_v3_small,
    "shufflenet_v2_x1_0": shufflenet_v2_x1_0,
    "squeezenet1_1": squeezenet1_1,
    "efficientnet_b0": efficientnet_b0,
    "vit_b_16_l2": lambda: vit_b_16(2),
    "vit_b_16": vit_b_16,
}


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    names = sys.argv[2:] or [n for n in MODELS if n != "vit_b_16"]
    for n in names:
        m = MODELS[n]()
        onnx.checker.check_model(m)
        onnx.save(m, os.path.join(out, n + ".onnx"))
        print("wrote", os.path.join(out, n + ".onnx"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
