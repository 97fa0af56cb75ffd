#!/usr/bin/env bash
# Dynamic guest instruction count of a program run under qemu-user:
#
#   bash benchmark/qemu_insn_count.sh [-q qemu-aarch64] [-L /usr/aarch64-linux-gnu] [-c max]
#        [-m SYMBOL[|ALIAS...]]... -- PROGRAM ARGS...
#
# prints "instructions N", "block executions N" and, per mark (-m, repeatable:
# symbols of the program, hit in order), "mark SYMBOL N": the instruction
# count when a block of that symbol first ran (N is "-" when it never did).
# qemu runs with the TCG plugin qemu_insn_plugin.c (an inline add per executed
# block; see there), built with the host C compiler ($CC, default cc) into
# $QEMU_INSN_COUNT_DIR (default ~/.cache/kite) on first use, or taken from
# $QEMU_INSN_PLUGIN when set. Run the program single-threaded.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
qemu=qemu-aarch64 sysroot=/usr/aarch64-linux-gnu cpu=max plugin_args=
while [ $# -gt 0 ]; do
    case $1 in
        -q) qemu=$2; shift 2 ;;
        -L) sysroot=$2; shift 2 ;;
        -c) cpu=$2; shift 2 ;;
        -m) plugin_args+=",mark=$2"; shift 2 ;;
        --) shift; break ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-q QEMU] [-L SYSROOT] [-c CPU] [-m SYMBOL[|ALIAS]]... -- PROGRAM ARGS..." >&2; exit 2; }
lib=${QEMU_INSN_PLUGIN:-}
if [ -z "$lib" ]; then
    cache=${QEMU_INSN_COUNT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kite}
    lib=$cache/qemu_insn_plugin.so
    if [ ! -f "$lib" ] || [ "$here/qemu_insn_plugin.c" -nt "$lib" ]; then
        mkdir -p "$cache"
        ${CC:-cc} -O2 -shared -fPIC -fvisibility=hidden -o "$lib.tmp.$$" "$here/qemu_insn_plugin.c"
        mv "$lib.tmp.$$" "$lib"
    fi
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$qemu" -L "$sysroot" -cpu "$cpu" -plugin "$lib$plugin_args" -d plugin -D "$tmp/log" "$@" > /dev/null
cat "$tmp/log"
