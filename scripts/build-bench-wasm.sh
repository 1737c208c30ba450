#!/usr/bin/env bash
# Builds the benchmark wasm and its JS glue (wasm-bindgen --target web) into build/wasm/:
#   strata_bench     benchVectors(sizes: Uint32Array, dim: number): VectorBenchRow[]
# Only `npm run bench` / `strata bench` need it; the core, the CLI and the plugin carry no
# benchmark code. A cargo invocation of its own, so the core's features stay as they ship.
set -euo pipefail
cd "$(dirname "$0")/.."

out=build/wasm
mkdir -p "$out"
# One wasm build at a time (build-wasm.sh takes the same lock).
exec 9>"$out/.lock"
flock 9
target=${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release
echo "build-bench-wasm: cargo build strata-bench (wasm32, release)" >&2
cargo build -p strata-bench --target wasm32-unknown-unknown --release
bash scripts/wasm-bindgen.sh "$target/strata_bench.wasm" "$out"
echo "build-bench-wasm: $(du -k "$out/strata_bench_bg.wasm" | cut -f1) KiB -> $out/strata_bench.js" >&2
