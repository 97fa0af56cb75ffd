#!/usr/bin/env bash
# GPU benchmark for the lead's GPU machine: builds kite with the GPU backends,
# then for every shared graph prints benchkite on the GPU next to ncnn's
# Vulkan (pip ncnn) and kite's cold / cached first-start (load_model) times.
#   bash benchmark/gpu_bench.sh [device index, default 0] [loops, default 20]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEV=${1:-0}
LOOPS=${2:-20}
SHARED=${KITE_SHARED_DIR:-$ROOT/../shared}
BUILD=${KITE_GPU_BUILD:-$ROOT/build-gpu}
OPENCL=OFF
if [ -f "$ROOT/src/gpu/opencl/cl_runtime.cpp" ]; then OPENCL=ON; fi
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKITE_VULKAN=ON -DKITE_OPENCL=$OPENCL \
    -DKITE_BUILD_TESTS=OFF -DKITE_SHARED_DIR="$SHARED" > /dev/null
cmake --build "$BUILD" --target benchkite kiterun -j "$(nproc)" > /dev/null
python3 -c "import ncnn" 2>/dev/null || python3 -m pip install -q ncnn || echo "warning: no pip ncnn: its column stays empty"
command -v vulkaninfo > /dev/null && vulkaninfo --summary 2>/dev/null | grep -E "deviceName|driverName|apiVersion" || true
echo "## Vulkan (device $DEV, $LOOPS loops, 1 CPU thread)"
python3 "$ROOT/benchmark/gpu_bench.py" --benchkite "$BUILD/benchmark/benchkite" --models "$SHARED/models/ncnn" \
    --device "$DEV" --loops "$LOOPS" --backend vulkan
if [ "$OPENCL" = ON ]; then
    command -v clinfo > /dev/null && clinfo -l 2>/dev/null || true
    echo "## OpenCL next to Vulkan (device $DEV, $LOOPS loops, 1 CPU thread; first starts in fresh processes)"
    python3 "$ROOT/benchmark/opencl_bench.py" --benchkite "$BUILD/benchmark/benchkite" --models "$SHARED/models/ncnn" \
        --device "$DEV" --vulkan-device "$DEV" --loops "$LOOPS"
    echo "## OpenCL vs CPU outputs (random weights, full input sizes; fp32, then fp16 storage)"
    python3 "$ROOT/tests/opencl/graphs.py" "$BUILD/tools/kiterun" "$SHARED" --device "$DEV" || true
    python3 "$ROOT/tests/opencl/graphs.py" "$BUILD/tools/kiterun" "$SHARED" --device "$DEV" --fp16 || true
fi
echo "## Vulkan vs CPU outputs (random weights, full input sizes)"
python3 "$ROOT/tests/vulkan/run_vulkan_graphs.py" --kiterun "$BUILD/tools/kiterun" --shared-dir "$SHARED" --device "$DEV" || true
