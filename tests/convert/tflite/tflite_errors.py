#!/usr/bin/env python3
"""tflite2kite on hand-built and broken .tflite files (no TensorFlow needed).

    tflite_errors.py --tool build/tools/tflite/tflite2kite --work DIR [--seeds DIR]

Builds small TensorFlow Lite flatbuffers with the flatbuffers package
(field ids of TFLite's schema, written by hand): a valid model
(CONV_2D + RELU + MEAN + FULLY_CONNECTED) that must convert, and broken ones
that must fail with exit status 1, one error line naming the problem and no
output files: truncated file, wrong identifier, an out-of-range tensor /
buffer / opcode index, a buffer whose size does not match its tensor, and
unsupported ops (all listed at once). --seeds DIR also writes the models as
fuzzer seeds (tests/fuzz/fuzz_tflite.cpp; without --tool: only the seeds). Exit 77 when the flatbuffers
package is missing.
"""
import argparse
import os
import struct
import subprocess
import sys

try:
    import flatbuffers
except ImportError:
    print("the flatbuffers python package is not installed (it comes with tensorflow): skipped")
    sys.exit(77)

# BuiltinOperator codes and TensorType values used here
CONV_2D, FULLY_CONNECTED, RELU, MEAN, CUSTOM, TOPK_V2 = 3, 9, 19, 40, 32, 48
FLOAT32, INT32 = 0, 2


def vec_i32(b, vals):
    b.StartVector(4, len(vals), 4)
    for v in reversed(vals):
        b.PrependInt32(v)
    return b.EndVector()


def vec_offsets(b, offs):
    b.StartVector(4, len(offs), 4)
    for o in reversed(offs):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def vec_bytes(b, data):
    b.StartVector(1, len(data), 16)
    for c in reversed(data):
        b.PrependUint8(c)
    return b.EndVector()


def build(ops=None, tensor_buffer_override=None, op_input_override=None, opcode_override=None, bias_bytes=None):
    """A model: input [1,6,5,3] -> CONV_2D 3x3 SAME (4 out) -> RELU -> MEAN [1,2] -> FULLY_CONNECTED (2 out).
    ops: extra (code, inputs, outputs, custom) operators appended (for the unsupported-op cases)."""
    b = flatbuffers.Builder(1024)
    # buffers: 0 empty sentinel, 1 conv weights, 2 conv bias, 3 mean axes, 4 fc weights, 5 fc bias
    blobs = [None,
             struct.pack("<%df" % (4 * 3 * 3 * 3), *[((i * 7) % 11 - 5) / 10.0 for i in range(108)]),
             bias_bytes if bias_bytes is not None else struct.pack("<4f", 0.1, -0.2, 0.3, 0.0),
             struct.pack("<2i", 1, 2),
             struct.pack("<8f", *[((i * 5) % 7 - 3) / 4.0 for i in range(8)]),
             struct.pack("<2f", 0.5, -0.5)]
    buf_offs = []
    for data in blobs:
        d = vec_bytes(b, data) if data else None
        b.StartObject(3)
        if d is not None:
            b.PrependUOffsetTRelativeSlot(0, d, 0)
        buf_offs.append(b.EndObject())
    # tensors: (name, shape, type, buffer)
    tensors = [("input", [1, 6, 5, 3], FLOAT32, 0), ("conv_w", [4, 3, 3, 3], FLOAT32, 1), ("conv_b", [4], FLOAT32, 2),
               ("conv", [1, 6, 5, 4], FLOAT32, 0), ("relu", [1, 6, 5, 4], FLOAT32, 0), ("axes", [2], INT32, 3),
               ("mean", [1, 4], FLOAT32, 0), ("fc_w", [2, 4], FLOAT32, 4), ("fc_b", [2], FLOAT32, 5),
               ("output", [1, 2], FLOAT32, 0), ("extra", [1, 2], FLOAT32, 0)]
    t_offs = []
    for i, (name, shape, ttype, buf) in enumerate(tensors):
        if tensor_buffer_override and i in tensor_buffer_override:
            buf = tensor_buffer_override[i]
        n = b.CreateString(name)
        s = vec_i32(b, shape)
        b.StartObject(8)
        b.PrependUOffsetTRelativeSlot(0, s, 0)     # shape
        b.PrependInt8Slot(1, ttype, 0)             # type
        b.PrependUint32Slot(2, buf, 0)             # buffer
        b.PrependUOffsetTRelativeSlot(3, n, 0)     # name
        t_offs.append(b.EndObject())
    # operator codes (builtin_code is field 3, deprecated_builtin_code field 0)
    codes = [CONV_2D, RELU, MEAN, FULLY_CONNECTED]
    extra = ops or []
    customs = {}
    for code, _, _, custom in extra:
        if (code, custom) not in customs:
            customs[(code, custom)] = len(codes)
            codes.append((code, custom))
    oc_offs = []
    for c in codes:
        code, custom = (c, None) if isinstance(c, int) else c
        cs = b.CreateString(custom) if custom else None
        b.StartObject(4)
        b.PrependInt8Slot(0, min(code, 127), 0)
        if cs is not None:
            b.PrependUOffsetTRelativeSlot(1, cs, 0)
        b.PrependInt32Slot(2, 1, 1)
        b.PrependInt32Slot(3, code, 0)
        oc_offs.append(b.EndObject())
    # options tables
    b.StartObject(7)  # Conv2DOptions: padding SAME(0), stride 1, 1
    b.PrependInt8Slot(0, 0, 0)
    b.PrependInt32Slot(1, 1, 0)
    b.PrependInt32Slot(2, 1, 0)
    conv_opt = b.EndObject()
    b.StartObject(1)  # ReducerOptions: keep_dims false
    b.PrependBoolSlot(0, False, False)
    mean_opt = b.EndObject()
    op_list = [(0, [0, 1, 2], [3], conv_opt, 1), (1, [3], [4], None, 0), (2, [4, 5], [6], mean_opt, 27),
               (3, [6, 7, 8], [9], None, 0)]
    for code, ins, outs, custom in extra:
        op_list.append((customs[(code, custom)], ins, outs, None, 0))
    op_offs = []
    for k, (ci, ins, outs, opt, opt_type) in enumerate(op_list):
        if op_input_override and k in op_input_override:
            ins = op_input_override[k]
        if opcode_override and k in opcode_override:
            ci = opcode_override[k]
        iv = vec_i32(b, ins)
        ov = vec_i32(b, outs)
        b.StartObject(5)
        b.PrependUint32Slot(0, ci, 0)
        b.PrependUOffsetTRelativeSlot(1, iv, 0)
        b.PrependUOffsetTRelativeSlot(2, ov, 0)
        if opt is not None:
            b.PrependUint8Slot(3, opt_type, 0)
            b.PrependUOffsetTRelativeSlot(4, opt, 0)
        op_offs.append(b.EndObject())
    tv = vec_offsets(b, t_offs)
    opv = vec_offsets(b, op_offs)
    inv = vec_i32(b, [0])
    outv = vec_i32(b, [9])
    sname = b.CreateString("main")
    b.StartObject(5)
    b.PrependUOffsetTRelativeSlot(0, tv, 0)
    b.PrependUOffsetTRelativeSlot(1, inv, 0)
    b.PrependUOffsetTRelativeSlot(2, outv, 0)
    b.PrependUOffsetTRelativeSlot(3, opv, 0)
    b.PrependUOffsetTRelativeSlot(4, sname, 0)
    sg = b.EndObject()
    ocv = vec_offsets(b, oc_offs)
    sgv = vec_offsets(b, [sg])
    bv = vec_offsets(b, buf_offs)
    desc = b.CreateString("kite test model")
    b.StartObject(5)
    b.PrependUint32Slot(0, 3, 0)
    b.PrependUOffsetTRelativeSlot(1, ocv, 0)
    b.PrependUOffsetTRelativeSlot(2, sgv, 0)
    b.PrependUOffsetTRelativeSlot(3, desc, 0)
    b.PrependUOffsetTRelativeSlot(4, bv, 0)
    model = b.EndObject()
    b.Finish(model, file_identifier=b"TFL3")
    return bytes(b.Output())


def reference(x):
    """numpy output of the valid model for input x (1,6,5,3)"""
    import numpy as np
    w = np.array(struct.unpack("<108f", build_blobs()[1]), np.float32).reshape(4, 3, 3, 3)  # OHWI
    bias = np.array([0.1, -0.2, 0.3, 0.0], np.float32)
    xp = np.pad(x[0], ((1, 1), (1, 1), (0, 0)))
    conv = np.zeros((6, 5, 4), np.float32)
    for y in range(6):
        for xx in range(5):
            conv[y, xx] = np.einsum("hwi,ohwi->o", xp[y:y + 3, xx:xx + 3], w) + bias
    m = np.maximum(conv, 0).mean(axis=(0, 1))
    fw = np.array([((i * 5) % 7 - 3) / 4.0 for i in range(8)], np.float32).reshape(2, 4)
    return fw @ m + np.array([0.5, -0.5], np.float32)


def build_blobs():
    return [None, struct.pack("<%df" % 108, *[((i * 7) % 11 - 5) / 10.0 for i in range(108)])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", help="tflite2kite (without it: only --seeds are written)")
    ap.add_argument("--kiterun")
    ap.add_argument("--work", required=True)
    ap.add_argument("--seeds")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    failures = []
    good = build()
    cases = [
        # name, bytes, expected exit status, text the error must contain
        ("valid", good, 0, "1 int8" if False else "layers"),
        ("truncated", good[:len(good) // 2], 1, "out of bounds"),
        ("tiny", good[:6], 1, "the file has 6 bytes"),
        ("wrong_identifier", good[:4] + b"XXXX" + good[8:], 1, "identifier is not 'TFL3'"),
        ("tensor_index", build(op_input_override={1: [42]}), 1, "tensor index 42 is out of range (the subgraph has 11 tensors)"),
        ("negative_tensor_index", build(op_input_override={3: [6, -5, 8]}), 1, "tensor index -5 is out of range"),
        ("buffer_index", build(tensor_buffer_override={1: 77}), 1, "buffer index 77 is out of range (the model has 6 buffers)"),
        ("opcode_index", build(opcode_override={2: 9}), 1, "opcode_index 9 is out of range (the model has 4 operator codes)"),
        ("buffer_size", build(bias_bytes=struct.pack("<3f", 1, 2, 3)), 1, "its buffer holds 12 bytes, its shape and type (FLOAT32) need 16"),
        # every node of an unsupported type counts, also behind another unsupported node (the
        # second MyOp reads TOPK_V2's result); a supported op there (RELU) is not listed
        ("unsupported", build(ops=[(TOPK_V2, [9], [10], None), (CUSTOM, [6], [10], "MyOp"), (CUSTOM, [10], [10], "MyOp"),
                                   (RELU, [10], [10], None)]), 1,
         "unsupported ops (2 types, 3 nodes)"),
    ]
    for name, data, want_rc, want_text in cases:
        path = os.path.join(args.work, name + ".tflite")
        with open(path, "wb") as f:
            f.write(data)
        if args.seeds:
            os.makedirs(args.seeds, exist_ok=True)
            with open(os.path.join(args.seeds, name + ".tflite"), "wb") as f:
                f.write(data)
        if not args.tool:
            continue
        param, binf = os.path.join(args.work, name + ".param"), os.path.join(args.work, name + ".bin")
        for p in (param, binf):
            if os.path.exists(p):
                os.remove(p)
        r = subprocess.run([args.tool, path, param, binf], capture_output=True, text=True)
        text = r.stderr.strip()
        ok = r.returncode == want_rc and want_text in text
        if want_rc != 0:
            ok = ok and not os.path.exists(param) and not os.path.exists(binf) and "tflite2kite: error:" in text
            ok = ok and "Segmentation" not in text
        if name == "unsupported":
            ok = ok and "TOPK_V2 x1" in text and "CUSTOM:MyOp x2" in text
        print("%s %s: exit %d: %s" % ("ok  " if ok else "FAIL", name, r.returncode, text.replace("\n", " | ")))
        if not ok:
            failures.append(name)
        if name == "valid" and ok and args.kiterun:
            import numpy as np
            rng = np.random.default_rng(5)
            x = rng.uniform(-1, 1, (1, 6, 5, 3)).astype(np.float32)
            npy = os.path.join(args.work, "x.npy")
            np.save(npy, x[0])
            out = os.path.join(args.work, "out")
            os.makedirs(out, exist_ok=True)
            kr = subprocess.run([args.kiterun, param, binf, "input=" + npy, "save=" + out], capture_output=True, text=True)
            got = np.load(os.path.join(out, "output.npy")).reshape(-1) if kr.returncode == 0 else None
            want = reference(x)
            diff = float(np.max(np.abs(got - want))) if got is not None and got.size == 2 else float("inf")
            good_run = diff <= 1e-5
            print("%s valid model run by kiterun vs numpy: max diff %.3g" % ("ok  " if good_run else "FAIL", diff))
            if not good_run:
                failures.append("valid_run")
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
