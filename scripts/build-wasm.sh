#!/usr/bin/env bash
# Builds the three wasm modules and their JS glue (wasm-bindgen --target web) into build/wasm/:
#   strata_core      the core (Markdown, tantivy, vectors, fusion): what every start loads
#   strata_embedder  the embedder (tract + tokenizers): loaded only with a model
#   strata_chunker   the code chunker (tree-sitter + grammars): loaded only when a vault has code
# The core and the embedder build in one cargo invocation, the chunker in another: built with the
# core, its features (tree-sitter, the grammars, its wasm-bindgen exports) would unify into the
# core's dependency on it. The grammars are C: clang and llvm-ar build them for wasm32, with the
# flags of scripts/wasm-cflags.sh (set for that build only).
# Skips the work when build/wasm was built from the same crate/, Cargo.toml, Cargo.lock, .cargo/,
# build scripts and rustc (a content hash, so a `git checkout` or stash that restores the files
# rebuilds nothing). Plain rustc, never clippy-driver: clippy compiles with MIR optimisations off,
# and the embedder's tract code, instantiated in the core's crate, ran at half speed that way.
# No wasm-opt: Debian's wasm-opt 108 breaks wasm-bindgen output when run after it.
# STRATA_PROFILE=dist builds the `dist` profile (fat LTO: what a tagged release ships; over
# 25 minutes on 2 cores) into build/wasm-dist/ instead; tests and development use `release`.
# `build-wasm.sh relaxed` builds only the embedder, with relaxed SIMD on top of simd128 (tract's
# kernels then use fused multiply-adds), into build/wasm-relaxed/ (build/wasm-dist-relaxed/ with
# STRATA_PROFILE=dist) and its own target folder: the release publishes it beside the models and
# the plugin uses it where the engine validates it (docs/ARCHITECTURE.md, "Two embedder builds").
# Its JS glue must be byte for byte the simd128 build's: main.js carries only that one.
set -euo pipefail
cd "$(dirname "$0")/.."

# wasm-bindgen --target web into $out (scripts/wasm-bindgen.sh: the version in Cargo.lock, once
# set-up has built it).
bindgen() {
  bash scripts/wasm-bindgen.sh "$1" "$out"
}

profile=${STRATA_PROFILE:-release}
case "$profile" in
  release) out=build/wasm ;;
  dist) out=build/wasm-dist ;;
  *) echo "build-wasm: STRATA_PROFILE must be release or dist, not $profile" >&2; exit 2 ;;
esac
if [ "${1:-}" = relaxed ]; then
  out=$out-relaxed
  mkdir -p "$out"
  exec 9>"$out/.lock"
  flock 9
  stamp=$out/.built
  inputs=$( (echo relaxed; rustc -V; find crate Cargo.toml Cargo.lock .cargo -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ -f "$out/strata_embedder.js" ] && [ "${STRATA_FORCE_BUILD:-0}" != 1 ] && [ "$(cat "$stamp")" = "$inputs" ]; then
    exit 0
  fi
  dir=${CARGO_TARGET_DIR:-target}/relaxed-simd
  echo "build-wasm: cargo build strata-embedder (wasm32, $profile, simd128 + relaxed-simd)" >&2
  CARGO_TARGET_DIR=$dir RUSTFLAGS='-C target-feature=+simd128,+relaxed-simd --cfg getrandom_backend="wasm_js"' \
    cargo build -p strata-embedder --target wasm32-unknown-unknown --profile "$profile"
  bindgen "$dir/wasm32-unknown-unknown/$profile/strata_embedder.wasm"
  echo "$inputs" > "$stamp"
  echo "build-wasm: relaxed-SIMD embedder $(du -k "$out/strata_embedder_bg.wasm" | cut -f1) KiB -> $out" >&2
  exit 0
fi
mkdir -p "$out"
# One build at a time (tests, helpers and developers may call this concurrently).
exec 9>"$out/.lock"
flock 9
stamp=$out/.built
inputs=$( (rustc -V; find crate Cargo.toml Cargo.lock .cargo scripts/build-wasm.sh scripts/wasm-cflags.sh -type f -print0 \
  | sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ -f "$out/strata_core.js" ] && [ -f "$out/strata_embedder.js" ] \
  && [ -f "$out/strata_chunker.js" ] && [ "${STRATA_FORCE_BUILD:-0}" != 1 ] \
  && [ "$(cat "$stamp")" = "$inputs" ]; then
  exit 0
fi

target=${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$profile
# The release profile (tests, development): the core and the embedder in one cargo invocation.
# Neither depends on the other (both on crate/model), so one scheduler sees both graphs and
# compiles tantivy, the core and the rest on one CPU while tract's long chain of crates
# (tract-data, -linalg, -core, -hir, -onnx, one after the other) compiles on the other; the
# core's `embedder` feature stays off, so no tract is in the core. It also turns on `unify-deps`:
# the chunker's features in the crates the core shares with it, so the chunker's build below, and
# ./test.sh's wasm32 lint builds, reuse the compiled regex and the rest (crate/Cargo.toml).
# What a release ships (dist) builds them one after the other: in one invocation the embedder's
# features (regex's faster matchers, +0.5 MB) would unify into the core.
if [ "$profile" = release ]; then
  echo "build-wasm: cargo build strata-core and strata-embedder (wasm32, $profile)" >&2
  cargo build -p strata-core -p strata-embedder --target wasm32-unknown-unknown --profile "$profile" \
    --no-default-features --features strata-core/bindings,strata-core/unify-deps
else
  echo "build-wasm: cargo build strata-embedder (wasm32, $profile)" >&2
  cargo build -p strata-embedder --target wasm32-unknown-unknown --profile "$profile"
  echo "build-wasm: cargo build strata-core (wasm32, $profile)" >&2
  cargo build -p strata-core --target wasm32-unknown-unknown --profile "$profile" --no-default-features --features bindings
fi
# Their glue is written beside the chunker's build (wasm-bindgen is single-threaded).
(bindgen "$target/strata_core.wasm" && bindgen "$target/strata_embedder.wasm") &
glue=$!
# clang and llvm-ar come from set-up: when ./run.sh left them installing in the background
# (scripts/setup.sh --background), wait for it, and stop if it failed.
if [ -f build/.setup.lock ]; then
  flock build/.setup.lock true
  if [ -s build/setup-failed.log ]; then cat build/setup-failed.log >&2; exit 1; fi
fi
echo "build-wasm: cargo build strata-chunker (wasm32, $profile, tree-sitter and the grammars)" >&2
cflags=$(bash scripts/wasm-cflags.sh)
CFLAGS_wasm32_unknown_unknown="$cflags" \
  cargo build -p strata-chunker --target wasm32-unknown-unknown --profile "$profile" --features bindings
bindgen "$target/strata_chunker.wasm"
wait "$glue"
echo "$inputs" > "$stamp"
echo "build-wasm: core $(du -k "$out/strata_core_bg.wasm" | cut -f1) KiB, embedder $(du -k "$out/strata_embedder_bg.wasm" | cut -f1) KiB, code $(du -k "$out/strata_chunker_bg.wasm" | cut -f1) KiB -> $out" >&2
