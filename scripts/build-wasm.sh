#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the wasm modules in build/wasm (Emscripten 3.1.6) and copies them into dist/: cce.mjs +
# cce.wasm (compress, built for size: browsers and workers), cce-fast.wasm (the same module built
# for speed: Node and Deno; it shares cce.mjs), cce-session.mjs + cce-session.wasm (context
# manager and compaction: cce-wasm/session/init, workerd) and the same per entry,
# cce-context.mjs + .wasm and cce-compaction.mjs + .wasm (cce-wasm/context, cce-wasm/compaction).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's emscripten runs acorn from /usr/share/nodejs at -O2 and above; emcmake's default emulator
# adds --experimental-wasm-threads, which Node 20 rejects.
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
build_dir="${CCE_WASM_BUILD_DIR:-build/wasm}"
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi

# Closure halves the glue (29 -> 14 KB raw, 8.1 -> 5.6 KB gzip). Debian's closure-compiler is too
# old; the npm package google-closure-compiler@20220104.0.0 works with 3.1.6. Without it the build
# still succeeds, but `npm run size` then fails its glue budget.
closure="${EM_CLOSURE_COMPILER:-}"
if [ -z "$closure" ] && [ -x node_modules/.bin/google-closure-compiler ]; then
  closure="$PWD/node_modules/.bin/google-closure-compiler"
fi
if [ -n "$closure" ]; then
  export EM_CLOSURE_COMPILER="$closure"
  use_closure=ON
else
  echo "build-wasm: google-closure-compiler not found" \
    "(npm i -D google-closure-compiler@20220104.0.0); building the glue unminified" >&2
  use_closure=OFF
fi

if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  emcmake cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node -DCCE_WASM_CLOSURE="$use_closure"
else
  cmake -S . -B "$build_dir" -DCCE_WASM_CLOSURE="$use_closure" >/dev/null
fi
cmake --build "$build_dir" --target cce_wasm cce_wasm_fast cce_session cce_context cce_compaction \
  -j "${CCE_JOBS:-2}"

# Both compress builds load through one glue file, so theirs must be identical (same bindings and
# settings; only compile options and the allocator differ, which the glue does not see) except for
# the default file name, which the package never uses: its loader hands the glue the wasm itself.
if ! sed 's/"cce-fast\.wasm"/"cce.wasm"/' "$build_dir/cce-fast.mjs" | cmp -s - "$build_dir/cce.mjs"; then
  echo "build-wasm: cce-fast.mjs differs from cce.mjs; the speed build cannot share the glue" >&2
  exit 1
fi

# Copy each module's files from the same successful link, never one alone.
mkdir -p dist
for name in cce cce-session cce-context cce-compaction; do
  cp "$build_dir/$name.mjs" "dist/$name.mjs.tmp"
  cp "$build_dir/$name.wasm" "dist/$name.wasm.tmp"
  if [ "$name" = cce ]; then cp "$build_dir/cce-fast.wasm" dist/cce-fast.wasm.tmp; fi
  mv "dist/$name.mjs.tmp" "dist/$name.mjs"
  mv "dist/$name.wasm.tmp" "dist/$name.wasm"
  if [ "$name" = cce ]; then mv dist/cce-fast.wasm.tmp dist/cce-fast.wasm; fi
  echo "dist/$name.mjs $(wc -c < "dist/$name.mjs") bytes," \
    "dist/$name.wasm $(wc -c < "dist/$name.wasm") bytes"
done
echo "dist/cce-fast.wasm $(wc -c < dist/cce-fast.wasm) bytes"
