#!/usr/bin/env python3
"""caffe2kite fidelity: Caffe models with random weights, run by OpenCV's dnn
module (the reference) and by kite (caffe2kite + kiterun), outputs compared.

  python3 caffe_fidelity.py --caffe2kite BIN --kiterun BIN --work DIR
         [--shared-dir DIR] [--model NAME]... [--kiteoptimize BIN] [--list]

Models: every deploy.prototxt under <shared>/models/caffe (alexnet,
mobilenet_ssd, mobilenet_v1, squeezenet_v1.1) plus synthetic prototxts
written here that cover the other supported layers, the V1 layer form, net
inputs given by input_dim / input_shape, and in-place layers. For each model
this script (1) infers every blob shape from the prototxt, (2) writes a
.caffemodel with seeded random weights using its own protobuf encoder (Caffe's
field numbers), (3) converts it with caffe2kite, (4) runs the same input (the
shared cat.jpg, resized) through OpenCV and kiterun and (5) checks every
output: max |kite - opencv| <= 1e-4 * (range of the OpenCV output); SSD
detections: the same count and labels, scores and boxes within that
tolerance. With --kiteoptimize the converted model is also optimised (fp32
and fp16 weights) and checked the same way (fp16: 2e-2 of the range), and
the optimised graph must hold no BatchNorm right after a convolution.

OpenCV >= 5 dropped its Caffe importer: a cv2 with readNetFromCaffe is looked
for on sys.path, then in $KITE_OPENCV4_PATH (CI installs
opencv-python-headless<5 there). Without one the script exits 77 (skip),
unless $CI is "true" (then it fails).
Exit status: 0 all passed, 1 a failure, 77 skipped.
"""

import argparse
import math
import os
import shutil
import re
import struct
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import convert_report  # noqa: E402
from convert_report import bn_after_conv  # noqa: E402


def load_cv2():
    try:
        import cv2
        if hasattr(cv2.dnn, "readNetFromCaffe"):
            return cv2
    except ImportError:
        pass
    alt = os.environ.get("KITE_OPENCV4_PATH", "")
    if alt and os.path.isdir(alt):
        for k in [k for k in sys.modules if k == "cv2" or k.startswith("cv2.")]:
            del sys.modules[k]
        sys.path.insert(0, alt)
        try:
            import cv2
            if hasattr(cv2.dnn, "readNetFromCaffe"):
                return cv2
        except ImportError:
            pass
    return None


# ------------------------------------------------------------- prototxt text

TOKEN = re.compile(r'\s+|#[^\n]*|"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[{}\[\]:,<>]|[^\s{}\[\]:,<>#"\']+')


def tokenize(text):
    out = []
    for m in TOKEN.finditer(text):
        t = m.group(0)
        if t.isspace() or t.startswith("#"):
            continue
        out.append(t)
    return out


def parse_message(tokens, i, end):
    """list of (name, value); value is a str (scalar text) or a nested list"""
    msg = []
    while i < len(tokens) and tokens[i] != end:
        name = tokens[i]
        i += 1
        if tokens[i] == ":":
            i += 1
        if tokens[i] in ("{", "<"):
            close = "}" if tokens[i] == "{" else ">"
            sub, i = parse_message(tokens, i + 1, close)
            msg.append((name, sub))
            i += 1
        elif tokens[i] == "[":
            i += 1
            while tokens[i] != "]":
                if tokens[i] != ",":
                    msg.append((name, tokens[i].strip("\"'")))
                i += 1
            i += 1
        else:
            msg.append((name, tokens[i].strip("\"'")))
            i += 1
        if i < len(tokens) and tokens[i] in (",", ";"):
            i += 1
    return msg, i


def parse_prototxt(text):
    msg, _ = parse_message(tokenize(text), 0, None)
    return msg


def get(msg, key, default=None):
    for k, v in msg:
        if k == key:
            return v
    return default


def getall(msg, key):
    return [v for k, v in msg if k == key]


def num(v, default=0):
    if v is None:
        return default
    if isinstance(v, str) and v in ("true", "false"):
        return v == "true"
    return float(v) if any(c in v for c in ".eE") and not v.startswith("0x") else int(v)


V1_TYPES = {"CONVOLUTION": "Convolution", "RELU": "ReLU", "POOLING": "Pooling", "INNER_PRODUCT": "InnerProduct",
            "SOFTMAX": "Softmax", "CONCAT": "Concat", "ELTWISE": "Eltwise", "SLICE": "Slice", "DROPOUT": "Dropout",
            "LRN": "LRN", "SIGMOID": "Sigmoid", "TANH": "TanH", "POWER": "Power", "ABSVAL": "AbsVal", "BNLL": "BNLL",
            "FLATTEN": "Flatten", "SPLIT": "Split", "DECONVOLUTION": "Deconvolution"}
V1_ENUM = {"ABSVAL": 35, "BNLL": 2, "CONCAT": 3, "CONVOLUTION": 4, "DECONVOLUTION": 39, "DROPOUT": 6, "ELTWISE": 25,
           "FLATTEN": 8, "INNER_PRODUCT": 14, "LRN": 15, "POOLING": 17, "POWER": 26, "RELU": 18, "SIGMOID": 19,
           "SOFTMAX": 20, "SPLIT": 22, "SLICE": 33, "TANH": 23}


def net_layers(net):
    """[(name, type, bottoms, tops, msg, v1_enum_name or None)]"""
    out = []
    for l in getall(net, "layer"):
        out.append((get(l, "name"), get(l, "type"), getall(l, "bottom"), getall(l, "top"), l, None))
    for l in getall(net, "layers"):
        t = get(l, "type")
        out.append((get(l, "name"), V1_TYPES.get(t, t), getall(l, "bottom"), getall(l, "top"), l, t))
    return out


# ------------------------------------------------------------ shape inference

def conv_geometry(p, deconv, hw):
    def one(key, i, default):
        vals = [num(v) for v in getall(p, key)]
        if vals:
            return vals[min(i, len(vals) - 1)]
        return default
    kh = num(get(p, "kernel_h"), None) if get(p, "kernel_h") is not None else one("kernel_size", 0, None)
    kw = num(get(p, "kernel_w"), None) if get(p, "kernel_w") is not None else one("kernel_size", 1, None)
    sh = num(get(p, "stride_h")) if get(p, "stride_h") is not None else one("stride", 0, 1)
    sw = num(get(p, "stride_w")) if get(p, "stride_w") is not None else one("stride", 1, 1)
    ph = num(get(p, "pad_h")) if get(p, "pad_h") is not None else one("pad", 0, 0)
    pw = num(get(p, "pad_w")) if get(p, "pad_w") is not None else one("pad", 1, 0)
    dh = one("dilation", 0, 1)
    dw = one("dilation", 1, 1)
    h, w = hw
    ekh, ekw = dh * (kh - 1) + 1, dw * (kw - 1) + 1
    if deconv:
        oh, ow = (h - 1) * sh + ekh - 2 * ph, (w - 1) * sw + ekw - 2 * pw
    else:
        oh, ow = (h + 2 * ph - ekh) // sh + 1, (w + 2 * pw - ekw) // sw + 1
    return kh, kw, oh, ow


def pool_out(n, k, s, p, floor_mode):
    if floor_mode:
        return (n + 2 * p - k) // s + 1
    o = int(math.ceil((n + 2 * p - k) / s)) + 1
    if p > 0 and (o - 1) * s >= n + p:
        o -= 1
    return o


def infer(net, rng, weight_scale_hook=None):
    """shapes of every blob and random blobs for every layer with weights"""
    shapes = {}
    blobs = {}
    inputs = []
    for i, name in enumerate(getall(net, "input")):
        shp = getall(net, "input_shape")
        if i < len(shp):
            dims = [num(d) for d in getall(shp[i], "dim")]
        else:
            dims = [num(d) for d in getall(net, "input_dim")[4 * i:4 * i + 4]]
        shapes[name] = dims
        inputs.append(name)

    def rnd(shape, lo, hi):
        return rng.uniform(lo, hi, size=shape).astype(np.float32)

    for name, typ, bottoms, tops, l, _ in net_layers(net):
        ins = [shapes[b] for b in bottoms]
        if typ == "Input":
            p = get(l, "input_param")
            dims = [num(d) for d in getall(get(p, "shape"), "dim")]
            for t in tops:
                shapes[t] = dims
                inputs.append(t)
            continue
        x = ins[0] if ins else None
        out = list(x) if x is not None else None
        if typ in ("Convolution", "Deconvolution"):
            p = get(l, "convolution_param")
            nout = num(get(p, "num_output"))
            g = num(get(p, "group"), 1)
            kh, kw, oh, ow = conv_geometry(p, typ == "Deconvolution", (x[2], x[3]))
            cin = x[1]
            if typ == "Convolution":
                wshape = [nout, cin // g, kh, kw]
                fan = cin // g * kh * kw
            else:
                wshape = [cin, nout // g, kh, kw]
                fan = cin // g * kh * kw
            gain = 1.0
            if weight_scale_hook:
                gain = weight_scale_hook(name)
            b = [rnd(wshape, -1, 1) * math.sqrt(3.0 / fan) * gain * 1.4]
            if get(p, "bias_term", "true") != "false":
                b.append(rnd([nout], -0.1, 0.1))
            blobs[name] = b
            out = [x[0], nout, oh, ow]
        elif typ == "Pooling":
            p = get(l, "pooling_param")
            if get(p, "global_pooling") == "true":
                out = [x[0], x[1], 1, 1]
            else:
                k = num(get(p, "kernel_size"), 0)
                kh = num(get(p, "kernel_h"), k)
                kw = num(get(p, "kernel_w"), k)
                s = num(get(p, "stride"), 1)
                sh, sw = num(get(p, "stride_h"), s), num(get(p, "stride_w"), s)
                pd = num(get(p, "pad"), 0)
                ph, pw = num(get(p, "pad_h"), pd), num(get(p, "pad_w"), pd)
                fl = get(p, "round_mode") == "FLOOR"
                out = [x[0], x[1], pool_out(x[2], kh, sh, ph, fl), pool_out(x[3], kw, sw, pw, fl)]
        elif typ == "InnerProduct":
            p = get(l, "inner_product_param")
            nout = num(get(p, "num_output"))
            K = int(np.prod(x[1:]))
            b = [rnd([nout, K], -1, 1) * math.sqrt(3.0 / K)]
            if get(p, "transpose") == "true":
                b = [np.ascontiguousarray(b[0].T)]
            if get(p, "bias_term", "true") != "false":
                b.append(rnd([nout], -0.1, 0.1))
            blobs[name] = b
            out = [x[0], nout]
        elif typ == "BatchNorm":
            c = x[1]
            sf = np.array([rng.uniform(0.5, 2.0)], np.float32)
            blobs[name] = [rnd([c], -0.1, 0.1) * sf[0], rnd([c], 0.5, 1.5) * sf[0], sf]
        elif typ == "Scale":
            c = x[1]
            p = get(l, "scale_param") or []
            b = [rnd([c], 0.5, 1.5)]
            if get(p, "bias_term") == "true":
                b.append(rnd([c], -0.1, 0.1))
            blobs[name] = b
        elif typ == "PReLU":
            p = get(l, "prelu_param") or []
            blobs[name] = [rnd([1 if get(p, "channel_shared") == "true" else x[1]], 0.0, 0.25)]
        elif typ == "Normalize":
            p = get(l, "norm_param") or []
            blobs[name] = [rnd([1 if get(p, "channel_shared", "true") == "true" else x[1]], 0.5, 1.5)]
        elif typ == "Bias":
            blobs[name] = [rnd([x[1]], -0.5, 0.5)]
        elif typ == "Concat":
            p = get(l, "concat_param") or []
            axis = num(get(p, "axis"), 1)
            axis = axis + len(x) if axis < 0 else axis
            out = list(x)
            out[axis] = sum(s[axis] for s in ins)
        elif typ == "Flatten":
            out = [x[0], int(np.prod(x[1:]))]
        elif typ == "Reshape":
            dims = [num(d) for d in getall(get(get(l, "reshape_param"), "shape"), "dim")]
            out = [x[i] if d == 0 else d for i, d in enumerate(dims)]
            if -1 in out:
                known = int(np.prod([d for d in out if d != -1]))
                out[out.index(-1)] = int(np.prod(x)) // known
        elif typ == "Permute":
            order = [num(v) for v in getall(get(l, "permute_param"), "order")]
            order += [a for a in range(len(x)) if a not in order]
            out = [x[a] for a in order]
        elif typ == "PriorBox":
            p = get(l, "prior_box_param")
            nmin = len(getall(p, "min_size"))
            nmax = len(getall(p, "max_size"))
            ars = []
            for a in getall(p, "aspect_ratio"):
                a = float(a)
                if abs(a - 1) > 1e-6 and all(abs(a - b) > 1e-6 for b in ars):
                    ars.append(a)
            nar = len(ars) * (2 if get(p, "flip", "true") == "true" else 1)
            npri = nmin * (1 + nar) + nmax
            out = [1, 2, 4 * x[2] * x[3] * npri]
        elif typ == "DetectionOutput":
            out = [1, 1, -1, 7]
        elif typ == "Slice":
            p = get(l, "slice_param") or []
            axis = num(get(p, "axis"), 1)
            pts = [num(v) for v in getall(p, "slice_point")]
            n = x[axis]
            bounds = [0] + pts + [n] if pts else [n * i // len(tops) for i in range(len(tops) + 1)]
            for i, t in enumerate(tops):
                o = list(x)
                o[axis] = bounds[i + 1] - bounds[i]
                shapes[t] = o
            continue
        elif typ == "Interp":
            p = get(l, "interp_param")
            out = [x[0], x[1], num(get(p, "height")), num(get(p, "width"))]
        elif typ == "Crop":
            p = get(l, "crop_param") or []
            axis = num(get(p, "axis"), 2)
            ref = ins[1]
            out = list(x[:axis]) + list(ref[axis:])
        for t in tops:
            shapes[t] = out
    return shapes, blobs, inputs


# --------------------------------------------------------- caffemodel writer

def varint(n):
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_bytes(num_, data):
    return varint((num_ << 3) | 2) + varint(len(data)) + data


def field_varint(num_, v):
    return varint(num_ << 3) + varint(v)


def blob_proto(arr):
    shape = b"".join(varint(int(d)) for d in arr.shape)
    msg = field_bytes(7, field_bytes(1, shape))
    msg += field_bytes(5, np.ascontiguousarray(arr, dtype="<f4").tobytes())
    return msg


def write_caffemodel(path, net, blobs, v1=False):
    out = bytearray()
    out += field_bytes(1, b"random weights")
    for name, typ, bottoms, tops, l, v1type in net_layers(net):
        if name not in blobs:
            continue
        if v1:
            enum = V1_ENUM[v1type] if v1type else V1_ENUM[[k for k, v in V1_TYPES.items() if v == typ][0]]
            m = field_bytes(4, name.encode()) + field_varint(5, enum)
            for b in blobs[name]:
                m += field_bytes(6, blob_proto(b))
            out += field_bytes(2, m)
        else:
            m = field_bytes(1, name.encode()) + field_bytes(2, typ.encode())
            for b in blobs[name]:
                m += field_bytes(7, blob_proto(b))
            out += field_bytes(100, m)
    with open(path, "wb") as f:
        f.write(out)


# --------------------------------------------------------- synthetic models

SYNTHETIC = {
    # V2 form, net input by input_shape, many element-wise / shape layers, in-place layers
    "ops_v2": """
name: "ops_v2"
input: "data"
input_shape { dim: 1 dim: 3 dim: 21 dim: 19 }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  convolution_param { num_output: 8 kernel_size: 3 kernel_size: 5 pad: 1 pad: 2 stride: 2 } }
layer { name: "prelu1" type: "PReLU" bottom: "conv1" top: "conv1" }
layer { name: "bn1" type: "BatchNorm" bottom: "conv1" top: "conv1" batch_norm_param { eps: 0.001 } }
layer { name: "sc1" type: "Scale" bottom: "conv1" top: "conv1" scale_param { bias_term: true } }
layer { name: "dw" type: "Convolution" bottom: "conv1" top: "dw"
  convolution_param { num_output: 8 group: 8 kernel_size: 3 pad: 1 bias_term: false } }
layer { name: "gconv" type: "Convolution" bottom: "conv1" top: "gconv"
  convolution_param { num_output: 8 group: 2 kernel_size: 3 pad: 2 dilation: 2 } }
layer { name: "sum" type: "Eltwise" bottom: "dw" bottom: "gconv" top: "sum"
  eltwise_param { operation: SUM coeff: 0.5 coeff: -1.5 } }
layer { name: "prod" type: "Eltwise" bottom: "dw" bottom: "sum" top: "prod" eltwise_param { operation: PROD } }
layer { name: "max" type: "Eltwise" bottom: "prod" bottom: "gconv" top: "max" eltwise_param { operation: MAX } }
layer { name: "slice" type: "Slice" bottom: "max" top: "s1" top: "s2" top: "s3"
  slice_param { axis: 1 slice_point: 2 slice_point: 5 } }
layer { name: "sig" type: "Sigmoid" bottom: "s1" top: "sig" }
layer { name: "tanh" type: "TanH" bottom: "s2" top: "tanh" }
layer { name: "elu" type: "ELU" bottom: "s3" top: "elu" elu_param { alpha: 0.7 } }
layer { name: "cat" type: "Concat" bottom: "sig" bottom: "tanh" bottom: "elu" top: "cat" }
layer { name: "abs" type: "AbsVal" bottom: "cat" top: "abs" }
layer { name: "pow" type: "Power" bottom: "abs" top: "pow" power_param { power: 2 scale: 0.5 shift: 1 } }
layer { name: "bnll" type: "BNLL" bottom: "cat" top: "bnll" }
layer { name: "cat2" type: "Concat" bottom: "pow" bottom: "bnll" top: "cat2" concat_param { axis: 1 } }
layer { name: "leaky" type: "ReLU" bottom: "cat2" top: "cat2" relu_param { negative_slope: 0.1 } }
layer { name: "norm" type: "Normalize" bottom: "cat2" top: "norm"
  norm_param { across_spatial: false channel_shared: false eps: 1e-6 } }
layer { name: "deconv" type: "Deconvolution" bottom: "norm" top: "deconv"
  convolution_param { num_output: 6 kernel_size: 4 stride: 2 pad: 1 } }
layer { name: "gdeconv" type: "Deconvolution" bottom: "norm" top: "gdeconv"
  convolution_param { num_output: 4 group: 2 kernel_size: 3 stride: 2 } }
layer { name: "crop" type: "Crop" bottom: "gdeconv" bottom: "deconv" top: "crop" crop_param { axis: 2 offset: 1 } }
layer { name: "avgpad" type: "Pooling" bottom: "crop" top: "avgpad"
  pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 } }
layer { name: "maxpad" type: "Pooling" bottom: "deconv" top: "maxpad"
  pooling_param { pool: MAX kernel_h: 3 kernel_w: 2 stride_h: 2 stride_w: 3 pad_h: 1 pad_w: 0 } }
layer { name: "avgfloor" type: "Pooling" bottom: "deconv" top: "avgfloor"
  pooling_param { pool: AVE kernel_size: 2 stride: 2 pad: 1 } }
layer { name: "perm" type: "Permute" bottom: "avgfloor" top: "perm" permute_param { order: 0 order: 3 order: 1 order: 2 } }
layer { name: "flat" type: "Flatten" bottom: "perm" top: "flat" }
layer { name: "fc" type: "InnerProduct" bottom: "flat" top: "fc" inner_product_param { num_output: 10 } }
layer { name: "fct" type: "InnerProduct" bottom: "maxpad" top: "fct" inner_product_param { num_output: 7 } }
layer { name: "fc_drop" type: "Dropout" bottom: "fct" top: "fct" }
layer { name: "prob" type: "Softmax" bottom: "fc" top: "prob" }
layer { name: "lrn_in" type: "LRN" bottom: "avgpad" top: "lrn_in"
  lrn_param { local_size: 3 alpha: 0.5 beta: 0.6 norm_region: WITHIN_CHANNEL } }
layer { name: "lrn_ac" type: "LRN" bottom: "lrn_in" top: "lrn_ac" lrn_param { local_size: 3 alpha: 0.1 beta: 0.75 } }
layer { name: "mvn" type: "MVN" bottom: "lrn_ac" top: "mvn" }
layer { name: "resh" type: "Reshape" bottom: "mvn" top: "resh" reshape_param { shape { dim: 0 dim: -1 dim: 2 } } }
layer { name: "sm2" type: "Softmax" bottom: "resh" top: "sm2" softmax_param { axis: 2 } }
layer { name: "shuffle" type: "ShuffleChannel" bottom: "cat2" top: "shuffle" shuffle_channel_param { group: 4 } }
layer { name: "relu6" type: "ReLU6" bottom: "shuffle" top: "relu6" }
layer { name: "interp" type: "Interp" bottom: "relu6" top: "interp" interp_param { height: 17 width: 23 } }
""",
    # V1 form, net input by input_dim, an in-place layer on the input
    "ops_v1": """
name: "ops_v1"
input: "data"
input_dim: 1
input_dim: 4
input_dim: 17
input_dim: 15
layers { name: "prescale" type: POWER bottom: "data" top: "data" power_param { scale: 0.5 shift: 0.1 } }
layers { name: "conv1" type: CONVOLUTION bottom: "data" top: "conv1"
  convolution_param { num_output: 6 kernel_size: 3 stride: 1 pad: 1 } }
layers { name: "relu1" type: RELU bottom: "conv1" top: "conv1" }
layers { name: "pool1" type: POOLING bottom: "conv1" top: "pool1" pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
layers { name: "split" type: SPLIT bottom: "pool1" top: "a" top: "b" }
layers { name: "sig" type: SIGMOID bottom: "a" top: "sig" }
layers { name: "tanh" type: TANH bottom: "b" top: "tanh" }
layers { name: "sum" type: ELTWISE bottom: "sig" bottom: "tanh" top: "sum" }
layers { name: "slice" type: SLICE bottom: "sum" top: "x" top: "y" slice_param { slice_dim: 1 } }
layers { name: "cat" type: CONCAT bottom: "y" bottom: "x" bottom: "pool1" top: "cat" }
layers { name: "lrn" type: LRN bottom: "cat" top: "lrn" lrn_param { local_size: 5 alpha: 0.0001 beta: 0.75 } }
layers { name: "pow" type: POWER bottom: "lrn" top: "pow" power_param { power: 1 scale: 2 shift: -0.5 } }
layers { name: "abs" type: ABSVAL bottom: "pow" top: "abs" }
layers { name: "pool2" type: POOLING bottom: "abs" top: "pool2" pooling_param { pool: AVE kernel_size: 2 stride: 2 } }
layers { name: "fc" type: INNER_PRODUCT bottom: "pool2" top: "fc" inner_product_param { num_output: 5 } }
layers { name: "drop" type: DROPOUT bottom: "fc" top: "fc" }
layers { name: "prob" type: SOFTMAX bottom: "fc" top: "prob" }
""",
}


def model_list(shared):
    models = {}
    root = os.path.join(shared, "models", "caffe")
    if os.path.isdir(root):
        for d in sorted(os.listdir(root)):
            p = os.path.join(root, d, "deploy.prototxt")
            if os.path.isfile(p):
                models[d] = p
    for name in SYNTHETIC:
        models[name] = None
    return models


# ------------------------------------------------------------------ running

def run(cmd):
    t0 = time.time()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return r, time.time() - t0


def compare(name, ref, got, tol_rel, detection):
    if detection:
        # OpenCV: [1, 1, n, 7] (image, label, score, box); kite: [n, 6] or empty
        r = ref.reshape(-1, 7)[:, 1:] if ref.size else np.zeros((0, 6), np.float32)
        r = r[r[:, 1] > 0] if r.size else r
        g = got.reshape(-1, 6) if got.size else np.zeros((0, 6), np.float32)
        if r.shape[0] != g.shape[0]:
            return False, "detections: opencv %d, kite %d" % (r.shape[0], g.shape[0]), 0.0, 0.0
        if r.shape[0] == 0:
            return True, "0 detections (both)", 0.0, 0.0
        r = r[np.lexsort((r[:, 2], -r[:, 1]))]
        g = g[np.lexsort((g[:, 2], -g[:, 1]))]
        if not np.array_equal(r[:, 0], g[:, 0]):
            return False, "detection labels differ: %s vs %s" % (r[:, 0], g[:, 0]), 0.0, 0.0
        d = float(np.max(np.abs(r[:, 1:] - g[:, 1:])))
        ok = d <= 1e-4
        return ok, "%d detections, max diff %.3g" % (r.shape[0], d), d, 1.0
    ref = ref.reshape(-1)
    got = got.reshape(-1)
    if ref.size != got.size:
        return False, "size: opencv %d, kite %d" % (ref.size, got.size), float("inf"), 1.0
    rng = float(ref.max() - ref.min()) if ref.size else 0.0
    d = float(np.max(np.abs(ref - got))) if ref.size else 0.0
    lim = tol_rel * max(rng, 1e-6)
    return d <= lim, "max diff %.3g (limit %.3g, range %.3g)" % (d, lim, rng), d, rng


def check_model(args, cv2, name, proto_path, table):
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    if proto_path is None:
        proto_path = os.path.join(work, "deploy.prototxt")
        with open(proto_path, "w") as f:
            f.write(SYNTHETIC[name])
    with open(proto_path) as f:
        net = parse_prototxt(f.read())
    rng = np.random.RandomState(20261121)

    # SSD: sharper class scores so that detections pass the 0.25 threshold
    def hook(layer):
        return 6.0 if "mbox_conf" in layer else 1.0
    shapes, blobs, inputs = infer(net, rng, hook)
    model = os.path.join(work, "model.caffemodel")
    write_caffemodel(model, net, blobs, v1=bool(getall(net, "layers")))
    if name == "alexnet":
        # the same weights in the V1 binary form (layers, enum types) must convert identically
        write_caffemodel(os.path.join(work, "model_v1.caffemodel"), net, blobs, v1=True)

    param, binf = os.path.join(work, "kite.param"), os.path.join(work, "kite.bin")
    r, conv_wall, conv_cpu = convert_report.run_timed([args.caffe2kite, proto_path, model, param, binf])
    if r.returncode != 0:
        print("FAIL %s: caffe2kite: %s" % (name, r.stderr.strip()))
        return False
    src = [l[1] for l in net_layers(net) if l[1] != "Input"]

    # the input: the shared cat photo resized (values roughly in [-1, 1])
    ishape = shapes[inputs[0]]
    img_path = os.path.join(args.shared_dir, "models", "cat.jpg")
    img = cv2.imread(img_path)
    if img is None:
        img = (rng.uniform(0, 255, (64, 64, 3))).astype(np.uint8)
    if ishape[1] == 3:
        x = cv2.dnn.blobFromImage(img, 1 / 127.5, (ishape[3], ishape[2]), (127.5, 127.5, 127.5))
    else:
        x = rng.uniform(-1, 1, size=ishape).astype(np.float32)
    np.save(os.path.join(work, "input.npy"), x[0])

    cvnet = cv2.dnn.readNetFromCaffe(proto_path, model)
    cvnet.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    cvnet.setInput(x)
    # every unconsumed blob, plus the inputs of a final Softmax / DetectionOutput
    # (a near-uniform softmax or an empty detection list says little)
    outs = []
    read_after_write = {}
    last_producer = {}
    for lname, typ, bottoms, tops, l, _ in net_layers(net):
        for b in bottoms:
            read_after_write[b] = True
        for t in tops:  # an in-place layer writes a new version nobody read yet
            last_producer[t] = (lname, typ, bottoms)
            read_after_write[t] = False
    for t, (lname, typ, bottoms) in last_producer.items():
        if not read_after_write[t]:
            outs.append((t, lname, typ))
            if typ in ("Softmax", "DetectionOutput"):
                for b in bottoms:
                    if b in last_producer and last_producer[b][1] != "Input" and b not in [o[0] for o in outs]:
                        outs.append((b, last_producer[b][0], last_producer[b][1]))
    refs = cvnet.forward([o[1] for o in outs])

    variants = [("caffe2kite", param, binf, 1e-4)]
    if name == "alexnet":
        p1, b1 = os.path.join(work, "kite_v1.param"), os.path.join(work, "kite_v1.bin")
        r1, _ = run([args.caffe2kite, proto_path, os.path.join(work, "model_v1.caffemodel"), p1, b1])
        if r1.returncode != 0 or open(b1, "rb").read() != open(binf, "rb").read():
            print("FAIL %s: the V1-form caffemodel converts differently: %s" % (name, r1.stderr.strip()))
            return False
    if args.kiteoptimize:
        for mode, tol in (("fp32", 1e-4), ("fp16", 2e-2)):
            po, bo = os.path.join(work, "opt_%s.param" % mode), os.path.join(work, "opt_%s.bin" % mode)
            cmd = [args.kiteoptimize, param, binf, po, bo] + (["fp16"] if mode == "fp16" else [])
            ro, _ = run(cmd)
            if ro.returncode != 0:
                print("FAIL %s: kiteoptimize %s: %s" % (name, mode, ro.stderr.strip()))
                return False
            nbn = bn_after_conv(po)
            if nbn:
                print("FAIL %s: kiteoptimize %s left %d BatchNorm after a convolution" % (name, mode, nbn))
                return False
            variants.append(("kiteoptimize-" + mode, po, bo, tol))

    ok_all = True
    diffs = {}
    for vname, p, b, tol in variants:
        outdir = os.path.join(work, "out_" + vname)
        cmd = [args.kiterun, p, b, "input=%s:%s" % (inputs[0], os.path.join(work, "input.npy")), "save=" + outdir]
        cmd += ["output=" + o[0] for o in outs]
        r, run_s = run(cmd)
        if r.returncode != 0:
            print("FAIL %s (%s): kiterun: %s" % (name, vname, r.stderr.strip()))
            ok_all = False
            continue
        diffs[vname] = []
        for (t, lname, typ), ref in zip(outs, refs):
            got = np.load(os.path.join(outdir, t.replace("/", "_") + ".npy"))
            # fp16 weights change which boxes pass the thresholds: compare the raw heads only
            if typ == "DetectionOutput" and vname.endswith("fp16"):
                continue
            ok, msg, d, r = compare(t, ref, got, tol, typ == "DetectionOutput")
            if typ != "DetectionOutput":  # detections: equal count/labels, boxes within 1e-4 (checked above)
                diffs[vname].append((d, r))
            print("%s %s (%s) output %s: %s" % ("ok  " if ok else "FAIL", name, vname, t, msg))
            ok_all = ok_all and ok
    # the converted model at a second input size (H + 32, W + 64), wherever OpenCV runs the
    # source net at that size (a fully connected layer after the convolutions fixes it)
    if ok_all and len(ishape) == 4:
        h2, w2 = ishape[2] + 32, ishape[3] + 64
        if ishape[1] == 3:
            x2 = cv2.dnn.blobFromImage(img, 1 / 127.5, (w2, h2), (127.5, 127.5, 127.5))
        else:
            x2 = rng.uniform(-1, 1, size=(ishape[0], ishape[1], h2, w2)).astype(np.float32)
        refs2 = None
        try:
            # a fresh net: OpenCV keeps the first size's PriorBox output when the input size changes
            cvnet2 = cv2.dnn.readNetFromCaffe(proto_path, model)
            cvnet2.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
            cvnet2.setInput(x2)
            refs2 = cvnet2.forward([o[1] for o in outs])
        except cv2.error as e:
            print("ok   %s at %dx%d: OpenCV does not run the source net at that size (%s)"
                  % (name, h2, w2, str(e).strip().splitlines()[-1][:120]))
        if refs2 is not None:
            np.save(os.path.join(work, "input2.npy"), x2[0])
            outdir = os.path.join(work, "out_second_size")
            cmd = [args.kiterun, param, binf, "input=%s:%s" % (inputs[0], os.path.join(work, "input2.npy")),
                   "shapecheck=0", "save=" + outdir] + ["output=" + o[0] for o in outs]
            r, _ = run(cmd)
            if r.returncode != 0:
                print("FAIL %s at %dx%d: kiterun: %s" % (name, h2, w2, r.stderr.strip()))
                ok_all = False
            else:
                for (t, lname, typ), ref in zip(outs, refs2):
                    got = np.load(os.path.join(outdir, t.replace("/", "_") + ".npy"))
                    ok, msg, _, _ = compare(t, ref, got, 1e-4, typ == "DetectionOutput")
                    print("%s %s (second size %dx%d) output %s: %s" % ("ok  " if ok else "FAIL", name, h2, w2, t, msg))
                    ok_all = ok_all and ok
    opt = None
    if "kiteoptimize-fp32" in diffs:
        opt = dict(param=os.path.join(work, "opt_fp32.param"), diffs=diffs["kiteoptimize-fp32"], ok=ok_all)
    table.add(name, len(src), len(set(src)), param, (conv_wall, conv_cpu), diffs.get("caffe2kite", []), ok_all, opt)
    return ok_all


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--caffe2kite", required=True)
    ap.add_argument("--kiterun", required=True)
    ap.add_argument("--kiteoptimize")
    ap.add_argument("--work", required=True)
    ap.add_argument("--shared-dir", default=os.environ.get("KITE_SHARED_DIR", os.path.join(HERE, "..", "..", "..", "..", "shared")))
    ap.add_argument("--model", action="append")
    args = ap.parse_args()

    cv2 = load_cv2()
    if cv2 is None:
        msg = "no OpenCV with a Caffe importer (pip install 'opencv-python-headless<5' --target DIR; KITE_OPENCV4_PATH=DIR)"
        if os.environ.get("CI") == "true":
            print("FAIL: " + msg)
            return 1
        print("SKIP: " + msg)
        return 77
    models = model_list(args.shared_dir)
    names = args.model or list(models)
    table = convert_report.Table("caffe", "OpenCV dnn")
    ok = True
    for n in names:
        if n not in models:
            print("FAIL: unknown model %s (known: %s)" % (n, ", ".join(models)))
            return 1
        passed = check_model(args, cv2, n, models[n], table)
        # a passing model's files go (alexnet alone writes 1.5 GB of weights);
        # a failing one's stay for inspection, KITE_KEEP_WORK=1 keeps them all
        if passed and os.environ.get("KITE_KEEP_WORK") != "1":
            shutil.rmtree(os.path.join(args.work, n), ignore_errors=True)
        ok = passed and ok
    table.print()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
