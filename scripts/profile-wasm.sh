#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where the speed build's time goes, by C++ function: relinks cce-fast.wasm from the objects of the
# last `npm run build` with function names kept (--profiling-funcs; same flags otherwise, glue
# without Closure), puts it beside a copy of dist/ in OUT, and runs a workload there under
# `node --cpu-prof`; scripts/profile-summary.mjs then prints self and inclusive times.
#
#   bash scripts/profile-wasm.sh [OUT] [WORKLOAD.mjs]     # OUT defaults to /tmp/cce-profile
#
# The default workload compresses the scale session twice plus a dozen timed calls in the default
# mode (a workload gets the dist copy's directory as its argument). Names cost nothing at run time,
# but the profile samples wall time: on a loaded machine compare shares, not milliseconds.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
build_dir="${CCE_WASM_BUILD_DIR:-build/wasm}"
out="$(realpath -m "${1:-/tmp/cce-profile}")"
workload="${2:-scripts/profile-workload.mjs}"
workload="$(realpath "$workload")"

# The link command of the speed build, as the build ran it, with names kept and no Closure.
link="$(cd "$build_dir" && ninja -t commands cce_wasm_fast | grep -- '-o cce-fast.mjs' | tail -1)"
if [ -z "$link" ]; then
  echo "profile-wasm: no link command for cce_wasm_fast in $build_dir (run npm run build first)" >&2
  exit 1
fi
link="${link#: && }"
link="${link%% && cd *}"
link="${link//--closure=1/}"
link="${link//-o cce-fast.mjs/-o $out/link/cce-fast.mjs}"
rm -rf "$out" && mkdir -p "$out/link" "$out/prof"
cp -r dist "$out/dist"
(cd "$build_dir" && eval "$link --profiling-funcs")
cp "$out/link/cce-fast.wasm" "$out/dist/cce-fast.wasm"
cp "$out/link/cce-fast.mjs" "$out/dist/cce.mjs"
node --cpu-prof --cpu-prof-dir="$out/prof" "$workload" "$out/dist"
node scripts/profile-summary.mjs "$out"/prof/*.cpuprofile
