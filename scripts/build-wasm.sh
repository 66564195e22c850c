#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the wasm module in build/wasm (Emscripten 3.1.6) and copies cce.mjs + cce.wasm into dist/.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's emscripten runs acorn from /usr/share/nodejs at -O2 and above; emcmake's default emulator
# adds --experimental-wasm-threads, which Node 20 rejects.
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
build_dir="${CCE_WASM_BUILD_DIR:-build/wasm}"
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi

if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  emcmake cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node
fi
cmake --build "$build_dir" --target cce_wasm -j "${CCE_JOBS:-2}"

# Copy both files from the same successful link, never one alone.
mkdir -p dist
cp "$build_dir/cce.mjs" dist/cce.mjs.tmp
cp "$build_dir/cce.wasm" dist/cce.wasm.tmp
mv dist/cce.mjs.tmp dist/cce.mjs
mv dist/cce.wasm.tmp dist/cce.wasm
echo "dist/cce.mjs $(wc -c < dist/cce.mjs) bytes, dist/cce.wasm $(wc -c < dist/cce.wasm) bytes"
