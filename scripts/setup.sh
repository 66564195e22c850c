#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what a fresh Debian machine lacks for building and testing cce-wasm (idempotent):
# compilers and CMake, Emscripten, RapidJSON and doctest headers, clang's fuzzer/sanitizer runtime,
# Chromium, Firefox ESR and WebKitGTK (with its WebDriver and Xvfb) for browser tests, and the npm
# dev dependencies. Uses sudo when not run as root.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for pkg in build-essential cmake emscripten rapidjson-dev doctest-dev clang libclang-rt-14-dev \
           chromium firefox-esr webkit2gtk-driver xvfb; do
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

# Other Nodes, pinned, taken from the npm registry as the binary package of this platform (no
# install script) and kept out of node_modules so that they never shadow the Node that runs
# everything else: Node 22 for the ai 7 tests (js/test/node22; ai 7 requires it), Node 18 for the
# oldest Node package.json's engines names, Node 24 (the active LTS) and Node 26 (the current
# release) for what most users run.
install_node() { # name version why
  local dir="build/$1" version="$2" os cpu
  if [ -x "$dir/bin/node" ] && [ "$("$dir/bin/node" --version)" = "v$version" ]; then return; fi
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) os=unknown ;; esac
  case "$(uname -m)" in x86_64 | amd64) cpu=x64 ;; aarch64 | arm64) cpu=arm64 ;; *) cpu=unknown ;; esac
  echo "setup: Node $version ($os-$cpu) $3"
  rm -rf "$dir" && mkdir -p "$dir/bin"
  npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund \
    "node-$os-$cpu@$version" >/dev/null
  ln -s "../node_modules/node-$os-$cpu/bin/node" "$dir/bin/node"
  [ "$("$dir/bin/node" --version)" = "v$version" ] || { echo "setup: no Node $version" >&2; exit 1; }
}
install_node node22 22.23.3 "for the ai 7 tests"
install_node node18 18.20.8 "for the oldest Node in engines"
install_node node24 24.21.0 "for the active LTS"
install_node node26 26.12.1 "for the current release"

# TypeScript 7 (the native compiler, the current major) type-checks the sources and the type tests
# beside the TypeScript 5 of the build, so that the types hold for users of either. Kept out of
# node_modules: both packages name their binary `tsc`.
ts7_version=7.0.2
ts7=build/typescript7/node_modules/typescript/bin/tsc
if [ ! -x "$ts7" ] || [ "$(node "$ts7" --version)" != "Version $ts7_version" ]; then
  echo "setup: TypeScript $ts7_version for the type checks"
  rm -rf build/typescript7 && mkdir -p build/typescript7
  npm install --prefix build/typescript7 --no-save --no-package-lock --no-audit --no-fund \
    "typescript@$ts7_version" >/dev/null
  [ "$(node "$ts7" --version)" = "Version $ts7_version" ] || { echo "setup: no TypeScript $ts7_version" >&2; exit 1; }
fi
