#!/usr/bin/env python3
"""Top-5 ImageNet classes of an image with kite's Python module.

    python3 python/examples/classify.py ../shared/models/cat.jpg [--model build/models/efficientnet_lite0]

The model is EfficientNet-Lite0 as examples/models/make_efficientnet_lite0.py
makes it (tools/setup_and_bench.sh writes it to build/models/). Preprocessing
as examples/classify.cpp: RGB, the whole image resized to 224 x 224
(bilinear), (pixel - mean) / std with torchvision's ImageNet constants.
Images are read with Pillow (pip install pillow).
"""
import argparse
import os
import sys

import numpy as np

import kite

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
NORM = [1 / (0.229 * 255), 1 / (0.224 * 255), 1 / (0.225 * 255)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("image")
    ap.add_argument("--model", default=os.path.join(REPO, "build", "models", "efficientnet_lite0"), help="PREFIX of .param/.bin")
    ap.add_argument("--labels", help="class names, one a line (default: imagenet_labels.txt beside the model)")
    ap.add_argument("--threads", type=int, default=kite.cpu_count())
    args = ap.parse_args()
    from PIL import Image

    rgb = np.asarray(Image.open(args.image).convert("RGB"))  # H x W x 3 uint8
    net = kite.Net()
    net.opt.num_threads = args.threads
    net.load_param(args.model + ".param")
    net.load_model(args.model + ".bin")

    x = kite.Mat.from_pixels_resize(rgb, kite.Mat.PixelType.RGB, 224, 224)
    x.substract_mean_normalize(MEAN, NORM)
    with net.create_extractor() as ex:
        ex.input("input", x)
        logits = np.asarray(ex.extract("logits")).reshape(-1)
    prob = np.exp(logits - logits.max())
    prob /= prob.sum()

    labels_path = args.labels or os.path.join(os.path.dirname(args.model), "imagenet_labels.txt")
    labels = open(labels_path, encoding="utf-8").read().splitlines() if os.path.exists(labels_path) else []
    for i in np.argsort(-prob)[:5]:
        print("%4d  %.5f  %s" % (i, prob[i], labels[i] if i < len(labels) else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
