#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what a fresh Debian machine lacks for building and testing cce-wasm (idempotent):
# compilers and CMake, Emscripten, RapidJSON and doctest headers, clang's fuzzer/sanitizer runtime,
# Chromium for browser tests, and the npm dev dependencies. Uses sudo when not run as root.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for pkg in build-essential cmake emscripten rapidjson-dev doctest-dev clang libclang-rt-14-dev \
           chromium; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
# Keep a preinstalled Node 20 (it may ship its own npm); otherwise take Debian's.
command -v node >/dev/null && command -v npm >/dev/null || need+=(nodejs npm)

if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund
fi
