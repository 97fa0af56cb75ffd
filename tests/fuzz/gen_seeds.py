#!/usr/bin/env python3
"""Write the seed corpora of the libFuzzer targets.

usage: gen_seeds.py --out DIR [--shared DIR] [--type-table FILE]

DIR/param_text   text .param files (fuzz_param_text)
DIR/param_bin    binary .param.bin files (fuzz_param_bin)
DIR/model_bin    .bin weights for the fixed graph of fuzz_model_bin
DIR/caffe        prototxt + caffemodel pairs (fuzz_caffe: 4-byte prototxt
                 length, prototxt, caffemodel)

The seeds are generated, never committed: CI writes them, with the shared
ncnn graphs (--shared), into a temporary folder before each fuzz run.
"""

import argparse
import os
import random
import struct
import zlib
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "badinput"))
import gen_corpus as gc  # noqa: E402

HAND_GRAPHS = {
    "relu_split": "7767517\n4 5\nInput in0 0 1 in0 0=8 1=6 2=3\nSplit sp 1 2 in0 a b\n"
                  "ReLU r1 1 1 a c 0=1.000000e-01\nReLU r2 1 1 b d\n",
    "conv_pool": "7767517\n4 4\nInput data 0 1 data -23330=4,3,8,8,3 0=8 1=8 2=3\n"
                 "Convolution conv 1 1 data c 0=4 1=3 3=1 4=1 5=1 6=108 9=1\n"
                 "Pooling pool 1 1 c p 0=1 1=2 2=2\n"
                 "InnerProduct fc 1 1 p out 0=10 1=1 2=640\n",
    "arrays": "7767517\n5 6\nInput in0 0 1 in0 0=4 1=4 2=8\nSplit sp 1 2 in0 a b\n"
              "Slice sl 1 2 a s0 s1 -23300=2,3,-233 1=0\n"
              "Clip clip 1 1 b cb 0=-1.5 1=6.0e0\n"
              "BinaryOp add 2 1 s0 s1 out 0=0 1=0 2=1.0\n",
    "newer_syntax": "7767517\n3 3\nInput in0 0 1 in0 0=16\n"
                    "Reshape rs 1 1 in0 r 0=4 1=-1 6=\"1w,1h\"\n"
                    "Crop cr 1 1 r out 9=1,0 10=1,2 11=1,0\n",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--shared", default="")
    ap.add_argument("--type-table", default="")
    args = ap.parse_args()
    types = gc.load_type_table(args.type_table)
    for k, v in {"Slice": 31, "Clip": 54, "BinaryOp": 40, "Reshape": 27, "Crop": 7}.items():
        types.setdefault(k, v)
    graphs = dict(HAND_GRAPHS)
    if args.shared:
        d = os.path.join(args.shared, "models", "ncnn")
        for fn in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if fn.endswith(".param"):
                with open(os.path.join(d, fn)) as f:
                    graphs["shared_" + fn[:-6]] = f.read()

    for sub in ("param_text", "param_bin", "model_bin", "table", "npy", "image"):
        os.makedirs(os.path.join(args.out, sub), exist_ok=True)

    def write(sub, name, data):
        if isinstance(data, str):
            data = data.encode()
        with open(os.path.join(args.out, sub, name), "wb") as f:
            f.write(data)

    for name, text in sorted(graphs.items()):
        write("param_text", name + ".param", text)
        g = gc.Graph(text)
        layers = gc.to_binary_layers(g, types)
        if layers is not None:
            write("param_bin", name + ".param.bin", gc.binary_param([gc.MAGIC, len(layers), g.blob_count], layers))

    # weights of fuzz_model_bin's graph: conv1 (108 weights, tag; 4 bias, raw),
    # conv2 (8 weights, tag; no bias)
    rng = random.Random(5)
    w1 = [rng.uniform(-1, 1) for _ in range(108)]
    b1 = [rng.uniform(-1, 1) for _ in range(4)]
    w2 = [rng.uniform(-1, 1) for _ in range(8)]

    def tagged(tag, values, kind):
        if kind == "f32":
            return struct.pack("<I", tag) + gc.f32(values)
        if kind == "f16":
            data = gc.f16(values)
            return struct.pack("<I", tag) + data + b"\0" * ((4 - len(data) % 4) % 4)
        if kind == "i8":
            data = bytes(int(v * 127) & 0xff for v in values)
            return struct.pack("<I", tag) + data + b"\0" * ((4 - len(data) % 4) % 4)
        # legacy: a 256-entry table of floats, then one uint8 index per value
        table = [i / 128.0 - 1.0 for i in range(256)]
        idx = bytes(min(255, max(0, int((v + 1.0) * 128))) for v in values)
        return struct.pack("<I", tag) + gc.f32(table) + idx + b"\0" * ((4 - len(idx) % 4) % 4)

    variants = {
        "fp32": (0, "f32"),
        "fp32_alt_tag": (0x0002C056, "f32"),
        "fp16": (0x01306B47, "f16"),
        "int8": (0x000D4B38, "i8"),
        "table": (0x01010101, "table"),
    }
    for name, (tag, kind) in variants.items():
        data = tagged(tag, w1, kind) + gc.f32(b1) + tagged(tag, w2, kind)
        write("model_bin", name + ".bin", data)
    write("model_bin", "empty.bin", b"")
    caffe_seeds(args, write)
    reader_seeds(write)
    print("fuzz seeds: %d graphs in %s" % (len(graphs), args.out))


def npy_bytes(descr, shape, payload, version=1):
    """a .npy file: magic, version, header dict padded to 16 bytes, data"""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    hl = 4 if version >= 2 else 2
    pad = (16 - (6 + 2 + hl + len(header) + 1) % 16) % 16
    header = header + " " * pad + "\n"
    size = struct.pack("<I", len(header)) if version >= 2 else struct.pack("<H", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode("latin1") + payload


def png_bytes(w, h, channels, pixels):
    """a PNG (8-bit, gray 0 / RGB 2 / RGBA 6), no filter"""
    ctype = {1: 0, 3: 2, 4: 6}[channels]
    raw = b"".join(b"\x00" + bytes(pixels[(y * w) * channels:(y * w + w) * channels]) for y in range(h))

    def chunk(t, data):
        return struct.pack(">I", len(data)) + t + data + struct.pack(">I", zlib.crc32(t + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, ctype, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def bmp_bytes(w, h, pixels):
    """a 24-bit BMP, rows bottom-up padded to 4 bytes"""
    stride = (w * 3 + 3) & ~3
    rows = b""
    for y in range(h - 1, -1, -1):
        row = bytes(pixels[(y * w) * 3:(y * w + w) * 3])
        rows += row + b"\0" * (stride - len(row))
    hdr = struct.pack("<2sIHHI", b"BM", 54 + len(rows), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(rows), 2835, 2835, 0, 0)
    return hdr + info + rows


def reader_seeds(write):
    """fuzz_table (calibration tables), fuzz_npy (.npy), fuzz_image (first byte: the
    pixel order = byte % 5, resize/mean/norm when >= 0x80; then the file)"""
    write("table", "ncnn2table.table", "conv1_param_0 12.5 40.25 7.0\nfc_param_0 3.5\nconv1 25.4\nfc 12.0\n")
    write("table", "comment_blank.table", "# kitequantize\n\nconv_param_0 1.000000\nconv 127.000000\n")
    write("table", "bad_value.table", "conv_param_0 -1 nan\nconv\n")
    rng = random.Random(7)
    f = [rng.uniform(-2, 2) for _ in range(24)]
    write("npy", "f4_chw.npy", npy_bytes("<f4", "(2, 3, 4)", struct.pack("<24f", *f)))
    write("npy", "f8_hw.npy", npy_bytes("<f8", "(4, 6)", struct.pack("<24d", *f)))
    write("npy", "f2_w.npy", npy_bytes("<f2", "(24,)", struct.pack("<24e", *f)))
    write("npy", "u1_cdhw.npy", npy_bytes("|u1", "(1, 2, 3, 4)", bytes(range(24))))
    write("npy", "i8_scalar.npy", npy_bytes("<i8", "()", struct.pack("<q", -5)))
    write("npy", "i4_v2.npy", npy_bytes("<i4", "(3, 2)", struct.pack("<6i", *range(6)), version=2))
    write("npy", "fortran.npy", npy_bytes("<f4", "(2, 2)", struct.pack("<4f", 1, 2, 3, 4)).replace(b"False", b"True "))
    px = [rng.randrange(256) for _ in range(6 * 5 * 4)]
    write("image", "rgb.png.seed", b"\x00" + png_bytes(6, 5, 3, px))
    write("image", "gray.png.seed", b"\x02" + png_bytes(6, 5, 1, px))
    write("image", "rgba_resized.png.seed", b"\x83" + png_bytes(6, 5, 4, px))
    write("image", "rgb.bmp.seed", b"\x01" + bmp_bytes(6, 5, px))
    write("image", "rgb.ppm.seed", b"\x80" + b"P6\n6 5\n255\n" + bytes(px[:90]))
    write("image", "gray.pgm.seed", b"\x02" + b"P5\n6 5\n255\n" + bytes(px[:30]))
    try:
        import io
        from PIL import Image
        buf = io.BytesIO()
        Image.frombytes("RGB", (6, 5), bytes(px[:90])).save(buf, format="JPEG", quality=90)
        write("image", "rgb.jpg.seed", b"\x04" + buf.getvalue())
    except ImportError:
        pass


def caffe_seeds(args, write):
    """the synthetic caffe models of the caffe2kite tests with their random
    weights (V1 and V2 forms), and the shared prototxts without weights"""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "convert", "caffe"))
    import numpy as np
    import caffe_fidelity as cf
    import tempfile
    os.makedirs(os.path.join(args.out, "caffe"), exist_ok=True)

    def pair(proto, model):
        proto = proto.encode()
        return struct.pack("<I", len(proto)) + proto + model

    for name, text in sorted(cf.SYNTHETIC.items()):
        net = cf.parse_prototxt(text)
        _, blobs, _ = cf.infer(net, np.random.RandomState(1))
        with tempfile.TemporaryDirectory() as d:
            for v1 in (False, True) if cf.getall(net, "layers") else (False,):
                path = os.path.join(d, "m.caffemodel")
                cf.write_caffemodel(path, net, blobs, v1=v1)
                with open(path, "rb") as f:
                    write("caffe", "%s%s.seed" % (name, "_v1weights" if v1 else ""), pair(text, f.read()))
        write("caffe", name + "_noweights.seed", pair(text, b""))
    root = os.path.join(args.shared, "models", "caffe") if args.shared else ""
    for d in sorted(os.listdir(root)) if root and os.path.isdir(root) else []:
        p = os.path.join(root, d, "deploy.prototxt")
        if os.path.isfile(p):
            with open(p) as f:
                write("caffe", "shared_%s.seed" % d, pair(f.read(), b""))


if __name__ == "__main__":
    main()
