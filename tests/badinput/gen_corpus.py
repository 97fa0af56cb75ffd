#!/usr/bin/env python3
"""Generate a corpus of malformed and hostile model files for test_badinput.

usage: gen_corpus.py --out DIR [--shared DIR] [--type-table FILE]

Writes the files into DIR and a DIR/manifest.txt with one case per line:

    <kind> <expect> <param file> [<weights file>] [requires=T1,T2] [pair=ID]

kind    text      a text .param
        bin       a binary .param.bin
        model     a text .param (loaded first) and a .bin of weights
expect  ok        must load (and run) when the required layer types are built
        fail      loading must fail with an error message
        any       must not crash; result unchecked (bit flips, real graphs)
pair=ID cases with the same ID describe the same graph (text and binary) and
        must load with the same result.

Sources: the ncnn graphs in <shared>/models/ncnn (truncated, mutated, converted
to .param.bin) and small hand-written graphs. Everything is deterministic.
"""

import argparse
import os
import random
import struct

MAGIC = 7767517

# ncnn's layer enumeration for the types used here; --type-table (the
# generated layer_type_names.inc of a kite build) supplies the full table.
FALLBACK_TYPES = {
    "Convolution": 6, "InnerProduct": 15, "Input": 16, "MemoryData": 19,
    "Pooling": 21, "ReLU": 26, "Softmax": 32, "Split": 33,
}


def load_type_table(path):
    table = dict(FALLBACK_TYPES)
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip().strip("{},")
                if not line:
                    continue
                name, _, idx = line.partition(",")
                name = name.strip().strip('"')
                try:
                    table[name] = int(idx.strip().rstrip("}").strip())
                except ValueError:
                    pass
    return table


# ---------------------------------------------------------------------------
# text param helpers

class Graph:
    """A parsed text param: header counts and layer lines as token lists."""

    def __init__(self, text):
        lines = [l for l in text.splitlines() if l.strip()]
        self.magic = lines[0].strip()
        self.layer_count, self.blob_count = (int(x) for x in lines[1].split())
        # the declared layer count, as ncnn and kite read it (later lines are
        # ignored: shared nanodet_m.param has one more than its header says)
        self.layers = [l.split() for l in lines[2:2 + self.layer_count]]

    def text(self, layer_count=None, blob_count=None, magic=None):
        out = [str(self.magic if magic is None else magic),
               "%s %s" % (self.layer_count if layer_count is None else layer_count,
                          self.blob_count if blob_count is None else blob_count)]
        out += [" ".join(t) for t in self.layers]
        return "\n".join(out) + "\n"

    def copy(self):
        g = Graph.__new__(Graph)
        g.magic, g.layer_count, g.blob_count = self.magic, self.layer_count, self.blob_count
        g.layers = [list(t) for t in self.layers]
        return g

    def tops(self, i):
        t = self.layers[i]
        nin, nout = int(t[2]), int(t[3])
        return t[4 + nin:4 + nin + nout]

    def bottoms(self, i):
        t = self.layers[i]
        return t[4:4 + int(t[2])]


def is_float_text(s):
    return any(c in s for c in ".eE") or "nan" in s or "inf" in s


def number_bits(s):
    """int32 bits of a number as the text loader reads it; None if not a number."""
    try:
        if is_float_text(s):
            return struct.unpack("<i", struct.pack("<f", float(s)))[0]
        v = int(s, 10)
        if -2**31 <= v < 2**31:
            return v
    except ValueError:
        pass
    return None


def to_binary_layers(g, types):
    """Convert a Graph to a list of int32 lists, one per layer (the header is
    separate). Returns None if something cannot be expressed."""
    blob_index = {}
    layers = []
    for i, t in enumerate(g.layers):
        if t[0] not in types:
            return None
        nin, nout = int(t[2]), int(t[3])
        words = [types[t[0]], nin, nout]
        for b in g.bottoms(i):
            if b not in blob_index:
                return None
            words.append(blob_index[b])
        for b in g.tops(i):
            blob_index.setdefault(b, len(blob_index))
            words.append(blob_index[b])
        for kv in t[4 + nin + nout:]:
            key, _, val = kv.partition("=")
            k = int(key)
            if k <= -23300:
                items = val.split(",")
                vals = [number_bits(x) for x in items[1:]]
                if None in vals or int(items[0]) != len(vals):
                    return None
                words += [k, len(vals)] + vals
            elif val.startswith('"') or number_bits(val) is None and "," not in val:
                s = val.strip('"').encode()
                padded = s + b"\0" * ((4 - len(s) % 4) % 4)
                words += [-23400 - k, len(s)] + list(struct.unpack("<%di" % (len(padded) // 4), padded))
            elif "," in val:
                vals = [number_bits(x) for x in val.split(",")]
                if None in vals:
                    return None
                words += [-23300 - k, len(vals)] + vals
            else:
                words += [k, number_bits(val)]
        words.append(-233)
        layers.append(words)
    return layers


def pack_words(words):
    return struct.pack("<%di" % len(words), *words)


def binary_param(header, layers):
    data = pack_words(header)
    for words in layers:
        data += pack_words(words)
    return data


# ---------------------------------------------------------------------------

class Corpus:
    def __init__(self, out):
        self.out = out
        self.lines = []
        self.names = set()
        os.makedirs(out, exist_ok=True)

    def _write(self, name, data):
        assert name not in self.names, name
        self.names.add(name)
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        with open(os.path.join(self.out, name), "wb") as f:
            f.write(data)
        return name

    def add(self, kind, expect, name, data, weights=None, requires=(), pair=None):
        files = [self._write(name, data)]
        if weights is not None:
            files.append(self._write(name + ".weights", weights))
        line = "%s %s %s" % (kind, expect, " ".join(files))
        if requires:
            line += " requires=" + ",".join(sorted(set(requires)))
        if pair:
            line += " pair=" + pair
        self.lines.append(line)

    def finish(self):
        with open(os.path.join(self.out, "manifest.txt"), "w") as f:
            f.write("\n".join(self.lines) + "\n")


def text_mutations(g):
    """(name, text) pairs of graphs derived from g that must fail to load."""
    n = len(g.layers)
    blobs = sum(len(g.tops(i)) for i in range(n))
    out = [
        ("magic_off_by_one", g.text(magic=MAGIC + 1)),
        ("magic_text", g.text(magic="ncnn")),
        ("magic_negative", g.text(magic=-MAGIC)),
        ("layers_plus_one", g.text(layer_count=n + 1)),
        # a header with fewer layers than lines is valid: ncnn (and kite) ignore the rest
        ("layers_zero", g.text(layer_count=0)),
        ("layers_negative", g.text(layer_count=-1)),
        ("layers_int_max", g.text(layer_count=2**31 - 1)),
        ("layers_overflow", g.text(layer_count=99999999999)),
        ("layers_not_a_number", g.text(layer_count="many")),
        ("blobs_too_few", g.text(blob_count=blobs - 1)),
        ("blobs_zero", g.text(blob_count=0)),
        ("blobs_negative", g.text(blob_count=-7)),
        ("blobs_overflow", g.text(blob_count=4294967296)),
        ("counts_one_number", g.text().replace("\n%d %d\n" % (g.layer_count, g.blob_count), "\n%d\n" % g.layer_count, 1)),
        ("counts_three_numbers", g.text().replace("\n%d %d\n" % (g.layer_count, g.blob_count), "\n%d %d 1\n" % (g.layer_count, g.blob_count), 1)),
        ("missing_counts", g.text().replace("\n%d %d\n" % (g.layer_count, g.blob_count), "\n", 1)),
        ("empty", ""),
        ("only_magic", "%d\n" % MAGIC),
        ("whitespace_only", " \n\t\n  \n"),
        ("nul_after_header", g.text().replace("\n", "\n\0", 2)),
    ]
    k = min(2, n - 1)  # a layer after Input
    j = max(0, k - 1)

    def mut(name, f):
        h = g.copy()
        f(h)
        out.append((name, h.text()))

    mut("unknown_layer_type", lambda h: h.layers[k].__setitem__(0, "NoSuchLayerType"))
    mut("duplicate_layer_name", lambda h: h.layers[k].__setitem__(1, h.layers[j][1]))
    def dup_blob(h):
        t = h.layers[k]
        t[4 + int(t[2])] = g.tops(0)[0]
    mut("duplicate_blob", dup_blob)
    def missing_blob(h):
        t = h.layers[k]
        if int(t[2]) > 0:
            t[4] = "no_such_blob"
        else:
            h.layers.append(["ReLU", "dangling", "1", "1", "no_such_blob", "dangling_out"])
            h.layer_count += 1
            h.blob_count += 1
    mut("missing_blob", missing_blob)
    def consumed_before_produced(h):
        # the last layer's input refers to its own output
        t = h.layers[-1]
        if int(t[2]) > 0:
            t[4] = h.tops(len(h.layers) - 1)[0]
    mut("blob_used_before_produced", consumed_before_produced)
    for nin in ("99", "100000", "-1", "2147483647", "x"):
        mut("n_in_%s" % nin.replace("-", "neg"), lambda h, nin=nin: h.layers[k].__setitem__(2, nin))
    for nout in ("99", "-3", "100000"):
        mut("n_out_%s" % nout.replace("-", "neg"), lambda h, nout=nout: h.layers[k].__setitem__(3, nout))
    mut("short_layer_line", lambda h: h.layers.__setitem__(k, h.layers[k][:3]))
    for tag, kv in [("id_32", "32=1"), ("id_negative", "-5=1"), ("id_huge", "99999999999=1"),
                    ("id_float", "1.5=1"), ("id_not_a_number", "x=1"), ("no_equals", "17"),
                    ("empty_key", "=4"), ("array_huge", "-23310=2147483647,1,2"),
                    ("array_negative", "-23310=-1"), ("array_count_mismatch", "-23310=3,1.0,2.0"),
                    ("array_not_a_number", "-23310=2,1.0,abc"), ("array_id_out_of_range", "-23345=1,1"),
                    ("array_count_float", "-23310=1.5,1"), ("duplicate_id", "0=1 0=2"),
                    ("list_not_a_number", "10=1,x,3")]:
        mut("param_" + tag, lambda h, kv=kv: h.layers[k].extend(kv.split()))
    return out


def hand_graphs():
    # Input -> Split -> two ReLUs: only core layer types, so it always loads
    g = Graph("7767517\n4 5\n"
              "Input in0 0 1 in0 0=8 1=6 2=3\n"
              "Split sp 1 2 in0 a b\n"
              "ReLU r1 1 1 a c 0=1.000000e-01\n"
              "ReLU r2 1 1 b d\n")
    return g


def f32(values):
    return struct.pack("<%df" % len(values), *values)


def f16(values):
    return struct.pack("<%de" % len(values), *values)


def model_cases(c):
    rng = random.Random(1234)
    conv = ("7767517\n2 2\nInput in0 0 1 in0 0=5 1=5 2=3\n"
            "Convolution conv 1 1 in0 out0 0=2 1=3 5=1 6=54\n")
    w = [rng.uniform(-1, 1) for _ in range(54)]
    b = [rng.uniform(-1, 1) for _ in range(2)]
    good = struct.pack("<I", 0) + f32(w) + f32(b)
    good16 = struct.pack("<I", 0x01306B47) + f16(w) + f32(b)
    req = ["Input", "Convolution"]
    c.add("model", "ok", "conv_ok.param", conv, good, req)
    c.add("model", "ok", "conv_fp16_ok.param", conv, good16, req)
    # every strict prefix of the weights is too short
    for n in range(len(good)):
        c.add("model", "fail", "conv_trunc_%03d.param" % n, conv, good[:n], req)
    for n in range(0, len(good16), 3):
        c.add("model", "fail", "conv_fp16_trunc_%03d.param" % n, conv, good16[:n], req)
    # an unknown tag is the legacy 256-entry lookup table: far too short here
    c.add("model", "fail", "conv_wrong_tag.param", conv, struct.pack("<I", 0x12345678) + good[4:], req)
    c.add("model", "fail", "conv_table_tag_short.param", conv, struct.pack("<I", 0x00000001) + f32([0.0] * 100), req)
    c.add("model", "fail", "conv_int8_tag_short.param", conv, struct.pack("<I", 0x000D4B38) + b"\1" * 20, req)
    # sizes in the param that the .bin cannot hold
    for tag, line in [("weight_size_huge", "0=2 1=3 5=1 6=2147483647"),
                      ("weight_size_big", "0=2 1=3 5=1 6=999999999"),
                      ("weight_size_negative", "0=2 1=3 5=1 6=-54"),
                      ("weight_size_zero", "0=2 1=3 5=1 6=0"),
                      ("num_output_huge", "0=2147483647 1=3 5=1 6=54"),
                      ("num_output_negative", "0=-2 1=3 5=1 6=54"),
                      ("kernel_huge", "0=2 1=65536 5=1 6=54"),
                      ("kernel_negative", "0=2 1=-3 5=1 6=54")]:
        p = "7767517\n2 2\nInput in0 0 1 in0 0=5 1=5 2=3\nConvolution conv 1 1 in0 out0 %s\n" % line
        c.add("model", "fail", "conv_%s.param" % tag, p, good, req)

    fc = "7767517\n2 2\nInput in0 0 1 in0 0=4\nInnerProduct fc 1 1 in0 out0 0=3 1=1 2=12\n"
    fcw = struct.pack("<I", 0) + f32([rng.uniform(-1, 1) for _ in range(12)]) + f32([0.5, -0.5, 0.25])
    req = ["Input", "InnerProduct"]
    c.add("model", "ok", "fc_ok.param", fc, fcw, req)
    for n in range(0, len(fcw), 4):
        c.add("model", "fail", "fc_trunc_%03d.param" % n, fc, fcw[:n], req)
    for tag, line in [("size_huge", "0=3 1=1 2=2147483647"), ("size_negative", "0=3 1=1 2=-12"),
                      ("outputs_huge", "0=2147483647 1=1 2=12")]:
        c.add("model", "fail", "fc_%s.param" % tag,
              "7767517\n2 2\nInput in0 0 1 in0 0=4\nInnerProduct fc 1 1 in0 out0 %s\n" % line, fcw, req)

    md = "7767517\n1 1\nMemoryData md 0 1 out0 0=4 1=2\n"
    mdw = f32([float(i) for i in range(8)])
    req = ["MemoryData"]
    c.add("model", "ok", "memorydata_ok.param", md, mdw, req)
    for n in range(0, len(mdw), 4):
        c.add("model", "fail", "memorydata_trunc_%03d.param" % n, md, mdw[:n], req)
    for tag, line in [("overflow", "0=100000 1=100000 2=100000"), ("huge", "0=2147483647"),
                      ("negative", "0=-4 1=2")]:
        c.add("model", "fail", "memorydata_%s.param" % tag, "7767517\n1 1\nMemoryData md 0 1 out0 %s\n" % line,
              mdw, req)


def binary_cases(c, tag, g, types, pair, expect_ok, requires):
    layers = to_binary_layers(g, types)
    if layers is None:
        return
    header = [MAGIC, len(layers), g.blob_count]
    good = binary_param(header, layers)
    c.add("bin", "ok" if expect_ok else "any", "%s.param.bin" % tag, good, requires=requires if expect_ok else (),
          pair=pair)
    # every strict prefix fails; small files at every 4 bytes, big ones sampled
    step = 4 if len(good) < 2048 else max(4, (len(good) // 120) & ~3)
    cuts = sorted(set(list(range(0, len(good), step)) + [len(good) - 1, len(good) - 4, 5, 13]))
    for n in cuts:
        c.add("bin", "fail", "%s_trunc_%06d.param.bin" % (tag, n), good[:n])
    blobs = g.blob_count
    k = min(2, len(layers) - 1)

    def variant(name, hdr=None, f=None):
        ls = [list(w) for w in layers]
        if f:
            f(ls)
        c.add("bin", "fail", "%s_%s.param.bin" % (tag, name), binary_param(hdr or header, ls))

    variant("magic", [MAGIC + 1, len(layers), blobs])
    variant("magic_text", [0x37363737, len(layers), blobs])
    variant("layers_zero", [MAGIC, 0, blobs])
    variant("layers_negative", [MAGIC, -1, blobs])
    variant("layers_huge", [MAGIC, 2**31 - 1, blobs])
    variant("layers_plus_one", [MAGIC, len(layers) + 1, blobs])
    variant("blobs_zero", [MAGIC, len(layers), 0])
    variant("blobs_negative", [MAGIC, len(layers), -1])
    variant("blobs_huge", [MAGIC, len(layers), 2**31 - 1])
    variant("blobs_too_few", [MAGIC, len(layers), blobs - 1])
    variant("type_unknown", f=lambda ls: ls[k].__setitem__(0, 9999))
    variant("type_negative", f=lambda ls: ls[k].__setitem__(0, -5))
    variant("type_custom_unregistered", f=lambda ls: ls[k].__setitem__(0, 0x100 | 7))
    variant("n_in_negative", f=lambda ls: ls[k].__setitem__(1, -1))
    variant("n_in_huge", f=lambda ls: ls[k].__setitem__(1, 2**31 - 1))
    variant("n_out_huge", f=lambda ls: ls[k].__setitem__(2, 100000))

    def blob_ref(value):
        def f(ls):
            if ls[k][1] > 0:
                ls[k][3] = value
            else:
                ls[k][3 + ls[k][1]] = value
        return f
    variant("blob_index_out_of_range", f=blob_ref(blobs))
    variant("blob_index_negative", f=blob_ref(-1))
    variant("blob_index_int_max", f=blob_ref(2**31 - 1))

    def dup_top(ls):
        nin = ls[k][1]
        ls[k][3 + nin] = ls[0][3 + ls[0][1]]
    variant("duplicate_blob", f=dup_top)

    def params(extra):
        def f(ls):
            ls[k] = ls[k][:-1] + extra + [-233]
        return f
    variant("param_id_32", f=params([32, 1]))
    variant("param_id_huge", f=params([1000000, 1]))
    variant("array_id_out_of_range", f=params([-23300 - 40, 1, 0]))
    variant("array_len_huge", f=params([-23310, 2**31 - 1, 0, 0]))
    variant("array_len_negative", f=params([-23310, -4]))
    variant("array_truncated", f=lambda ls: ls.__setitem__(-1, ls[-1][:-1] + [-23310, 1000]))
    variant("string_len_huge", f=params([-23406, 2**31 - 1, 0]))
    variant("string_len_negative", f=params([-23406, -1]))
    variant("string_id_out_of_range", f=params([-23400 - 99, 4, 0]))
    variant("no_terminator", f=lambda ls: ls.__setitem__(-1, ls[-1][:-1]))


def shared_cases(c, shared, types):
    d = os.path.join(shared, "models", "ncnn")
    if not os.path.isdir(d):
        return 0
    count = 0
    for fn in sorted(os.listdir(d)):
        if not fn.endswith(".param"):
            continue
        name = fn[:-len(".param")].replace("-", "_")
        with open(os.path.join(d, fn)) as f:
            text = f.read()
        g = Graph(text)
        count += 1
        c.add("text", "any", "real_%s.param" % name, text, pair="real_" + name)
        # cut anywhere before the last layer line: a layer is missing
        last = text.rstrip("\n").rfind("\n") + 1
        step = max(7, last // 150)
        for n in sorted(set(list(range(0, min(last, 96), 3)) + list(range(0, last, step)))):
            c.add("text", "fail", "real_%s_trunc_%06d.param" % (name, n), text[:n])
        for mname, mtext in text_mutations(g):
            c.add("text", "fail", "real_%s_%s.param" % (name, mname), mtext)
        binary_cases(c, "real_" + name, g, types, "real_" + name, False, ())
    return count


def noise_cases(c, g, types):
    rng = random.Random(99)
    for i in range(16):
        n = rng.choice([1, 3, 4, 12, 64, 300])
        data = bytes(rng.randrange(256) for _ in range(n))
        c.add("text", "any", "noise_%02d.param" % i, data)
        c.add("bin", "any", "noise_%02d.param.bin" % i, struct.pack("<i", MAGIC) + data)
    text = g.text().encode()
    for i in range(40):
        b = bytearray(text)
        for _ in range(rng.randrange(1, 4)):
            b[rng.randrange(len(b))] = rng.choice(b"0123456789 =,-.\n\tx\0\xff")
        c.add("text", "any", "flip_%02d.param" % i, bytes(b))
    layers = to_binary_layers(g, types)
    good = binary_param([MAGIC, len(layers), g.blob_count], layers)
    for i in range(60):
        b = bytearray(good)
        for _ in range(rng.randrange(1, 3)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        c.add("bin", "any", "flip_%02d.param.bin" % i, bytes(b))


def regression_cases(c):
    """Inputs that crashed kite once (found by the fuzzers, tests/fuzz/README.md)."""
    head = "7767517\n%d %d\nInput in0 0 1 in0 0=4 1=4 2=3\n"
    for name, expect, text in [
        ("same_top_twice", "fail", head % (2, 3) + "Split sp 1 2 in0 a a\n"),
        ("top_after_unknown_layer", "fail", head % (3, 3) + "NoSuchLayer x 1 1 in0 a\nReLU r 1 1 in0 a\n"),
        ("int_param_inf", "any", "7767517\n1 1\nInput in0 0 1 in0 0=1e39\n"),
        ("int_param_huge_float", "any", "7767517\n1 1\nInput in0 0 1 in0 0=-3.0e12 1=2\n"),
        ("conv_size_product_overflow", "fail",
         head % (2, 2) + "Convolution conv 1 1 in0 out 0=2147483647 1=2147483647 11=2147483647 6=54\n"),
        ("yolo_num_box_overflow", "fail", head % (2, 2) + "YoloDetectionOutput det 1 1 in0 out 1=1081509120\n"),
        ("yolov3_mask_huge_float", "fail",
         head % (2, 2) + "Yolov3DetectionOutput det 1 1 in0 out 1=1 -23304=2,1.0,1.0 -23305=1,5.0e12\n"),
    ]:
        c.add("text", expect, "regress_%s.param" % name, text)
    # binary parameter key INT_MIN (negating it overflows)
    c.add("bin", "fail", "regress_bin_key_int_min.param.bin",
          pack_words([MAGIC, 1, 1, 16, 0, 1, 0, -2**31, 0, -233]))
    # int8-tagged weights for a float convolution (no int8 scales)
    conv = "7767517\n2 2\nInput in0 0 1 in0 0=5 1=5 2=3\nConvolution conv 1 1 in0 out0 0=2 1=3 5=1 6=54\n"
    c.add("model", "any", "regress_conv_int8_weights_no_scales.param", conv,
          struct.pack("<I", 0x000D4B38) + bytes(range(54)) + b"\0\0" + f32([0.5, -0.5]), ["Input", "Convolution"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--shared", default=os.environ.get("KITE_SHARED_DIR", ""))
    ap.add_argument("--type-table", default="")
    args = ap.parse_args()
    types = load_type_table(args.type_table)
    c = Corpus(args.out)

    g = hand_graphs()
    req = ["Input", "Split", "ReLU"]
    c.add("text", "ok", "small_ok.param", g.text(), requires=req, pair="small")
    crlf = g.text().replace("\n", "\r\n")
    c.add("text", "ok", "small_crlf_ok.param", crlf, requires=req)
    last = g.text().rstrip("\n").rfind("\n") + 1
    for n in range(last):
        c.add("text", "fail", "small_trunc_%03d.param" % n, g.text()[:n])
    for mname, mtext in text_mutations(g):
        c.add("text", "fail", "small_%s.param" % mname, mtext)
    # the binary loader given a text file and the text loader a binary one
    layers = to_binary_layers(g, types)
    c.add("bin", "fail", "small_text_as_bin.param.bin", g.text())
    c.add("text", "fail", "small_bin_as_text.param", binary_param([MAGIC, len(layers), g.blob_count], layers))
    binary_cases(c, "small", g, types, "small", True, req)
    # a layer that takes one blob given two
    c.add("text", "fail", "small_relu_two_inputs.param",
          "7767517\n3 4\nInput in0 0 1 in0 0=4\nSplit sp 1 2 in0 a b\nReLU r 2 1 a b c\n")
    c.add("text", "fail", "small_input_negative_shape.param", "7767517\n1 1\nInput in0 0 1 in0 0=-4 1=2\n")

    model_cases(c)
    regression_cases(c)
    noise_cases(c, g, types)
    n = shared_cases(c, args.shared, types)
    c.finish()
    print("badinput corpus: %d cases (%d shared graphs) in %s" % (len(c.lines), n, args.out))


if __name__ == "__main__":
    main()
