#!/usr/bin/env bash
# Builds the core to wasm32 and generates the JS glue (wasm-bindgen --target web) into build/wasm/.
# Skips the work when build/wasm is newer than every file of crate/, Cargo.toml and Cargo.lock.
# No wasm-opt: Debian's wasm-opt 108 breaks wasm-bindgen output when run after it.
set -euo pipefail
cd "$(dirname "$0")/.."

out=build/wasm
mkdir -p "$out"
# One build at a time (tests, helpers and developers may call this concurrently).
exec 9>"$out/.lock"
flock 9
stamp=$out/strata_core_bg.wasm
if [ -f "$stamp" ] && [ -f "$out/strata_core.js" ] && [ "${STRATA_FORCE_BUILD:-0}" != 1 ]; then
  newer=$(find crate Cargo.toml Cargo.lock .cargo -type f -newer "$stamp" -print -quit 2>/dev/null || true)
  if [ -z "$newer" ]; then
    exit 0
  fi
fi

echo "build-wasm: cargo build (wasm32, release)" >&2
cargo build -p strata-core --target wasm32-unknown-unknown --release
mkdir -p "$out"
wasm-bindgen --target web --out-dir "$out" "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/strata_core.wasm"
touch "$stamp"
echo "build-wasm: $(du -k "$stamp" | cut -f1) KiB -> $stamp" >&2
