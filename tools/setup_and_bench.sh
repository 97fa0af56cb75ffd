#!/usr/bin/env bash
# One command on a fresh machine: install what the build needs (Debian/Ubuntu,
# as root or with sudo), build kite with its tests into ./build, and run the
# benchmark on the shipped model set.
#
#   bash tools/setup_and_bench.sh [benchkite arguments...]
#
# Afterwards `ctest --test-dir build --output-on-failure -j2` runs the tests.
# Environment: BUILD_DIR (default build), JOBS (default nproc),
# KITE_SHARED_DIR (default ../shared), KITE_BENCH_ONLY=1 to build only benchkite.
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

gen=()
if command -v ninja > /dev/null; then gen=(-G Ninja); fi
tests=ON
if [ "${KITE_BENCH_ONLY:-0}" = 1 ]; then tests=OFF; fi
cmake -S "$ROOT" -B "$BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DKITE_BUILD_BENCHMARK=ON -DKITE_BUILD_TESTS=$tests -DKITE_SHARED_DIR="$SHARED"
if [ "$tests" = ON ]; then
    cmake --build "$BUILD_DIR" -j "$JOBS"
else
    cmake --build "$BUILD_DIR" -j "$JOBS" --target benchkite
fi

echo
echo "== benchkite $*"
"$BUILD_DIR/benchmark/benchkite" "$@"
