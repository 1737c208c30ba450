#!/usr/bin/env bash
# Builds the two wasm modules and their JS glue (wasm-bindgen --target web) into build/wasm/:
#   strata_core      the core (Markdown, tantivy, vectors, fusion): what every start loads
#   strata_embedder  the embedder (tract + tokenizers): loaded only with a model
# They are two cargo invocations on purpose: one would unify features and put tract in the core.
# Skips the work when build/wasm was built from the same crate/, Cargo.toml, Cargo.lock, .cargo/
# and rustc (a content hash, so a `git checkout` or stash that restores the files rebuilds nothing).
# No wasm-opt: Debian's wasm-opt 108 breaks wasm-bindgen output when run after it.
# STRATA_PROFILE=dist builds the `dist` profile (fat LTO: what a tagged release ships; over
# 25 minutes on 2 cores) into build/wasm-dist/ instead; tests and development use `release`.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=${STRATA_PROFILE:-release}
case "$profile" in
  release) out=build/wasm ;;
  dist) out=build/wasm-dist ;;
  *) echo "build-wasm: STRATA_PROFILE must be release or dist, not $profile" >&2; exit 2 ;;
esac
mkdir -p "$out"
# One build at a time (tests, helpers and developers may call this concurrently).
exec 9>"$out/.lock"
flock 9
stamp=$out/.built
inputs=$( (rustc -V; find crate Cargo.toml Cargo.lock .cargo -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ -f "$out/strata_core.js" ] && [ -f "$out/strata_embedder.js" ] && [ "${STRATA_FORCE_BUILD:-0}" != 1 ] \
  && [ "$(cat "$stamp")" = "$inputs" ]; then
  exit 0
fi

target=${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$profile
echo "build-wasm: cargo build strata-core (wasm32, $profile, no embedder)" >&2
cargo build -p strata-core --target wasm32-unknown-unknown --profile "$profile" --no-default-features --features bindings
wasm-bindgen --target web --out-dir "$out" "$target/strata_core.wasm"
echo "build-wasm: cargo build strata-embedder (wasm32, $profile)" >&2
cargo build -p strata-embedder --target wasm32-unknown-unknown --profile "$profile"
wasm-bindgen --target web --out-dir "$out" "$target/strata_embedder.wasm"
echo "$inputs" > "$stamp"
echo "build-wasm: core $(du -k "$out/strata_core_bg.wasm" | cut -f1) KiB, embedder $(du -k "$out/strata_embedder_bg.wasm" | cut -f1) KiB -> $out" >&2
