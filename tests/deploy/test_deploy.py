#!/usr/bin/env python3
"""kitedeploy end to end, in one Python process (one TensorFlow import):

 1. fixtures: a tiny Caffe, ONNX and TensorFlow model (make_fixtures.py)
 2. a deployment file with the three (one on cpu+gpu: cpu and Vulkan),
    obfuscated, weights embedded:
    convert, validate (every line PASS), build (host), run through the
    generated library == kiterun on the converted files; `strings` of the
    library holds no original layer / blob name but the inputs and outputs;
    stripped size overhead of the embedded models <= fp16 weights + 1 MB
 3. the same models with weights from a file (embed_model_data 0) and as
    build_type file: same outputs
 4. the arm64-v8a build of the generated library compiles (aarch64 objects)
 5. bad deployment files: wrong checksum, unknown key, missing file, bad
    shape, http path: exit 1, one message naming the key and the model, the
    previous output left as it was

  test_deploy.py --build-dir KITE_BUILD --work DIR [--skip-tensorflow]
Exit 0 pass, 1 fail, 77 skip (a framework missing outside CI).
"""
import argparse
import contextlib
import hashlib
import io
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools", "deploy"))
sys.path.insert(0, HERE)
import kitedeploy  # noqa: E402
import make_fixtures  # noqa: E402

FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    sys.stdout.flush()
    if not cond:
        FAILS.append(what)
    return cond


def sha(p):
    return hashlib.sha256(open(p, "rb").read()).hexdigest()


def deploy(argv):
    """kitedeploy.main in-process: (exit status, stdout, stderr)"""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = kitedeploy.main(argv)
    return rc, out.getvalue(), err.getvalue()


def yml(fx, embed=1, build_type="code", obfuscate=1, tf=True, extra_model="", top_extra="", caffe_sum=None):
    s = """library_name: deploytest
target_abis: [host]
embed_model_data: %d
build_type: %s
linkshared: 0
%smodels:
  tinycaffe:
    platform: caffe
    model_file_path: %s/tiny.prototxt
    model_sha256_checksum: %s
    weight_file_path: file://%s/tiny.caffemodel
    weight_sha256_checksum: %s
    subgraphs:
      - input_tensors: data
        input_shapes: 1,3,12,10
        output_tensors: prob
        output_shapes: 1,7
        input_ranges: -1,1
    runtime: cpu+gpu
    data_type: fp32_fp32
    obfuscate: %d
%s  tinyonnx:
    platform: onnx
    model_file_path: %s/tiny.onnx
    model_sha256_checksum: %s
    subgraphs:
      - input_tensors: input
        input_shapes: 1,3,16,16
        output_tensors: output
        output_shapes: 1,5
    runtime: cpu
    data_type: fp16_fp32
    obfuscate: %d
    winograd: 1
    limit_opencl_kernel_time: 1
""" % (embed, build_type, top_extra, fx, caffe_sum or sha(fx + "/tiny.prototxt"), fx, sha(fx + "/tiny.caffemodel"),
       obfuscate, extra_model, fx, sha(fx + "/tiny.onnx"), obfuscate)
    if tf:
        s += """  tinytf:
    platform: tensorflow
    model_file_path: %s/tiny.pb
    model_sha256_checksum: %s
    subgraphs:
      - input_tensors: x
        input_shapes: 1,10,12,2
        output_tensors: tf_out
        output_shapes: 1,4
        input_ranges: [[0, 2]]
    runtime: cpu
    obfuscate: %d
""" % (fx, sha(fx + "/tiny.pb"), obfuscate)
    return s


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def outputs_equal(cfgpath, out, build_dir, what):
    """the generated library's runner against kiterun on the converted files"""
    cfg = kitedeploy.load_config(cfgpath)
    ns = argparse.Namespace(output=out, build_dir=build_dir)
    tools = kitedeploy.Tools(build_dir)
    for m in cfg["models"].values():
        xs = kitedeploy.make_inputs(m)
        ref, _ = kitedeploy.run_kite(ns, tools, m, xs, "cpu", os.path.join(out, "cmp", m["name"], "files"))
        got = kitedeploy.run_library(cfg, ns, m, xs, "cpu", os.path.join(out, "cmp", m["name"], "lib"))
        for o, a, b in zip(m["outputs"], ref, got):
            d = float(np.max(np.abs(a.reshape(-1) - b.reshape(-1)))) if a.size == b.size else float("inf")
            check(a.size == b.size and d <= 1e-6 * max(1.0, float(np.max(np.abs(a)))),
                  "%s: %s %s through create_net() = kiterun on the files (max diff %.3g)" % (what, m["name"], o, d))


def stripped_size(path, work):
    s = os.path.join(work, os.path.basename(path) + ".stripped")
    subprocess.run(["strip", "-o", s, path], check=True)
    return os.path.getsize(s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--skip-tensorflow", action="store_true")
    a = ap.parse_args()
    in_ci = os.environ.get("CI") == "true"
    try:
        import onnxruntime  # noqa: F401
        kitedeploy.load_cv2()
        if not a.skip_tensorflow:
            import tensorflow  # noqa: F401
    except (ImportError, kitedeploy.DeployError) as e:
        print("skip: %s" % e)
        return 1 if in_ci else 77
    tf = not a.skip_tensorflow
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    fx = os.path.join(work, "fixtures")
    os.makedirs(fx)
    make_fixtures.make_caffe(fx)
    make_fixtures.make_onnx(fx)
    if tf:
        make_fixtures.make_tensorflow(fx)
    B = ["--build-dir", a.build_dir]

    # ---- 2. embedded, obfuscated
    cfg1 = write(os.path.join(work, "embed.yml"), yml(fx, embed=1, tf=tf))
    out1 = os.path.join(work, "out_embed")
    rc, so, se = deploy(["convert", "--config", cfg1, "--output", out1] + B)
    check(rc == 0, "convert (%s)" % (se.strip() or "ok"))
    rc, so, se = deploy(["validate", "--config", cfg1, "--output", out1] + B)
    lines = [l for l in so.splitlines() if l.startswith("validate ")]
    print(so.rstrip())
    nlines = (3 if tf else 2) + 1  # tinycaffe's runtime cpu+gpu: cpu and vulkan
    check(rc == 0 and len(lines) == nlines and all(l.endswith(" PASS") for l in lines),
          "validate: %d lines, all PASS (%s)" % (nlines, se.strip() or "exit %d" % rc))
    check(any(l.startswith("validate tinycaffe prob vulkan ") for l in lines), "validate: cpu+gpu runs on vulkan too")
    for l in lines:
        check(len(l.split()) == 7 and l.split()[4].startswith("cosine=") and l.split()[5].startswith("max_rel="),
              "validate line format: " + l)
    rc, so, se = deploy(["build", "--config", cfg1, "--output", out1] + B)
    check(rc == 0, "build, embedded weights (%s)" % (se.strip() or "ok"))
    lib1 = os.path.join(out1, "host", "libdeploytest.a")
    rc, so, se = deploy(["run", "--config", cfg1, "--output", out1, "--runtime", "cpu"] + B)
    runs = [l for l in so.splitlines() if l.startswith("run ")]
    check(rc == 0 and len(runs) == nlines - 1 and all("(generated library)" in l for l in runs),
          "run: each model through the generated library (%s)" % (se.strip() or runs))
    outputs_equal(cfg1, out1, a.build_dir, "embedded")
    # obfuscation: no fixture name but the inputs / outputs in the library
    strs = subprocess.run(["strings", "-a", lib1], capture_output=True, text=True).stdout
    leaked = sorted(set(w for w in strs.replace('"', " ").split() if make_fixtures.SECRET_PREFIX in w))
    check(not leaked, "obfuscate: no original layer/blob name in libdeploytest.a (found %s)" % leaked[:5])
    check("prob" in strs and "output" in strs, "obfuscate: the input/output names stay in the library")
    prm = open(os.path.join(out1, "models", "tinycaffe.param")).read()
    check("zqc_" not in prm and " data " in prm + " " and "prob" in prm, "obfuscate: the converted .param keeps only data/prob")

    # ---- 3. weights from a file; build_type file
    cfg2 = write(os.path.join(work, "file_weights.yml"), yml(fx, embed=0, tf=tf, obfuscate=0))
    out2 = os.path.join(work, "out_file_weights")
    rc, so, se = deploy(["convert", "--config", cfg2, "--output", out2] + B)
    rc2, so2, se2 = deploy(["build", "--config", cfg2, "--output", out2] + B)
    check(rc == 0 and rc2 == 0, "convert + build, weights from a file (%s)" % (se.strip() + se2.strip() or "ok"))
    outputs_equal(cfg2, out2, a.build_dir, "weights from a file")
    # the id headers compile and agree with the library header's indexes
    hdr = open(os.path.join(out2, "host", "deploytest.h")).read()
    for mname, blob in (("tinycaffe", "prob"), ("tinyonnx", "output")):
        idh = os.path.join(out2, "models", mname + ".id.h")
        tu = os.path.join(work, mname + "_id.cpp")
        write(tu, '#include "%s"\nstatic_assert(%s_param_id::BLOB_%s >= 0, "");\nint main() { return %s_param_id::BLOB_%s; }\n' % (
            idh, mname, blob, mname, blob))
        r = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", tu], capture_output=True, text=True)
        val = [l for l in open(idh) if "BLOB_%s " % blob in l]
        sect = hdr[hdr.index("namespace %s {" % mname):]
        want = sect[sect.index("output_indexes[] = {") + 20:].split("}")[0]
        check(r.returncode == 0 and val and val[0].split("=")[1].strip(" ;\n") == want.strip(),
              "%s.id.h compiles, BLOB_%s = the library's output index %s (%s)" % (mname, blob, want, r.stderr.strip()))

    # platform ncnn: the converted Caffe model's fp32 files, validated against pip ncnn
    try:
        import ncnn  # noqa: F401
        have_ncnn = True
    except ImportError:
        have_ncnn = False
    if have_ncnn:
        d = os.path.join(out2, "models")
        cfg5 = write(os.path.join(work, "ncnn.yml"), """library_name: ncnntest
models:
  tinyncnn:
    platform: ncnn
    model_file_path: %s/tinycaffe.param
    weight_file_path: %s/tinycaffe.bin
    subgraphs:
      - input_tensors: data
        input_shapes: 1,3,12,10
        output_tensors: prob
    runtime: cpu
""" % (d, d))
        out5 = os.path.join(work, "out_ncnn")
        rc, so, se = deploy(["convert", "--config", cfg5, "--output", out5] + B)
        rc2, so2, se2 = deploy(["validate", "--config", cfg5, "--output", out5] + B)
        check(rc == 0 and rc2 == 0 and so2.strip().startswith("validate tinyncnn prob cpu ") and so2.strip().endswith("PASS"),
              "platform ncnn validated against pip ncnn: %s %s" % (so2.strip(), (se + se2).strip()))
    else:
        check(not in_ci, "platform ncnn: the ncnn pip package is missing")

    cfg3 = write(os.path.join(work, "files.yml"), yml(fx, embed=0, build_type="file", tf=tf, obfuscate=0))
    out3 = os.path.join(work, "out_files")
    shutil.copytree(os.path.join(out2, "models"), os.path.join(out3, "models"))
    rc, so, se = deploy(["build", "--config", cfg3, "--output", out3] + B)
    check(rc == 0, "build, build_type file (%s)" % (se.strip() or "ok"))
    cfg = kitedeploy.load_config(cfg3)
    for m in cfg["models"].values():
        xs = kitedeploy.make_inputs(m)
        ns = argparse.Namespace(output=out3, build_dir=a.build_dir)
        # build_type file: the runner gets the folder with <model>.param.bin / .bin
        runner = os.path.join(out3, "host", "deploytest_run")
        d = os.path.join(out3, "cmp", m["name"])
        os.makedirs(d, exist_ok=True)
        np.save(os.path.join(d, "in.npy"), np.ascontiguousarray(kitedeploy.kite_input_array(m, xs[0])))
        r = subprocess.run([runner, m["name"], d, os.path.join(out3, "host"), os.path.join(d, "in.npy")], capture_output=True, text=True,
                           env=dict(os.environ, KITE_DEPLOY_RUNTIME="cpu"))
        ref, _ = kitedeploy.run_kite(ns, kitedeploy.Tools(a.build_dir), m, xs, "cpu", os.path.join(d, "files"))
        ok = r.returncode == 0 and np.array_equal(np.load(os.path.join(d, "output0.npy")).reshape(-1), ref[0].reshape(-1))
        check(ok, "build_type file: %s from .param.bin + .bin = kiterun (%s)" % (m["name"], r.stderr.strip()))

    # stripped binary overhead of the embedded models: the runner with the
    # weights in code against the one that reads them from files
    s_embed = stripped_size(os.path.join(out1, "host", "deploytest_run"), work)
    s_files = stripped_size(os.path.join(out3, "host", "deploytest_run"), work)
    wbytes = sum(os.path.getsize(os.path.join(out1, "models", m + ".bin")) for m in kitedeploy.load_config(cfg1)["models"])
    check(s_embed - s_files <= wbytes + (1 << 20),
          "size: embedded runner %d B stripped, file runner %d B: overhead %d B <= weights (as stored) %d B + 1 MB" % (
              s_embed, s_files, s_embed - s_files, wbytes))

    # ---- 4. arm64-v8a
    if shutil.which("aarch64-linux-gnu-g++"):
        rc, so, se = deploy(["build", "--config", cfg1, "--output", out1, "--target-abi", "arm64-v8a"] + B)
        lib = os.path.join(out1, "arm64-v8a", "libdeploytest.a")
        hdr = subprocess.run(["aarch64-linux-gnu-readelf", "-h", lib], capture_output=True, text=True).stdout if rc == 0 else ""
        check(rc == 0 and "AArch64" in hdr, "arm64-v8a build of the generated library (%s)" % (se.strip() or "ok"))
    else:
        check(not in_ci, "arm64-v8a: aarch64-linux-gnu-g++ missing")
    if shutil.which("arm-linux-gnueabihf-g++"):
        rc, so, se = deploy(["build", "--config", cfg1, "--output", out1, "--target-abi", "armeabi-v7a"] + B)
        lib = os.path.join(out1, "armeabi-v7a", "libdeploytest.a")
        hdr = subprocess.run(["arm-linux-gnueabihf-readelf", "-h", lib], capture_output=True, text=True).stdout if rc == 0 else ""
        check(rc == 0 and "Machine:                           ARM" in hdr, "armeabi-v7a build of the generated library (%s)" % (se.strip() or "ok"))

    # linkshared: lib<name>.so, the runner finds it beside itself
    cfg4 = write(os.path.join(work, "shared.yml"), yml(fx, embed=1, tf=tf).replace("linkshared: 0", "linkshared: 1"))
    rc, so, se = deploy(["build", "--config", cfg4, "--output", out1] + B)
    check(rc == 0 and os.path.isfile(os.path.join(out1, "host", "libdeploytest.so")), "build, linkshared (%s)" % (se.strip() or "ok"))
    if rc == 0:
        outputs_equal(cfg4, out1, a.build_dir, "linkshared")

    # benchmark: per-layer table and the whole-model time (benchkite)
    if kitedeploy.Tools(a.build_dir).find("benchkite", required=False):
        rc, so, se = deploy(["benchmark", "--config", cfg1, "--output", out1, "--model", "tinyonnx", "--loop", "2"] + B)
        check(rc == 0 and "per-layer time" in so and "avg =" in so, "benchmark: per-layer table and model time (%s)" % (se.strip() or "ok"))

    # ---- 5. bad deployment files
    before = sorted(os.listdir(os.path.join(out1, "models")))
    bad = [
        ("wrong checksum", yml(fx, tf=False, caffe_sum="0" * 64), ["tinycaffe", "model_sha256_checksum", "mismatch"]),
        ("unknown key", yml(fx, tf=False).replace("    winograd: 1\n", "    winograd: 1\n    quantize: 1\n"), ["tinyonnx", "unknown key 'quantize'"]),
        ("missing file", yml(fx, tf=False).replace("tiny.onnx\n", "nothere.onnx\n"), ["tinyonnx", "model_file_path", "does not exist"]),
        ("bad shape", yml(fx, tf=False).replace("1,3,16,16", "1,3,x,16"), ["tinyonnx", "input_shapes", "bad shape"]),
        ("shape count", yml(fx, tf=False).replace("1,3,16,16", "1,3,16,16:1,2"), ["tinyonnx", "input_shapes", "2 shapes for 1"]),
        ("http path", yml(fx, tf=False).replace("model_file_path: " + fx + "/tiny.onnx", "model_file_path: https://example.com/m.onnx"),
         ["tinyonnx", "model_file_path", "no network"]),
        ("unknown top key", yml(fx, tf=False, top_extra="foo: 1\n"), ["unknown key 'foo'"]),
        ("output not in the model", yml(fx, tf=False).replace("output_tensors: output", "output_tensors: nosuchblob"),
         ["tinyonnx", "output_tensors", "nosuchblob"]),
    ]
    for what, text, words in bad:
        p = write(os.path.join(work, "bad.yml"), text)
        rc, so, se = deploy(["convert", "--config", p, "--output", out1] + B)
        check(rc == 1 and all(w in se for w in words) and len(se.strip().splitlines()) == 1,
              "bad file (%s): exit %d, '%s'" % (what, rc, se.strip()))
        left = [f for f in os.listdir(out1) if ".tmp." in f]
        check(not left and sorted(os.listdir(os.path.join(out1, "models"))) == before,
              "bad file (%s): nothing half-written, the previous models untouched" % what)

    print("%d failures" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
