#!/usr/bin/env bash
# Install the current build into a temporary prefix, then build and run a small
# program against it twice: with find_package(kite) and with pkg-config.
# usage: run_install_test.sh <kite build dir> <work dir> <c++ compiler> [extra compile/link flags]
set -euo pipefail
build=$1
work=$2
cxx=$3
extra=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
# cross builds: the emulator that runs target programs (e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu")
read -r -a runner <<< "${KITE_TEST_RUNNER:-}"

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

echo "== cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
test -f "$prefix/include/kite/net.h" || { echo "net.h was not installed"; exit 1; }
libdir=$(dirname "$(find "$prefix" -name 'kite.pc' | head -n 1)")/..
test -f "$libdir/pkgconfig/kite.pc" || { echo "kite.pc was not installed"; exit 1; }

echo "== find_package(kite)"
gen=()
if command -v ninja > /dev/null; then gen=(-G Ninja); fi
cmake -S "$here/consumer" -B "$work/cm" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_CXX_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" > "$work/cm.log" || { cat "$work/cm.log"; exit 1; }
cmake --build "$work/cm" > "$work/cm-build.log" 2>&1 || { cat "$work/cm-build.log"; exit 1; }
"${runner[@]+"${runner[@]}"}" "$work/cm/consumer"

echo "== pkg-config kite"
export PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# the .pc names the configured prefix; point it at where we installed
flags=$(pkg-config --define-variable=prefix="$prefix" --cflags --libs kite)
echo "pkg-config: $flags"
# shellcheck disable=SC2086
"$cxx" -std=c++17 -O1 $extra "$here/consumer/main.cpp" -o "$work/consumer_pc" $flags
"${runner[@]+"${runner[@]}"}" "$work/consumer_pc"
echo "install test passed"
