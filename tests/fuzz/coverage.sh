#!/usr/bin/env bash
# Line coverage of each parser by a fuzz corpus (llvm-cov), for tests/fuzz/README.md.
#
#   tests/fuzz/coverage.sh COVBUILD CORPORA [OUT.md]
#
# COVBUILD: a KITE_BUILD_FUZZERS build made with clang and
#   -DCMAKE_CXX_FLAGS="-fprofile-instr-generate -fcoverage-mapping" (and the same for C and
#   the linker); CORPORA: a folder with one corpus folder per target (param_text, onnx, ...:
#   deep_run.sh's WORK). Each target replays its corpus once (-runs=0), and the lines of the
#   parser's own source files that ran are counted. The build is the fuzz build's
#   (ASan + UBSan): the replay column says whether every input ran cleanly under
#   them, so a corpus grown by a faster build without ASan is checked too.
set -u
build=$1 corpora=$2 out=${3:-/dev/stdout}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
targets="fuzz_param_text:param_text:src/paramdict.cpp,src/net.cpp
fuzz_param_bin:param_bin:src/paramdict.cpp,src/net.cpp
fuzz_model_bin:model_bin:src/modelbin.cpp
fuzz_onnx:onnx:tools/onnx
fuzz_caffe:caffe:tools/caffe
fuzz_tf:tf:tools/tensorflow
fuzz_tflite:tflite:tools/tflite
fuzz_table:table:tools/quantize/quantize.cpp
fuzz_npy:npy:tools/common/npy.cpp
fuzz_image:image:tools/quantize/calib_data.cpp"
{
    echo "| target | corpus inputs | parser sources | lines covered | line coverage | ASan+UBSan replay |"
    echo "|---|---|---|---|---|---|"
    for t in $targets; do
        IFS=: read -r name sub srcs <<< "$t"
        bin=$build/fuzz/$name
        [ -x "$bin" ] && [ -d "$corpora/$sub" ] || continue
        n=$(ls "$corpora/$sub" | wc -l)
        LLVM_PROFILE_FILE="$tmp/$name-%p.profraw" ASAN_OPTIONS=detect_leaks=0 "$bin" -runs=0 -rss_limit_mb=4096 \
            "$corpora/$sub" > "$tmp/$name.log" 2>&1
        llvm-profdata merge -sparse "$tmp/$name"-*.profraw -o "$tmp/$name.profdata" || continue
        # the per-file rows of the parser's sources (paths relative to the repository):
        # Filename Regions Missed Cover Functions Missed Executed Lines Missed Cover ...
        read -r lines lmiss < <(llvm-cov report "$bin" -instr-profile="$tmp/$name.profdata" 2>/dev/null \
            | awk -v srcs="$srcs" 'BEGIN { n = split(srcs, s, ",") }
                { for (i = 1; i <= n; i++) if (index($1, s[i]) == 1) { l += $8; m += $9 } }
                END { print l + 0, m + 0 }')
        lcov=$(awk -v l="$lines" -v m="$lmiss" 'BEGIN { printf "%.1f%%", (l > 0) ? 100 * (l - m) / l : 0 }')
        if grep -q "^Done [0-9]* runs" "$tmp/$name.log" && ! grep -qE "ERROR: |runtime error:" "$tmp/$name.log"; then
            replay=clean
        else
            replay="FAILED: $(grep -m1 -E "SUMMARY|runtime error:" "$tmp/$name.log" | cut -c1-160)"
            cp "$tmp/$name.log" "$corpora/replay-$name.log"
        fi
        echo "| $name | $n | ${srcs//,/, } | $((lines - lmiss)) / $lines | $lcov | $replay |"
    done
} > "$out"
rm -rf "$tmp"
