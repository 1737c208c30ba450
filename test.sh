#!/usr/bin/env bash
# Runs every test: set-up, the wasm build (once, shared by all Node tests), the Rust tests,
# the TypeScript type check, the Node tests (core API, bad input, CLI end to end, the Obsidian
# plugin over a fake obsidian module, the MCP bridge), and the plugin's UI test in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")"

bash scripts/setup.sh
bash scripts/build-wasm.sh
# The Rust core's layout: no import cycle between its modules, no oversized file.
python3 scripts/check-modules.py --quiet
# Rust format and lint (rustfmt.toml; clippy with warnings as errors), native and wasm32, with
# the feature sets the builds use: the core without and with the embedder, the embedder and
# the bench crate. The generated TypeScript types are checked by cargo test (crate/src/typescript.rs).
cargo fmt --all --check
cargo clippy -p strata-core -p strata-bench --no-default-features --all-targets -- -D warnings
cargo clippy -p strata-core -p strata-embedder --all-targets -- -D warnings
cargo clippy -p strata-core --target wasm32-unknown-unknown --no-default-features --features bindings --all-targets -- -D warnings
cargo clippy -p strata-embedder -p strata-bench --target wasm32-unknown-unknown --all-targets -- -D warnings
# The code chunker (tree-sitter): natively, and for wasm32 with the grammars' C flags
# (scripts/wasm-cflags.sh; clippy compiles their C as the wasm build does).
cargo clippy -p strata-chunker --all-targets -- -D warnings
CFLAGS_wasm32_unknown_unknown="$(bash scripts/wasm-cflags.sh)" \
  cargo clippy -p strata-chunker --target wasm32-unknown-unknown --features bindings --all-targets -- -D warnings
# The Rust tests without the native embedder: tract is built once, for wasm, and the Node
# tests check that embedder against the reference vectors (compiling tract natively as well
# took ~6 of the ~25 minutes of a cold run on 2 cores). `cargo test --workspace` runs the
# native embedder's own tests too.
cargo test -p strata-core --no-default-features --features code
# The chunker's tests: fixtures per language, JSON/YAML, garbage, huge and nested input.
cargo test -p strata-chunker
node esbuild.config.mjs
node_modules/.bin/tsc --noEmit
# TypeScript lint: typescript-eslint and the Obsidian review's rules (eslint.config.mjs); 0 errors.
node_modules/.bin/eslint plugin tests "*.mjs"
# TypeScript formatting (.prettierrc.json; `npm run format` rewrites).
node_modules/.bin/prettier --check --log-level warn "plugin/**/*.ts" "tests/**/*.{ts,mjs,html}" "*.{mjs,mts,json}"
# docs/ranking.md's table of constants matches crate/src/ranking.rs.
python3 docs/ranking-table.py --check
node --import tsx --test --test-concurrency=2 tests/node/*.test.ts
node --import tsx tests/ui/run.ts
