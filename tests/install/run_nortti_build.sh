#!/usr/bin/env bash
# Configure and build only the kite library with -DKITE_NO_EXCEPTIONS_RTTI=ON:
# proves the runtime compiles with -fno-exceptions -fno-rtti.
# usage: run_nortti_build.sh <source dir> <work dir> <c++ compiler> [jobs]
set -euo pipefail
src=$1
work=$2
cxx=$3
jobs=${4:-2}
rm -rf "$work"
gen=()
if command -v ninja > /dev/null; then gen=(-G Ninja); fi
# one ISA level per optimised layer is enough to compile every source once, and
# -O0: the test proves the sources compile without exceptions and RTTI, which
# the front end decides (an optimised build took 117 s of CI's 2 cores, -O0 a
# fraction of that)
cmake -S "$src" -B "$work" "${gen[@]}" -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_FLAGS=-O0 -DCMAKE_C_FLAGS=-O0 -DCMAKE_CXX_COMPILER="$cxx" \
    -DKITE_NO_EXCEPTIONS_RTTI=ON -DKITE_RUNTIME_CPU=OFF \
    -DKITE_BUILD_TESTS=OFF -DKITE_BUILD_TOOLS=OFF -DKITE_BUILD_BENCHMARK=OFF -DKITE_BUILD_EXAMPLES=OFF \
    > "$work.configure.log" 2>&1 || { cat "$work.configure.log"; exit 1; }
cmake --build "$work" --target kite -j "$jobs"
# the flags really reached the compiler
if [ -f "$work/build.ninja" ]; then
    grep -q -- "-fno-exceptions" "$work/build.ninja" || { echo "-fno-exceptions not in the build"; exit 1; }
    grep -q -- "-fno-rtti" "$work/build.ninja" || { echo "-fno-rtti not in the build"; exit 1; }
fi
rm -rf "$work"
echo "no-exceptions/no-rtti build passed"
