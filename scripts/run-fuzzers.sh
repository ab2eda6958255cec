#!/bin/bash
# Runs each fuzz target for SECONDS on its seed corpus and prints how many inputs it executed.
# usage: scripts/run-fuzzers.sh <build/fuzz> <build/fuzz-corpus> [SECONDS=60] [targets...]
# New coverage goes to <corpus>/work-<target>; crashes, leaks and hangs to
# <build/fuzz>/artifacts/<target>-*. Exits non-zero when any target found one.
set -uo pipefail
FUZZ="$1"
CORPUS="$2"
SECONDS_EACH="${3:-60}"
shift $(($# < 3 ? $# : 3))
if [ $# -gt 0 ]; then TARGETS=("$@"); else TARGETS=(fuzz_onnx fuzz_json fuzz_mutate); fi
mkdir -p "$FUZZ/artifacts"
failed=0
for target in "${TARGETS[@]}"; do
  case "$target" in
    fuzz_onnx) seeds="$CORPUS/onnx" ;;
    fuzz_json) seeds="$CORPUS/json" ;;
    fuzz_mutate) seeds="$CORPUS/mutate" ;;
  esac
  work="$CORPUS/work-$target"
  log="$FUZZ/$target.log"
  mkdir -p "$work"
  "$FUZZ/$target" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$FUZZ/artifacts/$target-" "$work" "$seeds" \
    >"$log" 2>&1
  status=$?
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  if [ $status -ne 0 ]; then
    failed=1
    echo "$target: FAILED after ${execs:-?} executions (see $log):"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -3
  else
    echo "$target: ${execs:-?} executions in ${SECONDS_EACH}s, corpus $(ls "$work" | wc -l) inputs"
  fi
done
exit $failed
