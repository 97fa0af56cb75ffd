#!/usr/bin/env python3
"""Run an SSD detector with kite's Python module and draw its boxes.

    python3 python/examples/detect.py ../shared/models/cat.jpg [--model build/models/mobilenet_ssd] [--out detections.png]

The default model is MobileNet-SSD (VOC's 20 classes) with the graph from
../shared/models/ncnn/mobilenet_ssd.param and, as tools/setup_and_bench.sh
makes it, seeded RANDOM weights: no trained detection weights are available
offline, so the boxes are meaningless. The pipeline is the real one; pass a
trained model with --model for real detections. Needs Pillow.
"""
import argparse
import os
import sys

import numpy as np

import kite

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VOC = ["background", "aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow",
       "diningtable", "dog", "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train", "tvmonitor"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("image")
    ap.add_argument("--model", default=os.path.join(REPO, "build", "models", "mobilenet_ssd"), help="PREFIX of .param/.bin")
    ap.add_argument("--out", default="detections.png")
    ap.add_argument("--threshold", type=float, default=0.25)
    args = ap.parse_args()
    from PIL import Image, ImageDraw

    img = Image.open(args.image).convert("RGB")
    w, h = img.size
    net = kite.Net()
    net.load_param(args.model + ".param")
    net.load_model(args.model + ".bin")
    x = kite.Mat.from_pixels_resize(np.asarray(img), kite.Mat.PixelType.RGB2BGR, 300, 300)
    x.substract_mean_normalize([127.5] * 3, [1 / 127.5] * 3)
    with net.create_extractor() as ex:
        ex.input("data", x)
        dets = np.asarray(ex.extract("output"))  # rows: label, score, x0, y0, x1, y1 (0..1)
    draw = ImageDraw.Draw(img)
    n = 0
    for label, score, x0, y0, x1, y1 in dets.reshape(-1, 6) if dets.size else []:
        if score < args.threshold:
            continue
        box = [x0 * w, y0 * h, x1 * w, y1 * h]
        name = VOC[int(label)] if 0 <= int(label) < len(VOC) else "?"
        print("%-12s %.3f  [%d, %d, %d, %d]" % (name, score, *box))
        draw.rectangle(box, outline=(230, 25, 75), width=3)
        draw.text((box[0] + 4, box[1] + 2), "%s %.2f" % (name, score), fill=(230, 25, 75))
        n += 1
    img.save(args.out)
    print("%d boxes drawn into '%s'" % (n, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
