#!/usr/bin/env bash
# kite's benchkite against ncnn's benchncnn built from ncnn's source, on the machine it runs on.
#
#   benchmark/benchncnn_vs_kite.sh build  NCNN_SRC_TGZ_OR_DIR   # builds benchncnn (build-ncnn/) and benchkite (build-x/)
#   benchmark/benchncnn_vs_kite.sh speed  MODELS "1 4 16" [OUT]  # compare_benchncnn.py, every graph of MODELS
#   benchmark/benchncnn_vs_kite.sh mem    MODELS [OUT]           # peak RSS of each process (/usr/bin/time %M), 2 threads
#
# NCNN_SRC: ncnn's source tree or a .tar.gz of it (`git archive --prefix=ncnn/ COMMIT -- CMakeLists.txt
# src cmake benchmark toolchains | gzip`); ncnn is configured as its README builds it (Release, runtime CPU
# dispatch, every x86 ISA level the compiler knows), without Vulkan, tools or examples. Nothing of ncnn goes
# into the repository: build-ncnn/ is ignored.
set -eu
part=$1
jobs=${JOBS:-$(nproc)}
case $part in
build)
  src=$2
  if [ -f "$src" ]; then
    rm -rf build-ncnn/src && mkdir -p build-ncnn/src && tar -xzf "$src" -C build-ncnn/src --strip-components=1
    src=build-ncnn/src
  fi
  cmake -S "$src" -B build-ncnn/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNCNN_VULKAN=OFF \
    -DNCNN_BUILD_BENCHMARK=ON -DNCNN_BUILD_TOOLS=OFF -DNCNN_BUILD_EXAMPLES=OFF -DNCNN_BUILD_TESTS=OFF \
    ${NCNN_CMAKE_ARGS:-} > build-ncnn/cfg.log 2>&1 || { tail -20 build-ncnn/cfg.log; exit 1; }
  cmake --build build-ncnn/build -j"$jobs" --target benchncnn > build-ncnn/build.log 2>&1 || { tail -30 build-ncnn/build.log; exit 1; }
  cmake -S . -B build-x -G Ninja -DCMAKE_BUILD_TYPE=Release -DKITE_BUILD_TESTS=OFF -DKITE_VULKAN=OFF -DKITE_OPENCL=OFF \
    -DKITE_PYTHON=OFF -DKITE_JAVA=OFF -DKITE_BUILD_EXAMPLES=OFF > build-x-cfg.log 2>&1 || { tail -20 build-x-cfg.log; exit 1; }
  cmake --build build-x -j"$jobs" --target benchkite > build-x-build.log 2>&1 || { tail -30 build-x-build.log; exit 1; }
  ls -l build-ncnn/build/benchmark/benchncnn build-x/benchmark/benchkite
  ;;
speed)
  out=${4:-.}
  OMP_WAIT_POLICY=PASSIVE python3 benchmark/compare_benchncnn.py --benchkite build-x/benchmark/benchkite \
    --benchncnn build-ncnn/build/benchmark/benchncnn --models "$2" --threads $3 --loops 8 --rounds 2 \
    --json "$out/benchncnn_speed.json" | tee "$out/benchncnn_speed.md"
  ;;
mem)
  out=${3:-.}
  python3 benchmark/compare_benchncnn.py --benchkite build-x/benchmark/benchkite \
    --benchncnn build-ncnn/build/benchmark/benchncnn --models "$2" --threads --mem --mem-threads 2 \
    --json "$out/benchncnn_mem.json" | tee "$out/benchncnn_mem.md"
  ;;
*)
  echo "usage: $0 build NCNN_SRC | speed MODELS THREADS [OUT] | mem MODELS [OUT]" >&2
  exit 2
  ;;
esac
