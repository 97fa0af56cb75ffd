#!/usr/bin/env python3
"""torchvision architectures exported at small input sizes for the GPU
coverage runs of tests/gpu_architectures.md (torch and torchvision needed;
not in CI). Random weights (seed 0; zero tensors given values, BatchNorm
statistics randomised), eval mode, torch.onnx.export (legacy exporter,
opset 17); segmentation models export their "out" head.

  python3 tests/convert/onnx/export_gpu_archs.py OUTDIR resnext50_32x4d:64 swin_t:112 ...

writes OUTDIR/<name>_<size>.onnx for each name:size.
"""
import os
import sys

import torch
import torchvision


class HeadOut(torch.nn.Module):
    """the model, with a segmentation model's dict output reduced to its 'out'"""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        y = self.m(x)
        return y["out"] if isinstance(y, dict) else y


def export(name, size, out):
    torch.manual_seed(0)
    if name.startswith("deeplab") or name.startswith("lraspp"):
        model = getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None).eval()
    else:
        kw = {"aux_logits": False, "init_weights": False} if name == "inception_v3" else {}
        model = getattr(torchvision.models, name)(weights=None, **kw).eval()
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 1 and not p.any():
                p.normal_(0, 0.02)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.1, 0.1)
            m.running_var.uniform_(0.5, 1.5)
    path = os.path.join(out, "%s_%d.onnx" % (name, size))
    torch.onnx.export(HeadOut(model), torch.rand(1, 3, size, size), path, opset_version=17, input_names=["input"],
                      output_names=["output"], dynamo=False)
    return path


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    for spec in sys.argv[2:]:
        name, _, size = spec.partition(":")
        print("wrote", export(name, int(size or 224), sys.argv[1]), flush=True)


if __name__ == "__main__":
    main()
