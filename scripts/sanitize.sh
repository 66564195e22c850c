#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Native tests under AddressSanitizer + LeakSanitizer + UBSan: configures build/asan, builds, runs ctest.
#
#   scripts/sanitize.sh                 every test
#   scripts/sanitize.sh -R validation   extra arguments go to ctest
#
# Any sanitizer report fails the test that triggered it (UBSan does not recover; leaks are checked
# at exit of every test process).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${CCE_ASAN_BUILD_DIR:-build/asan}"
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi

# CCE_SANITIZE instruments the targets created after it in the top-level CMakeLists (the CLI and the
# tests); the same flags in CMAKE_CXX_FLAGS also reach cce_core, the engine itself, whichever way
# that file is ordered.
sanitizers=address,undefined
flags="-fsanitize=$sanitizers -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  -DCCE_SANITIZE="$sanitizers" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitizers" >/dev/null
cmake --build "$build" -j "${CCE_JOBS:-2}"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir "$build" --output-on-failure -j "${CCE_JOBS:-2}" "$@"
echo "sanitize: all tests passed under ASan + LSan + UBSan ($build)"
