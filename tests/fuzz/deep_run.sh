#!/usr/bin/env bash
# Long fuzzing runs (issue 20: "every parser target at least 10 million executions"),
# for a machine with many cores. CI runs each target for seconds only (.ci/run).
#
#   tests/fuzz/deep_run.sh FUZZDIR SEEDS WORK [RUNS_PER_TARGET] [JOBS_PER_TARGET] [MAX_SECONDS]
#
# FUZZDIR: the fuzz_* executables (a KITE_BUILD_FUZZERS build); SEEDS: gen_seeds.py's
# folder (plus onnx/ tf/ tflite/ from the converters' seed scripts); WORK: corpora,
# logs and crash reproducers go there (WORK/<sub>/ is kept and reused: a second run
# continues from the corpus of the first). Every target runs at once, JOBS_PER_TARGET
# processes each, until RUNS_PER_TARGET executions in all or MAX_SECONDS. Prints one
# line per target: executions, corpus size, findings.
#
# Each target gets a -max_len suited to its format (below; the corpora hold whole
# graphs, but a mutated input longer than this adds little but parsing time).
# Environment: KITE_FUZZ_TARGETS (space-separated subset, e.g. "param_text caffe"),
# KITE_FUZZ_NICE (run at this nice level, e.g. 19 on a shared machine),
# KITE_FUZZ_ARGS (more libFuzzer flags, e.g. -entropic=0).
set -u
fuzzdir=$1 seeds=$2 work=$3 runs=${4:-10000000} jobs=${5:-2} maxt=${6:-540}
only=${KITE_FUZZ_TARGETS:-}
nicelevel=${KITE_FUZZ_NICE:-0}
extra=${KITE_FUZZ_ARGS:-}
max_len_of() {
    case $1 in
        param_text | tf | onnx | tflite) echo 8192 ;;
        caffe) echo 16384 ;;
        npy) echo 1024 ;;
        *) echo 4096 ;; # param_bin, model_bin (the fixed graph's weights: ~0.5 kB), table, image
    esac
}
mkdir -p "$work"
# absolute paths: each target runs in its own log folder
fuzzdir=$(cd "$fuzzdir" && pwd) seeds=$(cd "$seeds" && pwd) work=$(cd "$work" && pwd)
targets="fuzz_param_text:param_text fuzz_param_bin:param_bin fuzz_model_bin:model_bin fuzz_onnx:onnx fuzz_caffe:caffe
fuzz_tf:tf fuzz_tflite:tflite fuzz_table:table fuzz_npy:npy fuzz_image:image"
pids=()
for t in $targets; do
    name=${t%%:*} sub=${t#*:}
    [ -x "$fuzzdir/$name" ] || continue
    if [ -n "$only" ]; then
        case " $only " in *" $sub "*) ;; *) continue ;; esac
    fi
    mkdir -p "$work/$sub" "$work/logs-$sub" "$work/artifacts-$sub"
    [ -d "$seeds/$sub" ] || mkdir -p "$seeds/$sub"
    (
        cd "$work/logs-$sub" || exit 1
        # -jobs: each job runs until -runs executions; the workers share the corpus folder
        # shellcheck disable=SC2086
        nice -n "$nicelevel" "$fuzzdir/$name" -runs=$((runs / jobs + 1)) -jobs="$jobs" -workers="$jobs" -max_total_time="$maxt" \
            -max_len="$(max_len_of "$sub")" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
            -artifact_prefix="$work/artifacts-$sub/" $extra "$work/$sub" "$seeds/$sub" > "$work/logs-$sub/main.log" 2>&1
    ) &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
for t in $targets; do
    name=${t%%:*} sub=${t#*:}
    [ -d "$work/logs-$sub" ] || continue
    if [ -n "$only" ]; then
        case " $only " in *" $sub "*) ;; *) continue ;; esac
    fi
    execs=$(cat "$work/logs-$sub"/fuzz-*.log 2>/dev/null | awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}')
    corpus=$(ls "$work/$sub" | wc -l)
    found=$(ls "$work/artifacts-$sub" | wc -l)
    echo "$name executions=$execs corpus=$corpus findings=$found"
done
