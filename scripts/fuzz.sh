#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzzes compressJson for SECONDS (default 60): clang + libFuzzer + ASan + UBSan, in build/fuzz.
#
#   scripts/fuzz.sh            one minute (the test-suite run)
#   scripts/fuzz.sh 14400      four hours; the corpus in build/fuzz/corpus grows across runs
#   CCE_FUZZ_JOBS=2 scripts/fuzz.sh 3600   two fuzzing processes sharing the corpus
#
# Exits non-zero when the fuzzer finds a crash, a sanitizer report, a timeout or a broken invariant;
# the input is left in build/fuzz/artifacts/ (replay: build/fuzz/fuzz_compress FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
build="${CCE_FUZZ_BUILD_DIR:-build/fuzz}"
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi

if [ ! -f "$build/CMakeCache.txt" ]; then
  # Debug keeps assertions on; -O1 is libFuzzer's usual trade between speed and stack traces.
  cmake -S . -B "$build" "${generator[@]}" -DCCE_FUZZ=ON -DCMAKE_CXX_COMPILER="${CCE_FUZZ_CXX:-clang++}" \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" >/dev/null
fi
cmake --build "$build" --target fuzz_compress -j "${CCE_JOBS:-2}"

bash tests/fuzz/make-seeds.sh "$build/seeds"
mkdir -p "$build/corpus" "$build/artifacts"
log="$build/fuzz.log"
flags=(-max_total_time="$seconds" -max_len=32768 -timeout=30 -rss_limit_mb=3072
       -print_final_stats=1 -artifact_prefix="$build/artifacts/")
jobs="${CCE_FUZZ_JOBS:-1}"
if [ "$jobs" -gt 1 ]; then flags+=(-fork="$jobs" -ignore_crashes=0); fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
started=$(date +%s)
set +e
"$build/fuzz_compress" "${flags[@]}" "$build/corpus" "$build/seeds" >"$log" 2>&1
status=$?
set -e
elapsed=$(( $(date +%s) - started ))

execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
if [ -z "$execs" ]; then  # -fork mode and early crashes print no final stats
  execs=$(grep -o '#[0-9]*' "$log" | tail -1 | tr -d '#' || true)
fi
echo "fuzz: ${execs:-?} executions in ${elapsed}s (corpus $(ls "$build/corpus" | wc -l) files, log $log)"
if [ "$status" -ne 0 ]; then
  grep -E 'ERROR|invariant violated|runtime error|Test unit written|SUMMARY' "$log" | head -20 || true
  echo "fuzz: FAILED (exit $status); inputs in $build/artifacts/"
  exit "$status"
fi
echo "fuzz: clean"
