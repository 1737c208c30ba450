#!/usr/bin/env bash
# Runs every test: set-up, the wasm build (once, shared by all Node tests), the Rust tests,
# the TypeScript type check, and the Node tests (core API, bad input, CLI end to end).
set -euo pipefail
cd "$(dirname "$0")"

bash scripts/setup.sh
bash scripts/build-wasm.sh
cargo test --workspace
node esbuild.config.mjs
node_modules/.bin/tsc --noEmit
node --import tsx --test --test-concurrency=2 tests/node/*.test.ts
