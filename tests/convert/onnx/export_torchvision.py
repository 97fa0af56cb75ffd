#!/usr/bin/env python3
"""Real PyTorch exports through onnx2kite, where torch and torchvision exist
(they are not installed in CI: PyPI's torch pulls gigabytes of CUDA wheels;
CI checks the same architectures rebuilt with onnx.helper instead).

For each torchvision architecture: random weights (fixed seed), eval mode,
torch.onnx.export at the given opset, onnxruntime's output as the reference,
onnx2kite + kiterun on the same input, max abs diff relative to the output
range. Prints a markdown table.

  python3 tests/convert/onnx/export_torchvision.py --onnx2kite build/tools/onnx/onnx2kite \
      --kiterun build/tools/kiterun --out /tmp/tv [--opset 17] [--models resnet18 ...]
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np

MODELS = ["resnet18", "mobilenet_v2", "mobilenet_v3_small", "shufflenet_v2_x1_0",
          "squeezenet1_1", "efficientnet_b0", "vit_b_16"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnx2kite", required=True)
    ap.add_argument("--kiterun", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--models", nargs="*", default=MODELS)
    ap.add_argument("--threads", type=int, default=4)
    args = ap.parse_args()

    import torch
    import torchvision
    import onnxruntime as ort

    os.makedirs(args.out, exist_ok=True)
    rows = []
    failed = 0
    for name in args.models:
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None).eval()
        # give BatchNorm non-trivial statistics so folding is exercised
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
        x = torch.rand(1, 3, 224, 224)
        onnx_path = os.path.join(args.out, name + ".onnx")
        torch.onnx.export(model, x, onnx_path, opset_version=args.opset, input_names=["input"],
                          output_names=["output"], dynamo=False)
        sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
        ref = sess.run(None, {"input": x.numpy()})[0].reshape(-1)

        param = os.path.join(args.out, name + ".param")
        binf = os.path.join(args.out, name + ".bin")
        t0 = time.time()
        conv = subprocess.run([args.onnx2kite, onnx_path, param, binf], capture_output=True, text=True)
        conv_s = time.time() - t0
        if conv.returncode != 0:
            rows.append((name, "-", "%.2f" % conv_s, "conversion failed: " + (conv.stderr or conv.stdout).strip()[-200:]))
            failed += 1
            continue
        ops = {}
        with open(param) as f:
            lines = f.read().split("\n")[2:]
        for line in lines:
            if line.strip():
                t = line.split()[0]
                ops[t] = ops.get(t, 0) + 1
        inp = os.path.join(args.out, name + "_in.npy")
        np.save(inp, x.numpy()[0])
        save = os.path.join(args.out, name + "_kite")
        os.makedirs(save, exist_ok=True)
        run = subprocess.run([args.kiterun, param, binf, "input=input:" + inp, "output=output",
                              "threads=%d" % args.threads, "save=" + save], capture_output=True, text=True)
        if run.returncode != 0:
            rows.append((name, " ".join("%s:%d" % kv for kv in sorted(ops.items())), "%.2f" % conv_s,
                         "kiterun failed: " + (run.stderr or run.stdout).strip()[-200:]))
            failed += 1
            continue
        got = np.load(os.path.join(save, "output.npy")).reshape(-1)
        rng = float(ref.max() - ref.min()) or 1.0
        diff = float(np.abs(got - ref).max()) if got.size == ref.size else float("inf")
        ok = diff <= 1e-4 * rng
        failed += 0 if ok else 1
        rows.append((name, " ".join("%s:%d" % kv for kv in sorted(ops.items())), "%.2f" % conv_s,
                     "%.3g (%.2g of range) %s" % (diff, diff / rng, "ok" if ok else "FAIL")))
    print("| model | kite ops | conversion s | max abs diff vs onnxruntime |")
    print("|---|---|---:|---|")
    for r in rows:
        print("| %s | %s | %s | %s |" % r)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
