#!/bin/bash
# Where an OpenCL replay's host time per launch goes, and whether one of
# kite's launch switches (docs/gpu.md, OpenCL settings) lowers it, in one go:
#   1. benchmark/opencl_launch_cost: a trivial kernel launched kite's way and
#      with one thing changed at a time (host / CPU us per enqueue, wall us
#      per launch), on the first NVIDIA GPU
#   2. benchkite backend=opencl on a few small-layer graphs with each switch,
#      configurations interleaved, rounds of LOOPS forwards: min ms of the
#      forward and the replay's enqueue wall / CPU us per launch
#      and the input writes' share of it over the whole run (ms)
#      (KITE_OPENCL_VERBOSE's end-of-session line)
# usage: [B=benchkite] [L=opencl_launch_cost] [M=models dir] [LOOPS=32] [ROUNDS=1]
#        benchmark/opencl_launch_ab.sh
# (defaults: build/benchmark/..., $KITE_SHARED_DIR/models/ncnn or
# ../shared/models/ncnn); 29 benchkite starts after the microbenchmark: on
# a GPU most of the time is process start, not the loops (not yet timed on one)
B=${B:-build/benchmark/benchkite}
L=${L:-build/benchmark/opencl_launch_cost}
M=${M:-${KITE_SHARED_DIR:-../shared}/models/ncnn}
LOOPS=${LOOPS:-32}
ROUNDS=${ROUNDS:-1}
export KITE_OPENCL_CACHE_DIR=${KITE_OPENCL_CACHE_DIR:-/tmp/kite-opencl-ab-cache}
unset KITE_OPENCL_LWS KITE_OPENCL_REPLAY_KERNELS KITE_OPENCL_IMAGE_NO_HOST KITE_OPENCL_REPLAY_FLUSH KITE_OPENCL_PINNED_UPLOAD

echo "== opencl_launch_cost 256 5"
"$L" 256 5 || echo "opencl_launch_cost failed ($?)"

CONFIGS=(
    "base"
    "KITE_OPENCL_LWS=auto"
    "KITE_OPENCL_LWS=64x1"
    "KITE_OPENCL_REPLAY_KERNELS=shared"
    "KITE_OPENCL_IMAGE_NO_HOST=1"
    "KITE_OPENCL_REPLAY_FLUSH=8"
    "KITE_OPENCL_PINNED_UPLOAD=1"
)
GRAPHS=("FastestDet [352,352,3]" "yolo-fastestv2 [352,352,3]" "blazeface [128,128,3]" "mobilenet [224,224,3]")
# the device kite runs on; warms the program-binary cache (the first start compiles)
echo "== kite's OpenCL device"
KITE_OPENCL_VERBOSE=1 "$B" 2 1 0 0 0 param=$M/FastestDet.param shape=[352,352,3] backend=opencl 2>&1 |
    grep "OpenCL device\|OpenCL replay:\|OpenCL replays:\|FastestDet"
echo "== benchkite backend=opencl, $LOOPS loops x $ROUNDS rounds, 1 thread"
printf "%-16s %-36s %9s %14s %12s %10s\n" graph config "min ms" "enqueue us/l" "cpu us/l" "writes ms"
for g in "${GRAPHS[@]}"; do
    set -- $g
    for r in $(seq "$ROUNDS"); do
        for c in "${CONFIGS[@]}"; do
            envs=()
            [ "$c" != base ] && envs=($c)
            out=$(env "${envs[@]}" KITE_OPENCL_VERBOSE=1 "$B" "$LOOPS" 1 0 0 0 param=$M/$1.param shape=$2 backend=opencl 2>&1)
            ms=$(echo "$out" | awk '/ min = /{print $4}')
            enq=$(echo "$out" | sed -n 's/.*enqueueing took [0-9.]* ms (\([0-9.]*\) us per launch).*/\1/p')
            cpu=$(echo "$out" | sed -n 's/.*CPU time (\([0-9.]*\) us per launch).*/\1/p')
            wr=$(echo "$out" | sed -n 's/.*the input writes \([0-9.]*\) ms.*/\1/p')
            printf "%-16s %-36s %9s %14s %12s %10s\n" "$1" "$c" "${ms:-fail}" "${enq:--}" "${cpu:--}" "${wr:--}"
        done
    done
done
