#!/usr/bin/env bash
# Dynamic aarch64 instruction count of one forward pass per shared graph,
# per CPU implementation level (reference, neon, arm82), under qemu-user.
#
#   bash benchmark/arm_insn_counts.sh <aarch64 build dir> [graph...]
#
# One forward pass = count(kiterun loop=2) - count(kiterun loop=1), so
# loading, random weights and process start-up cancel out. Single thread,
# shapes from tests/cross/shapes_emulated.txt, random weights (seed 1).
# arm82 runs on qemu's default CPU (fp16 + dot product), neon and reference
# with isa= (Option::max_cpu_isa).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
shift
shared=${KITE_SHARED_DIR:-$here/../../shared}
graphs=("$@")
if [ ${#graphs[@]} -eq 0 ]; then graphs=(squeezenet mobilenet mobilenet_v2 shufflenet_v2); fi
count() {
    python3 "$here/qemu_insn_count.py" -- "$build/tools/kiterun" "$@" | awk '/^instructions/ { print $2 }'
}
printf '%-16s %-14s %16s\n' graph isa instructions
for g in "${graphs[@]}"; do
    shape=$(awk -v g="$g" '$1 == g { print $2 }' "$here/../tests/cross/shapes_emulated.txt")
    for isa in reference neon arm82; do
        args=("$shared/models/ncnn/$g.param" random "shape=$shape" threads=1 "isa=$isa")
        one=$(count "${args[@]}" loop=1)
        two=$(count "${args[@]}" loop=2)
        printf '%-16s %-14s %16d\n' "$g $shape" "$isa" $((two - one))
    done
done
