#!/usr/bin/env bash
# `scripts/wasm-bindgen.sh INPUT.wasm OUT_DIR`: wasm-bindgen --target web, with the command line
# of scripts/wasm-bindgen (wasm-bindgen-cli-support at exactly the version of wasm-bindgen in
# Cargo.lock: their schemas must match), which scripts/setup.sh builds into target/tools. When
# set-up left it compiling in the background (holding build/.wasm-bindgen.lock), waits for it.
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p build
exec 8>build/.wasm-bindgen.lock
if ! flock -n 8; then
  echo "wasm-bindgen: waiting for set-up to finish building it (build/wasm-bindgen-install.log)" >&2
  flock 8
fi
exec 8>&-
# shellcheck source=scripts/wasm-bindgen-version.sh
. scripts/wasm-bindgen-version.sh
tool=${CARGO_TARGET_DIR:-target}/tools/release/strata-wasm-bindgen
if [ -n "$wasm_bindgen_mismatch" ] || [ ! -x "$tool" ] || [ -n "$(find scripts/wasm-bindgen -type f -newer "$tool" -print -quit)" ]; then
  echo "wasm-bindgen: ${wasm_bindgen_mismatch:-$tool is missing or older than scripts/wasm-bindgen}; run scripts/setup.sh" >&2
  [ -f build/wasm-bindgen-install.log ] && tail -n 20 build/wasm-bindgen-install.log >&2
  exit 1
fi
exec "$tool" "$1" "$2"
