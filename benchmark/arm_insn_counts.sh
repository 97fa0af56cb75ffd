#!/usr/bin/env bash
# Dynamic aarch64 instruction count of one forward pass per shared graph,
# per CPU implementation level (reference, neon, arm82), under qemu-user.
#
#   bash benchmark/arm_insn_counts.sh <aarch64 build dir> [-i "reference neon arm82 arm82-fp16"] [graph...]
#
# One forward pass = the instructions from the start of kiterun's Extractor
# (its constructor) to its destruction, in one run with loop=1
# (qemu_insn_count.sh marks), so loading and random weights do not count.
# Single thread, shapes from tests/cross/shapes_emulated.txt, random weights
# (seed 1). arm82 runs on qemu's default CPU (fp16 + dot product), neon and
# reference with isa= (Option::max_cpu_isa); arm82-fp16 is arm82 with fp16
# storage and arithmetic (kiterun fp16=2: the pack-8 fp16 kernels). Graphs
# default to every graph listed there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
shift
isas="reference neon arm82 arm82-fp16"
if [ "${1:-}" = "-i" ]; then isas=$2; shift 2; fi
shared=${KITE_SHARED_DIR:-$here/../../shared}
graphs=("$@")
if [ ${#graphs[@]} -eq 0 ]; then
    mapfile -t graphs < <(awk 'NF { print $1 }' "$here/../tests/cross/shapes_emulated.txt")
fi
marks="_ZN4kite9ExtractorC1EPKNS_3NetE|_ZN4kite9ExtractorC2EPKNS_3NetE,_ZN4kite9ExtractorD1Ev|_ZN4kite9ExtractorD2Ev"
printf '%-28s %-10s %16s\n' graph isa instructions
for g in "${graphs[@]}"; do
    shape=$(awk -v g="$g" '$1 == g { print $2 }' "$here/../tests/cross/shapes_emulated.txt")
    for isa in $isas; do
        opts=("isa=$isa")
        [ "$isa" = arm82-fp16 ] && opts=(isa=arm82 fp16=2)
        n=$(bash "$here/qemu_insn_count.sh" -m "$marks" -- "$build/tools/kiterun" "$shared/models/ncnn/$g.param" random \
                "shape=$shape" threads=1 "${opts[@]}" loop=1 |
            awk '/^mark/ { v[++k] = $3 } END { if (v[1] == "-" || v[2] == "-") print "-"; else printf "%.0f\n", v[2] - v[1] }')
        printf '%-28s %-10s %16s\n' "$g $shape" "$isa" "$n"
    done
done
