#!/usr/bin/env python3
"""kitedeploy: deploy models described by a YAML deployment file (docs/kitedeploy.md).

  kitedeploy {convert|build|run|validate|benchmark} --config FILE.yml [--model NAME]
             [--runtime cpu|vulkan|opencl] [--target-abi host|arm64-v8a|armeabi-v7a]
             [--output DIR] [--build-dir KITE_BUILD_DIR]

convert   every model through its converter and kiteoptimize (fp16 weights for
          data_type fp16_fp32), optionally obfuscated; writes OUT/models/<m>.param,
          .bin, .param.bin (binary graph, names gone) and <m>.id.h (blob/layer ids)
build     (after convert) C++ sources with each graph (and with embed_model_data
          the weights) as constant arrays, one header with create_net(), compiled
          into lib<library_name>.a (.so with linkshared) per target ABI, plus a
          host runner program OUT/<abi>/<library_name>_run
run       each model on its inputs (validation_inputs_data or random values in
          input_ranges); with a host build, through the generated library
validate  the source framework and kite on the same inputs; one line per output
          `validate <model> <output> <runtime> cosine=<c> max_rel=<r> PASS|FAIL`
benchmark per-layer times (benchkite profile=1) and the whole-model time

Every error names the model and the key (one line, exit 1; a wrong command
line exits 2; validate exits 1 when an output FAILs); outputs are written to a
temporary directory and moved into place only when the whole step succeeded.
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

import numpy as np

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.stderr.write("kitedeploy: error: PyYAML is not installed (pip install PyYAML)\n")
    sys.exit(1)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


class DeployError(Exception):
    """one line: a key or a value holding a line break shows it as \\n"""

    def __init__(self, msg):
        super().__init__(str(msg).replace("\r", "\\r").replace("\n", "\\n"))


# ------------------------------------------------------------------ config

TOP_KEYS = {"library_name", "target_abis", "embed_model_data", "build_type", "linkshared", "models",
            "target_socs"}
MODEL_KEYS = {"platform", "model_file_path", "model_sha256_checksum", "weight_file_path",
              "weight_sha256_checksum", "subgraphs", "runtime", "data_type", "limit_opencl_kernel_time",
              "obfuscate", "winograd", "nnlib_graph_mode"}
SUBGRAPH_KEYS = {"input_tensors", "input_shapes", "output_tensors", "output_shapes", "input_ranges",
                 "validation_inputs_data"}
PLATFORMS = ("caffe", "tensorflow", "onnx", "ncnn")
RUNTIMES = ("cpu", "vulkan", "opencl", "cpu+gpu")
ABIS = ("host", "arm64-v8a", "armeabi-v7a")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:")


CONTAINERS = (list, tuple, dict, set, frozenset)


def show(v, limit=400):
    """repr(v) for messages; a list or mapping is cut after `limit` characters: with
    YAML aliases a short file can hold a list whose repr is gigabytes (each alias a
    reference to an earlier node, nested: 9 levels of 9 make 9^9 items) or a cycle"""
    if not isinstance(v, CONTAINERS):
        return repr(v)
    out = []
    size = 0
    stack = [v]  # items, and the text between them, still to write (last first)
    while stack and size <= limit:
        x = stack.pop()
        if isinstance(x, _Text):
            out.append(x.s)
            size += len(x.s)
        elif isinstance(x, (list, tuple, set, frozenset)):
            if isinstance(x, (set, frozenset)) and not x:
                out.append(repr(x))
                size += len(out[-1])
                continue
            o, c = {list: "[]", tuple: "()"}.get(type(x), "{}")
            items = list(x)
            parts = [_Text(o)]
            for i, e in enumerate(items):
                if i:
                    parts.append(_Text(", "))
                parts.append(e)
            parts.append(_Text("," + c if isinstance(x, tuple) and len(items) == 1 else c))
            stack.extend(reversed(parts))
        elif isinstance(x, dict):
            parts = [_Text("{")]
            for i, (k, e) in enumerate(x.items()):
                parts += [_Text(", ")] if i else []
                parts += [k, _Text(": "), e]
            parts.append(_Text("}"))
            stack.extend(reversed(parts))
        else:
            out.append(repr(x))
            size += len(out[-1])
    joined = "".join(out)
    return joined if not stack and len(joined) <= limit else joined[:limit] + "..."


class _Text:
    __slots__ = ("s",)

    def __init__(self, s):
        self.s = s


def text(v):
    """str(v), bounded for a list or mapping (show)"""
    return show(v) if isinstance(v, CONTAINERS) else str(v)


def as_list(v):
    if v is None:
        return []
    if isinstance(v, (list, tuple)):
        return list(v)
    return [s.strip() for s in text(v).split(",") if s.strip()]


def parse_shapes(v, what):
    """'1,224,224,3' or '1,2:3,4' or ['1,2', [3, 4]] -> [[1,224,224,3]]"""
    if v is None:
        return []
    items = v if isinstance(v, list) and (not v or not isinstance(v[0], int)) else [v]
    if isinstance(v, str):
        items = v.split(":")
    shapes = []
    for it in items:
        dims = it if isinstance(it, list) else text(it).split(",")
        try:
            s = [int(text(d).strip()) for d in dims]
        except ValueError:
            raise DeployError("%s: bad shape %s (comma-separated positive integers)" % (what, show(it)))
        if not s or any(d <= 0 for d in s):
            raise DeployError("%s: bad shape %s (comma-separated positive integers)" % (what, show(it)))
        shapes.append(s)
    return shapes


def flag(v, what):
    if v in (0, 1, True, False, "0", "1"):
        return int(v) if not isinstance(v, bool) else int(v)
    raise DeployError("%s: expected 0 or 1, got %s" % (what, show(v)))


def local_path(p, what, base):
    """local paths and file:// URLs; http(s) is refused (no network)"""
    p = text(p)
    try:
        u = urllib.parse.urlparse(p)
    except ValueError as e:  # a bracketed host that is no IPv6 address: "http://[::1", "//[x"
        if URL_SCHEME.match(p):
            raise DeployError("%s: '%s' is not a valid URL (%s)" % (what, p, e))
        u = urllib.parse.urlparse("")  # no scheme: a local path ("//[x" is one)
    if u.scheme in ("http", "https", "ftp"):
        raise DeployError("%s: '%s' is a remote path; kitedeploy has no network access: download it and give "
                          "a local path or a file:// URL" % (what, p))
    if u.scheme == "file":
        p = urllib.parse.unquote(u.path)
    elif u.scheme and len(u.scheme) > 1:
        raise DeployError("%s: unsupported URL scheme '%s' (local paths and file:// URLs only)" % (what, u.scheme))
    if not os.path.isabs(p):
        p = os.path.join(base, p)
    if not os.path.isfile(p):
        raise DeployError("%s: file '%s' does not exist" % (what, p))
    return p


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class _CheckedConstructor:
    """PyYAML's constructors raise ValueError, KeyError or AttributeError on some
    scalars (a date 2026-02-30, an hour 25, an int of over 4300 digits, !!int abc,
    !!bool maybe, !!timestamp x): reported as YAML errors with their line"""

    def construct_object(self, node, deep=False):
        try:
            return super().construct_object(node, deep)
        except (ValueError, KeyError, AttributeError, TypeError, OverflowError) as e:
            raise yaml.constructor.ConstructorError(
                None, None, "cannot read %s as %s (%s: %s)" % (
                    show(node.value if len(node.value) <= 80 else node.value[:80] + "...")
                    if isinstance(node.value, str) else "this node", node.tag, type(e).__name__, str(e)[:200]),
                node.start_mark)


class PySafeLoader(_CheckedConstructor, yaml.SafeLoader):
    """PyYAML's pure-Python safe loader"""


# libyaml's parser (PyYAML built with it, as its wheels are) reads a file several
# times faster; without it, or where it is not asked for (YAML_C = None), the
# pure-Python loader
CSafeLoader = type("CSafeLoader", (_CheckedConstructor, yaml.CSafeLoader), {}) if \
    getattr(yaml, "CSafeLoader", None) is not None else None
YAML_C = CSafeLoader
# a collection starts with one of these bytes ([ { - ? :), so their count bounds the
# nesting depth. libyaml's composer recurses on the C stack without a limit (a
# 40,000-deep nest crashes the interpreter with an 8 MB stack) and goes deeper than
# the pure-Python loader, which stops near 500 levels with a RecursionError. So the
# pure-Python loader reads a file with over C_YAML_MAX_INDICATORS of these bytes, a
# file whose parsed lists and mappings might nest deeper than C_YAML_NEST, and a
# file that libyaml refuses (its messages differ from PyYAML's): whether libyaml is
# there or not, the same files load, with the same values and the same errors
C_YAML_NEST = 300
C_YAML_MAX_INDICATORS = 2000
# libyaml reads some files that PyYAML's scanner refuses (found by fuzz_deploy.py
# --differential): a tab inside a plain scalar or before a value ("cp\tu",
# "key:\t 1"), a '?' inside a plain scalar of a flow collection ("[arm64?-v8a]"),
# the tag '!' ("[!, 1]": libyaml reads a tag '!', PyYAML '!,'; "- !" is '' in
# libyaml, None in PyYAML). A file holding one of these bytes goes to the
# pure-Python loader
C_YAML_DIFFERENT = (b"\t", b"?", b"!")


def _nest_within(doc, limit, budget=20000):
    """True if no list or mapping in doc is more than limit levels deep, every path
    counted (YAML aliases make a graph, maybe a cycle: over budget collections
    visited is False too)"""
    stack = [(doc, 1)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, (list, dict)):
            budget -= 1
            if d > limit or budget < 0:
                return False
            stack.extend((e, d + 1) for e in (x.values() if isinstance(x, dict) else x))
    return True


def read_yaml(data):
    """data (bytes) parsed as YAML: libyaml where it gives what the pure-Python
    loader would, else the pure-Python loader (see C_YAML_NEST)"""
    if YAML_C is not None and not any(b in data for b in C_YAML_DIFFERENT):
        indicators = data.count(b"[") + data.count(b"{") + data.count(b"-") + data.count(b"?") + data.count(b":")
        if indicators <= C_YAML_MAX_INDICATORS:
            try:
                doc = yaml.load(data, Loader=YAML_C)
            except yaml.YAMLError:
                doc = None
            else:
                if indicators <= C_YAML_NEST or _nest_within(doc, C_YAML_NEST):
                    return doc
    return yaml.load(data, Loader=PySafeLoader)


def load_config(path):
    try:
        # bytes: PyYAML detects the encoding and reports bad UTF-8 as a YAMLError
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise DeployError("deployment file: cannot open '%s': %s" % (path, e.strerror))
    return load_config_data(data, path)


def load_config_data(data, path):
    """the deployment file path holds data (bytes): its configuration, or a DeployError"""
    try:
        cfg = read_yaml(data)
    except yaml.YAMLError as e:
        # PyYAML's message spans lines (problem, then where): joined into one
        raise DeployError("deployment file '%s' is not valid YAML: %s" %
                          (path, "; ".join(l.strip() for l in str(e).splitlines() if l.strip())))
    except RecursionError:
        raise DeployError("deployment file '%s': nested too deeply" % path)
    if not isinstance(cfg, dict):
        raise DeployError("deployment file '%s': expected a mapping at the top" % path)
    base = os.path.dirname(os.path.abspath(path))
    for k in cfg:
        if k not in TOP_KEYS:
            raise DeployError("deployment file: unknown key '%s' (known: %s)" % (k, ", ".join(sorted(TOP_KEYS))))
    lib = cfg.get("library_name")
    if not lib or not IDENT.match(text(lib)):
        raise DeployError("deployment file: library_name %s must be a C++ identifier" % show(lib))
    c = {"library_name": str(lib)}
    c["target_abis"] = as_list(cfg.get("target_abis", ["host"]))
    for a in c["target_abis"]:
        if a not in ABIS:
            raise DeployError("deployment file: target_abis: unknown ABI '%s' (%s)" % (text(a), ", ".join(ABIS)))
    c["embed_model_data"] = flag(cfg.get("embed_model_data", 0), "embed_model_data")
    bt = cfg.get("build_type", "code")
    if bt == "proto":
        bt = "file"  # MACE's name for graph + weights as files
    if bt not in ("code", "file"):
        raise DeployError("deployment file: build_type must be 'code' or 'file', got %s" % show(bt))
    c["build_type"] = bt
    c["linkshared"] = flag(cfg.get("linkshared", 0), "linkshared")
    models = cfg.get("models")
    if not isinstance(models, dict) or not models:
        raise DeployError("deployment file: 'models' must map model names to their settings")
    c["models"] = {}
    for name, m in models.items():
        c["models"][name] = load_model_config(str(name), m, base, bt)
    return c


def load_model_config(name, m, base, build_type):
    def err(key, msg):
        return DeployError("model '%s': %s: %s" % (name, key, msg))
    if not IDENT.match(name):
        raise DeployError("model '%s': the model name must be a C++ identifier (it names generated code)" % name)
    if not isinstance(m, dict):
        raise DeployError("model '%s': expected a mapping of settings" % name)
    for k in m:
        if k not in MODEL_KEYS:
            raise DeployError("model '%s': unknown key '%s' (known: %s)" % (name, k, ", ".join(sorted(MODEL_KEYS))))
    r = {"name": name}
    plat = m.get("platform")
    if plat not in PLATFORMS:
        raise err("platform", "%s is not one of %s" % (show(plat), ", ".join(PLATFORMS)))
    r["platform"] = plat
    if "model_file_path" not in m:
        raise err("model_file_path", "missing")
    r["model_file"] = local_path(m["model_file_path"], "model '%s': model_file_path" % name, base)
    want = m.get("model_sha256_checksum")
    if want is not None:
        got = sha256(r["model_file"])
        if got != text(want).lower():
            raise err("model_sha256_checksum", "mismatch: '%s' has %s, the deployment file says %s" % (r["model_file"], got, text(want)))
    r["weight_file"] = None
    if plat in ("caffe", "ncnn"):
        if "weight_file_path" not in m:
            raise err("weight_file_path", "missing (a %s model has a separate weight file)" % plat)
    if "weight_file_path" in m:
        r["weight_file"] = local_path(m["weight_file_path"], "model '%s': weight_file_path" % name, base)
        want = m.get("weight_sha256_checksum")
        if want is not None:
            got = sha256(r["weight_file"])
            if got != text(want).lower():
                raise err("weight_sha256_checksum", "mismatch: '%s' has %s, the deployment file says %s" % (r["weight_file"], got, text(want)))
    subs = m.get("subgraphs")
    if isinstance(subs, dict):
        subs = [subs]
    if not isinstance(subs, list) or len(subs) != 1 or not isinstance(subs[0], dict):
        raise err("subgraphs", "expected a list with one subgraph (input_tensors, input_shapes, output_tensors, ...)")
    sg = subs[0]
    for k in sg:
        if k not in SUBGRAPH_KEYS:
            raise err("subgraphs", "unknown key '%s' (known: %s)" % (k, ", ".join(sorted(SUBGRAPH_KEYS))))
    r["inputs"] = [text(x) for x in as_list(sg.get("input_tensors"))]
    r["outputs"] = [text(x) for x in as_list(sg.get("output_tensors"))]
    if not r["inputs"]:
        raise err("input_tensors", "missing")
    if not r["outputs"]:
        raise err("output_tensors", "missing")
    r["input_shapes"] = parse_shapes(sg.get("input_shapes"), "model '%s': input_shapes" % name)
    if len(r["input_shapes"]) != len(r["inputs"]):
        raise err("input_shapes", "%d shapes for %d input_tensors" % (len(r["input_shapes"]), len(r["inputs"])))
    if plat == "tensorflow":
        for s in r["input_shapes"]:
            if len(s) != 4 and len(s) != 2:
                raise err("input_shapes", "%s: TensorFlow input shapes are NHWC (4 values) or N,C (2)" % s)
    r["output_shapes"] = parse_shapes(sg.get("output_shapes"), "model '%s': output_shapes" % name)
    if r["output_shapes"] and len(r["output_shapes"]) != len(r["outputs"]):
        raise err("output_shapes", "%d shapes for %d output_tensors" % (len(r["output_shapes"]), len(r["outputs"])))
    rng = sg.get("input_ranges", None)
    ranges = []
    if rng is None:
        ranges = [[-1.0, 1.0]] * len(r["inputs"])
    else:
        items = rng if isinstance(rng, list) and rng and not isinstance(rng[0], (int, float)) else [rng]
        for it in items:
            vals = it if isinstance(it, list) else text(it).split(",")
            try:
                lo, hi = [float(v) for v in vals]
            except (ValueError, TypeError):  # TypeError: a list or mapping where a number belongs
                raise err("input_ranges", "bad range %s (expected lo,hi)" % show(it))
            if not lo < hi:
                raise err("input_ranges", "bad range %s (expected lo < hi)" % show(it))
            ranges.append([lo, hi])
        if len(ranges) == 1:
            ranges = ranges * len(r["inputs"])
        if len(ranges) != len(r["inputs"]):
            raise err("input_ranges", "%d ranges for %d inputs" % (len(ranges), len(r["inputs"])))
    r["input_ranges"] = ranges
    vd = as_list(sg.get("validation_inputs_data"))
    r["validation_inputs"] = [local_path(p, "model '%s': validation_inputs_data" % name, base) for p in vd]
    if vd and len(vd) != len(r["inputs"]):
        raise err("validation_inputs_data", "%d files for %d inputs" % (len(vd), len(r["inputs"])))
    rt = m.get("runtime", "cpu")
    if rt == "gpu":
        rt = "vulkan"
    if rt == "cpu_gpu":
        rt = "cpu+gpu"
    if rt not in RUNTIMES:
        raise err("runtime", "%s is not one of %s" % (show(rt), ", ".join(RUNTIMES)))
    r["runtime"] = rt
    dt = m.get("data_type", "fp32_fp32" if rt == "cpu" else "fp16_fp32")
    if dt not in ("fp16_fp32", "fp32_fp32"):
        raise err("data_type", "%s is not fp16_fp32 or fp32_fp32" % show(dt))
    r["data_type"] = dt
    for k in ("limit_opencl_kernel_time", "obfuscate", "nnlib_graph_mode"):
        r[k] = flag(m.get(k, 0), "model '%s': %s" % (name, k))
    # winograd: absent keeps kite's default (on, as kiterun and validate run it)
    r["winograd"] = flag(m["winograd"], "model '%s': winograd" % name) if "winograd" in m else None
    return r


# ------------------------------------------------------------------ tools

class Tools:
    def __init__(self, build_dir):
        self.build_dir = build_dir

    def find(self, name, subdirs=("tools", "tools/caffe", "tools/onnx", "tools/tensorflow", "tools/optimize",
                                    "tools/check", "benchmark"), required=True):
        env = os.environ.get("KITEDEPLOY_" + name.upper())
        if env:
            return env
        if self.build_dir:
            for s in subdirs:
                p = os.path.join(self.build_dir, s, name)
                if os.access(p, os.X_OK):
                    return p
        p = shutil.which(name)
        if p:
            return p
        if required:
            raise DeployError("cannot find the kite tool '%s': give --build-dir (a kite build tree) or put it on PATH" % name)
        return None


def run_cmd(cmd, what, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        msg = (r.stderr.strip() or r.stdout.strip()).splitlines()
        raise DeployError("%s failed (exit %d): %s" % (what, r.returncode, " | ".join(msg[-6:])))
    return r


class Staging:
    """writes go to a temporary sibling of `final`; commit() renames it into place"""

    def __init__(self, final):
        self.final = os.path.abspath(final)
        os.makedirs(os.path.dirname(self.final), exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix="." + os.path.basename(self.final) + ".tmp.", dir=os.path.dirname(self.final))

    def commit(self):
        # mkdtemp makes the folder 0700: give it the usual permissions
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(self.tmp, 0o777 & ~mask)
        old = None
        if os.path.exists(self.final):
            old = self.final + ".old.%d" % os.getpid()
            os.rename(self.final, old)
        os.rename(self.tmp, self.final)
        if old:
            shutil.rmtree(old, ignore_errors=True)

    def abort(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


# ------------------------------------------------------------------ param text

def read_param(path):
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f if l.strip()]
    if not lines or lines[0].strip() != "7767517":
        raise DeployError("'%s' is not a text .param (magic 7767517)" % path)
    layers = []
    for l in lines[2:]:
        tok = l.split()
        typ, name, nb, nt = tok[0], tok[1], int(tok[2]), int(tok[3])
        bottoms = tok[4:4 + nb]
        tops = tok[4 + nb:4 + nb + nt]
        params = tok[4 + nb + nt:]
        layers.append([typ, name, bottoms, tops, params])
    return layers


def write_param(path, layers):
    blobs = set()
    for l in layers:
        blobs.update(l[3])
    out = ["7767517", "%d %d" % (len(layers), len(blobs))]
    for typ, name, bottoms, tops, params in layers:
        out.append(" ".join([typ.ljust(16), name.ljust(16), str(len(bottoms)), str(len(tops))] + bottoms + tops + params))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def obfuscate(layers, keep):
    """layer names -> l<i>, blob names -> b<i>, except the blobs in keep"""
    bmap = {}
    for b in keep:
        bmap[b] = b
    n = [0]

    def blob(b):
        if b not in bmap:
            bmap[b] = "b%d" % n[0]
            n[0] += 1
        return bmap[b]
    out = []
    for i, (typ, name, bottoms, tops, params) in enumerate(layers):
        # an Input layer is found by its name in some apps: keep it when it is an input
        lname = name if (typ == "Input" and tops and tops[0] in keep) else "l%d" % i
        out.append([typ, lname, [blob(b) for b in bottoms], [blob(t) for t in tops], params])
    return out


def is_float_token(s):
    return any(c in s for c in ".eE") or "nan" in s or "inf" in s


def param_bin_bytes(layers, type_index):
    """ncnn's binary .param.bin: magic, layer count, blob count, then per layer
    type index, bottom/top counts, blob indices and the params (-233 ends)"""
    import struct
    blob_index = {}
    for l in layers:
        for t in l[3]:
            if t not in blob_index:
                blob_index[t] = len(blob_index)
    out = bytearray(struct.pack("<iii", 7767517, len(layers), len(blob_index)))
    for typ, name, bottoms, tops, params in layers:
        if typ not in type_index:
            raise DeployError("layer type '%s' has no ncnn type index (custom layers cannot go into .param.bin)" % typ)
        out += struct.pack("<iii", type_index[typ], len(bottoms), len(tops))
        for b in bottoms + tops:
            out += struct.pack("<i", blob_index[b])
        for p in params:
            k, v = p.split("=", 1)
            k = int(k)
            if v.startswith('"'):
                s = v[1:-1].encode()
                out += struct.pack("<ii", -23400 - k, len(s)) + s + b"\0" * ((4 - len(s) % 4) % 4)
            elif k <= -23300:
                vals = v.split(",")
                n = int(vals[0])
                fl = any(is_float_token(x) for x in vals[1:])
                out += struct.pack("<ii", k, n)
                for x in vals[1:]:
                    out += struct.pack("<f", float(x)) if fl else struct.pack("<i", int(x))
            else:
                out += struct.pack("<i", k)
                out += struct.pack("<f", float(v)) if is_float_token(v) else struct.pack("<i", int(v))
        out += struct.pack("<i", -233)
    return bytes(out), blob_index


def c_name(s):
    t = re.sub(r"[^A-Za-z0-9_]", "_", s)
    return ("_" + t) if t[:1].isdigit() else t


def id_header(model, layers, blob_index, keep_only=None):
    g = "KITE_DEPLOY_%s_ID_H" % model.upper()
    out = ["// %s: blob and layer indices of the .param.bin / generated graph (kitedeploy)" % model,
           "#ifndef " + g, "#define " + g, "namespace %s_param_id {" % model]
    used = set()
    for i, l in enumerate(layers):
        if keep_only is None:
            n = "LAYER_" + c_name(l[1])
            if n not in used:
                used.add(n)
                out.append("const int %s = %d;" % (n, i))
    for b, i in blob_index.items():
        if keep_only is None or b in keep_only:
            n = "BLOB_" + c_name(b)
            if n not in used:
                used.add(n)
                out.append("const int %s = %d;" % (n, i))
    out += ["} // namespace %s_param_id" % model, "#endif", ""]
    return "\n".join(out)


# ------------------------------------------------------------------ steps

def kite_input_array(m, x):
    """the source framework's input (with batch) as kiterun wants it: batch dropped"""
    if x.ndim >= 2 and x.shape[0] == 1:
        return x.reshape(x.shape[1:])
    return x


def make_inputs(m, seed=20261126):
    xs = []
    if m["validation_inputs"]:
        for p, s in zip(m["validation_inputs"], m["input_shapes"]):
            x = np.load(p).astype(np.float32)
            if x.size != int(np.prod(s)):
                raise DeployError("model '%s': validation_inputs_data: '%s' has shape %s, input_shapes says %s" % (m["name"], p, x.shape, s))
            xs.append(x.reshape(s))
    else:
        rng = np.random.RandomState(seed)
        for s, (lo, hi) in zip(m["input_shapes"], m["input_ranges"]):
            xs.append(rng.uniform(lo, hi, s).astype(np.float32))
    return xs


def convert_model(cfg, m, tools, out_models, type_index):
    name = m["name"]
    raw_p, raw_b = os.path.join(out_models, name + ".raw.param"), os.path.join(out_models, name + ".raw.bin")
    plat = m["platform"]
    if plat == "caffe":
        run_cmd([tools.find("caffe2kite"), m["model_file"], m["weight_file"], raw_p, raw_b,
                 "outputs=" + ",".join(m["outputs"])], "model '%s': caffe2kite" % name)
    elif plat == "onnx":
        cmd = [tools.find("onnx2kite"), m["model_file"], raw_p, raw_b]
        for t, s in zip(m["inputs"], m["input_shapes"]):
            cmd.append("inputshape=%s:[%s]" % (t, ",".join(str(d) for d in s)))
        run_cmd(cmd, "model '%s': onnx2kite" % name)
    elif plat == "tensorflow":
        run_cmd([tools.find("tensorflow2kite"), m["model_file"], raw_p, raw_b, "inputs=" + ",".join(m["inputs"]),
                 "outputs=" + ",".join(m["outputs"]),
                 "input_shapes=" + ":".join(",".join(str(d) for d in s) for s in m["input_shapes"])],
                "model '%s': tensorflow2kite" % name)
    else:  # ncnn
        shutil.copyfile(m["model_file"], raw_p)
        shutil.copyfile(m["weight_file"], raw_b)
    p, b = os.path.join(out_models, name + ".param"), os.path.join(out_models, name + ".bin")
    cmd = [tools.find("kiteoptimize"), raw_p, raw_b, p, b]
    if m["data_type"] == "fp16_fp32":
        cmd.append("fp16")
    run_cmd(cmd, "model '%s': kiteoptimize" % name)
    os.remove(raw_p)
    os.remove(raw_b)
    layers = read_param(p)
    blobs = set()
    for l in layers:
        blobs.update(l[2])
        blobs.update(l[3])
    for t in m["inputs"] + m["outputs"]:
        if t not in blobs:
            key = "input_tensors" if t in m["inputs"] else "output_tensors"
            raise DeployError("model '%s': %s: '%s' is not a blob of the converted model" % (name, key, t))
    keep = set(m["inputs"] + m["outputs"])
    if m["obfuscate"]:
        layers = obfuscate(layers, keep)
        write_param(p, layers)
    pb, blob_index = param_bin_bytes(layers, type_index)
    with open(os.path.join(out_models, name + ".param.bin"), "wb") as f:
        f.write(pb)
    with open(os.path.join(out_models, name + ".id.h"), "w") as f:
        f.write(id_header(name, layers, blob_index, keep if m["obfuscate"] else None))
    final = os.path.join(os.path.dirname(os.path.dirname(p)), "models", os.path.basename(p))
    print("convert %s: %s -> %s (%d layers%s%s)" % (name, plat, final, len(layers),
          ", fp16 weights" if m["data_type"] == "fp16_fp32" else "", ", obfuscated" if m["obfuscate"] else ""))


def type_indices(tools):
    """ncnn layer type indices, asked from kite (kitecheck types=1 lists them)"""
    r = run_cmd([tools.find("kitecheck"), "--types"], "kitecheck --types")
    ti = {}
    for line in r.stdout.splitlines():
        k, v = line.split()
        ti[k] = int(v)
    return ti


def cmd_convert(cfg, args, tools, models):
    out = args.output
    stage = Staging(os.path.join(out, "models"))
    try:
        ti = type_indices(tools)
        # keep the models of a previous convert that this run does not redo
        if os.path.isdir(stage.final):
            for f in os.listdir(stage.final):
                if f.split(".")[0] not in [m["name"] for m in models]:
                    shutil.copy2(os.path.join(stage.final, f), stage.tmp)
        for m in models:
            convert_model(cfg, m, tools, stage.tmp, ti)
        stage.commit()
    except BaseException:
        stage.abort()
        raise


def models_dir(args, m):
    d = os.path.join(args.output, "models")
    p = os.path.join(d, m["name"] + ".param")
    if not os.path.isfile(p):
        raise DeployError("model '%s': not converted yet (%s missing): run kitedeploy convert first" % (m["name"], p))
    return d


def runtimes_of(m, args):
    if args.runtime:
        return [args.runtime]
    return ["cpu", "vulkan"] if m["runtime"] == "cpu+gpu" else [m["runtime"]]


def npy_name(blob):
    return blob.replace("/", "_").replace("\\", "_") + ".npy"


def run_kite(args, tools, m, xs, runtime, out_dir, loop=1):
    d = models_dir(args, m)
    os.makedirs(out_dir, exist_ok=True)
    cmd = [tools.find("kiterun"), os.path.join(d, m["name"] + ".param"), os.path.join(d, m["name"] + ".bin"),
           "save=" + out_dir, "device=" + runtime, "loop=%d" % loop]
    if m["data_type"] == "fp16_fp32":
        cmd.append("fp16=1")
    for i, (t, x) in enumerate(zip(m["inputs"], xs)):
        f = os.path.join(out_dir, "input%d.npy" % i)
        np.save(f, kite_input_array(m, x))
        cmd.append("input=%s:%s" % (t, f))
    for o in m["outputs"]:
        cmd.append("output=" + o)
    r = run_cmd(cmd, "model '%s': kiterun (%s)" % (m["name"], runtime))
    return [np.load(os.path.join(out_dir, npy_name(o))) for o in m["outputs"]], r.stdout


def cmd_run(cfg, args, tools, models):
    work = tempfile.mkdtemp(prefix="kitedeploy-run.")
    try:
        runner = os.path.join(args.output, "host", cfg["library_name"] + "_run")
        for m in models:
            xs = make_inputs(m)
            for rt in runtimes_of(m, args):
                if os.access(runner, os.X_OK) and cfg["build_type"] == "code":
                    outs = run_library(cfg, args, m, xs, rt, os.path.join(work, m["name"] + "_" + rt))
                    how = "generated library"
                else:
                    outs, _ = run_kite(args, tools, m, xs, rt, os.path.join(work, m["name"] + "_" + rt))
                    how = "kiterun"
                for o, y in zip(m["outputs"], outs):
                    print("run %s %s %s shape=%s min=%.6g max=%.6g mean=%.6g (%s)" % (
                        m["name"], o, rt, list(y.shape), float(y.min()), float(y.max()), float(y.mean()), how))
                if args.save:
                    os.makedirs(args.save, exist_ok=True)
                    for o, y in zip(m["outputs"], outs):
                        np.save(os.path.join(args.save, "%s_%s" % (m["name"], npy_name(o))), y)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_library(cfg, args, m, xs, runtime, out_dir):
    """the generated host runner: create_net() of the generated library"""
    os.makedirs(out_dir, exist_ok=True)
    runner = os.path.join(args.output, "host", cfg["library_name"] + "_run")
    if not os.access(runner, os.X_OK):
        raise DeployError("model '%s': no host build (%s missing): run kitedeploy build first" % (m["name"], runner))
    cmd = [runner, m["name"], out_dir]
    wpath = ""
    if not cfg["embed_model_data"]:
        wpath = os.path.join(args.output, "models", m["name"] + ".bin")
    cmd.append(wpath or "-")
    for i, x in enumerate(xs):
        f = os.path.join(out_dir, "input%d.npy" % i)
        np.save(f, np.ascontiguousarray(kite_input_array(m, x), dtype=np.float32))
        cmd.append(f)
    env = dict(os.environ)
    env["KITE_DEPLOY_RUNTIME"] = runtime
    run_cmd(cmd, "model '%s': %s" % (m["name"], os.path.basename(runner)), env=env)
    return [np.load(os.path.join(out_dir, "output%d.npy" % k)) for k in range(len(m["outputs"]))]


# ----- validation: the source framework

def load_cv2():
    try:
        import cv2
        if hasattr(cv2, "dnn") and hasattr(cv2.dnn, "readNetFromCaffe"):
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
    raise DeployError("validating a Caffe model needs OpenCV 4 (cv2.dnn.readNetFromCaffe): "
                      "pip install 'opencv-python-headless<5' or set KITE_OPENCV4_PATH")


def caffe_top_writers(text):
    """prototxt: top name -> name of the last layer writing it"""
    text = re.sub(r"#[^\n]*", "", text)
    out = {}
    for mt in re.finditer(r"\blayers?\s*\{", text):
        depth, i = 1, mt.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        block = text[mt.end():i - 1]
        # the layer's own fields only: drop nested messages
        flat = block
        while True:
            f2 = re.sub(r"\w+\s*\{[^{}]*\}", "", flat)
            if f2 == flat:
                break
            flat = f2
        nm = re.search(r'\bname:\s*"([^"]*)"', flat)
        if not nm:
            continue
        for t in re.findall(r'\btop:\s*"([^"]*)"', flat):
            out[t] = nm.group(1)
    return out


def reference_outputs(m, xs):
    plat = m["platform"]
    if plat == "onnx":
        import onnxruntime as ort
        sess = ort.InferenceSession(m["model_file"], providers=["CPUExecutionProvider"])
        return [np.asarray(y) for y in sess.run(m["outputs"], dict(zip(m["inputs"], xs)))]
    if plat == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
        gd = tf.compat.v1.GraphDef()
        with open(m["model_file"], "rb") as f:
            gd.ParseFromString(f.read())
        g = tf.Graph()
        with g.as_default():
            tf.compat.v1.import_graph_def(gd, name="")
        with tf.compat.v1.Session(graph=g) as s:
            feed = {g.get_tensor_by_name(t if ":" in t else t + ":0"): x for t, x in zip(m["inputs"], xs)}
            fetch = [g.get_tensor_by_name(t if ":" in t else t + ":0") for t in m["outputs"]]
            return [np.asarray(y) for y in s.run(fetch, feed)]
    if plat == "caffe":
        cv2 = load_cv2()
        net = cv2.dnn.readNetFromCaffe(m["model_file"], m["weight_file"])
        net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        for t, x in zip(m["inputs"], xs):
            net.setInput(x, t)
        # OpenCV names outputs by layer: the last layer writing each top
        with open(m["model_file"]) as f:
            writer = caffe_top_writers(f.read())
        ys = net.forward([writer.get(o, o) for o in m["outputs"]])
        return [np.asarray(y) for y in ys]
    if plat == "ncnn":
        import ncnn
        net = ncnn.Net()
        net.opt.use_vulkan_compute = False
        # the reference in fp32: ncnn's CPU default stores blobs in fp16 / bf16 where it can
        for k in ("use_fp16_storage", "use_fp16_packed", "use_fp16_arithmetic", "use_bf16_storage"):
            if hasattr(net.opt, k):
                setattr(net.opt, k, False)
        if net.load_param(m["model_file"]) != 0 or net.load_model(m["weight_file"]) != 0:
            raise DeployError("model '%s': ncnn cannot load the model files" % m["name"])
        ex = net.create_extractor()
        for t, x in zip(m["inputs"], xs):
            ex.input(t, ncnn.Mat(np.ascontiguousarray(kite_input_array(m, x))))
        ys = []
        for o in m["outputs"]:
            ret, y = ex.extract(o)
            if ret != 0:
                raise DeployError("model '%s': ncnn cannot extract '%s'" % (m["name"], o))
            ys.append(np.array(y))
        return ys
    raise DeployError("model '%s': no reference framework for platform %s" % (m["name"], plat))


def compare(ref, got):
    """cosine and max |got - ref| / max |ref| over the values (batch of 1 dropped)"""
    a = np.asarray(ref, dtype=np.float64).reshape(-1)
    b = np.asarray(got, dtype=np.float64).reshape(-1)
    if a.size != b.size:
        return 0.0, float("inf"), "size %d vs %d" % (a.size, b.size)
    if not np.all(np.isfinite(b)):
        return 0.0, float("inf"), "non-finite kite output"
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    cos = 1.0 if na == 0 and nb == 0 else (float(np.dot(a, b)) / (na * nb) if na > 0 and nb > 0 else 0.0)
    ref_max = float(np.max(np.abs(a))) if a.size else 0.0
    diff = float(np.max(np.abs(a - b))) if a.size else 0.0
    rel = diff / ref_max if ref_max > 0 else (0.0 if diff == 0 else float("inf"))
    return cos, rel, ""


def cmd_validate(cfg, args, tools, models):
    bad = 0
    work = tempfile.mkdtemp(prefix="kitedeploy-validate.")
    try:
        for m in models:
            xs = make_inputs(m)
            refs = reference_outputs(m, xs)
            for rt in runtimes_of(m, args):
                outs, _ = run_kite(args, tools, m, xs, rt, os.path.join(work, m["name"] + "_" + rt))
                fp16 = m["data_type"] == "fp16_fp32"
                for o, r, y in zip(m["outputs"], refs, outs):
                    cos, rel, note = compare(r, y)
                    ok = cos >= 0.999 if fp16 else (cos >= 0.99999 and rel <= 1e-4)
                    ok = ok and not note
                    bad += not ok
                    print("validate %s %s %s cosine=%.8f max_rel=%.3g %s%s" % (
                        m["name"], o, rt, cos, rel, "PASS" if ok else "FAIL", ("  (" + note + ")") if note else ""))
                    sys.stdout.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


def cmd_benchmark(cfg, args, tools, models):
    bench = tools.find("benchkite", required=False)
    for m in models:
        d = models_dir(args, m)
        param = os.path.join(d, m["name"] + ".param")
        xs = make_inputs(m)
        for rt in runtimes_of(m, args):
            if bench and len(m["inputs"]) == 1:
                shape = list(kite_input_array(m, xs[0]).shape)[::-1]
                cmd = [bench, str(args.loop), "1", "0", "-1", "0", "param=" + param,
                       "shape=[%s]" % ",".join(str(v) for v in shape), "profile=1"]
                if rt != "cpu":
                    cmd.append("backend=" + rt)
                if m["data_type"] == "fp16_fp32":
                    cmd.append("fp16=1")
                r = run_cmd(cmd, "model '%s': benchkite" % m["name"])
                print("benchmark %s %s (benchkite, %d loops, zero weights):" % (m["name"], rt, args.loop))
                print(r.stdout.rstrip())
            else:
                import time
                t0 = time.time()
                _, out = run_kite(args, tools, m, xs, rt, tempfile.mkdtemp(prefix="kitedeploy-bench."), loop=args.loop)
                print(out.rstrip())
                print("benchmark %s %s whole model: %.3f ms per run (kiterun, %d loops incl. start-up)" % (
                    m["name"], rt, (time.time() - t0) * 1000 / args.loop, args.loop))


# ----- build

def c_array(data, name):
    lines = ["alignas(16) static const unsigned char %s[%d] = {" % (name, max(len(data), 1))]
    hexs = ["0x%02x" % b for b in data] or ["0"]
    for i in range(0, len(hexs), 24):
        lines.append(",".join(hexs[i:i + 24]) + ",")
    lines.append("};")
    return "\n".join(lines)


def model_source(cfg, m, models_path):
    name = m["name"]
    with open(os.path.join(models_path, name + ".param.bin"), "rb") as f:
        pbin = f.read()
    _, blob_index = param_bin_bytes(read_param(os.path.join(models_path, name + ".param")), TYPE_INDEX)
    s = ["// generated by kitedeploy: model '%s'" % name, "#include \"datareader.h\"", "#include \"net.h\"",
         "#include \"platform.h\"", "#include <cstdio>"]
    if m["limit_opencl_kernel_time"]:
        s += ["#if KITE_OPENCL && __has_include(\"gpu/opencl/opencl.h\")", "#include \"gpu/opencl/opencl.h\"",
              "#define KITE_DEPLOY_HAVE_OPENCL_SETTINGS 1", "#endif"]
    s += ["", "namespace {"]
    code = cfg["build_type"] == "code"
    if code:
        s.append("// the graph (binary .param.bin: layer and blob names are not in it)")
        s.append(c_array(pbin, "graph"))
        if cfg["embed_model_data"]:
            with open(os.path.join(models_path, name + ".bin"), "rb") as f:
                s.append("// the weights (.bin)")
                s.append(c_array(f.read(), "weights"))
    s.append("} // namespace")
    s.append("")
    s.append("namespace kite_deploy_%s {" % cfg["library_name"])
    s.append("int create_%s(kite::Net& net, const char* path)" % name)
    s.append("{")
    gpu = m["runtime"] != "cpu"
    s.append("    net.opt.use_fp16_storage = %s;" % ("true" if m["data_type"] == "fp16_fp32" else "false"))
    if m["winograd"] is not None:
        s.append("    net.opt.use_winograd_convolution = %s;" % ("true" if m["winograd"] else "false"))
    s.append("    const char* rt = getenv(\"KITE_DEPLOY_RUNTIME\");")
    s.append("    std::string runtime = rt && *rt ? rt : \"%s\";" % ("vulkan" if m["runtime"] == "cpu+gpu" else m["runtime"]))
    s.append("    net.opt.use_vulkan_compute = runtime == \"vulkan\";")
    s.append("    net.opt.use_opencl = runtime == \"opencl\";")
    if m["limit_opencl_kernel_time"]:
        s += ["#ifdef KITE_DEPLOY_HAVE_OPENCL_SETTINGS",
              "    // limit_opencl_kernel_time: split OpenCL launches to about 1 ms (process-wide)",
              "    if (net.opt.use_opencl)", "    {", "        kite::opencl::Settings s = kite::opencl::settings();",
              "        s.kernel_time_limit_ms = 1;", "        kite::opencl::set_settings(s);", "    }", "#endif"]
    if code:
        s.append("    if (net.load_param_bin(kite::DataReaderFromMemory(graph, sizeof(graph))) != 0)")
        s.append("        return -1;")
        if cfg["embed_model_data"]:
            s.append("    (void)path;")
            s.append("    return net.load_model(weights, sizeof(weights)) == sizeof(weights) ? 0 : -1;")
        else:
            s.append("    if (!path || !*path)")
            s.append("        return -1;")
            s.append("    return net.load_model(path);")
    else:
        s.append("    // build_type file: path is the folder holding %s.param.bin and %s.bin" % (name, name))
        s.append("    std::string dir = path && *path ? std::string(path) + \"/\" : std::string();")
        s.append("    if (net.load_param_bin((dir + \"%s.param.bin\").c_str()) != 0)" % name)
        s.append("        return -1;")
        s.append("    return net.load_model((dir + \"%s.bin\").c_str());" % name)
    s.append("}")
    s.append("} // namespace kite_deploy_%s" % cfg["library_name"])
    s.append("")
    return "\n".join(s), blob_index


def library_sources(cfg, models, models_path):
    lib = cfg["library_name"]
    srcs = {}
    hdr = ["// generated by kitedeploy: library '%s'" % lib,
           "#ifndef KITE_DEPLOY_%s_H" % lib.upper(), "#define KITE_DEPLOY_%s_H" % lib.upper(),
           "#include \"net.h\"", "", "namespace %s {" % lib, "",
           "// The models in this library, by name.",
           "int model_count();", "const char* model_name(int index);", "",
           "// Load model_name into net (set net.opt first for threads; the runtime and",
           "// precision of the deployment file are applied, KITE_DEPLOY_RUNTIME=cpu|vulkan|opencl",
           "// overrides the runtime). weights_path: %s." % (
               "unused (the weights are in the library)" if cfg["build_type"] == "code" and cfg["embed_model_data"]
               else "the model's .bin file" if cfg["build_type"] == "code" else "the folder with <model>.param.bin and <model>.bin"),
           "// Returns 0, or -1 (unknown model or a load error; kite::last_error() says why).",
           "int create_net(const char* model_name, kite::Net& net, const char* weights_path = nullptr);", "",
           "// Inputs and outputs: names as in the deployment file and blob indices for",
           "// Extractor::input(int, ...) / extract(int, ...) (the graph has no names).",
           "int input_count(const char* model_name);", "int output_count(const char* model_name);",
           "const char* input_name(const char* model_name, int i);", "const char* output_name(const char* model_name, int i);",
           "int input_index(const char* model_name, int i);", "int output_index(const char* model_name, int i);", ""]
    for m in models:
        hdr.append("namespace %s {" % m["name"])
        src, blob_index = model_source(cfg, m, models_path)
        srcs[m["name"] + ".cpp"] = src
        for kind, names in (("input", m["inputs"]), ("output", m["outputs"])):
            hdr.append("const int %s_count = %d;" % (kind, len(names)))
            hdr.append("const char* const %s_names[] = {%s};" % (kind, ", ".join('"%s"' % n for n in names)))
            hdr.append("const int %s_indexes[] = {%s};" % (kind, ", ".join(str(blob_index[n]) for n in names)))
        hdr.append("} // namespace %s" % m["name"])
        hdr.append("")
    hdr += ["} // namespace %s" % lib, "#endif", ""]
    srcs[lib + ".h"] = "\n".join(hdr)
    reg = ["// generated by kitedeploy: the model factory", "#include \"%s.h\"" % lib, "#include <cstring>", "",
           "namespace kite_deploy_%s {" % lib]
    reg += ["int create_%s(kite::Net& net, const char* path);" % m["name"] for m in models]
    reg += ["}", "", "namespace %s {" % lib, "namespace {", "struct Entry", "{",
            "    const char* name;", "    int (*create)(kite::Net&, const char*);",
            "    int nin, nout;", "    const char* const* in_names;", "    const char* const* out_names;",
            "    const int* in_idx;", "    const int* out_idx;", "};", "const Entry entries[] = {"]
    for m in models:
        n = m["name"]
        reg.append("    {\"%s\", kite_deploy_%s::create_%s, %s::input_count, %s::output_count, %s::input_names, %s::output_names, "
                   "%s::input_indexes, %s::output_indexes}," % (n, lib, n, n, n, n, n, n, n))
    reg += ["};", "const Entry* find(const char* name)", "{",
            "    for (const Entry& e : entries)", "        if (name && strcmp(e.name, name) == 0)", "            return &e;",
            "    return nullptr;", "}", "} // namespace", "",
            "int model_count() { return (int)(sizeof(entries) / sizeof(entries[0])); }",
            "const char* model_name(int i) { return i >= 0 && i < model_count() ? entries[i].name : nullptr; }",
            "int create_net(const char* model_name, kite::Net& net, const char* weights_path)", "{",
            "    const Entry* e = find(model_name);", "    return e ? e->create(net, weights_path) : -1;", "}",
            "int input_count(const char* m) { const Entry* e = find(m); return e ? e->nin : -1; }",
            "int output_count(const char* m) { const Entry* e = find(m); return e ? e->nout : -1; }",
            "const char* input_name(const char* m, int i) { const Entry* e = find(m); return e && i >= 0 && i < e->nin ? e->in_names[i] : nullptr; }",
            "const char* output_name(const char* m, int i) { const Entry* e = find(m); return e && i >= 0 && i < e->nout ? e->out_names[i] : nullptr; }",
            "int input_index(const char* m, int i) { const Entry* e = find(m); return e && i >= 0 && i < e->nin ? e->in_idx[i] : -1; }",
            "int output_index(const char* m, int i) { const Entry* e = find(m); return e && i >= 0 && i < e->nout ? e->out_idx[i] : -1; }",
            "} // namespace %s" % lib, ""]
    srcs[lib + "_factory.cpp"] = "\n".join(reg)
    # the model files include <string> and getenv through net.h's <string>; add cstdlib
    for k in list(srcs):
        if k.endswith(".cpp") and k != lib + "_factory.cpp":
            srcs[k] = srcs[k].replace("#include <cstdio>", "#include <cstdio>\n#include <cstdlib>\n#include <string>")
    return srcs


CROSS = {"host": "", "arm64-v8a": "aarch64-linux-gnu-", "armeabi-v7a": "arm-linux-gnueabihf-"}
CROSS_FLAGS = {"host": [], "arm64-v8a": [], "armeabi-v7a": ["-march=armv7-a", "-mfpu=neon", "-mfloat-abi=hard"]}


def kite_layout(d):
    """(include dirs, library) of a kite build tree or install prefix, or None"""
    if not d:
        return None
    if os.path.isfile(os.path.join(d, "generated", "kite", "platform.h")):  # build tree
        lib = [os.path.join(d, "src", n) for n in ("libkite.a", "libkite.so")]
        return [os.path.join(REPO, "src"), os.path.join(d, "generated", "kite")], next((l for l in lib if os.path.isfile(l)), None)
    if os.path.isfile(os.path.join(d, "include", "kite", "platform.h")):  # install prefix
        lib = [os.path.join(d, ld, n) for ld in ("lib", "lib64") for n in ("libkite.a", "libkite.so")]
        return [os.path.join(d, "include", "kite")], next((l for l in lib if os.path.isfile(l)), None)
    return None


def kite_include_dirs(args, abi):
    """kite's headers for abi: that ABI's build tree (--kite-build ABI=DIR), else
    the host one (platform.h holds only feature switches, KITE_VULKAN and the
    like, that change no declaration the generated code uses)"""
    lay = kite_layout(args.kite_abi_build.get(abi)) or kite_layout(args.build_dir)
    if not lay:
        raise DeployError("cannot find kite's headers (generated/kite/platform.h or include/kite/platform.h): "
                          "give --build-dir (a kite build tree or install prefix)")
    return lay[0]


RUNNER = r'''// generated by kitedeploy: runs one model of the library through create_net()
//   <lib>_run MODEL OUT_DIR WEIGHTS|- IN0.npy [IN1.npy...]  -> OUT_DIR/output<k>.npy
#include "@LIB@.h"
#include "log.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static bool read_npy(const char* path, kite::Mat& m)
{
    FILE* f = fopen(path, "rb");
    if (!f)
        return false;
    char head[10];
    if (fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY", 6) != 0) { fclose(f); return false; }
    unsigned hl = (unsigned char)head[8] | ((unsigned char)head[9] << 8);
    std::string h(hl, ' ');
    if (fread(&h[0], 1, hl, f) != hl || h.find("'<f4'") == std::string::npos || h.find("'fortran_order': False") == std::string::npos) { fclose(f); return false; }
    size_t a = h.find('('), b = h.find(')');
    std::vector<int> dims;
    for (size_t p = a + 1; p < b;)
    {
        while (p < b && (h[p] == ' ' || h[p] == ',')) p++;
        if (p >= b) break;
        dims.push_back(atoi(h.c_str() + p));
        while (p < b && h[p] != ',') p++;
    }
    if (dims.size() == 1) m.create(dims[0], (size_t)4u);
    else if (dims.size() == 2) m.create(dims[1], dims[0], (size_t)4u);
    else if (dims.size() == 3) m.create(dims[2], dims[1], dims[0], (size_t)4u);
    else if (dims.size() == 4) m.create(dims[3], dims[2], dims[1], dims[0], (size_t)4u);
    else { fclose(f); return false; }
    int channels = m.dims >= 3 ? m.c : 1;
    size_t plane = (size_t)m.w * m.h * m.d;
    for (int q = 0; q < channels; q++)
        if (fread((float*)m.data + m.cstep * q, 4, plane, f) != plane) { fclose(f); return false; }
    fclose(f);
    return true;
}

static bool write_npy(const std::string& path, const kite::Mat& m)
{
    std::vector<int> dims;
    if (m.dims == 1) dims = {m.w};
    else if (m.dims == 2) dims = {m.h, m.w};
    else if (m.dims == 3) dims = {m.c, m.h, m.w};
    else dims = {m.c, m.d, m.h, m.w};
    std::string shape = "(";
    for (size_t i = 0; i < dims.size(); i++) shape += std::to_string(dims[i]) + (dims.size() == 1 || i + 1 < dims.size() ? "," : "");
    shape += ")";
    std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((h.size() + 11) % 64) h += ' ';
    h += '\n';
    FILE* f = fopen(path.c_str(), "wb");
    if (!f) return false;
    unsigned short hl = (unsigned short)h.size();
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fwrite(&hl, 2, 1, f);
    fwrite(h.data(), 1, h.size(), f);
    int channels = m.dims >= 3 ? m.c : 1;
    size_t plane = (size_t)m.w * m.h * m.d;
    for (int q = 0; q < channels; q++)
        fwrite((const float*)m.data + m.cstep * q, 4, plane, f);
    return fclose(f) == 0;
}

int main(int argc, char** argv)
{
    if (argc < 4)
    {
        fprintf(stderr, "usage: %s MODEL OUT_DIR WEIGHTS|- IN0.npy...\n", argv[0]);
        return 1;
    }
    const char* model = argv[1];
    kite::Net net;
    // one thread unless KITE_DEPLOY_THREADS says otherwise (kiterun's default: same results)
    const char* th = getenv("KITE_DEPLOY_THREADS");
    net.opt.num_threads = th && atoi(th) > 0 ? atoi(th) : 1;
    const char* weights = strcmp(argv[3], "-") == 0 ? nullptr : argv[3];
    if (@LIB@::create_net(model, net, weights) != 0)
    {
        fprintf(stderr, "create_net(%s) failed: %s\n", model, kite::last_error());
        return 1;
    }
    kite::Extractor ex = net.create_extractor();
    ex.set_num_threads(net.opt.num_threads);
    for (int i = 0; i < @LIB@::input_count(model); i++)
    {
        kite::Mat m;
        if (4 + i >= argc || !read_npy(argv[4 + i], m))
        {
            fprintf(stderr, "input %d: cannot read a float32 .npy\n", i);
            return 1;
        }
        ex.input(@LIB@::input_index(model, i), m);
    }
    for (int k = 0; k < @LIB@::output_count(model); k++)
    {
        kite::Mat out;
        if (ex.extract(@LIB@::output_index(model, k), out) != 0)
        {
            fprintf(stderr, "extract %s failed: %s\n", @LIB@::output_name(model, k), kite::last_error());
            return 1;
        }
        if (!write_npy(std::string(argv[2]) + "/output" + std::to_string(k) + ".npy", out))
            return 1;
    }
    return 0;
}
'''


def cmd_build(cfg, args, tools, models):
    lib = cfg["library_name"]
    models_path = os.path.join(args.output, "models")
    for m in models:
        models_dir(args, m)
    global TYPE_INDEX
    TYPE_INDEX = type_indices(tools)
    abis = [args.target_abi] if args.target_abi else cfg["target_abis"]
    for abi in abis:
        stage = Staging(os.path.join(args.output, abi))
        try:
            code_dir = os.path.join(stage.tmp, "code")
            os.makedirs(code_dir)
            srcs = library_sources(cfg, models, models_path)
            for fn, text in srcs.items():
                with open(os.path.join(code_dir, fn), "w") as f:
                    f.write(text)
            for m in models:
                shutil.copy2(os.path.join(models_path, m["name"] + ".id.h"), code_dir)
                if cfg["build_type"] == "file" or not cfg["embed_model_data"]:
                    shutil.copy2(os.path.join(models_path, m["name"] + ".bin"), stage.tmp)
                if cfg["build_type"] == "file":
                    shutil.copy2(os.path.join(models_path, m["name"] + ".param.bin"), stage.tmp)
            cxx = CROSS[abi] + "g++"
            if not shutil.which(cxx):
                raise DeployError("target_abis: %s needs the cross compiler '%s' (toolchains/ lists them)" % (abi, cxx))
            inc = kite_include_dirs(args, abi)
            flags = ["-std=c++17", "-O2", "-fPIC", "-fno-exceptions", "-fno-rtti", "-fvisibility=hidden",
                     "-ffunction-sections", "-fdata-sections"] + CROSS_FLAGS[abi]
            objs = []
            for fn in sorted(srcs):
                if not fn.endswith(".cpp"):
                    continue
                o = os.path.join(stage.tmp, fn[:-4] + ".o")
                extra = ["-fvisibility=default"] if fn.endswith("_factory.cpp") else []
                run_cmd([cxx] + flags + extra + ["-I" + d for d in inc] + ["-I" + code_dir, "-c",
                        os.path.join(code_dir, fn), "-o", o], "build %s (%s): compiling %s" % (lib, abi, fn))
                objs.append(o)
            if cfg["linkshared"]:
                out_lib = os.path.join(stage.tmp, "lib%s.so" % lib)
                run_cmd([cxx, "-shared", "-Wl,-soname,lib%s.so" % lib, "-o", out_lib] + objs, "build %s (%s): linking" % (lib, abi))
            else:
                out_lib = os.path.join(stage.tmp, "lib%s.a" % lib)
                ar = CROSS[abi] + "ar" if abi != "host" else "ar"
                run_cmd([ar, "rcs", out_lib] + objs, "build %s (%s): archiving" % (lib, abi))
            for o in objs:
                os.remove(o)
            shutil.copy2(os.path.join(code_dir, lib + ".h"), stage.tmp)
            with open(os.path.join(code_dir, lib + "_run.cpp"), "w") as f:
                f.write(RUNNER.replace("@LIB@", lib))
            if abi == "host":
                kite_lib = (kite_layout(args.build_dir) or (None, None))[1]
                if kite_lib:
                    run = os.path.join(stage.tmp, lib + "_run")
                    link = [cxx, "-std=c++17", "-O2"] + ["-I" + d for d in inc] + ["-I" + stage.tmp,
                            os.path.join(code_dir, lib + "_run.cpp"), "-o", run, "-Wl,--gc-sections"]
                    if cfg["linkshared"]:
                        # the library next to the runner; kite's symbols come from the runner
                        link += ["-L" + stage.tmp, "-l" + lib, "-Wl,-rpath,$ORIGIN", "-rdynamic"]
                    else:
                        link.append(out_lib)
                    link += [kite_lib, "-fopenmp", "-lpthread", "-ldl"]
                    run_cmd(link, "build %s: linking the runner" % lib)
            stage.commit()
            print("build %s (%s): %s" % (lib, abi, os.path.join(args.output, abi, os.path.basename(out_lib))))
        except BaseException:
            stage.abort()
            raise


TYPE_INDEX = None


def kite_version():
    """The CMake project version, from the project() line of the source tree's
    CMakeLists.txt (this script runs from the source tree; nothing to configure)."""
    try:
        with open(os.path.join(REPO, "CMakeLists.txt")) as f:
            m = re.search(r"project\s*\(\s*kite\b[^)]*?\bVERSION\s+([0-9][0-9.]*)", f.read())
        return m.group(1) if m else "unknown"
    except OSError:
        return "unknown"


# the command line, as tools/common/args.h prints it for the C++ tools
COMMANDS = [("convert", "every model through its converter and kiteoptimize into OUT/models"),
            ("build", "(after convert) C++ sources and lib<library_name>.a/.so per target ABI, and a host runner"),
            ("run", "each model on its validation inputs or random ones"),
            ("validate", "the source framework and kite on the same inputs: one PASS|FAIL line per output"),
            ("benchmark", "per-layer times (benchkite profile=1) and the whole-model time")]
# (spelling, takes a value, help)
OPTIONS = [("--config FILE.yml", True, "the deployment file (required)"),
           ("--model NAME", True, "only this model (repeatable)"),
           ("--runtime cpu|vulkan|opencl", True, "the runtime (default: each model's own)"),
           ("--target-abi " + "|".join(ABIS), True, "only this ABI (default: the file's target_abis)"),
           ("--output DIR", True, "output folder (default: ./kitedeploy-out/<library_name>)"),
           ("--build-dir DIR", True, "kite build tree with the converters, kiterun, libkite (default $KITE_BUILD_DIR)"),
           ("--kite-build ABI=DIR", True, "kite build tree of another ABI (its platform.h; repeatable)"),
           ("--save DIR", True, "run: save the outputs as .npy here"),
           ("--loop N", True, "benchmark: timed runs (default 10)")]


def print_help():
    rows = COMMANDS + [(o[0], o[2]) for o in OPTIONS] + [("-h, --help", "print this help on stdout and exit"),
                                                          ("--version", "print the kite version and exit")]
    width = min(max(len(r[0]) for r in rows), 34)
    out = ["usage: kitedeploy {%s} --config FILE.yml [option]..." % "|".join(c[0] for c in COMMANDS), "",
           "Deploy models described by a YAML deployment file (docs/kitedeploy.md).", ""]
    out += ["  %-*s  %s" % (width, r[0], r[1]) for r in rows]
    out += ["", "Every error names the model and the key; validate exits 1 when an output FAILs.", "",
            "exit status: 0 success, 1 failure, 2 usage error"]
    sys.stdout.write("\n".join(out) + "\n")
    sys.stdout.flush()


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        usage_error(message)


def usage_error(what):
    """A wrong command line: one line with the --help hint, exit 2."""
    sys.stderr.write("kitedeploy: error: %s (see 'kitedeploy --help')\n" % what)
    sys.exit(2)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    # --help, -h, --version anywhere (as the C++ tools); then unknown options by name
    for a in argv:
        if a in ("--help", "-h"):
            print_help()
            return 0
        if a == "--version":
            print("kitedeploy (kite) %s" % kite_version())
            return 0
    with_value = set(o[0].split()[0] for o in OPTIONS)
    i = 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("-") and a != "-":
            name = a.split("=", 1)[0]
            if name not in with_value:
                usage_error("unknown option '%s'" % a)
            if "=" not in a:
                i += 1  # its value
        i += 1
    ap = _Parser(prog="kitedeploy", add_help=False, allow_abbrev=False)
    ap.add_argument("command", choices=[c[0] for c in COMMANDS])
    ap.add_argument("--config", required=True)
    ap.add_argument("--model", action="append")
    ap.add_argument("--runtime", choices=["cpu", "vulkan", "opencl"])
    ap.add_argument("--target-abi", choices=list(ABIS))
    ap.add_argument("--output")
    ap.add_argument("--build-dir", default=os.environ.get("KITE_BUILD_DIR"))
    ap.add_argument("--kite-build", action="append", default=[])
    ap.add_argument("--save")
    ap.add_argument("--loop", type=int, default=10)
    args = ap.parse_args(argv)
    for kv in args.kite_build:
        if "=" not in kv:
            usage_error("--kite-build %s: expected ABI=DIR" % kv)
    args.kite_abi_build = dict(kv.split("=", 1) for kv in args.kite_build)
    if args.loop < 1:
        usage_error("--loop %d: expected a positive number of runs" % args.loop)
    if args.build_dir:
        args.build_dir = os.path.abspath(args.build_dir)
    try:
        cfg = load_config(args.config)
        if not args.output:
            args.output = os.path.join("kitedeploy-out", cfg["library_name"])
        args.output = os.path.abspath(args.output)
        models = list(cfg["models"].values())
        if args.model:
            for n in args.model:
                if n not in cfg["models"]:
                    raise DeployError("--model %s: no such model in the deployment file (%s)" % (n, ", ".join(cfg["models"])))
            models = [m for m in models if m["name"] in args.model]
        tools = Tools(args.build_dir)
        fn = {"convert": cmd_convert, "build": cmd_build, "run": cmd_run, "validate": cmd_validate,
              "benchmark": cmd_benchmark}[args.command]
        return fn(cfg, args, tools, models) or 0
    except DeployError as e:
        # a run-time failure (tools/common/args.h conventions: 1; a wrong command line: 2, usage_error)
        sys.stderr.write("kitedeploy: error: %s\n" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main())
