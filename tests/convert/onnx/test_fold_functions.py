#!/usr/bin/env python3
"""onnx2kite on what torch's exporters write around attention blocks:

- shape-only subgraphs folded at conversion: a Swin-style shifted-window mask
  built from the input's shape (Shape, Gather, ConstantOfShape, Range,
  ScatterND, Where, Expand, Equal, CumSum, ...) and added to activations;
  nothing of it may remain as a layer;
- model-local functions (ModelProto.functions, as the dynamo exporter writes
  them), nested, with attribute references and defaults, called twice;
- opset 18 and 21 headers;
- Swin V2's continuous position bias: an MLP (MatMul, Add, Relu, MatMul) on a
  constant coordinate table, GatherND with a constant index, 16 * Sigmoid,
  added to attention scores: folded to one constant;
- maxvit_t's attention as Einsum ("B G H I D, B G H J D -> B G H I J" and
  "B G H I J, B G H J D -> B G H I D"): MatMul layers.

Each model runs in onnxruntime and in kite (kiterun) on a seeded input: max
abs diff <= 1e-4 of the output range. Models are made here (onnx.helper).
usage: test_fold_functions.py ONNX2KITE KITERUN WORKDIR"""
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kite_npy  # noqa: E402

onnx2kite, kiterun, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []
SEED = 20261126


def const(name, arr):
    return helper.make_node("Constant", [], [name], name=name, value=numpy_helper.from_array(np.asarray(arr), name + "_v"))


def mask_model(opset):
    """x [1, 4, 8, 8] -> x + mask(shape of x), the mask made like Swin's
    attention mask: zeros of the window's shape, regions labelled by
    ScatterND writes at index ranges from Range, compared, Where -> -100."""
    n = []
    n.append(helper.make_node("Shape", ["x"], ["xs"], name="shape"))
    n.append(const("i2", np.array([2], np.int64)))
    n.append(const("i3", np.array([3], np.int64)))
    n.append(helper.make_node("Gather", ["xs", "i2"], ["h"], name="gh", axis=0))
    n.append(helper.make_node("Gather", ["xs", "i3"], ["w"], name="gw", axis=0))
    n.append(helper.make_node("Concat", ["h", "w"], ["hw"], name="hw", axis=0))
    # img_mask = zeros(h, w); img_mask[4:, :] = 1 (ScatterND over rows from Range)
    n.append(helper.make_node("ConstantOfShape", ["hw"], ["zeros"], name="zeros",
                              value=numpy_helper.from_array(np.array([0.0], np.float32), "z")))
    n.append(const("four", np.array(4, np.int64)))
    n.append(const("one", np.array(1, np.int64)))
    n.append(helper.make_node("Squeeze", ["h"], ["hs"], name="hs"))
    n.append(helper.make_node("Range", ["four", "hs", "one"], ["rows"], name="rows"))
    n.append(const("ax1", np.array([1], np.int64)))
    n.append(helper.make_node("Unsqueeze", ["rows", "ax1"], ["idx"], name="idx"))
    n.append(helper.make_node("Shape", ["idx"], ["idxs"], name="idxs"))
    n.append(const("i0", np.array([0], np.int64)))
    n.append(helper.make_node("Gather", ["idxs", "i0"], ["nrows"], name="nrows", axis=0))
    n.append(helper.make_node("Concat", ["nrows", "w"], ["ushape"], name="ushape", axis=0))
    n.append(helper.make_node("ConstantOfShape", ["ushape"], ["ones"], name="ones",
                              value=numpy_helper.from_array(np.array([1.0], np.float32), "o")))
    n.append(helper.make_node("ScatterND", ["zeros", "idx", "ones"], ["img"], name="scatter"))
    # region id + 2 * column half (CumSum of a constant row, Where on a compare)
    n.append(helper.make_node("ConstantOfShape", ["w"], ["wones"], name="wones",
                              value=numpy_helper.from_array(np.array([1.0], np.float32), "o2")))
    n.append(const("ax0", np.array(0, np.int64)))
    n.append(helper.make_node("CumSum", ["wones", "ax0"], ["colno"], name="cumsum"))
    n.append(const("half", np.array([4.5], np.float32)))
    n.append(helper.make_node("Greater", ["colno", "half"], ["right"], name="right"))
    n.append(const("two", np.array([2.0], np.float32)))
    n.append(const("zero", np.array([0.0], np.float32)))
    n.append(helper.make_node("Where", ["right", "two", "zero"], ["colid"], name="colid"))
    n.append(helper.make_node("Add", ["img", "colid"], ["region"], name="region"))
    # mask[i, j] = region[i, j] != region[0, 0] ? -100 : 0, expanded to x's shape
    n.append(const("corner", np.array([[0.0]], np.float32)))
    n.append(helper.make_node("Equal", ["region", "corner"], ["same"], name="same"))
    n.append(const("neg", np.array([-100.0], np.float32)))
    n.append(helper.make_node("Where", ["same", "zero", "neg"], ["m2"], name="m2"))
    n.append(helper.make_node("Expand", ["m2", "xs"], ["mask"], name="expand"))
    n.append(helper.make_node("Mul", ["x", "x"], ["xx"], name="sq"))
    n.append(helper.make_node("Add", ["xx", "mask"], ["y"], name="addmask"))
    n.append(helper.make_node("Softmax", ["y"], ["out"], name="softmax", axis=-1))
    g = helper.make_graph(n, "mask", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
                          [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 4, 8, 8])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def function_model(opset):
    """two calls of a local function `block` (Conv -> Relu -> inner(alpha)),
    `inner` itself a local function whose LeakyRelu alpha refers to the
    caller's attribute (given once, defaulted once)."""
    rng = np.random.default_rng(SEED)
    inner = helper.make_function(
        "kite.test", "inner", ["a"], ["b"],
        [helper.make_node("LeakyRelu", ["a"], ["t"], alpha=0.0),
         helper.make_node("Mul", ["t", "t"], ["b"])],
        [helper.make_opsetid("", opset)], attributes=[])
    # the attribute reference: LeakyRelu.alpha = caller's `slope`
    leaky = inner.node[0]
    del leaky.attribute[:]
    ref = onnx.AttributeProto()
    ref.name = "alpha"
    ref.type = onnx.AttributeProto.FLOAT
    ref.ref_attr_name = "slope"
    leaky.attribute.append(ref)
    default = helper.make_attribute("slope", 0.25)
    inner.attribute_proto.append(default)
    block = helper.make_function(
        "kite.test", "block", ["x", "w"], ["y"],
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("inner", ["c"], ["y"], domain="kite.test")],
        [helper.make_opsetid("", opset), helper.make_opsetid("kite.test", 1)])
    w1 = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.3, "w1")
    w2 = numpy_helper.from_array(rng.standard_normal((4, 4, 3, 3)).astype(np.float32) * 0.3, "w2")
    nodes = [helper.make_node("block", ["x", "w1"], ["b1"], name="call1", domain="kite.test"),
             helper.make_node("block", ["b1", "w2"], ["b2"], name="call2", domain="kite.test"),
             helper.make_node("inner", ["b2"], ["y"], name="call3", domain="kite.test", slope=0.1)]
    g = helper.make_graph(nodes, "fn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])], [w1, w2])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid("kite.test", 1)],
                             functions=[inner, block])


def window_model(opset):
    """Swin's tensors of more than 4 axes: x [1, 8, 8, 6] (NHWC) partitioned
    into 2x2 windows of 4x4 (Reshape to 6-D, Transpose, Reshape), a q/k/v
    split (Reshape to 5-D, Transpose (2,0,3,1,4), Gather on axis 0), windows
    put back, and the strided slices of patch merging (x[:, 0::2, 1::2, :])."""
    rng = np.random.default_rng(SEED)
    n = []
    n.append(const("s6", np.array([1, 2, 4, 2, 4, 6], np.int64)))
    n.append(helper.make_node("Reshape", ["x", "s6"], ["w6"], name="part_view"))
    n.append(helper.make_node("Transpose", ["w6"], ["w6t"], name="part_perm", perm=[0, 1, 3, 2, 4, 5]))
    n.append(const("s3", np.array([4, 16, 6], np.int64)))
    n.append(helper.make_node("Reshape", ["w6t", "s3"], ["win"], name="windows"))
    wq = numpy_helper.from_array(rng.standard_normal((6, 18)).astype(np.float32) * 0.5, "wq")
    n.append(helper.make_node("MatMul", ["win", "wq"], ["qkv0"], name="qkv"))
    n.append(const("s5", np.array([4, 16, 3, 2, 3], np.int64)))
    n.append(helper.make_node("Reshape", ["qkv0", "s5"], ["qkv5"], name="qkv_view"))
    n.append(helper.make_node("Transpose", ["qkv5"], ["qkvt"], name="qkv_perm", perm=[2, 0, 3, 1, 4]))
    for i, nm in enumerate("qkv"):
        n.append(const("i" + nm, np.array(i, np.int64)))
        n.append(helper.make_node("Gather", ["qkvt", "i" + nm], [nm], name="take_" + nm, axis=0))
    n.append(helper.make_node("Transpose", ["k"], ["kt"], name="kt", perm=[0, 1, 3, 2]))
    n.append(helper.make_node("MatMul", ["q", "kt"], ["att0"], name="qk"))
    n.append(helper.make_node("Softmax", ["att0"], ["att"], name="sm", axis=-1))
    n.append(helper.make_node("MatMul", ["att", "v"], ["o4"], name="av"))  # [4, 2, 16, 3]
    n.append(helper.make_node("Transpose", ["o4"], ["o4t"], name="heads", perm=[0, 2, 1, 3]))
    n.append(const("sb", np.array([1, 2, 2, 4, 4, 6], np.int64)))
    n.append(helper.make_node("Reshape", ["o4t", "sb"], ["b6"], name="rev_view"))
    n.append(helper.make_node("Transpose", ["b6"], ["b6t"], name="rev_perm", perm=[0, 1, 3, 2, 4, 5]))
    n.append(const("s4", np.array([1, 8, 8, 6], np.int64)))
    n.append(helper.make_node("Reshape", ["b6t", "s4"], ["y4"], name="merge"))
    n.append(const("st", np.array([0, 1], np.int64)))
    n.append(const("en", np.array([8, 8], np.int64)))
    n.append(const("ax", np.array([1, 2], np.int64)))
    n.append(const("sp", np.array([2, 2], np.int64)))
    n.append(helper.make_node("Slice", ["y4", "st", "en", "ax", "sp"], ["y"], name="patch_merge"))
    # the dynamo exporter's as_strided: a Gather of a flat tensor with an N-D block of contiguous indices
    n.append(const("flat", np.array([96], np.int64)))
    n.append(helper.make_node("Reshape", ["y", "flat"], ["yf"], name="flatten"))
    n.append(const("block", np.arange(6, 54, dtype=np.int64).reshape(1, 6, 8)))
    n.append(helper.make_node("Gather", ["yf", "block"], ["z"], name="as_strided", axis=0))
    g = helper.make_graph(n, "win", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 6])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 4, 6]),
                           helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 6, 8])], [wq])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def swin_shift_model(opset, ws=4, shift=2, c=4):
    """Swin's shifted-window attention as torchvision's export writes it, on
    x [1, c, H, W] with symbolic H and W: NHWC, pad to whole windows (pads
    from Shape/Mod), roll (Slice + Concat), window partition (Reshape to 6-D
    with sizes from the shape, Transpose, Reshape), scores + the shift mask
    ([nW, 1, N, N]: a region-id map of the padded size from ConstantOfShape
    pieces, partitioned, r_i - r_j, Equal, Where -100), softmax, times v,
    windows merged back, rolled back, cropped to H x W (Slice ends from
    Shape) and added to the input. onnx2kite folds the mask, the pads and the
    crop's ends at the converted size; the model must run at other sizes,
    padded ones included (all computed at run time)."""
    n = []
    i64 = lambda name, v: const(name, np.array(v, np.int64))  # noqa: E731
    n.append(helper.make_node("Transpose", ["x"], ["t"], name="nhwc", perm=[0, 2, 3, 1]))
    n.append(helper.make_node("Shape", ["t"], ["ts"], name="shape"))
    for nm, k in (("H", 1), ("W", 2)):
        n.append(i64("i" + nm, [k]))
        n.append(helper.make_node("Gather", ["ts", "i" + nm], [nm], name="g" + nm, axis=0))
    n += [i64("ws", [ws]), i64("sh", [shift]), i64("wms", [ws - shift]), i64("c", [c]), i64("z1", [0]), i64("z4", [0, 0, 0, 0]),
          i64("m1", [-1]), i64("N", [ws * ws]), i64("big", [1 << 30])]
    for nm in ("H", "W"):  # pad = (ws - X % ws) % ws; pX = X + pad; nX = pX / ws
        n.append(helper.make_node("Mod", [nm, "ws"], [nm + "m"], name=nm + "mod"))
        n.append(helper.make_node("Sub", ["ws", nm + "m"], [nm + "r"], name=nm + "rest"))
        n.append(helper.make_node("Mod", [nm + "r", "ws"], [nm + "pad"], name=nm + "pad"))
        n.append(helper.make_node("Add", [nm, nm + "pad"], ["p" + nm], name="p" + nm))
        n.append(helper.make_node("Div", ["p" + nm, "ws"], ["n" + nm], name="n" + nm))
    n.append(helper.make_node("Concat", ["z4", "z1", "Hpad", "Wpad", "z1"], ["pads"], name="pads", axis=0))
    n.append(helper.make_node("Pad", ["t", "pads"], ["tp"], name="pad"))
    # roll by -shift on H and W
    cur = "tp"
    for ax in (1, 2):
        n.append(i64("ax%d" % ax, [ax]))
        n.append(helper.make_node("Slice", [cur, "sh", "big", "ax%d" % ax], ["ra%d" % ax], name="roll_a%d" % ax))
        n.append(helper.make_node("Slice", [cur, "z1", "sh", "ax%d" % ax], ["rb%d" % ax], name="roll_b%d" % ax))
        n.append(helper.make_node("Concat", ["ra%d" % ax, "rb%d" % ax], ["roll%d" % ax], name="roll%d" % ax, axis=ax))
        cur = "roll%d" % ax
    n.append(i64("one", [1]))
    n.append(helper.make_node("Concat", ["one", "nH", "ws", "nW", "ws", "c"], ["s6"], name="s6", axis=0))
    n.append(helper.make_node("Reshape", [cur, "s6"], ["w6"], name="part_view"))
    n.append(helper.make_node("Transpose", ["w6"], ["w6t"], name="part_perm", perm=[0, 1, 3, 2, 4, 5]))
    n.append(helper.make_node("Concat", ["m1", "N", "c"], ["s3"], name="s3", axis=0))
    n.append(helper.make_node("Reshape", ["w6t", "s3"], ["win"], name="windows"))      # [nW, N, c]
    n.append(helper.make_node("Transpose", ["win"], ["wint"], name="kt", perm=[0, 2, 1]))
    n.append(helper.make_node("MatMul", ["win", "wint"], ["att0"], name="qk"))        # [nW, N, N]
    n.append(i64("u1", [1]))
    n.append(helper.make_node("Unsqueeze", ["att0", "u1"], ["att"], name="heads"))     # [nW, 1, N, N]
    # the region-id map [pH, pW]: rows 0 / 3 / 6, columns 0 / 1 / 2 from the end
    n.append(helper.make_node("Sub", ["pH", "ws"], ["Hlead"], name="Hlead"))
    n.append(helper.make_node("Sub", ["pW", "ws"], ["Wlead"], name="Wlead"))
    parts = {"H": [("Hlead", 0.0), ("wms", 3.0), ("sh", 6.0)], "W": [("Wlead", 0.0), ("wms", 1.0), ("sh", 2.0)]}
    for ax, nm in ((0, "H"), (1, "W")):
        outs = []
        for k, (size, v) in enumerate(parts[nm]):
            shp = [size, "pW"] if ax == 0 else ["pH", size]
            n.append(helper.make_node("Concat", shp, ["%sshape%d" % (nm, k)], name="%sshape%d" % (nm, k), axis=0))
            n.append(helper.make_node("ConstantOfShape", ["%sshape%d" % (nm, k)], ["%spart%d" % (nm, k)], name="%spart%d" % (nm, k),
                                      value=numpy_helper.from_array(np.array([v], np.float32), "v%s%d" % (nm, k))))
            outs.append("%spart%d" % (nm, k))
        n.append(helper.make_node("Concat", outs, [nm + "map"], name=nm + "map", axis=ax))
    n.append(helper.make_node("Add", ["Hmap", "Wmap"], ["region"], name="region"))
    n.append(helper.make_node("Concat", ["nH", "ws", "nW", "ws"], ["s4"], name="s4", axis=0))
    n.append(helper.make_node("Reshape", ["region", "s4"], ["r4"], name="r4"))
    n.append(helper.make_node("Transpose", ["r4"], ["r4t"], name="r4t", perm=[0, 2, 1, 3]))
    n.append(helper.make_node("Concat", ["m1", "N"], ["s2"], name="s2", axis=0))
    n.append(helper.make_node("Reshape", ["r4t", "s2"], ["r2"], name="r2"))           # [nW, N]
    n.append(i64("u2", [2]))
    n.append(helper.make_node("Unsqueeze", ["r2", "u1"], ["ri"], name="ri"))
    n.append(helper.make_node("Unsqueeze", ["r2", "u2"], ["rj"], name="rj"))
    n.append(helper.make_node("Sub", ["ri", "rj"], ["rd"], name="rd"))
    n.append(const("fz", np.array(0.0, np.float32)))
    n.append(const("fm", np.array(-100.0, np.float32)))
    n.append(helper.make_node("Equal", ["rd", "fz"], ["same"], name="same"))
    n.append(helper.make_node("Where", ["same", "fz", "fm"], ["m3"], name="m3"))
    n.append(helper.make_node("Unsqueeze", ["m3", "u1"], ["mask"], name="mask"))     # [nW, 1, N, N]
    n.append(helper.make_node("Add", ["att", "mask"], ["att_m"], name="add_mask"))
    n.append(helper.make_node("Softmax", ["att_m"], ["p"], name="softmax", axis=-1))
    n.append(helper.make_node("Squeeze", ["p", "u1"], ["p3"], name="p3"))
    n.append(helper.make_node("MatMul", ["p3", "win"], ["o3"], name="av"))             # [nW, N, c]
    # windows back to the padded map, rolled back, cropped to H x W (ends
    # from the block input's shape), added to the block input
    n.append(helper.make_node("Concat", ["one", "nH", "nW", "ws", "ws", "c"], ["r6"], name="r6", axis=0))
    n.append(helper.make_node("Reshape", ["o3", "r6"], ["b6"], name="rev_view"))
    n.append(helper.make_node("Transpose", ["b6"], ["b6t"], name="rev_perm", perm=[0, 1, 3, 2, 4, 5]))
    n.append(helper.make_node("Concat", ["one", "pH", "pW", "c"], ["r4s"], name="r4s", axis=0))
    n.append(helper.make_node("Reshape", ["b6t", "r4s"], ["merged"], name="merged"))
    n.append(i64("msh", [-shift]))
    cur = "merged"
    for ax in (1, 2):
        n.append(helper.make_node("Slice", [cur, "msh", "big", "ax%d" % ax], ["ua%d" % ax], name="unroll_a%d" % ax))
        n.append(helper.make_node("Slice", [cur, "z1", "msh", "ax%d" % ax], ["ub%d" % ax], name="unroll_b%d" % ax))
        n.append(helper.make_node("Concat", ["ua%d" % ax, "ub%d" % ax], ["unroll%d" % ax], name="unroll%d" % ax, axis=ax))
        cur = "unroll%d" % ax
    n.append(i64("z2", [0, 0]))
    n.append(i64("ax12", [1, 2]))
    n.append(helper.make_node("Concat", ["H", "W"], ["hw_end"], name="hw_end", axis=0))
    n.append(helper.make_node("Slice", [cur, "z2", "hw_end", "ax12"], ["cropped"], name="unpad"))
    n.append(helper.make_node("Add", ["t", "cropped"], ["y"], name="residual"))
    g = helper.make_graph(n, "swin_shift", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, "H", "W"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def normalize_model(opset):
    """F.normalize as torch exports it (Swin V2's cosine attention): x /
    Expand(Clip(ReduceL2(x)), Shape(x)), x [1, 4, H, W] with symbolic H, W"""
    n = [helper.make_node("ReduceL2", ["x"], ["norm"], name="l2", axes=[1], keepdims=1),
         const("eps", np.array(1e-12, np.float32)),
         helper.make_node("Clip", ["norm", "eps", ""], ["clipped"], name="clip"),
         helper.make_node("Shape", ["x"], ["xs"], name="shape"),
         helper.make_node("Expand", ["clipped", "xs"], ["den"], name="expand_as"),
         helper.make_node("Div", ["x", "den"], ["y"], name="normalize")]
    g = helper.make_graph(n, "normalize", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, "H", "W"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def check_sizes(tag, model, shapes, fixed_at=()):
    """convert `model` (symbolic input sizes) once at shapes[0], run kite at
    each shape against onnxruntime; kite must refuse each shape in fixed_at"""
    import onnxruntime as ort
    path = os.path.join(work, tag + ".onnx")
    onnx.save(model, path)
    name = model.graph.input[0].name
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    param, binf = os.path.join(work, tag + ".param"), os.path.join(work, tag + ".bin")
    r = subprocess.run([onnx2kite, path, param, binf, "inputshape=%s:[%s]" % (name, ",".join(map(str, shapes[0])))],
                       capture_output=True, text=True, errors="replace")
    if r.returncode != 0:
        failures.append("%s: onnx2kite: %s" % (tag, r.stderr.strip()[-400:]))
        return
    if "runs only at the converted input size" in r.stderr:
        failures.append("%s: onnx2kite fixed the input size: %s" % (tag, r.stderr.strip()[-400:]))
    for k, shape in enumerate(list(shapes) + list(fixed_at)):
        rng = np.random.default_rng(SEED + k)
        x = rng.uniform(-1, 1, shape).astype(np.float32)
        err, got = kite_npy.run_kite(kiterun, param, binf, {name: x}, ["y"], os.path.join(work, "%s-run%d" % (tag, k)), shapecheck=k == 0)
        if k >= len(shapes):
            ok = err is not None
            print("%s %s at %s: kite refuses it (%s)" % ("ok  " if ok else "FAIL", tag, shape, (err or "it ran").strip()[-160:]))
            if not ok:
                failures.append("%s: kite ran at %s (the windows do not fit: it must refuse)" % (tag, shape))
            continue
        if err:
            failures.append("%s at %s: kiterun: %s" % (tag, shape, err))
            continue
        e = sess.run(["y"], {name: x})[0]
        d, rng_ = kite_npy.max_diff(e, got["y"])
        ok = d <= 1e-4 * max(rng_, 1e-30)
        print("%s %s at %s (converted at %s): max diff %.3g of range %.3g (seed %d)" % ("ok  " if ok else "FAIL", tag, shape, shapes[0], d, rng_, SEED + k))
        if not ok:
            failures.append("%s at %s: differs by %.3g (range %.3g, seed %d)" % (tag, shape, d, rng_, SEED + k))


def check(tag, model, max_layers=None, forbidden=()):
    import onnxruntime as ort
    path = os.path.join(work, tag + ".onnx")
    onnx.save(model, path)
    rng = np.random.default_rng(SEED)
    inputs = {vi.name: rng.uniform(-1, 1, [d.dim_value for d in vi.type.tensor_type.shape.dim]).astype(np.float32)
              for vi in model.graph.input}
    outs = [o.name for o in model.graph.output]
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    expected = sess.run(outs, inputs)
    param, binf = os.path.join(work, tag + ".param"), os.path.join(work, tag + ".bin")
    r = subprocess.run([onnx2kite, path, param, binf], capture_output=True, text=True, errors="replace")
    if r.returncode != 0:
        failures.append("%s: onnx2kite: %s" % (tag, r.stderr.strip()[-400:]))
        return
    types = [l.split()[0] for l in open(param).read().split("\n")[2:] if l.strip()]
    for t in forbidden:
        if t in types:
            failures.append("%s: a %s layer is left (the shape-only subgraph was not folded): %s" % (tag, t, types))
    if max_layers is not None and len(types) > max_layers:
        failures.append("%s: %d layers (at most %d expected): %s" % (tag, len(types), max_layers, types))
    err, got = kite_npy.run_kite(kiterun, param, binf, inputs, outs, os.path.join(work, tag + "-run"))
    if err:
        failures.append("%s: kiterun: %s" % (tag, err))
        return
    for name, e in zip(outs, expected):
        d, rng_ = kite_npy.max_diff(e, got[name])
        ok = d <= 1e-4 * max(rng_, 1e-30)
        print("%s %s: %d layers, max diff %.3g of range %.3g (seed %d)" % ("ok  " if ok else "FAIL", tag, len(types), d, rng_, SEED))
        if not ok:
            failures.append("%s: output %s differs by %.3g (range %.3g, seed %d)" % (tag, name, d, rng_, SEED))


def cpb_model(opset):
    """attention scores x [1, 3, 16, 16] (3 heads, 4x4 windows of 16 tokens)
    + 16 * sigmoid(GatherND(MLP(coords table), index)), every operand of the
    bias constant, as torch's dynamo exporter writes swin_v2_t."""
    rng = np.random.default_rng(SEED)
    n = []
    c = np.stack(np.meshgrid(np.arange(-3, 4), np.arange(-3, 4), indexing="ij"), -1).astype(np.float32) / 3
    n.append(const("table", c[None]))                                             # [1, 7, 7, 2]
    n.append(const("w1", rng.standard_normal((2, 32)).astype(np.float32)))
    n.append(const("b1", rng.standard_normal(32).astype(np.float32) * 0.1))
    n.append(const("w2", rng.standard_normal((32, 3)).astype(np.float32) * 0.2))
    n.append(helper.make_node("MatMul", ["table", "w1"], ["h0"], name="mlp1"))
    n.append(helper.make_node("Add", ["h0", "b1"], ["h1"], name="mlp1_bias"))
    n.append(helper.make_node("Relu", ["h1"], ["h2"], name="mlp_relu"))
    n.append(helper.make_node("MatMul", ["h2", "w2"], ["h3"], name="mlp2"))          # [1, 7, 7, 3]
    n.append(const("s3", np.array([49, 3], np.int64)))
    n.append(helper.make_node("Reshape", ["h3", "s3"], ["tab"], name="tab"))
    yy, xx = np.meshgrid(np.arange(4), np.arange(4), indexing="ij")
    pos = np.stack([yy.ravel(), xx.ravel()], 1)
    rel = pos[:, None, :] - pos[None, :, :] + 3
    n.append(const("index", (rel[..., 0] * 7 + rel[..., 1]).astype(np.int64)[..., None]))  # [16, 16, 1]
    n.append(helper.make_node("GatherND", ["tab", "index"], ["bias0"], name="gathernd"))  # [16, 16, 3]
    n.append(helper.make_node("Transpose", ["bias0"], ["bias1"], name="bias_perm", perm=[2, 0, 1]))
    n.append(helper.make_node("Sigmoid", ["bias1"], ["bias2"], name="bias_sigmoid"))
    n.append(const("sixteen", np.array(16.0, np.float32)))
    n.append(helper.make_node("Mul", ["bias2", "sixteen"], ["bias"], name="bias_scale"))
    n.append(helper.make_node("Add", ["x", "bias"], ["y"], name="add_bias"))
    n.append(helper.make_node("Softmax", ["y"], ["out"], name="softmax", axis=-1))
    g = helper.make_graph(n, "cpb", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                          [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 3, 16, 16])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def einsum_model(opset):
    """q [1, 2, 3, 4, 8] (batch, grid, heads, tokens, dim) against constant
    k, v [1, 2, 3, 5, 8]: scores by Einsum, softmax, Einsum with v"""
    rng = np.random.default_rng(SEED)
    n = [const("k", rng.standard_normal((1, 2, 3, 5, 8)).astype(np.float32)),
         const("v", rng.standard_normal((1, 2, 3, 5, 8)).astype(np.float32)),
         helper.make_node("Einsum", ["q", "k"], ["s"], name="scores", equation="B G H I D, B G H J D -> B G H I J"),
         helper.make_node("Softmax", ["s"], ["p"], name="softmax", axis=-1),
         helper.make_node("Einsum", ["p", "v"], ["out"], name="mix", equation="bghij,bghjd->bghid")]
    g = helper.make_graph(n, "einsum", [helper.make_tensor_value_info("q", TensorProto.FLOAT, [1, 2, 3, 4, 8])],
                          [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 2, 3, 4, 8])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


for opset in (18, 21):
    # only Input, the square, the mask's MemoryData, the add and the softmax stay
    check("mask_opset%d" % opset, mask_model(opset), max_layers=6,
          forbidden=("Reduction", "Crop", "Concat", "Gather", "BinaryOp_Equal"))
    check("functions_opset%d" % opset, function_model(opset))
check("windows_opset17", window_model(17))
# Input, the bias's MemoryData, the add and the softmax
check("swin_v2_position_bias_opset18", cpb_model(18), max_layers=4, forbidden=("MatMul", "Gemm", "Sigmoid"))
check("maxvit_einsum_opset18", einsum_model(18))

# converted at 8x8 (2x2 windows, no pad), run at sizes of whole windows and
# at sizes that need pads (10x10, 9x14, 5x7, 3x6: pads folded to 0 at 8x8;
# 3: smaller than a window)
check_sizes("swin_shift_opset17", swin_shift_model(17), [[1, 4, 8, 8], [1, 4, 12, 16], [1, 4, 16, 8], [1, 4, 10, 10], [1, 4, 9, 14], [1, 4, 5, 7], [1, 4, 3, 6]])
# the Expand of F.normalize left to the Div (its constant of ones fixed the size)
check_sizes("normalize_expand_opset17", normalize_model(17), [[1, 4, 6, 8], [1, 4, 9, 5]])
# converted at 4x4: one window, whose unit axes the layout drops (onnx2kite
# converts again at 8x8, the model still declares 4x4)
check_sizes("swin_one_window_opset17", swin_shift_model(17), [[1, 4, 4, 4], [1, 4, 8, 12]])

for f in failures:
    print("FAIL", f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
