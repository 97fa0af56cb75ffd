#!/usr/bin/env python3
"""Single-layer graphs for per-layer speed comparisons with compare_benchncnn.py.

Writes DIR/<case>.param and DIR/shapes.txt: every graph is Input -> ReLU ->
Split into 8 -> 8 copies of one layer (the layers of the small-channel graphs:
blazeface, yolo-fastest-1.1), each copy reading the same packed blob, so the
layer's own time dominates the input conversion and output unpacking that
both programs add around it. Weights are zero on both sides (benchkite and
benchncnn load no .bin).

  python3 benchmark/layer_graphs.py /tmp/layers [name-substring ...]
  python3 benchmark/compare_benchncnn.py --benchkite build/benchmark/benchkite \\
      --benchncnn $B --models /tmp/layers --threads 1 --cpu --rounds 3 --cpu-seconds 0.3
"""
import os
import sys

COPIES = 8
LEAKY = "9=2 -23310=1,1.000000e-01"

# name: (w, h, c of the layer's input, layer type, layer params)
CASES = {
    # blazeface
    "bf_stem": (131, 131, 3, "Convolution", "0=24 1=5 3=2 5=1 6=1800"),
    "bf_1x1_24_24": (64, 64, 24, "Convolution", "0=24 1=1 5=1 6=576"),
    "bf_1x1_24_28": (64, 64, 24, "Convolution", "0=28 1=1 5=1 6=672"),
    "bf_1x1_28_32": (32, 32, 28, "Convolution", "0=32 1=1 5=1 6=896"),
    "bf_1x1_36_42": (32, 32, 36, "Convolution", "0=42 1=1 5=1 6=1512"),
    "bf_1x1_42_48": (16, 16, 42, "Convolution", "0=48 1=1 5=1 6=2016"),
    "bf_1x1_96_96": (8, 8, 96, "Convolution", "0=96 1=1 5=1 6=9216"),
    "bf_dw_s1_24": (64, 64, 24, "ConvolutionDepthWise", "0=24 1=3 4=1 5=1 6=216 7=24"),
    "bf_dw_s2_28": (66, 66, 28, "ConvolutionDepthWise", "0=28 1=3 3=2 5=1 6=252 7=28"),
    "bf_dw_s1_36": (32, 32, 36, "ConvolutionDepthWise", "0=36 1=3 4=1 5=1 6=324 7=36"),
    "bf_dw_s2_42": (34, 34, 42, "ConvolutionDepthWise", "0=42 1=3 3=2 5=1 6=378 7=42"),
    "bf_dw_s1_96": (8, 8, 96, "ConvolutionDepthWise", "0=96 1=3 4=1 5=1 6=864 7=96"),
    # yolo-fastest-1.1
    "yf_stem": (320, 320, 3, "Convolution", "0=8 1=3 3=2 4=1 5=1 6=216 " + LEAKY),
    "yf_dw_s1_8": (160, 160, 8, "ConvolutionDepthWise", "0=8 1=3 4=1 5=1 6=72 7=8 " + LEAKY),
    "yf_1x1_8_4": (160, 160, 8, "Convolution", "0=4 1=1 5=1 6=32"),
    "yf_1x1_4_24": (160, 160, 4, "Convolution", "0=24 1=1 5=1 6=96 " + LEAKY),
    "yf_dw_s2_24": (160, 160, 24, "ConvolutionDepthWise", "0=24 1=3 3=2 4=1 5=1 6=216 7=24 " + LEAKY),
    "yf_1x1_24_8": (80, 80, 24, "Convolution", "0=8 1=1 5=1 6=192"),
    "yf_dw5_120": (20, 20, 120, "ConvolutionDepthWise", "0=120 1=5 4=2 5=1 6=3000 7=120 " + LEAKY),
    "yf_dw_s1_136": (20, 20, 136, "ConvolutionDepthWise", "0=136 1=3 4=1 5=1 6=1224 7=136 " + LEAKY),
    "yf_1x1_120_255": (20, 20, 120, "Convolution", "0=255 1=1 5=1 6=30600"),
    "yf_1x1_8_32": (80, 80, 8, "Convolution", "0=32 1=1 5=1 6=256 " + LEAKY),
    "yf_1x1_96_16": (40, 40, 96, "Convolution", "0=16 1=1 5=1 6=1536"),
    # regnety_400m's grouped 3x3 (group width 8)
    "rg_g8_48_s2": (112, 112, 48, "ConvolutionDepthWise", "0=48 1=3 3=2 4=1 5=1 6=3456 7=6"),
    "rg_g8_104": (28, 28, 104, "ConvolutionDepthWise", "0=104 1=3 4=1 5=1 6=7488 7=13 9=1"),
    "rg_g8_208": (14, 14, 208, "ConvolutionDepthWise", "0=208 1=3 4=1 5=1 6=14976 7=26 9=1"),
    "rg_g8_440": (7, 7, 440, "ConvolutionDepthWise", "0=440 1=3 4=1 5=1 6=31680 7=55 9=1"),
    "rg_g8_208_s2": (28, 28, 208, "ConvolutionDepthWise", "0=208 1=3 3=2 4=1 5=1 6=14976 7=26"),
    # proxylessnasnet's 7x7 depth-wise
    "px_dw7_576": (7, 7, 576, "ConvolutionDepthWise", "0=576 1=7 4=3 5=1 6=28224 7=576 9=1"),
    "px_dw7_1152": (7, 7, 1152, "ConvolutionDepthWise", "0=1152 1=7 4=3 5=1 6=56448 7=1152 9=1"),
    "px_dw7_s2_96": (56, 56, 96, "ConvolutionDepthWise", "0=96 1=7 3=2 4=3 5=1 6=4704 7=96 9=1"),
    "px_dw7_s2_240": (28, 28, 240, "ConvolutionDepthWise", "0=240 1=7 3=2 4=3 5=1 6=11760 7=240 9=1"),
    # 1x1 with 512+ input channels on small maps (mnasnet, mobilenet)
    "mn_1x1_1152_192": (7, 7, 1152, "Convolution", "0=192 1=1 5=1 6=221184"),
    "mn_1x1_576_96": (14, 14, 576, "Convolution", "0=96 1=1 5=1 6=55296"),
    "mb_1x1_1024_1024": (7, 7, 1024, "Convolution", "0=1024 1=1 5=1 6=1048576 9=1"),
    "mb_1x1_512_512": (14, 14, 512, "Convolution", "0=512 1=1 5=1 6=262144 9=1"),
    "mn_1x1_320_1280": (7, 7, 320, "Convolution", "0=1280 1=1 5=1 6=409600 9=1"),
    # depth-wise at elempack 4 (channel counts that pack by 4 only) and 8
    "sn_dw_60": (28, 28, 60, "ConvolutionDepthWise", "0=60 1=3 4=1 5=1 6=540 7=60"),
    "sv2_dw_116": (28, 28, 116, "ConvolutionDepthWise", "0=116 1=3 4=1 5=1 6=1044 7=116"),
    "sv2_dw_s2_116": (56, 56, 116, "ConvolutionDepthWise", "0=116 1=3 3=2 4=1 5=1 6=1044 7=116"),
    "sn_dw_120": (14, 14, 120, "ConvolutionDepthWise", "0=120 1=3 4=1 5=1 6=1080 7=120"),
    # first layers: 3 planar channels, 3x3 stride 2 pad 1 (issue 18)
    "stem_sn_24": (224, 224, 3, "Convolution", "0=24 1=3 3=2 4=1 5=1 6=648 9=1"),
    "stem_mv3_16": (224, 224, 3, "Convolution", "0=16 1=3 3=2 4=1 5=1 6=432"),
    "stem_mv2_32": (224, 224, 3, "Convolution", "0=32 1=3 3=2 4=1 5=1 6=864 9=1"),
    "stem_nd_24": (320, 320, 3, "Convolution", "0=24 1=3 3=2 4=1 5=1 6=648 " + LEAKY),
    # densenet121 (torchvision, arch_bench.py): 3x3 128 -> 32 on every map size, 1x1 -> 128 with
    # channel counts of 64 + 32 i
    "dn_3x3_56": (56, 56, 128, "Convolution", "0=32 1=3 4=1 5=1 6=36864"),
    "dn_3x3_28": (28, 28, 128, "Convolution", "0=32 1=3 4=1 5=1 6=36864"),
    "dn_3x3_14": (14, 14, 128, "Convolution", "0=32 1=3 4=1 5=1 6=36864"),
    "dn_3x3_7": (7, 7, 128, "Convolution", "0=32 1=3 4=1 5=1 6=36864"),
    "dn_1x1_56_160": (56, 56, 160, "Convolution", "0=128 1=1 5=1 6=20480 9=1"),
    "dn_1x1_28_320": (28, 28, 320, "Convolution", "0=128 1=1 5=1 6=40960 9=1"),
    "dn_1x1_14_544": (14, 14, 544, "Convolution", "0=128 1=1 5=1 6=69632 9=1"),
    "dn_1x1_7_736": (7, 7, 736, "Convolution", "0=128 1=1 5=1 6=94208 9=1"),
    # resnext50_32x4d's grouped 3x3 (32 groups of 4, 8, 16, 32 channels)
    "rx_g4": (56, 56, 128, "ConvolutionDepthWise", "0=128 1=3 4=1 5=1 6=4608 7=32 9=1"),
    "rx_g8_s2": (56, 56, 256, "ConvolutionDepthWise", "0=256 1=3 3=2 4=1 5=1 6=18432 7=32 9=1"),
    "rx_g8": (28, 28, 256, "ConvolutionDepthWise", "0=256 1=3 4=1 5=1 6=18432 7=32 9=1"),
    "rx_g16_s2": (28, 28, 512, "ConvolutionDepthWise", "0=512 1=3 3=2 4=1 5=1 6=73728 7=32 9=1"),
    "rx_g16": (14, 14, 512, "ConvolutionDepthWise", "0=512 1=3 4=1 5=1 6=73728 7=32 9=1"),
    "rx_g32_s2": (14, 14, 1024, "ConvolutionDepthWise", "0=1024 1=3 3=2 4=1 5=1 6=294912 7=32 9=1"),
    "rx_g32": (7, 7, 1024, "ConvolutionDepthWise", "0=1024 1=3 4=1 5=1 6=294912 7=32 9=1"),
    # lraspp/deeplabv3_mobilenet_v3_large's final bilinear resize (21 planar channels, 8x / 16x)
    "seg_interp_28": (28, 28, 21, "Interp", "0=2 3=224 4=224 6=0"),
    "seg_interp_14": (14, 14, 21, "Interp", "0=2 3=224 4=224 6=0"),
    # deeplabv3_mobilenet_v3_large's ASPP: 3x3 960 -> 256 at dilation 12/36 on a 14x14 map
    "dl_aspp_d12": (14, 14, 960, "Convolution", "0=256 1=3 2=12 4=12 5=1 6=2211840 9=1"),
    "dl_aspp_d36": (14, 14, 960, "Convolution", "0=256 1=3 2=36 4=36 5=1 6=2211840 9=1"),
}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out, wanted = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "shapes.txt"), "w") as shapes:
        for name, (w, h, c, typ, params) in CASES.items():
            if wanted and not any(s in name for s in wanted):
                continue
            lines = ["Input data 0 1 data 0=%d 1=%d 2=%d" % (w, h, c), "ReLU relu 1 1 data x",
                     "Split split 1 %d x %s" % (COPIES, " ".join("x%d" % i for i in range(COPIES)))]
            lines += ["%s l%d 1 1 x%d y%d %s" % (typ, i, i, i, params) for i in range(COPIES)]
            with open(os.path.join(out, name + ".param"), "w") as f:
                f.write("7767517\n%d %d\n%s\n" % (len(lines), 2 + 2 * COPIES, "\n".join(lines)))
            shapes.write("%s [%d,%d,%d]\n" % (name, w, h, c))


if __name__ == "__main__":
    main()
