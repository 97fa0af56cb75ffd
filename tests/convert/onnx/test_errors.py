#!/usr/bin/env python3
"""onnx2kite on bad input: every case must exit 1 with a clear message on
stderr, never crash, and leave no output files behind.
usage: test_errors.py ONNX2KITE KITERUN WORKDIR"""
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

onnx2kite, kiterun, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def small_model(batch_dim=1, extra_nodes=()):
    rng = np.random.default_rng(7)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    fc = numpy_helper.from_array(rng.standard_normal((5, 4)).astype(np.float32), "fc")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("GlobalAveragePool", ["r"], ["p"], name="gap"),
             helper.make_node("Flatten", ["p"], ["f"], name="flat"),
             helper.make_node("Gemm", ["f", "fc"], ["y"], name="gemm", transB=1)] + list(extra_nodes)
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch_dim, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])], [w, fc])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def expect_fail(tag, data, *needles, extra=(), status=1):
    path = os.path.join(work, tag + ".onnx")
    with open(path, "wb") as f:
        f.write(data)
    param, binf = os.path.join(work, tag + ".param"), os.path.join(work, tag + ".bin")
    r = subprocess.run([onnx2kite, path, param, binf] + list(extra), capture_output=True, text=True, errors="replace")
    msg = r.stderr.strip()
    if r.returncode != status:  # 1: a failure, 2: a wrong command line
        failures.append("%s: exit %d (want %d): %s" % (tag, r.returncode, status, msg[-300:]))
    elif not msg.startswith("onnx2kite: "):
        failures.append("%s: no clear message: %r" % (tag, msg[:200]))
    for n in needles:
        if n not in msg:
            failures.append("%s: message lacks %r: %s" % (tag, n, msg))
    left = [p for p in (param, binf, param + ".tmp", binf + ".tmp") if os.path.exists(p)]
    if left:
        failures.append("%s: left files behind: %s" % (tag, left))
    return msg


good = small_model().SerializeToString()

# a good model converts and runs (the baseline the damaged ones start from)
gp = os.path.join(work, "good.onnx")
open(gp, "wb").write(good)
r = subprocess.run([onnx2kite, gp, gp + ".param", gp + ".bin"], capture_output=True, text=True, errors="replace")
if r.returncode != 0:
    failures.append("good model failed: " + r.stderr)
else:
    r = subprocess.run([kiterun, gp + ".param", gp + ".bin", "shape=[8,8,3]"], capture_output=True, text=True, errors="replace")
    if r.returncode != 0:
        failures.append("good model does not run: " + r.stderr)

expect_fail("garbage", bytes(range(256)) * 4, "not a valid ONNX model")
expect_fail("empty", b"", "no graph")
for cut in (1, 7, 50, len(good) // 3, len(good) // 2, len(good) - 3):
    expect_fail("truncated_%d" % cut, good[:cut])
# flipped bytes anywhere: either a clean conversion or a clean error, never a crash
rng = np.random.default_rng(3)
for k in range(60):
    b = bytearray(good)
    for _ in range(4):
        b[rng.integers(len(b))] = rng.integers(256)
    path = os.path.join(work, "flip.onnx")
    open(path, "wb").write(bytes(b))
    r = subprocess.run([onnx2kite, path, path + ".param", path + ".bin"], capture_output=True, text=True, errors="replace")
    if r.returncode not in (0, 1) or (r.returncode == 1 and not r.stderr.startswith("onnx2kite: ")):
        failures.append("flip %d: exit %d: %s" % (k, r.returncode, r.stderr[-300:]))

# unsupported operators: all listed at once with count and first node name
m = small_model(extra_nodes=[
    helper.make_node("TopK", ["y", "k"], ["t", "i"], name="topk_a"),
    helper.make_node("TopK", ["t", "k"], ["t2", "i2"], name="topk_b"),
    helper.make_node("NonMaxSuppression", ["y"], ["n"], name="nms"),
    helper.make_node("Foo", ["y"], ["z"], name="custom", domain="com.example")])
expect_fail("unsupported", m.SerializeToString(), "unsupported ops (3 types, 4 nodes)", "TopK x2 (first node 'topk_a')",
            "NonMaxSuppression x1 (first node 'nms')", "com.example::Foo x1")

# a tensor whose data does not match its shape
m = small_model()
m.graph.initializer[0].raw_data = m.graph.initializer[0].raw_data[:-8]
expect_fail("short_tensor", m.SerializeToString(), "tensor 'w'")
# weights that do not fit the input
m = small_model()
m.graph.initializer[0].CopyFrom(numpy_helper.from_array(np.zeros((4, 2, 3, 3), np.float32), "w"))
expect_fail("bad_weight", m.SerializeToString(), "node 'conv' (Conv)")
# an input shape that does not fit the model's input: refused at once, naming it
expect_fail("inputshape_rank", good, "graph input 'x'", "rank 2", "[1,3,8,8]", extra=["inputshape=x:[1,2]"])
expect_fail("inputshape_dim", good, "graph input 'x'", "dimension 1 is fixed", extra=["inputshape=x:[1,4,8,8]"])
expect_fail("inputshape_name", good, "'nosuch'", "not a graph input", "'x'", extra=["inputshape=nosuch:[1,3,8,8]"])
# an input nobody produces
m = small_model()
m.graph.node[1].input[0] = "nowhere"
expect_fail("dangling", m.SerializeToString(), "'nowhere'")
# batch 2 is refused by name
expect_fail("batch2", small_model(batch_dim=2).SerializeToString(), "batch 1")
# a symbolic dimension past the batch needs inputshape=
m = small_model()
m.graph.input[0].type.tensor_type.shape.dim[2].dim_param = "H"
expect_fail("symbolic", m.SerializeToString(), "inputshape=")
p = os.path.join(work, "symbolic_ok.onnx")
open(p, "wb").write(m.SerializeToString())
r = subprocess.run([onnx2kite, p, p + ".param", p + ".bin", "inputshape=x:[1,3,8,8]"], capture_output=True, text=True, errors="replace")
if r.returncode != 0:
    failures.append("inputshape= did not fix the symbolic dimension: " + r.stderr)
expect_fail("bad_arg", good, "bad argument", extra=["inputshape=x:[1,-3]"], status=2)
# opset out of range
m = small_model()
m.opset_import[0].version = 3
expect_fail("opset", m.SerializeToString(), "opset 3")
# missing input file, unwritable output
r = subprocess.run([onnx2kite, os.path.join(work, "missing.onnx"), os.path.join(work, "a.param"), os.path.join(work, "a.bin")],
                   capture_output=True, text=True, errors="replace")
if r.returncode != 1 or "cannot open" not in r.stderr:
    failures.append("missing file: exit %d: %s" % (r.returncode, r.stderr))
r = subprocess.run([onnx2kite, gp, os.path.join(work, "no/such/dir/a.param"), os.path.join(work, "a.bin")], capture_output=True, text=True, errors="replace")
if r.returncode != 1 or "cannot create" not in r.stderr or os.path.exists(os.path.join(work, "a.bin")):
    failures.append("unwritable output: exit %d: %s" % (r.returncode, r.stderr))

for f in failures:
    print("FAIL", f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
