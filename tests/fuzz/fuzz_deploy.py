#!/usr/bin/env python3
"""Mutation fuzzer of kitedeploy's deployment-file reader (issue 20: "the new
inputs other issues add: deployment file"). kitedeploy is Python, outside
libFuzzer's reach: this drives tools/deploy/kitedeploy.py's load_config with
mutated deployment files, byte-level (flips, inserts, deletes, splices of YAML
tokens) and structural (a node of the parsed document replaced by another type,
a huge or negative number, NaN, a deep nest, a remote or odd path), seeded by
valid files whose model paths exist. Every input must give a configuration or
a DeployError (one line naming the key); any other exception is a finding: the
input is saved in --artifacts and the run fails.

  python3 tests/fuzz/fuzz_deploy.py --runs 100000 [--seed 1] [--corpus DIR] [--artifacts DIR]
  python3 tests/fuzz/fuzz_deploy.py --replay DIR_OR_FILE... [--coverage]

--coverage (with --replay or after a run) prints the line coverage of the reader
(load_config, load_model_config and their helpers) by the inputs, traced with
sys.settrace. Exits 0 clean, 1 on a finding.
"""

import argparse
import math
import os
import random
import shutil
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "deploy"))
import kitedeploy  # noqa: E402
import yaml  # noqa: E402

READER = ("load_config", "load_model_config", "parse_shapes", "flag", "local_path", "as_list", "sha256")

SEEDS = [
    """library_name: demo
target_abis: [host, arm64-v8a]
embed_model_data: 1
build_type: code
models:
  squeeze:
    platform: ncnn
    model_file_path: m.param
    weight_file_path: m.bin
    subgraphs:
      - input_tensors: data
        input_shapes: 1,3,27,27
        output_tensors: prob
        output_shapes: 1,1000
        input_ranges: -1,1
    runtime: cpu
    data_type: fp32_fp32
""",
    """library_name: tfdemo
target_abis: host
build_type: proto
linkshared: 0
models:
  net_a:
    platform: tensorflow
    model_file_path: file://{dir}/m.pb
    model_sha256_checksum: {sha_pb}
    subgraphs:
      input_tensors: [in0, in1]
      input_shapes: ["1,8,8,3", [1, 4]]
      output_tensors: out
      input_ranges: [[0, 1], "-2,2"]
      validation_inputs_data: [a.npy, b.npy]
    runtime: cpu+gpu
    obfuscate: 1
    winograd: 0
  net_b:
    platform: caffe
    model_file_path: m.prototxt
    weight_file_path: m.caffemodel
    weight_sha256_checksum: {sha_cm}
    subgraphs:
      - input_tensors: data
        input_shapes: "1,3,9,9"
        output_tensors: "prob,feat"
        output_shapes: "1,10:1,4"
    runtime: gpu
    data_type: fp16_fp32
    limit_opencl_kernel_time: 0
    nnlib_graph_mode: 0
""",
    """library_name: onnxdemo
models:
  m:
    platform: onnx
    model_file_path: m.onnx
    subgraphs:
      - {input_tensors: x, input_shapes: "1,3,4,4", output_tensors: y}
    runtime: opencl
""",
]

TOKENS = ["library_name", "models", "platform", "model_file_path", "weight_file_path", "subgraphs", "input_tensors",
          "input_shapes", "output_tensors", "output_shapes", "input_ranges", "validation_inputs_data", "runtime",
          "data_type", "target_abis", "build_type", "embed_model_data", "linkshared", "model_sha256_checksum",
          "winograd", "obfuscate", ": ", "\n  ", "\n    ", "- ", "[", "]", "{", "}", ",", ":", "!!python/object", "&a",
          "*a", "<<: *a", "~", "null", ".nan", ".inf", "-.inf", "0x7fffffffffffffff", "1e999", "-1", "0", "'", '"',
          "\\", "\t", "\x00", "\xff", "http://[::1", "https://x/y", "ftp://a", "file:///", "c:\\x", "%00", "\u2028",
          "caffe", "tensorflow", "onnx", "ncnn", "cpu", "vulkan", "opencl", "fp16_fp32", "1,2,3,4", "1,2:3,4"]


def random_value(rng, depth=0):
    k = rng.randrange(14)
    if k == 0:
        return None
    if k == 1:
        return rng.choice([0, 1, -1, 2 ** 63, -2 ** 63, 10 ** 30, True, False])
    if k == 2:
        return rng.choice([0.5, -1.5, math.nan, math.inf, -math.inf, 1e308])
    if k == 3:
        return rng.choice(TOKENS)
    if k == 4:
        return "".join(rng.choice(TOKENS) for _ in range(rng.randrange(1, 5)))
    if k == 5 and depth < 4:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if k == 6 and depth < 4:
        return dict((rng.choice(TOKENS), random_value(rng, depth + 1)) for _ in range(rng.randrange(0, 4)))
    if k == 7:
        v = 1
        for _ in range(rng.randrange(1, 60)):
            v = [v]
        return v
    if k == 8:
        return ",".join(str(rng.choice([1, 0, -3, 2 ** 40, "x", "", " 2"])) for _ in range(rng.randrange(0, 6)))
    if k == 9:
        return rng.choice(["m.param", "m.bin", "missing.bin", "/", "", "file://", "file:///nonexistent", "http://a/b",
                           "s3://bucket/k", "a" * 300, "m.param\x00x", ".."])
    if k == 10:
        return [[rng.uniform(-5, 5), rng.uniform(-5, 5)] for _ in range(rng.randrange(0, 3))]
    return rng.choice(["1,3,8,8", "1,2:3,4", [1, 2, 3], ["1,2", [3, 4]], "x", 7, "0,-1"])


def nodes(doc, path=()):
    yield path
    if isinstance(doc, dict):
        for k in list(doc):
            yield from nodes(doc[k], path + (k,))
    elif isinstance(doc, list):
        for i in range(len(doc)):
            yield from nodes(doc[i], path + (i,))


def structural(rng, text):
    try:
        doc = yaml.safe_load(text)
    except Exception:
        return None
    if not isinstance(doc, (dict, list)):
        return None
    paths = list(nodes(doc))
    for _ in range(rng.randrange(1, 4)):
        p = rng.choice(paths)
        if not p:
            continue
        parent = doc
        try:
            for key in p[:-1]:
                parent = parent[key]
            op = rng.randrange(4)
            if op == 0 and isinstance(parent, dict):
                del parent[p[-1]]
            elif op == 1 and isinstance(parent, dict):
                parent[rng.choice(TOKENS)] = random_value(rng)
            else:
                parent[p[-1]] = random_value(rng)
        except (KeyError, IndexError, TypeError):
            continue
        paths = list(nodes(doc))
    try:
        return yaml.safe_dump(doc, allow_unicode=rng.random() < 0.5, default_flow_style=rng.random() < 0.3)
    except Exception:
        return None


def bytewise(rng, data, corpus):
    data = bytearray(data)
    for _ in range(rng.randrange(1, 6)):
        op = rng.randrange(6)
        pos = rng.randrange(len(data) + 1)
        if op == 0 and data:
            data[min(pos, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:
            data[pos:pos] = rng.choice(TOKENS).encode("utf-8", "surrogatepass")
        elif op == 2 and data:
            n = rng.randrange(1, 16)
            del data[pos:pos + n]
        elif op == 3 and corpus:
            other = rng.choice(corpus)
            a = rng.randrange(len(other) + 1)
            data[pos:pos] = other[a:a + rng.randrange(1, 64)]
        elif op == 4:
            data[pos:pos] = bytes([rng.randrange(256)])
        elif op == 5:
            # duplicate a line (repeated keys, deeper indentation)
            lines = bytes(data).split(b"\n")
            i = rng.randrange(len(lines))
            lines.insert(i, (b"  " * rng.randrange(3)) + lines[i])
            data = bytearray(b"\n".join(lines))
    return bytes(data[:8192])


class Harness:
    def __init__(self, artifacts):
        self.dir = tempfile.mkdtemp(prefix="kite_fuzz_deploy_")
        for n in ("m.param", "m.bin", "m.pb", "m.prototxt", "m.caffemodel", "m.onnx", "a.npy", "b.npy"):
            with open(os.path.join(self.dir, n), "wb") as f:
                f.write(n.encode())
        self.path = os.path.join(self.dir, "deploy.yml")
        self.artifacts = artifacts
        self.findings = 0
        self.execs = 0
        fmt = {"dir": self.dir, "sha_pb": kitedeploy.sha256(os.path.join(self.dir, "m.pb")),
               "sha_cm": kitedeploy.sha256(os.path.join(self.dir, "m.caffemodel")).upper()}
        self.seeds = []
        for s in SEEDS:
            for k, v in fmt.items():
                s = s.replace("{" + k + "}", v)
            self.seeds.append(s.encode())
        for s in self.seeds:  # the seeds are valid
            with open(self.path, "wb") as f:
                f.write(s)
            kitedeploy.load_config(self.path)

    def run_one(self, data, name_hint="input"):
        self.execs += 1
        with open(self.path, "wb") as f:
            f.write(data)
        try:
            kitedeploy.load_config(self.path)
            return True
        except kitedeploy.DeployError as e:
            msg = str(e)
            if not msg or "\n" in msg.strip():
                return self.finding(data, "DeployError without a one-line message: %r" % msg)
            return False
        except Exception:
            return self.finding(data, traceback.format_exc())

    def finding(self, data, why):
        self.findings += 1
        os.makedirs(self.artifacts, exist_ok=True)
        p = os.path.join(self.artifacts, "deploy-crash-%d.yml" % self.findings)
        with open(p, "wb") as f:
            f.write(data)
        print("FINDING (saved %s):\n%s" % (p, why.strip()[-1500:]))
        return False

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def reader_lines():
    """the executable lines of the reader's functions"""
    lines = set()
    for fn in READER:
        code = getattr(kitedeploy, fn).__code__
        stack = [code]
        while stack:
            c = stack.pop()
            lines.update(l for _, _, l in c.co_lines() if l is not None and l != c.co_firstlineno)
            stack.extend(k for k in c.co_consts if hasattr(k, "co_lines"))
    return lines


def coverage_of(h, inputs):
    target = kitedeploy.load_config.__code__.co_filename
    hit = set()

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != target:
            return None
        if event == "line":
            hit.add(frame.f_lineno)
        return tracer

    sys.settrace(tracer)
    try:
        for d in inputs:
            h.run_one(d)
    finally:
        sys.settrace(None)
    want = reader_lines()
    return len(hit & want), len(want)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20000)
    ap.add_argument("--seconds", type=float, default=0, help="stop after this long (0: after --runs)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--corpus", help="keep inputs that raise a new error message or load here (and start from them)")
    ap.add_argument("--artifacts", default="fuzz-deploy-artifacts")
    ap.add_argument("--replay", nargs="*")
    ap.add_argument("--coverage", action="store_true")
    a = ap.parse_args()
    h = Harness(a.artifacts)
    try:
        if a.replay is not None:
            files = []
            for p in a.replay:
                files += [os.path.join(p, n) for n in sorted(os.listdir(p))] if os.path.isdir(p) else [p]
            inputs = [open(f, "rb").read() for f in files]
            for d in inputs:
                h.run_one(d)
            print("replayed %d inputs: %d findings" % (len(inputs), h.findings))
            if a.coverage:
                got, total = coverage_of(h, h.seeds + inputs)
                print("line coverage of the reader (%s): %d / %d = %.1f%%" % (", ".join(READER), got, total,
                                                                              100.0 * got / total))
            return 1 if h.findings else 0
        rng = random.Random(a.seed)
        corpus = list(h.seeds)
        seen = set()
        if a.corpus:
            os.makedirs(a.corpus, exist_ok=True)
            corpus += [open(os.path.join(a.corpus, n), "rb").read() for n in sorted(os.listdir(a.corpus))]
        t0 = time.time()
        while h.execs < a.runs and (a.seconds <= 0 or time.time() - t0 < a.seconds):
            base = rng.choice(corpus)
            data = None
            if rng.random() < 0.4:
                s = structural(rng, base.decode("utf-8", "replace"))
                data = s.encode("utf-8", "surrogatepass") if s is not None else None
            if data is None:
                data = bytewise(rng, base, corpus)
            try:
                ok = h.run_one(data)
                key = "ok" if ok else None
            except SystemExit:
                raise
            if key is None:
                try:
                    kitedeploy.load_config(h.path)
                except kitedeploy.DeployError as e:
                    # a new kind of message (its text before any quoted value) keeps the input
                    key = str(e).split("'")[0] + "|" + str(e).split(":")[1 if ":" in str(e) else 0][:40]
                except Exception:
                    key = None
            if key is not None and key not in seen and len(corpus) < 5000:
                seen.add(key)
                corpus.append(data)
                if a.corpus:
                    with open(os.path.join(a.corpus, "in-%06d.yml" % len(corpus)), "wb") as f:
                        f.write(data)
        dt = time.time() - t0
        print("fuzz_deploy: %d executions in %.1f s (%.0f/s), corpus %d, findings %d" %
              (h.execs, dt, h.execs / max(dt, 1e-9), len(corpus), h.findings))
        if a.coverage:
            got, total = coverage_of(h, corpus)
            print("line coverage of the reader (%s): %d / %d = %.1f%%" % (", ".join(READER), got, total,
                                                                          100.0 * got / total))
        return 1 if h.findings else 0
    finally:
        h.close()


if __name__ == "__main__":
    sys.exit(main())
