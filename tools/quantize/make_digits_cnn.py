#!/usr/bin/env python3
"""Train a small CNN on scikit-learn's bundled digits data set and export it.

    python3 tools/quantize/make_digits_cnn.py --out DIR [--seed 0] [--epochs 40]

The 1797 8x8 digit images (values 0..16, scaled to 0..1) are split with a
fixed seed into train (1077), calibration (360) and test (360). The network
(conv 3x3 16 - ReLU - conv 3x3 32 - ReLU - maxpool 2 - conv 3x3 32 - ReLU -
flatten - fc 64 - ReLU - fc 10) is trained with torch (Adam, seconds on the
CPU) and exported to ONNX (opset 13, batch 1, input "input" 1x1x8x8, output
"logits").

Writes DIR/digits_cnn.onnx, DIR/calib/NNNN.npy and DIR/test/NNNN.npy (each a
1x8x8 float32 image, the same scaling as in training), DIR/test_labels.npy and
DIR/torch_test_accuracy.txt.
"""
import argparse
import os
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=40)
    a = ap.parse_args()

    import torch
    import torch.nn as nn
    from sklearn.datasets import load_digits

    torch.manual_seed(a.seed)
    rng = np.random.RandomState(a.seed)
    d = load_digits()
    x = (d.images.astype(np.float32) / 16.0)[:, None, :, :]
    y = d.target.astype(np.int64)
    perm = rng.permutation(len(x))
    tr, ca, te = perm[:1077], perm[1077:1437], perm[1437:]

    net = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
        nn.Flatten(),
        nn.Linear(32 * 4 * 4, 64), nn.ReLU(),
        nn.Linear(64, 10),
    )
    torch.set_num_threads(1)
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    xt, yt = torch.from_numpy(x[tr]), torch.from_numpy(y[tr])
    for ep in range(a.epochs):
        net.train()
        order = torch.from_numpy(rng.permutation(len(tr)))
        for i in range(0, len(tr), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
    net.eval()
    with torch.no_grad():
        pred = net(torch.from_numpy(x[te])).argmax(1).numpy()
    acc = float((pred == y[te]).mean())
    print("digits CNN: torch test accuracy %.4f (%d test images)" % (acc, len(te)))

    os.makedirs(a.out, exist_ok=True)
    for sub, ids in (("calib", ca), ("test", te)):
        os.makedirs(os.path.join(a.out, sub), exist_ok=True)
        for k, i in enumerate(ids):
            np.save(os.path.join(a.out, sub, "%04d.npy" % k), x[i])
    np.save(os.path.join(a.out, "test_labels.npy"), y[te])
    with open(os.path.join(a.out, "torch_test_accuracy.txt"), "w") as f:
        f.write("%.6f\n" % acc)
    torch.onnx.export(net, torch.zeros(1, 1, 8, 8), os.path.join(a.out, "digits_cnn.onnx"), opset_version=13,
                      input_names=["input"], output_names=["logits"], dynamo=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
