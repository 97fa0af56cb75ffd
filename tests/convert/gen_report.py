#!/usr/bin/env python3
"""Runs every converter fidelity check on its full model set and writes the
per-model table (ops, conversion time, max diff vs the original framework,
the same after kiteoptimize) into tools/convert/README.md.

    python3 tests/convert/gen_report.py --build build [--readme tools/convert/README.md]
        [--only caffe,tf,onnx] [--extra rows.jsonl ...] [--work DIR]

--build: a Release build with the tools (caffe2kite, tensorflow2kite,
onnx2kite, kiteoptimize, kiterun). Each script is the one ctest runs
(tests/convert/*), with KITE_CONVERT_RESULTS pointing at one JSON-lines file;
a framework whose python package is missing (tensorflow, onnx/onnxruntime,
OpenCV 4 with the Caffe importer; KITE_OPENCV4_PATH as in CI) is left out of
the table with a note. --extra adds rows recorded elsewhere, e.g. the real
torch.onnx.export models of tests/convert/onnx/export_torchvision.py run
where torch is installed:

    KITE_CONVERT_RESULTS=/tmp/tv.jsonl python3 tests/convert/onnx/export_torchvision.py ...
    python3 tests/convert/gen_report.py --build build --extra /tmp/tv.jsonl

The README section between the two `convert-report` markers is replaced
(it then holds only this run's rows: use --only for a quick check into
another --readme);
the rest of the file is kept. Exits non-zero when a check failed (the table
is still written, failing rows marked FAIL).
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import convert_report  # noqa: E402

BEGIN = "<!-- convert-report begin (tests/convert/gen_report.py writes this section) -->"
END = "<!-- convert-report end -->"
TF_APPS = ["MobileNet", "MobileNetV2", "MobileNetV3Small", "ResNet50", "InceptionV3", "EfficientNetB0", "DenseNet121"]
ONNX_MODELS = ["resnet18", "mobilenet_v2", "mobilenet_v3_small", "shufflenet_v2_x1_0", "squeezenet1_1",
               "efficientnet_b0", "vit_b_16_l2"]


def commands(build, work, shared):
    t = os.path.join(build, "tools")
    tool = {
        "caffe2kite": os.path.join(t, "caffe", "caffe2kite"),
        "tensorflow2kite": os.path.join(t, "tensorflow", "tensorflow2kite"),
        "onnx2kite": os.path.join(t, "onnx", "onnx2kite"),
        "kiteoptimize": os.path.join(t, "optimize", "kiteoptimize"),
        "kiterun": os.path.join(t, "kiterun"),
    }
    py = sys.executable
    d = HERE
    onnx_models = os.path.join(work, "onnx-models")
    return tool, {
        "caffe": [[py, os.path.join(d, "caffe", "caffe_fidelity.py"), "--caffe2kite", tool["caffe2kite"],
                   "--kiterun", tool["kiterun"], "--kiteoptimize", tool["kiteoptimize"],
                   "--work", os.path.join(work, "caffe"), "--shared-dir", shared]],
        "tf": [[py, os.path.join(d, "tf", "tf_fidelity.py"), "--tool", tool["tensorflow2kite"], "--kiterun", tool["kiterun"],
                "--kiteoptimize", tool["kiteoptimize"], "--work", os.path.join(work, "tf")] + TF_APPS],
        "onnx": [[py, os.path.join(d, "onnx", "make_models.py"), onnx_models] + ONNX_MODELS,
                 [py, os.path.join(d, "onnx", "run_models.py"), tool["onnx2kite"], tool["kiterun"], onnx_models,
                  os.path.join(work, "onnx-work"), "--optimize", tool["kiteoptimize"]] + ONNX_MODELS],
    }


def replace_section(path, body):
    text = open(path).read() if os.path.exists(path) else ""
    block = BEGIN + "\n" + body.rstrip("\n") + "\n" + END
    if BEGIN in text and END in text:
        a = text.index(BEGIN)
        b = text.index(END) + len(END)
        text = text[:a] + block + text[b:]
    else:
        text = text.rstrip("\n") + "\n\n## Fidelity per model\n\n" + block + "\n"
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--readme", default=os.path.join(ROOT, "tools", "convert", "README.md"))
    ap.add_argument("--only", default="caffe,tf,onnx")
    ap.add_argument("--extra", action="append", default=[])
    ap.add_argument("--work", default=None)
    ap.add_argument("--shared-dir", default=os.environ.get("KITE_SHARED_DIR", os.path.join(ROOT, "..", "shared")))
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    work = os.path.abspath(args.work or os.path.join(build, "convert-report"))
    os.makedirs(work, exist_ok=True)
    results = os.path.join(work, "rows.jsonl")
    if os.path.exists(results):
        os.remove(results)
    env = dict(os.environ, KITE_CONVERT_RESULTS=results)
    if "KITE_OPENCV4_PATH" not in env and os.path.isdir(os.path.join(build, "pydeps-opencv4")):
        env["KITE_OPENCV4_PATH"] = os.path.join(build, "pydeps-opencv4")
    tool, cmds = commands(build, work, os.path.abspath(args.shared_dir))
    for name, path in tool.items():
        if not os.access(path, os.X_OK):
            print("missing %s (build it: ninja -C %s %s)" % (path, args.build, name))
            return 2
    notes, failed = [], []
    for fw in args.only.split(","):
        t0 = time.time()
        for cmd in cmds[fw]:
            print("$ " + " ".join(cmd), flush=True)
            r = subprocess.run(cmd, env=env)
            if r.returncode == 77:
                notes.append("%s: skipped (python package missing)" % fw)
                break
            if r.returncode != 0:
                failed.append(fw)
                break
        print("%s: %.0f s" % (fw, time.time() - t0), flush=True)
    rows = []
    for path in [results] + args.extra:
        if os.path.exists(path):
            rows += [json.loads(line) for line in open(path) if line.strip()]
    body = [
        "Generated by `python3 tests/convert/gen_report.py --build build%s` on %s (the tree of the commit that"
        % ("".join(" --extra " + os.path.basename(e) for e in args.extra), datetime.date.today().isoformat()),
        "last changed this section, %s, %d CPUs;" % (platform.machine(), os.cpu_count() or 0),
        "conversion s: one run of the converter process, wall and CPU (user + system) seconds; the machine is",
        "shared, so wall times include waiting for other jobs and the CPU time is the steadier figure).",
        "Source nodes: the original graph's nodes (TensorFlow: without Const/Identity/NoOp/Placeholder; Caffe:",
        "layers without Input); kite layers / types: the written .param. Max diff: the output with the largest",
        "diff relative to its value range (tolerance 1e-4 of the range everywhere; SSD detections must be equal",
        "and are not in the column). kiteoptimize: layers after it, its diff / range against the same reference,",
        "BatchNorm layers still behind a convolution (must be 0). Weights are random (fixed seeds); the onnx rows",
        "without `torch.onnx.export` are the torchvision architectures written node by node as torch exports them",
        "(tests/convert/onnx/make_models.py); TensorFlow rows are tf.keras.applications at 64x64 (InceptionV3 75x75).",
        "",
    ]
    body += convert_report.markdown(rows)
    for n in notes:
        body += ["", "- " + n]
    if failed:
        body += ["", "- FAILED: " + ", ".join(failed)]
    replace_section(args.readme, "\n".join(body) + "\n")
    print("wrote %d rows to %s" % (len(rows), args.readme))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
