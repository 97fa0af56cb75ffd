#!/usr/bin/env python3
"""Mutation fuzzer of kitedeploy's deployment-file reader (issue 20: "the new
inputs other issues add: deployment file"). kitedeploy is Python, outside
libFuzzer's reach: this drives tools/deploy/kitedeploy.py's load_config_data (the
reader of load_config, given the file's bytes) with mutated deployment files,
byte-level (flips, inserts, deletes, splices of YAML tokens) and structural (a node
of the parsed document replaced by another type, a huge or negative number, NaN, a
deep nest, a remote or odd path), seeded by valid files whose model paths exist.
Every input must give a configuration or a DeployError (one line naming the key);
any other exception is a finding: the input is saved in --artifacts and the run
fails.

  python3 tests/fuzz/fuzz_deploy.py --runs 100000 [--seed 1] [--corpus DIR] [--artifacts DIR]
                                    [--jobs N] [--max-time S] [--loader c|python|mixed] [--differential]
                                    [--max-len BYTES (4096)]
  python3 tests/fuzz/fuzz_deploy.py --replay DIR_OR_FILE... [--coverage] [--no-libyaml]

kitedeploy reads YAML with libyaml (PyYAML's CSafeLoader) where PyYAML has it and
with PyYAML's pure-Python loader where it has not, or where libyaml's answer could
differ (kitedeploy.read_yaml): --loader picks the one fuzzed (c, the default where
libyaml is there; python, kitedeploy without libyaml; mixed, a quarter of the
inputs through the pure-Python loader). --differential reads every input with
both and counts a different result (configuration or message) as a finding;
--replay always does (each input through both loaders: they must agree).
--no-libyaml hides libyaml from kitedeploy's import (PyYAML built without it).

--jobs N runs N processes (seeds SEED, SEED+7919, ...; findings in
ARTIFACTS/job<i>; corpus files named per job), until --runs executions in all or
--max-time seconds; the executions are summed. --coverage (with --replay or after
a run) prints the line coverage of the reader (load_config, load_model_config and
their helpers) by the inputs (the seeds and the corpus, each through both
loaders), traced with sys.settrace. Exits 0 clean, 1 on a finding.
"""

import argparse
import concurrent.futures
from concurrent.futures.process import BrokenProcessPool
import json
import math
import mmap
import multiprocessing
import os
import random
import re
import shutil
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "deploy"))
import yaml  # noqa: E402

if "--no-libyaml" in sys.argv:
    # PyYAML built without libyaml (no CSafeLoader): kitedeploy's import-time fallback
    for _name in ("CSafeLoader", "CSafeDumper", "CLoader", "CDumper", "CBaseLoader", "CFullLoader",
                  "CUnsafeLoader", "CParser", "CEmitter"):
        if hasattr(yaml, _name):
            delattr(yaml, _name)
    yaml.__with_libyaml__ = False
import kitedeploy  # noqa: E402

READER = ("load_config", "load_config_data", "read_yaml", "_nest_within", "load_model_config", "parse_shapes", "flag",
          "local_path", "as_list", "show", "text", "sha256", "_CheckedConstructor.construct_object")
# the harness's own YAML (structural mutations): libyaml where PyYAML has it
HARNESS_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
HARNESS_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

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


def nodes(doc, limit=4096):
    """paths to the nodes of doc (each list or mapping once: aliases make a graph,
    maybe a cycle), at most limit"""
    paths = []
    seen = set()
    stack = [((), doc)]
    while stack and len(paths) < limit:
        path, x = stack.pop()
        paths.append(path)
        if isinstance(x, (dict, list)) and id(x) not in seen:
            seen.add(id(x))
            items = x.items() if isinstance(x, dict) else enumerate(x)
            stack.extend((path + (k,), v) for k, v in items)
    return paths


def structural(rng, text, max_len):
    if len(text) > 2 * max_len:
        return None
    try:
        doc = yaml.load(text, Loader=HARNESS_LOADER)
    except Exception:
        return None
    if not isinstance(doc, (dict, list)):
        return None
    # the paths of the unchanged document: one that a mutation removed fails below
    paths = nodes(doc)
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
    if "*" not in text and rng.random() < 0.5:
        # JSON is YAML (flow style) and json.dumps is several times faster than PyYAML's
        # representer; not where the document has aliases (JSON would expand them)
        try:
            out = json.dumps(doc, skipkeys=True, default=str, ensure_ascii=rng.random() < 0.5,
                             indent=rng.choice((None, None, 1, 2)))
            return out if len(out) <= max_len else None
        except (ValueError, TypeError, RecursionError):
            pass
    try:
        # libyaml's emitter mostly, PyYAML's sometimes (their styles differ)
        out = yaml.dump(doc, Dumper=HARNESS_DUMPER if rng.random() < 0.9 else yaml.SafeDumper,
                        allow_unicode=rng.random() < 0.5, default_flow_style=rng.random() < 0.3)
    except Exception:
        return None
    return out if len(out) <= max_len else None


def bytewise(rng, data, corpus, max_len):
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
    return bytes(data[:max_len])


class Harness:
    """load_config_data of inputs (no file per input: the reader gets the bytes and the
    name of a file in a folder holding the seeds' model files)"""

    def __init__(self, artifacts, loader="c", differential=False, seed=0):
        self.dir = tempfile.mkdtemp(prefix="kite_fuzz_deploy_")
        for n in ("m.param", "m.bin", "m.pb", "m.prototxt", "m.caffemodel", "m.onnx", "a.npy", "b.npy"):
            with open(os.path.join(self.dir, n), "wb") as f:
                f.write(n.encode())
        self.path = os.path.join(self.dir, "deploy.yml")
        self.artifacts = artifacts
        self.findings = 0
        self.execs = 0
        self.by_loader = {"c": 0, "python": 0}
        self.differential = differential
        self.c_loader = kitedeploy.CSafeLoader
        if loader in ("c", "mixed") and self.c_loader is None:
            print("fuzz_deploy: PyYAML has no libyaml here: --loader %s fuzzes the pure-Python loader only" % loader)
            loader = "python"
        self.loader = loader
        self.rng = random.Random(seed)
        self.last = None
        fmt = {"dir": self.dir, "sha_pb": kitedeploy.sha256(os.path.join(self.dir, "m.pb")),
               "sha_cm": kitedeploy.sha256(os.path.join(self.dir, "m.caffemodel")).upper()}
        self.seeds = []
        for s in SEEDS:
            for k, v in fmt.items():
                s = s.replace("{" + k + "}", v)
            self.seeds.append(s.encode())
        for s in self.seeds:  # the seeds are valid, read from a file by load_config, with either loader
            with open(self.path, "wb") as f:
                f.write(s)
            for c in self.loaders():
                kitedeploy.YAML_C = c
                kitedeploy.load_config(self.path)
        os.remove(self.path)

    def loaders(self):
        return [self.c_loader, None] if self.c_loader is not None else [None]

    def outcome(self, data, c_loader):
        """('ok', configuration) or ('error', message) of one loader; other exceptions pass"""
        kitedeploy.YAML_C = c_loader
        try:
            return "ok", kitedeploy.load_config_data(data, self.path)
        except kitedeploy.DeployError as e:
            return "error", str(e)

    def run_one(self, data, both=False):
        """(loaded, message): message None where it loaded; both: every loader (else
        --loader's), the results compared"""
        self.execs += 1
        if self.last is not None:
            self.last[:4] = len(data).to_bytes(4, "little")
            self.last[4:4 + len(data)] = data
        if both or self.differential:
            loaders = self.loaders()
        elif self.loader == "python" or (self.loader == "mixed" and self.rng.random() < 0.25):
            loaders = [None]
        else:
            loaders = [self.c_loader]
        results = []
        for c in loaders:
            self.by_loader["c" if c is not None else "python"] += 1
            try:
                results.append(self.outcome(data, c))
            except Exception:
                self.finding(data, ("libyaml" if c is not None else "pure-Python loader") + ": " +
                             traceback.format_exc())
                return False, None
        kind, what = results[0]
        if kind == "error" and (not what or "\n" in what.strip()):
            self.finding(data, "DeployError without a one-line message: %r" % what)
            return False, None
        if len(results) == 2 and repr(results[0]) != repr(results[1]):
            self.finding(data, "libyaml and the pure-Python loader differ:\n  libyaml: %s\n  python:  %s" %
                         (kitedeploy.show(results[0], 600), kitedeploy.show(results[1], 600)))
            return False, None
        return kind == "ok", (what if kind == "error" else None)

    def portable(self, data):
        """an input as saved: this run's folder of model files written {dir}, as in SEEDS"""
        return data.replace(self.dir.encode(), b"{dir}")

    def local(self, data):
        """a saved input for this run: {dir} is this run's folder of model files"""
        return data.replace(b"{dir}", self.dir.encode())

    def finding(self, data, why):
        self.findings += 1
        os.makedirs(self.artifacts, exist_ok=True)
        p = os.path.join(self.artifacts, "deploy-crash-%d.yml" % self.findings)
        with open(p, "wb") as f:
            f.write(self.portable(data))
        print("FINDING (saved %s):\n%s" % (p, why.strip()[-1500:]))
        sys.stdout.flush()

    def keep_last_input(self, path, max_len):
        """each input is copied into path (a memory-mapped file: 4 bytes of length, then
        the input) before it runs, so that the one that killed the process is known"""
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(bytes(4 + max(max_len, 65536)))
        with open(path, "r+b") as f:
            self.last = mmap.mmap(f.fileno(), 0)
        self.last_path = path

    def close(self):
        if self.last is not None:
            self.last.close()
            os.remove(self.last_path)
        kitedeploy.YAML_C = kitedeploy.CSafeLoader
        shutil.rmtree(self.dir, ignore_errors=True)


def reader_lines():
    """the executable lines of the reader's functions"""
    lines = set()
    for fn in READER:
        obj = kitedeploy
        for part in fn.split("."):
            obj = getattr(obj, part)
        code = obj.__code__
        stack = [code]
        while stack:
            c = stack.pop()
            lines.update(l for _, _, l in c.co_lines() if l is not None and l != c.co_firstlineno)
            stack.extend(k for k in c.co_consts if hasattr(k, "co_lines"))
    return lines


def coverage_hits(h, inputs):
    """the lines of kitedeploy.py run by the inputs (each through both loaders) and by
    load_config on a file and on a missing file"""
    target = kitedeploy.load_config.__code__.co_filename
    hit = set()

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != target:
            return None
        if event == "line":
            hit.add(frame.f_lineno)
        return tracer

    with open(h.path, "wb") as f:
        f.write(h.seeds[0])
    sys.settrace(tracer)
    try:
        kitedeploy.load_config(h.path)
        try:
            kitedeploy.load_config(os.path.join(h.dir, "no-such-file.yml"))
        except kitedeploy.DeployError:
            pass
        for d in inputs:
            # again for each input: a RecursionError in the tracer (a deep nest) turns tracing off
            sys.settrace(tracer)
            h.run_one(d, both=True)
    finally:
        sys.settrace(None)
    os.remove(h.path)
    return hit


def coverage_line(hit):
    want = reader_lines()
    got = len(hit & want)
    return "line coverage of the reader (%s): %d / %d = %.1f%%" % (", ".join(READER), got, len(want),
                                                                   100.0 * got / len(want))


def corpus_key(msg):
    """a new kind of message (its text without quoted values and numbers) keeps the input"""
    if msg is None:
        return "ok"
    key = re.sub(r"#x[0-9a-fA-F]+|[0-9]+", "0", re.sub(r"'[^']*'|\"[^\"]*\"", "''", msg))
    # a YAML error quotes the input's line (between the mark and a caret): not part of its kind
    return re.sub(r"(line 0, column 0:|position 0);.*?; \^", "@", key)[:160]


def fuzz(job, a):
    """one process's run: a dict of its counts (and its corpus, for --coverage)"""
    seed = a.seed + 7919 * job
    artifacts = os.path.join(a.artifacts, "job%d" % job) if a.jobs > 1 else a.artifacts
    h = Harness(artifacts, a.loader, a.differential, seed)
    h.keep_last_input(last_input_path(a, job), a.max_len)
    try:
        rng = random.Random(seed)
        corpus = list(h.seeds)
        seen = set()
        if a.corpus:
            os.makedirs(a.corpus, exist_ok=True)
            corpus += [h.local(open(os.path.join(a.corpus, n), "rb").read()) for n in sorted(os.listdir(a.corpus))]
        runs = (a.runs + a.jobs - 1) // a.jobs
        t0 = time.time()
        next_report = t0 + a.report_every
        while h.execs < runs:
            if h.execs % 64 == 0:
                now = time.time()
                if a.seconds > 0 and now - t0 >= a.seconds:
                    break
                if a.report_every > 0 and now >= next_report:
                    print("fuzz_deploy job %d: %d executions, %.0f/s" % (job, h.execs, h.execs / (now - t0)))
                    sys.stdout.flush()
                    next_report = now + a.report_every
            base = rng.choice(corpus)
            data = None
            if rng.random() < 0.4:
                s = structural(rng, base.decode("utf-8", "replace"), a.max_len)
                data = s.encode("utf-8", "surrogatepass") if s is not None else None
            if data is None:
                data = bytewise(rng, base, corpus, a.max_len)
            findings = h.findings
            _, msg = h.run_one(data)
            if h.findings != findings:
                continue
            key = corpus_key(msg)
            if key not in seen and len(corpus) < 5000:
                seen.add(key)
                corpus.append(data)
                if a.corpus:
                    with open(os.path.join(a.corpus, "j%02d-in-%06d.yml" % (job, len(corpus))), "wb") as f:
                        f.write(h.portable(data))
        dt = time.time() - t0
        return {"job": job, "seed": seed, "execs": h.execs, "seconds": dt, "corpus": len(corpus),
                "findings": h.findings, "loader": h.loader, "c": h.by_loader["c"], "python": h.by_loader["python"],
                "hits": coverage_hits(h, corpus) if a.coverage else set()}
    finally:
        h.close()


def last_input_path(a, job):
    return os.path.join(a.artifacts, "last-input-job%d.bin" % job)


def save_last_inputs(a):
    """a job process died (a crash in libyaml or the interpreter): each job's last input
    saved as a finding"""
    saved = []
    for job in range(a.jobs):
        p = last_input_path(a, job)
        if os.path.exists(p):
            with open(p, "rb") as f:
                raw = f.read()
            n = int.from_bytes(raw[:4], "little")
            out = os.path.join(a.artifacts, "deploy-died-job%d.yml" % job)
            with open(out, "wb") as f:
                f.write(raw[4:4 + n])
            os.remove(p)
            saved.append(out)
    return saved


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20000, help="executions in all (over every job)")
    ap.add_argument("--seconds", "--max-time", dest="seconds", type=float, default=0,
                    help="stop after this long (0: after --runs)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="processes (seeds SEED + 7919 * job)")
    ap.add_argument("--loader", choices=("c", "python", "mixed"), default="c",
                    help="the YAML loader fuzzed: libyaml (kitedeploy's where PyYAML has it), PyYAML's pure-Python "
                         "one (kitedeploy without libyaml), or a quarter of the inputs through the pure-Python one")
    ap.add_argument("--no-libyaml", action="store_true",
                    help="hide PyYAML's libyaml before kitedeploy is imported (kitedeploy where PyYAML has none)")
    ap.add_argument("--differential", action="store_true",
                    help="every input through both loaders; a different result is a finding")
    ap.add_argument("--max-len", type=int, default=4096,
                    help="longest input made, in bytes (libFuzzer's -max_len; the deploy files are 1-2 kB)")
    ap.add_argument("--report-every", type=float, default=60, help="seconds between progress lines (0: none)")
    ap.add_argument("--corpus", help="keep inputs that raise a new error message or load here (and start from them)")
    ap.add_argument("--artifacts", default="fuzz-deploy-artifacts")
    ap.add_argument("--replay", nargs="*")
    ap.add_argument("--coverage", action="store_true")
    a = ap.parse_args()
    if a.replay is not None:
        h = Harness(a.artifacts, a.loader, a.differential)
        try:
            files = []
            for p in a.replay:
                files += [os.path.join(p, n) for n in sorted(os.listdir(p))] if os.path.isdir(p) else [p]
            inputs = [h.local(open(f, "rb").read()) for f in files]
            for d in inputs:
                h.run_one(d, both=True)
            print("replayed %d inputs through %s: %d findings" %
                  (len(inputs), "libyaml and the pure-Python loader" if h.c_loader else "the pure-Python loader",
                   h.findings))
            if a.coverage:
                print(coverage_line(coverage_hits(h, h.seeds + inputs)))
            return 1 if h.findings else 0
        finally:
            h.close()
    t0 = time.time()
    os.makedirs(a.artifacts, exist_ok=True)
    if a.jobs > 1:
        # a job killed by a signal breaks the pool (where multiprocessing.Pool would wait forever)
        with concurrent.futures.ProcessPoolExecutor(a.jobs, mp_context=multiprocessing.get_context("fork")) as ex:
            futures = [ex.submit(fuzz, j, a) for j in range(a.jobs)]
            try:
                results = [f.result() for f in futures]
            except BrokenProcessPool:
                print("FINDING: a job process died; the input each job was running: %s" %
                      " ".join(save_last_inputs(a)))
                return 1
    else:
        # in one process: a crash leaves the input in ARTIFACTS/last-input-job0.bin
        # (4 bytes of length, then the input)
        results = [fuzz(0, a)]
    wall = time.time() - t0
    dt = max(r["seconds"] for r in results)  # fuzzing (without --coverage's replay)
    execs = sum(r["execs"] for r in results)
    findings = sum(r["findings"] for r in results)
    for r in results:
        print("fuzz_deploy job %d (seed %d): %d executions in %.1f s (%.0f/s; libyaml %d, pure-Python %d), "
              "corpus %d, findings %d" % (r["job"], r["seed"], r["execs"], r["seconds"],
                                          r["execs"] / max(r["seconds"], 1e-9), r["c"], r["python"], r["corpus"],
                                          r["findings"]))
    print("fuzz_deploy: %d executions in %.1f s (%.0f/s) over %d job%s, loader %s%s, findings %d" %
          (execs, dt, execs / max(dt, 1e-9), a.jobs, "s" if a.jobs > 1 else "", results[0]["loader"],
           " (differential)" if a.differential else "", findings))
    if a.coverage:  # each job traced its own corpus
        print("fuzz_deploy: %.1f s in all with the coverage replay" % wall)
        hit = set()
        for r in results:
            hit |= r["hits"]
        print(coverage_line(hit))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
