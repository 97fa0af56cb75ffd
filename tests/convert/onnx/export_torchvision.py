#!/usr/bin/env python3
"""Real PyTorch exports through onnx2kite, where torch and torchvision exist
(they are not installed in CI: PyPI's torch pulls gigabytes of CUDA wheels;
CI checks the same architectures rebuilt with onnx.helper instead).

For each torchvision architecture: random weights (fixed seed), eval mode,
torch.onnx.export at the given opset, onnxruntime's output as the reference,
onnx2kite + kiterun on the same input, max abs diff relative to the output
range (must be <= 1e-4), and the same after kiteoptimize (no BatchNorm may
stay behind a conv). Prints the per-model table of tests/convert/convert_report.py;
with KITE_CONVERT_RESULTS=FILE the rows are appended to FILE for
tests/convert/gen_report.py.

  python3 tests/convert/onnx/export_torchvision.py --onnx2kite build/tools/onnx/onnx2kite \
      --kiterun build/tools/kiterun --kiteoptimize build/tools/optimize/kiteoptimize \
      --out /tmp/tv [--opset 17] [--models resnet18 inception_v3@299 ...] [--second-size 160,192]

A model is any torchvision.models or torchvision.models.segmentation builder
(the segmentation ones without a pretrained backbone, their "out" map as the
output); NAME@S exports that one at SxS instead of --size.
benchmark/arch_bench.py reuses the converted files for its speed table.

With --second-size H,W (legacy exporter): the export keeps height and width
symbolic, onnx2kite converts it once at --size (or --convert-size H,W), and kite runs it at H,W too
against onnxruntime there. A model that onnx2kite reports as fixed to its
converted size ("runs only at the converted input size") is listed as such;
onnxruntime is tried at H,W to tell a source that fixes its size (ViT's
position embedding) from one that kite's conversion fixes (Swin's
shifted-window masks, folded at the converted size).
"""
import argparse
import collections
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import convert_report  # noqa: E402

MODELS = ["resnet18", "mobilenet_v2", "mobilenet_v3_small", "shufflenet_v2_x1_0",
          "squeezenet1_1", "efficientnet_b0", "vit_b_16"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnx2kite", required=True)
    ap.add_argument("--kiterun", required=True)
    ap.add_argument("--kiteoptimize", help="also check each model after kiteoptimize")
    ap.add_argument("--out", required=True)
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--models", nargs="*", default=MODELS)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--dynamo", action="store_true",
                    help="torch's current default exporter (torch.export + onnxscript, opset >= 18, local functions inlined by onnx2kite)")
    ap.add_argument("--size", type=int, default=224, help="input height and width")
    ap.add_argument("--second-size", help="H,W: also run at this input size (symbolic height and width in the export)")
    ap.add_argument("--convert-size", help="H,W: with --second-size, convert (and compare first) at this size instead of --size "
                    "(swin_t exported at 224 has a last stage of one window there: convert at 448,448)")
    args = ap.parse_args()
    second = tuple(int(v) for v in args.second_size.split(",")) if args.second_size else None
    conv_hw = tuple(int(v) for v in args.convert_size.split(",")) if args.convert_size and second else (args.size, args.size)

    import onnx
    import onnxruntime as ort
    import torch
    import torchvision

    os.makedirs(args.out, exist_ok=True)
    table = convert_report.Table("onnx from torch.onnx.export", "onnxruntime")
    failed = 0
    for spec in args.models:
        name, _, own_size = spec.partition("@")
        size = int(own_size) if own_size else args.size
        torch.manual_seed(0)
        model = build_model(torch, torchvision, name)
        # torchvision zero-initialises some tensors (vit_b_16's classifier
        # head): a zero output would make the comparison prove nothing
        with torch.no_grad():
            for p in model.parameters():
                if p.dim() >= 1 and not p.any():
                    p.normal_(0, 0.02)
        # give BatchNorm non-trivial statistics so folding is exercised
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
        x = torch.rand(1, 3, size, size)
        onnx_path = os.path.join(args.out, name + (".dynamo" if args.dynamo else "") + ".onnx")
        if args.dynamo:
            prog = torch.onnx.export(model, (x,), None, opset_version=max(args.opset, 18), input_names=["input"],
                                     output_names=["output"], dynamo=True, verbose=False)
            prog.save(onnx_path)
        else:
            torch.onnx.export(model, x, onnx_path, opset_version=args.opset, input_names=["input"],
                              output_names=["output"], dynamo=False,
                              dynamic_axes={"input": {2: "H", 3: "W"}} if second else None)
        ops = collections.Counter(n.op_type for n in onnx.load(onnx_path).graph.node)
        sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
        if conv_hw != (args.size, args.size) and not own_size:
            x = torch.rand(1, 3, conv_hw[0], conv_hw[1])
        ref = sess.run(None, {"input": x.numpy()})[0].reshape(-1)
        if float(ref.max() - ref.min()) == 0.0:
            print("FAIL %s: onnxruntime's output is constant; nothing to compare" % name)
            failed += 1
            continue
        inp = os.path.join(args.out, name + "_in.npy")
        np.save(inp, x.numpy()[0])

        param = os.path.join(args.out, name + ".param")
        binf = os.path.join(args.out, name + ".bin")
        shape_arg = ["inputshape=input:[1,3,%d,%d]" % conv_hw] if second and not args.dynamo else []
        conv, conv_s, conv_cpu, conv_mb = convert_report.run_timed_mem([args.onnx2kite, onnx_path, param, binf] + shape_arg)
        if conv.returncode != 0:
            print("FAIL %s: onnx2kite: %s" % (name, (conv.stderr or conv.stdout).strip()[-400:]))
            failed += 1
            continue
        err, diff = run_kite(args, param, binf, inp, ref, os.path.join(args.out, name + "_kite"))
        rng = float(ref.max() - ref.min())
        ok = err is None and diff <= 1e-4 * max(rng, 1e-30)
        print("%s %s: %d nodes, convert %.2f s (cpu %.2f s, peak %.0f MiB), %s" % (
            "ok  " if ok else "FAIL", name, sum(ops.values()), conv_s, conv_cpu, conv_mb,
            err or "max diff %.3g (range %.3g, %.2g of it)" % (diff, rng, diff / max(rng, 1e-30))), flush=True)
        opt = None
        if args.kiteoptimize and err is None:
            oparam, obin = os.path.join(args.out, name + ".opt.param"), os.path.join(args.out, name + ".opt.bin")
            r = subprocess.run([args.kiteoptimize, param, binf, oparam, obin], capture_output=True, text=True)
            if r.returncode != 0:
                print("FAIL %s: kiteoptimize: %s" % (name, r.stderr.strip()))
                ok = False
            else:
                oerr, odiff = run_kite(args, oparam, obin, inp, ref, os.path.join(args.out, name + "_opt"))
                ook = oerr is None and odiff <= 1e-4 * max(rng, 1e-30) and convert_report.bn_after_conv(oparam) == 0
                print("%s %s after kiteoptimize: %s" % ("ok  " if ook else "FAIL", name, oerr or "max diff %.3g" % odiff))
                opt = dict(param=oparam, diffs=[(odiff, rng)], ok=ook)
                ok = ok and ook
        if second and err is None:
            ok = check_second_size(args, name, sess, param, binf, opt, conv.stderr, second) and ok
        if err is None:
            table.add(name, sum(ops.values()), len(ops), param, (conv_s, conv_cpu), [(diff, rng)], ok, opt)
        failed += 0 if ok else 1
    table.print()
    return 1 if failed else 0


def build_model(torch, torchvision, name):
    """torchvision builder NAME, random weights, eval mode; segmentation models
    without a pretrained backbone (no download) and with their "out" map alone
    as the output (the dict's other entry, "aux", is off by default)"""
    if hasattr(torchvision.models, name):
        return getattr(torchvision.models, name)(weights=None).eval()
    if hasattr(torchvision.models.segmentation, name):
        seg = getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None).eval()

        class Out(torch.nn.Module):
            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, x):
                return self.m(x)["out"]
        return Out(seg).eval()
    raise SystemExit("no torchvision model %r" % name)


def check_second_size(args, name, sess, param, binf, opt, conv_stderr, hw):
    """the model converted at --size, run at hw against onnxruntime -> passed
    (a model onnx2kite reports as fixed passes: it is listed as such)"""
    x = torch_free_input(hw)
    try:
        ref = sess.run(None, {"input": x})[0].reshape(-1)
        ort_err = None
    except Exception as e:  # onnxruntime refuses the size: the source fixes it
        ref, ort_err = None, str(e).strip().splitlines()[0][:200]
    note = [ln for ln in conv_stderr.splitlines() if "runs only at the converted input size" in ln]
    if note:
        print("fixed %s at %dx%d: onnxruntime %s; %s" % (name, hw[0], hw[1], "fails too (" + ort_err + ")" if ort_err else "runs it",
                                                        note[0].split("note: ")[-1]), flush=True)
        # kite must refuse that size (onnx2kite marks the Input fixed), not compute it wrongly
        inp = os.path.join(args.out, name + "_in_hw.npy")
        np.save(inp, x[0])
        refused = True
        for what, p, b in [("", param, binf)] + ([("after kiteoptimize ", opt["param"], opt["param"][:-6] + ".bin")] if opt else []):
            err, _ = run_kite(args, p, b, inp, np.zeros(1, np.float32), os.path.join(args.out, name + "_kite_hw"), shapecheck=False)
            good = err is not None and "runs only at its declared input size" in err
            print("%s %s %sat %dx%d: %s" % ("ok  " if good else "FAIL", name, what, hw[0], hw[1],
                  "kite refuses it" if good else "kite did not refuse it: %s" % (err or "it ran")), flush=True)
            refused = refused and good
        return refused
    if ort_err:
        print("FAIL %s at %dx%d: onnxruntime fails (%s) but onnx2kite did not say the size is fixed" % (name, hw[0], hw[1], ort_err))
        return False
    inp = os.path.join(args.out, name + "_in_hw.npy")
    np.save(inp, x[0])
    ok = True
    rng = float(ref.max() - ref.min())
    for what, p, b in [("", param, binf)] + ([("after kiteoptimize ", opt["param"], opt["param"][:-6] + ".bin")] if opt else []):
        err, diff = run_kite(args, p, b, inp, ref, os.path.join(args.out, name + "_kite_hw"), shapecheck=False)
        good = err is None and diff <= 1e-4 * max(rng, 1e-30)
        print("%s %s %sat %dx%d (converted at %s): %s" % ("ok  " if good else "FAIL", name, what, hw[0], hw[1], args.convert_size or args.size,
              err or "max diff %.3g (range %.3g, %.2g of it)" % (diff, rng, diff / max(rng, 1e-30))), flush=True)
        ok = ok and good
    return ok


def torch_free_input(hw):
    return np.random.default_rng(7).uniform(0, 1, (1, 3, hw[0], hw[1])).astype(np.float32)


def run_kite(args, param, binf, inp, ref, save, shapecheck=True):
    """kiterun on one input -> (error or None, max abs diff against ref)"""
    os.makedirs(save, exist_ok=True)
    run = subprocess.run([args.kiterun, param, binf, "input=input:" + inp, "output=output",
                          "threads=%d" % args.threads, "save=" + save] + ([] if shapecheck else ["shapecheck=0"]),
                         capture_output=True, text=True)
    if run.returncode != 0:
        return "kiterun failed: " + (run.stderr or run.stdout).strip()[-400:], 0.0
    got = np.load(os.path.join(save, "output.npy")).reshape(-1)
    if got.size != ref.size:
        return "output size %d, onnxruntime %d" % (got.size, ref.size), 0.0
    return None, float(np.abs(got - ref).max())

if __name__ == "__main__":
    sys.exit(main())
