#!/usr/bin/env bash
# Dynamic aarch64 instruction count of one forward pass per shared graph,
# per CPU implementation level (reference, neon, arm82, arm82-fp16), under
# qemu-user with the counting plugin (qemu_insn_count.sh):
#
#   bash benchmark/arm_insn_counts.sh <aarch64 build dir> [-i "reference neon arm82 arm82-fp16"]
#        [-s SHAPES_FILE] [-j JOBS] [-t SECONDS] [graph...]
#
# One forward pass = the instructions from the start of kiterun's Extractor
# (its constructor) to its destruction, in one run with loop=1 (marks), so
# loading and random weights do not count. Single thread, random weights
# (seed 1). Shapes: the benchmark shapes of the shared models' shapes.txt by
# default; -s tests/cross/shapes_emulated.txt for the reduced ones. arm82 runs
# on qemu's default CPU (fp16 + dot product), neon and reference with isa=
# (Option::max_cpu_isa); arm82-fp16 is arm82 with fp16 storage and arithmetic
# (kiterun fp16=2: the pack-8 fp16 kernels). Graphs default to every graph of
# the shapes file. -j runs that many counts at once (each one guest thread),
# path by path in the order of -i, graphs in the order given (put the longest
# first); rows print as they finish. -t stops a count after SECONDS ("-"). $KITERUN overrides <build>/tools/kiterun,
# $KITE_SHARED_DIR the shared directory; qemu_insn_count.sh's environment
# ($QEMU, $QEMU_SYSROOT, $QEMU_INSN_PLUGIN) passes through.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
shift
isas="reference neon arm82 arm82-fp16"
shared=${KITE_SHARED_DIR:-$here/../../shared}
shapes=$shared/models/ncnn/shapes.txt
jobs=1 limit=0
while [ $# -gt 0 ]; do
    case $1 in
        -i) isas=$2; shift 2 ;;
        -s) shapes=$2; shift 2 ;;
        -j) jobs=$2; shift 2 ;;
        -t) limit=$2; shift 2 ;;
        *) break ;;
    esac
done
graphs=("$@")
if [ ${#graphs[@]} -eq 0 ]; then
    mapfile -t graphs < <(awk 'NF { print $1 }' "$shapes")
fi
kiterun=${KITERUN:-$build/tools/kiterun}
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
count_one() { # graph shape isa
    local opts=("isa=$3")
    [ "$3" = arm82-fp16 ] && opts=(isa=arm82 fp16=2)
    local n
    n=$(timeout "$limit" bash "$here/qemu_insn_count.sh" -q "${QEMU:-qemu-aarch64}" -L "${QEMU_SYSROOT:-/usr/aarch64-linux-gnu}" \
            -m "_ZN4kite9ExtractorC1EPKNS_3NetE|_ZN4kite9ExtractorC2EPKNS_3NetE" \
            -m "_ZN4kite9ExtractorD1Ev|_ZN4kite9ExtractorD2Ev" -- \
            "$kiterun" "$shared/models/ncnn/$1.param" random "shape=$2" threads=1 "${opts[@]}" loop=1 |
        awk '/^mark/ { v[++k] = $3 } END { if (k != 2 || v[1] == "-" || v[2] == "-") print "-"; else printf "%.0f\n", v[2] - v[1] }')
    printf '%-28s %-10s %16s\n' "$1 $2" "$3" "$n"
}
export -f count_one
export here shared kiterun limit
printf '%-28s %-10s %16s\n' graph isa instructions
for g in "${graphs[@]}"; do
    awk -v g="$g" '$1 == g { f = 1 } END { exit !f }' "$shapes" || { echo "arm_insn_counts.sh: no shape for $g in $shapes" >&2; exit 1; }
done
for isa in $isas; do
    for g in "${graphs[@]}"; do
        printf '%s\n%s\n%s\n' "$g" "$(awk -v g="$g" '$1 == g { print $2 }' "$shapes")" "$isa"
    done
done | xargs -d '\n' -n 3 -P "$jobs" bash -c 'count_one "$@"' _ | tee "$rows"
# the same as a markdown table, graphs in the order given, M = 10^6 instructions
awk -v order="${graphs[*]}" -v isas="$isas" '
    { g = $1; shape[g] = $2; v[g, $3] = $4 }
    END {
        n = split(order, go, " "); m = split(isas, io, " ")
        printf "\n| graph | shape |"; for (j = 1; j <= m; j++) printf " %s |", io[j]; print " reference / neon |"
        printf "|---|---|"; for (j = 1; j <= m; j++) printf "---:|"; print "---:|"
        for (i = 1; i <= n; i++) {
            g = go[i]; printf "| %s | %s |", g, shape[g]
            for (j = 1; j <= m; j++) { x = v[g, io[j]]; printf " %s |", (x == "" || x == "-") ? "-" : sprintf("%.1f M", x / 1e6) }
            r = v[g, "reference"]; e = v[g, "neon"]
            print (r > 0 && e > 0) ? sprintf(" %.0fx |", r / e) : " |"
        }
    }' "$rows"
