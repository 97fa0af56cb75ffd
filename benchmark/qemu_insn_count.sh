#!/usr/bin/env bash
# Dynamic guest instruction count of a program run under qemu-user:
#
#   bash benchmark/qemu_insn_count.sh [-q qemu-aarch64] [-L /usr/aarch64-linux-gnu] [-c max]
#        [-m SYMBOL[|ALIAS],SYMBOL...] -- PROGRAM ARGS...
#
# prints "instructions N", "block executions N" and, per mark (-m: symbols
# of the program, hit in order), "mark SYMBOL N": the instruction count when
# a block of that symbol first ran (N is "-" when it never did). qemu runs with
# -d in_asm,exec,nochain and qemu_insn_count.cpp preloaded, which counts
# from qemu's log calls in memory (see there). The library is built next to
# this script's build cache ($QEMU_INSN_COUNT_DIR, default ~/.cache/kite) on
# first use. Run the program single-threaded.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
qemu=qemu-aarch64 sysroot=/usr/aarch64-linux-gnu cpu=max marks=
while [ $# -gt 0 ]; do
    case $1 in
        -q) qemu=$2; shift 2 ;;
        -L) sysroot=$2; shift 2 ;;
        -c) cpu=$2; shift 2 ;;
        -m) marks=$2; shift 2 ;;
        --) shift; break ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-q QEMU] [-L SYSROOT] [-c CPU] -- PROGRAM ARGS..." >&2; exit 2; }
cache=${QEMU_INSN_COUNT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kite}
lib=$cache/qemu_insn_count.so
if [ ! -f "$lib" ] || [ "$here/qemu_insn_count.cpp" -nt "$lib" ]; then
    mkdir -p "$cache"
    ${CXX:-c++} -O2 -std=c++17 -shared -fPIC -o "$lib.tmp" "$here/qemu_insn_count.cpp" -ldl
    mv "$lib.tmp" "$lib"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
QEMU_INSN_COUNT_LOG=$tmp/log QEMU_INSN_COUNT_OUT=$tmp/counts QEMU_INSN_COUNT_MARKS=$marks LD_PRELOAD=$lib \
    "$qemu" -U LD_PRELOAD -U QEMU_INSN_COUNT_LOG -U QEMU_INSN_COUNT_OUT -U QEMU_INSN_COUNT_MARKS -L "$sysroot" -cpu "$cpu" \
    -d in_asm,exec,nochain -D "$tmp/log" "$@" > /dev/null
od -An -v -t u8 -w8 "$tmp/counts" | awk -v marks="$marks" '
    BEGIN { n = split(marks, m, ",") }
    { v[NR] = $1 }
    END {
        print "instructions " v[1]; print "block executions " v[2]
        for (i = 1; i <= n; i++) print "mark " m[i] " " (v[i + 2] == "18446744073709551615" ? "-" : v[i + 2])
    }'
