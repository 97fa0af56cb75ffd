#!/usr/bin/env python3
"""kitequantize on a small generated conv net (fixed seed, made here with numpy).

The net: Input 12x10x3 -> Convolution 3x3 (4, ReLU) -> Convolution 3x3 (8, ReLU)
-> Split -> [Padding 1 + ConvolutionDepthWise 3x3 pad 0 (8, ReLU), Convolution 1x1 (8)] -> BinaryOp add
-> Convolution 1x1 (6) -> Pooling global avg -> InnerProduct (5).

Checks:
  - `table` on .npy tensors, every method: the table parses in ncnn2table's layout, the
    weight scales are exactly 127 / absmax per output channel (per group for the
    depth-wise layer), minmax input scales are 127 / absmax of the blob (computed here
    with numpy on the same data)
  - `table` on images (PNG written here with zlib, a PPM, a list file) with shape/mean/norm/pixel
  - the zero Padding before the depth-wise convolution is folded into its pads
  - `int8` with a table written by hand in ncnn2table's layout (%f values, weight lines
    first): int8_scale_term 2 / 1 / 102 (requantize fusion of the first pair only), the
    int8 weights in the .bin equal round(w * scale) clamped to 127, the output close to fp32
  - the int8 model runs in kite (kiterun) and, when the pip `ncnn` module is present, in
    ncnn with outputs matching kite's (cosine >= 0.999)
  - `int8 ... data= keep-fp32=1 report=`: the report names every int8 layer, the layer it
    keeps stays fp32; fp16-rest stores that layer's weights as fp16
  - round=gptq (default with data=): conv0's int8 weights equal a numpy GPTQ (>= 95%, all within
    one level), round=nearest gives round(w * s), GPTQ's objective (conv0's weight error on the
    calibration inputs) is below nearest's, and a 5000-input InnerProduct rounds to nearest
  - activation centring: on a second net (3x3 conv with clip(0, 6) -> 1x1 conv with ReLU ->
    3x3 depth-wise conv with pad 1 and ReLU -> 1x1 conv) the pairs are centred (the clip becomes
    clip(-m, 6 - m) with m half the next layer's threshold); center=2 also centres the padded
    depth-wise reader through an fp32 Padding of -m (center=1 leaves it), the output error against
    fp32 is smaller than with center=0, ncnn runs the centred models like kite, the per-layer
    report of the centred layers (measured with the offsets taken back) stays >= 0.99, and fed
    inputs exact on both int8 grids the centred padded reader gives the uncentred one's output
  - keep-by=isolated keeps the layer with the lowest isolated cosine
  - bad input: unknown method, a table whose weight scale count is wrong, a missing file:
    exit status 1 with a message, no crash
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

SEED = 20261126
W, H, C = 12, 10, 3


def conv(name, bottom, top, cin, cout, k, act, group=1, bias=True, pad=None):
    return dict(name=name, bottom=bottom, top=top, cin=cin, cout=cout, k=k, act=act, group=group, bias=bias,
                pad=k // 2 if pad is None else pad)


LAYERS = [
    conv("conv0", "data", "c0", 3, 4, 3, 1),
    conv("conv1", "c0", "c1", 4, 8, 3, 1),
    conv("dw2", "c1_pad", "c2", 8, 8, 3, 1, group=8, pad=0),
    conv("conv3", "c1_s1", "c3", 8, 8, 1, 0, bias=False),
    conv("conv4", "sum", "c4", 8, 6, 1, 0),
]


def make_model(d, rng):
    weights = {}
    lines = []
    binparts = []
    for L in LAYERS:
        wsize = L["cout"] * (L["cin"] // L["group"]) * L["k"] * L["k"]
        w = (rng.standard_normal(wsize) * 0.4).astype(np.float32)
        # one output channel with a much larger range: per-channel scales matter
        w[:wsize // L["cout"]] *= 4.0
        b = (rng.standard_normal(L["cout"]) * 0.1).astype(np.float32)
        weights[L["name"]] = (w, b if L["bias"] else None)
        typ = "ConvolutionDepthWise" if L["group"] > 1 else "Convolution"
        p = "0=%d 1=%d 4=%d 5=%d 6=%d" % (L["cout"], L["k"], L["pad"], 1 if L["bias"] else 0, wsize)
        if L["group"] > 1:
            p += " 7=%d" % L["group"]
        if L["act"]:
            p += " 9=1"
        lines.append((typ, L["name"], [L["bottom"]], [L["top"]], p))
        binparts.append(struct.pack("<I", 0) + w.tobytes())
        if L["bias"]:
            binparts.append(b.tobytes())
    # assemble in graph order
    ip_w = (rng.standard_normal(5 * 6) * 0.5).astype(np.float32)
    ip_b = (rng.standard_normal(5) * 0.1).astype(np.float32)
    weights["fc"] = (ip_w, ip_b)
    graph = [
        ("Input", "input", [], ["data"], "0=%d 1=%d 2=%d" % (W, H, C)),
        lines[0], lines[1],
        ("Split", "split", ["c1"], ["c1_s0", "c1_s1"], ""),
        ("Padding", "pad2", ["c1_s0"], ["c1_pad"], "0=1 1=1 2=1 3=1"),
        lines[2], lines[3],
        ("BinaryOp", "add", ["c2", "c3"], ["sum"], "0=0"),
        lines[4],
        ("Pooling", "gap", ["c4"], ["pool"], "0=1 4=1"),
        ("InnerProduct", "fc", ["pool"], ["out"], "0=5 1=1 2=30"),
    ]
    blobs = set()
    for g in graph:
        blobs.update(g[3])
    text = "7767517\n%d %d\n" % (len(graph), len(blobs))
    for typ, name, bots, tops, p in graph:
        text += "%-16s %-8s %d %d %s %s\n" % (typ, name, len(bots), len(tops), " ".join(bots + tops), p)
    with open(os.path.join(d, "net.param"), "w") as f:
        f.write(text)
    with open(os.path.join(d, "net.bin"), "wb") as f:
        for part in binparts:
            f.write(part)
        f.write(struct.pack("<I", 0) + ip_w.tobytes() + ip_b.tobytes())
    return weights


def write_png(path, rgb):
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))

    def chunk(t, data):
        return struct.pack(">I", len(data)) + t + data + struct.pack(">I", zlib.crc32(t + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def run(cmd, expect_ok=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if expect_ok and p.returncode != 0:
        sys.exit("FAIL: %s\nexit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr[-3000:]))
    return p


def read_table(path):
    wt, bt, order = {}, {}, []
    for line in open(path):
        t = line.split()
        if not t:
            continue
        if t[0].endswith("_param_0"):
            wt[t[0][:-8]] = np.array([float(v) for v in t[1:]])
            order.append("w")
        else:
            assert len(t) == 2, line
            bt[t[0]] = float(t[1])
            order.append("b")
    assert order == sorted(order, key=lambda s: s != "w"), "weight lines must come first: %s" % order
    return wt, bt


def ref_weight_scales(name, weights):
    L = [l for l in LAYERS if l["name"] == name]
    w = weights[name][0]
    n = L[0]["group"] if L and L[0]["group"] > 1 else (L[0]["cout"] if L else 5)
    m = np.abs(w.reshape(n, -1)).max(1)
    return np.where(m == 0, 1.0, 127.0 / m)


def kept_guess(stderr):
    for line in stderr.splitlines():
        if "keep fp32 " in line:
            return line.split("keep fp32 ")[1].strip()
    return None


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / np.sqrt((a @ a) * (b @ b)))


def kiterun(a, param, binf, inp, outdir):
    run([a.kiterun, param, binf, "input=data:" + inp, "save=" + outdir, "threads=1"])
    return np.load(os.path.join(outdir, "out.npy"))


def check_center(a, d, rng):
    Q = a.kitequantize
    d = os.path.join(d, "center")
    os.makedirs(d)
    w_a = (rng.standard_normal(8 * 3 * 9) * 0.4).astype(np.float32)
    b_a = (rng.standard_normal(8) * 0.3 + 0.5).astype(np.float32)
    w_b = (rng.standard_normal(8 * 8) * 0.4).astype(np.float32)
    b_b = (rng.standard_normal(8) * 0.3).astype(np.float32)
    w_d = (rng.standard_normal(8 * 9) * 0.4).astype(np.float32)
    b_d = (rng.standard_normal(8) * 0.3 + 0.2).astype(np.float32)
    w_c = (rng.standard_normal(6 * 8) * 0.4).astype(np.float32)
    graph = [
        ("Input", "input", [], ["data"], "0=%d 1=%d 2=%d" % (W, H, C)),
        ("Convolution", "ca", ["data"], ["a"], "0=8 1=3 4=1 5=1 6=216 9=3 -23310=2,0.0,6.0"),
        ("Convolution", "cb", ["a"], ["b"], "0=8 1=1 5=1 6=64 9=1"),
        # a padded reader: its padding becomes an fp32 Padding with pad_value - m (center=2)
        ("ConvolutionDepthWise", "dw", ["b"], ["e"], "0=8 1=3 4=1 5=1 6=72 7=8 9=1"),
        ("Convolution", "cc", ["e"], ["out"], "0=6 1=1 5=0 6=48"),
    ]
    text = "7767517\n%d %d\n" % (len(graph), len(graph))
    for typ, name, bots, tops, p in graph:
        text += "%-20s %-8s %d %d %s %s\n" % (typ, name, len(bots), len(tops), " ".join(bots + tops), p)
    P, B = os.path.join(d, "c.param"), os.path.join(d, "c.bin")
    open(P, "w").write(text)
    z = struct.pack("<I", 0)
    open(B, "wb").write(z + w_a.tobytes() + b_a.tobytes() + z + w_b.tobytes() + b_b.tobytes() + z + w_d.tobytes()
                        + b_d.tobytes() + z + w_c.tobytes())
    npy = os.path.join(d, "npy")
    os.makedirs(npy)
    xs = []
    for i in range(10):
        x = (rng.standard_normal((C, H, W)) * (1 + i % 3)).astype(np.float32)
        xs.append(os.path.join(npy, "%02d.npy" % i))
        np.save(xs[-1], x)
    t = os.path.join(d, "c.table")
    run([Q, "table", P, B, npy, t, "method=mse", "threads=1"])
    _, bt = read_table(t)
    errs = {}
    for center in (2, 1, 0):
        P8, B8 = os.path.join(d, "c%d.param" % center), os.path.join(d, "c%d.bin" % center)
        rep = os.path.join(d, "c%d.tsv" % center)
        p = run([Q, "int8", P, B, t, P8, B8, "data=" + npy, "center=%d" % center, "report=" + rep, "threads=1"])
        centred = [l for l in p.stderr.splitlines() if "center " in l]
        params = {l.split()[1]: l.split() for l in open(P8).read().splitlines()[2:]}
        if center:
            assert any("center ca -> cb" in l for l in centred) and any("center dw -> cc" in l for l in centred), p.stderr
            m = 0.5 * 127.0 / bt["cb"]
            acts = [kv for kv in params["ca"] if kv.startswith("-23310=")]
            lo, hi = [float(v) for v in acts[0].split("=")[1].split(",")[1:]]
            assert "9=3" in params["ca"] and abs(lo + m) < 1e-3 * m and abs(hi - (6 - m)) < 1e-3 * m, (params["ca"], m)
            rows = [l.split("\t") for l in open(rep).read().splitlines() if not l.startswith("#")]
            assert sorted(r[0] for r in rows) == ["ca", "cb", "cc", "dw"], rows
            for r in rows:
                assert float(r[2]) >= 0.99 and float(r[3]) >= 0.99, r  # offsets taken back in the report
            # `report` finds the centred blobs from the two models' activations
            p = run([Q, "report", P, B, P8, B8, npy])
            rows = [l.split("\t") for l in p.stdout.splitlines() if not l.startswith("#")]
            assert sorted(r[0] for r in rows) == ["ca", "cb", "cc", "dw"], rows
            assert all(float(r[2]) >= 0.99 for r in rows), rows
        if center == 2:
            m2 = 0.5 * 127.0 / bt["dw"]
            assert any("center cb -> dw" in l and "made explicit" in l for l in centred), p.stderr
            acts = [kv for kv in params["cb"] if kv.startswith("-23310=")]
            lo2, hi2 = [float(v) for v in acts[0].split("=")[1].split(",")[1:]]
            # a ReLU's open top becomes the reader's saturation point T - m = m
            assert "9=3" in params["cb"] and abs(lo2 + m2) < 1e-3 * m2 and abs(hi2 - m2) < 1e-3 * m2, (params["cb"], m2)
            pad = params["dw_centre_pad"]
            assert pad[0] == "Padding" and pad[4] == "b" and pad[5] in params["dw"], (pad, params["dw"])
            pv = [float(kv.split("=")[1]) for kv in pad if kv.startswith("5=")][0]
            assert abs(pv + m2) < 1e-5 * m2, (pv, m2)
            assert "4=0" in params["dw"] and not any(kv.startswith("18=") for kv in params["dw"]), params["dw"]
        elif center == 1:
            assert not any("-> dw" in l for l in centred) and "Padding" not in open(P8).read(), p.stderr
            assert "9=1" in params["cb"], params["cb"]
        else:
            assert not centred, centred
            assert "9=1" in params["cb"], params["cb"]
        err = 0.0
        for i, x in enumerate(xs):
            f32 = kiterun(a, P, B, x, os.path.join(d, "o32_%d" % i))
            i8 = kiterun(a, P8, B8, x, os.path.join(d, "o8_%d_%d" % (center, i)))
            err += float(np.sum((f32 - i8) ** 2)) / float(np.sum(f32 ** 2))
            assert cosine(f32, i8) >= 0.99, (center, i, cosine(f32, i8))
        errs[center] = err / len(xs)
        if center:
            try:
                import ncnn
            except ImportError:
                ncnn = None
            if ncnn is not None:
                net = ncnn.Net()
                net.opt.use_int8_inference = True
                net.opt.num_threads = 1
                assert net.load_param(P8) == 0 and net.load_model(B8) == 0
                ex = net.create_extractor()
                x0 = np.load(xs[0])  # kept alive: ncnn.Mat(array) wraps the array's memory without copying
                ex.input("data", ncnn.Mat(x0))
                r, out = ex.extract("out")
                c = cosine(np.array(out), kiterun(a, P8, B8, xs[0], os.path.join(d, "o8n%d" % center)))
                assert r == 0 and c >= 0.999, c
                print("centred int8 model (center=%d) in ncnn vs kite: cosine %.6f" % (center, c))
    print("activation centring: relative squared error %.3g (center=2) %.3g (center=1) vs %.3g (center=0)"
          % (errs[2], errs[1], errs[0]))
    assert errs[2] < errs[0] and errs[1] < errs[0], errs

    # The padded reader's arithmetic is unchanged by centring: fed inputs on both int8
    # grids (y = k m / 127, k even, so that y - m and y quantize without rounding), the
    # depth-wise layer of the center=2 model (reading y - m through its Padding of -m)
    # and of the center=1 model (reading y, zero padding) give the same output, border
    # included (to float rounding). No data= (no bias or shift correction, nearest rounding):
    # the same weights.
    outs = {}
    m2 = 0.5 * 127.0 / bt["dw"]
    k = rng.randint(0, 128, (8, H, W)) * 2
    y = (k * m2 / 127.0).astype(np.float32)
    for center, feed in ((2, y - np.float32(m2)), (1, y)):
        P8, B8 = os.path.join(d, "x%d.param" % center), os.path.join(d, "x%d.bin" % center)
        run([Q, "int8", P, B, t, P8, B8, "center=%d" % center, "requantize=0"])
        # the model from blob b on: ca and cb (int8 Convolutions, requantize=0) dropped from the
        # .param and their buffers from the .bin: tagged int8 weights (4-aligned), bias,
        # one weight scale per output, the input scale
        lines = open(P8).read().splitlines()
        keep = [l for l in lines[2:] if l.split()[1] not in ("input", "ca", "cb")]
        skip = 0
        for l in lines[2:]:
            f = l.split()
            if f[1] in ("ca", "cb"):
                kv = dict(x.split("=", 1) for x in f[6:])
                assert kv["8"] == "2" and kv["5"] == "1", l
                nout, wsize = int(kv["0"]), int(kv["6"])
                skip += 4 + (wsize + 3) // 4 * 4 + 4 * nout + 4 * nout + 4
        Px, Bx = os.path.join(d, "xb%d.param" % center), os.path.join(d, "xb%d.bin" % center)
        with open(Px, "w") as fo:
            fo.write("7767517\n%d %d\n" % (len(keep) + 1, len(keep) + 1))
            fo.write("Input input 0 1 b 0=%d 1=%d 2=8\n" % (W, H))
            fo.write("\n".join(keep) + "\n")
        open(Bx, "wb").write(open(B8, "rb").read()[skip:])
        f = os.path.join(d, "feed%d.npy" % center)
        np.save(f, feed.astype(np.float32))
        o = os.path.join(d, "xo%d" % center)
        # packing=0: ncnn's (and so kite's) packed int8 depth-wise kernel dequantizes with the
        # approximate reciprocal _mm_rcp_ps (relative error up to ~4e-4), the unpacked one exactly
        run([a.kiterun, Px, Bx, "input=b:" + f, "output=e", "save=" + o, "threads=1", "packing=0"])
        outs[center] = np.load(os.path.join(o, "e.npy"))
    diff = float(np.abs(outs[2] - outs[1]).max())
    scale = float(np.abs(outs[1]).max())
    print("centred padded reader vs uncentred, exact int8 inputs: max |diff| %.3g (max |out| %.3g)" % (diff, scale))
    assert outs[2].shape == (8, H, W) and diff <= 1e-5 * scale, (diff, scale)


def check_gptq(a, d, weights, P, B, rng):
    """round=gptq (the default with data=) against a numpy GPTQ of conv0 and against round=nearest,
    on smooth inputs (neighbouring values correlated, as in images: where GPTQ pays)"""
    Q = a.kitequantize
    d = os.path.join(d, "gptq")
    os.makedirs(d)
    npy = os.path.join(d, "npy")
    os.makedirs(npy)
    data = []
    for i in range(12):
        x = np.cumsum(np.cumsum(rng.standard_normal((C, H, W)), 1), 2) * 0.2
        x = (x - x.mean() + rng.standard_normal((C, 1, 1)) * 0.5).astype(np.float32)
        data.append(x)
        np.save(os.path.join(npy, "%02d.npy" % i), x)
    table = os.path.join(d, "g.table")
    run([Q, "table", P, B, npy, table, "method=mse", "threads=1"])
    outs, err = {}, {}
    for r in ("gptq", "nearest"):
        P8, B8 = os.path.join(d, "g_%s.param" % r), os.path.join(d, "g_%s.bin" % r)
        p = run([Q, "int8", P, B, table, P8, B8, "data=" + npy, "round=" + r, "threads=1"])
        assert ("gptq rounding for" in p.stderr) == (r == "gptq"), p.stderr
        raw = open(B8, "rb").read()
        outs[r] = np.frombuffer(raw[4:4 + weights["conv0"][0].size], np.int8).astype(np.int32).reshape(4, 27)
        e = 0.0
        for i in range(len(data)):
            f = os.path.join(npy, "%02d.npy" % i)
            f32 = kiterun(a, P, B, f, os.path.join(d, "o32_%d" % i))
            i8 = kiterun(a, P8, B8, f, os.path.join(d, "o8_%s_%d" % (r, i)))
            e += float(np.sum((f32 - i8) ** 2)) / float(np.sum(f32 ** 2))
        err[r] = e / len(data)
    # numpy reference of conv0 (3x3, pad 1, 3 -> 4): input patch covariance, act order,
    # 1% damping, U with H^-1 = U^T U, weights rounded in order with the error spread
    w = weights["conv0"][0].astype(np.float64).reshape(4, 27)
    s = ref_weight_scales("conv0", weights).astype(np.float32)
    cols = []
    for x in data:
        xp = np.pad(x, ((0, 0), (1, 1), (1, 1)))
        cols.append(np.stack([xp[c, ky:ky + H, kx:kx + W].ravel() for c in range(3) for ky in range(3) for kx in range(3)]))
    X = np.concatenate(cols, 1).astype(np.float64)
    mu = X.mean(1, keepdims=True)
    Hm = X @ X.T / X.shape[1] - mu @ mu.T
    perm = np.argsort(-np.diag(Hm), kind="stable")
    Hp = Hm[perm][:, perm] + 0.01 * np.mean(np.diag(Hm)) * np.eye(27)
    U = np.linalg.cholesky(np.linalg.inv(Hp)).T
    ref = np.zeros((4, 27), np.int32)
    for o in range(4):
        r = w[o, perm].copy()
        for j in range(27):
            v = int(np.clip(np.trunc(np.float32(r[j] * s[o]) + np.copysign(0.5, r[j])), -127, 127))
            ref[o, perm[j]] = v
            r[j + 1:] -= (r[j] - v / float(s[o])) / U[j, j] * U[j, j + 1:]
    got = outs["gptq"]
    nearest = np.clip(np.round(w * s[:, None]), -127, 127).astype(np.int32)
    assert np.array_equal(outs["nearest"], nearest), (outs["nearest"], nearest)
    same = float((got == ref).mean())
    # what GPTQ minimises: conv0's output error from the weights, on the calibration patches
    obj = {k: float(np.trace((q / s[:, None] - w) @ Hm @ (q / s[:, None] - w).T)) for k, q in (("gptq", got), ("nearest", nearest))}
    print("gptq: conv0's int8 weights equal numpy's GPTQ for %.1f%% (%d differ from nearest); conv0's weight error "
          "on the calibration inputs %.3g (gptq) vs %.3g (nearest); net output error %.3g vs %.3g"
          % (same * 100, int((got != nearest).sum()), obj["gptq"], obj["nearest"], err["gptq"], err["nearest"]))
    assert same >= 0.95 and np.abs(got - ref).max() <= 1, (got, ref)
    assert obj["gptq"] < 0.8 * obj["nearest"], obj

    # a layer with more inputs per output than gptq's covariance takes (4608) rounds to nearest
    big = os.path.join(d, "big")
    os.makedirs(os.path.join(big, "npy"))
    n_in = 5000
    open(os.path.join(big, "b.param"), "w").write(
        "7767517\n2 2\nInput input 0 1 data 0=%d\nInnerProduct fc 1 1 data out 0=2 1=0 2=%d\n" % (n_in, 2 * n_in))
    wb = (rng.standard_normal(2 * n_in) * 0.1).astype(np.float32)
    open(os.path.join(big, "b.bin"), "wb").write(struct.pack("<I", 0) + wb.tobytes())
    for i in range(2):
        np.save(os.path.join(big, "npy", "%d.npy" % i), rng.standard_normal(n_in).astype(np.float32))
    bP, bB = os.path.join(big, "b.param"), os.path.join(big, "b.bin")
    run([Q, "table", bP, bB, os.path.join(big, "npy"), os.path.join(big, "b.table"), "threads=1"])
    p = run([Q, "int8", bP, bB, os.path.join(big, "b.table"), os.path.join(big, "b8.param"), os.path.join(big, "b8.bin"),
             "data=" + os.path.join(big, "npy"), "threads=1"])
    assert "5000 inputs per output, more than gptq handles (4608)" in p.stderr and "gptq rounding for 0 layers" in p.stderr, \
        p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kitequantize", required=True)
    ap.add_argument("--kiterun", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    print("seed %d" % SEED)
    rng = np.random.RandomState(SEED)
    d = a.work
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    weights = make_model(d, rng)
    P, B = os.path.join(d, "net.param"), os.path.join(d, "net.bin")
    Q = a.kitequantize

    # calibration tensors
    npy = os.path.join(d, "npy")
    os.makedirs(npy)
    data = []
    for i in range(12):
        x = (rng.standard_normal((C, H, W)) * (1 + i % 3)).astype(np.float32)
        data.append(x)
        np.save(os.path.join(npy, "%02d.npy" % i), x)

    # 1. table on .npy, every method
    tables = {}
    for m in ("kl", "minmax", "percentile", "aciq", "mse"):
        t = os.path.join(d, "t_%s.table" % m)
        p = run([Q, "table", P, B, npy, t, "method=" + m, "threads=1"])
        assert "kitequantize:" in p.stderr, "no progress on stderr"
        wt, bt = read_table(t)
        names = ["conv0", "conv1", "dw2", "conv3", "conv4", "fc"]
        assert sorted(wt) == sorted(names) and sorted(bt) == sorted(names), (sorted(wt), sorted(bt))
        for n in names:
            ref = ref_weight_scales(n, weights)
            assert wt[n].shape == ref.shape and np.allclose(wt[n], ref, rtol=1e-6), (m, n, wt[n], ref)
            assert bt[n] > 0, (m, n)
        tables[m] = bt
    absmax_in = max(float(np.abs(x).max()) for x in data)
    assert abs(tables["minmax"]["conv0"] - 127.0 / absmax_in) <= 1e-5 * 127.0 / absmax_in, (tables["minmax"]["conv0"], absmax_in)
    for m in ("kl", "percentile", "aciq", "mse"):
        # a clipping method never goes past the range: scale >= minmax's
        assert tables[m]["conv0"] >= tables["minmax"]["conv0"] * (1 - 1e-6), (m, tables[m]["conv0"])
    print("table: weight scales and minmax input scale exact; 5 methods ok")

    # 2. table from images: PNG, PPM, a list file
    img = os.path.join(d, "img")
    os.makedirs(img)
    for i in range(3):
        rgb = rng.randint(0, 256, (17 + i, 23, 3)).astype(np.uint8)
        write_png(os.path.join(img, "a%d.png" % i), rgb)
    with open(os.path.join(img, "b.ppm"), "wb") as f:
        f.write(b"P6\n9 7\n255\n" + rng.randint(0, 256, (7, 9, 3)).astype(np.uint8).tobytes())
    with open(os.path.join(d, "list.txt"), "w") as f:
        f.write("img/a0.png\nimg/b.ppm\n# comment\n\n")
    for src in (img, os.path.join(d, "list.txt")):
        t = os.path.join(d, "t_img.table")
        run([Q, "table", P, B, src, t, "shape=[%d,%d,3]" % (W, H), "mean=[127.5,127.5,127.5]",
             "norm=[0.0078125,0.0078125,0.0078125]", "pixel=RGB", "method=minmax"])
        wt, bt = read_table(t)
        # mean/norm applied: inputs within [-0.9961, 0.9961], mostly near the ends after resizing
        assert 127.0 / 0.99610 * 0.99999 <= bt["conv0"] <= 127.0 / 0.6, bt["conv0"]
    print("table: images (png, ppm, list) ok")

    # 3. a table in ncnn2table's own layout, written by hand (%f, weight lines first)
    ncnn_table = os.path.join(d, "ncnn2table.table")
    with open(ncnn_table, "w") as f:
        for n in ("conv0", "conv1", "dw2", "conv3", "conv4", "fc"):
            f.write("%s_param_0 " % n + "".join("%f " % s for s in ref_weight_scales(n, weights)) + "\n")
        for n in ("conv0", "conv1", "dw2", "conv3", "conv4", "fc"):
            f.write("%s %f \n" % (n, tables["kl"][n]))
    P8, B8 = os.path.join(d, "int8.param"), os.path.join(d, "int8.bin")
    # center=1 (the default): conv1 (3x3, padded) reads conv0 directly, so that the pair fuses
    # (center=2 would centre conv0's ReLU output through an fp32 Padding: check_center)
    p = run([Q, "int8", P, B, ncnn_table, P8, B8, "center=1"])
    assert "fuse_requantize conv0 conv1" in p.stderr and "fold_padding pad2 dw2" in p.stderr, p.stderr
    assert "Padding" not in open(P8).read()
    params = {l.split()[1]: l for l in open(P8).read().splitlines()[2:]}
    want = {"conv0": "8=102", "conv1": "8=2", "dw2": "8=1", "conv3": "8=2", "conv4": "8=2", "fc": "8=2"}
    for n, kv in want.items():
        assert (" " + kv + " ") in (params[n] + " "), (n, params[n])
    # the .bin: conv0's weights are the first buffer: int8 tag then round(w * s)
    raw = open(B8, "rb").read()
    assert struct.unpack("<I", raw[:4])[0] == 0x000D4B38, hex(struct.unpack("<I", raw[:4])[0])
    w0 = weights["conv0"][0]
    s0 = np.array([float("%f" % s) for s in ref_weight_scales("conv0", weights)], np.float32)
    q = np.clip(np.round(w0.reshape(4, -1) * s0[:, None]), -127, 127).astype(np.int8).ravel()
    got = np.frombuffer(raw[4:4 + q.size], np.int8)
    assert np.array_equal(got, q), (got[:10], q[:10])
    x0 = os.path.join(d, "x0.npy")
    np.save(x0, data[0])
    f32 = kiterun(a, P, B, x0, os.path.join(d, "o32"))
    i8 = kiterun(a, P8, B8, x0, os.path.join(d, "o8"))
    c = cosine(f32, i8)
    print("int8 from an ncnn2table-format table: output cosine vs fp32 %.5f" % c)
    assert c >= 0.99, c

    # 4. the same model in ncnn
    try:
        import ncnn  # noqa: F401
    except ImportError:
        ncnn = None
    if ncnn is None:
        print("pip ncnn not installed: the ncnn comparison is skipped")
    else:
        net = ncnn.Net()
        net.opt.use_int8_inference = True
        net.opt.num_threads = 1
        assert net.load_param(P8) == 0 and net.load_model(B8) == 0, "ncnn cannot load the int8 model"
        ex = net.create_extractor()
        ex.input("data", ncnn.Mat(data[0]))
        r, out = ex.extract("out")
        assert r == 0
        c = cosine(np.array(out), i8)
        print("ncnn vs kite, int8 model: cosine %.6f" % c)
        assert c >= 0.999, c

    # 5. data= : bias correction, report, keep-fp32=1, fp16-rest
    rep = os.path.join(d, "report.tsv")
    P8b, B8b = os.path.join(d, "k.param"), os.path.join(d, "k.bin")
    p = run([Q, "int8", P, B, os.path.join(d, "t_mse.table"), P8b, B8b, "data=" + npy, "keep-fp32=1",
             "report=" + rep, "threads=1"])
    assert "bias_correct conv0" in p.stderr and "output cosine of the written model" in p.stderr, p.stderr
    assert all(("output_shift " + n) in p.stderr for n in want if n != kept_guess(p.stderr)), p.stderr
    rows = [l.split("\t") for l in open(rep).read().splitlines() if not l.startswith("#")]
    assert sorted(r[0] for r in rows) == sorted(want), rows
    kept = [r[0] for r in rows if r[4] == "1"]
    assert len(kept) == 1 and kept[0] == rows[0][0], rows  # the worst isolated cosine is kept
    kl = [l for l in open(P8b).read().splitlines() if l.split()[1:2] == kept]
    assert " 8=" not in kl[0], kl
    i8b = kiterun(a, P8b, B8b, x0, os.path.join(d, "o8b"))
    assert cosine(f32, i8b) >= 0.99, cosine(f32, i8b)
    P8c, B8c = os.path.join(d, "h.param"), os.path.join(d, "h.bin")
    run([Q, "int8", P, B, os.path.join(d, "t_mse.table"), P8c, B8c, "keep-fp32=" + kept[0], "fp16-rest"])
    P8d, B8d = os.path.join(d, "h32.param"), os.path.join(d, "h32.bin")
    run([Q, "int8", P, B, os.path.join(d, "t_mse.table"), P8d, B8d, "keep-fp32=" + kept[0]])
    # fp16-rest stores the kept fp32 layer's weights as fp16: 2 bytes less per weight
    nkept = weights[kept[0]][0].size
    assert os.path.getsize(B8d) - os.path.getsize(B8c) >= 2 * nkept - 4, (os.path.getsize(B8c), os.path.getsize(B8d))
    i8c = kiterun(a, P8c, B8c, x0, os.path.join(d, "o8c"))
    assert cosine(f32, i8c) >= 0.99
    p = run([Q, "report", P, B, P8, B8, npy, "save=" + d])
    assert "# output cosine" in p.stdout
    assert np.load(os.path.join(d, "fp32.npy")).shape == (12, 5)
    print("int8 with data: bias correction, report, keep-fp32=%s, fp16-rest ok" % kept[0])
    P8e, B8e = os.path.join(d, "ki.param"), os.path.join(d, "ki.bin")
    rep_i = os.path.join(d, "report_i.tsv")
    run([Q, "int8", P, B, os.path.join(d, "t_mse.table"), P8e, B8e, "data=" + npy, "keep-fp32=1", "keep-by=isolated",
         "report=" + rep_i, "threads=1"])
    rows = [l.split("\t") for l in open(rep_i).read().splitlines() if not l.startswith("#")]
    iso = {r[0]: float(r[2]) for r in rows}
    kept = [r[0] for r in rows if r[4] == "1"]
    assert kept == [min(iso, key=iso.get)], (kept, iso)  # keep-by=isolated: the lowest isolated cosine

    check_gptq(a, d, weights, P, B, rng)
    check_center(a, d, rng)

    # 6. bad input
    bad = os.path.join(d, "bad.table")
    with open(bad, "w") as f:
        f.write("conv0_param_0 1.0 2.0\nconv0 10.0\n")
    # a 63-byte top-down BMP declaring 1286 x 131067 pixels (stb_image reports its height
    # as negative): refused by the 64 Mpixel limit, not decoded (tests/fuzz/regressions/image)
    hostile = os.path.join(d, "hostile")
    os.makedirs(hostile)
    with open(os.path.join(HERE, "..", "fuzz", "regressions", "image", "bmp_top_down_negative_height_168mpixel.seed"),
              "rb") as f:
        bmp = f.read()[1:]  # the fuzz target's first byte picks its options
    with open(os.path.join(hostile, "big.bmp"), "wb") as f:
        f.write(bmp)
    # a wrong command line exits 2, a failure at run time 1 (tools/common/args.h)
    for cmd, msg, want in (([Q, "table", P, B, hostile, os.path.join(d, "x.table"), "shape=[%d,%d,3]" % (W, H)],
                            "image too large (1286 x 131067 pixels, at most 64 Mpixel)", 1),
                           ([Q, "table", P, B, npy, os.path.join(d, "x.table"), "method=foo"], "method", 2),
                           ([Q, "int8", P, B, bad, P8, B8], "weight scales", 1),
                           ([Q, "int8", P, B, os.path.join(d, "missing.table"), P8, B8],
                            "cannot open table '%s': No such file or directory" % os.path.join(d, "missing.table"), 1),
                           ([Q, "table", P, B, os.path.join(d, "nothing"), os.path.join(d, "x.table")], "cannot access", 1)):
        p = run(cmd, expect_ok=False)
        assert p.returncode == want and msg in p.stderr, (cmd, p.returncode, p.stderr)
    print("bad input: clear errors")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
