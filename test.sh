#!/usr/bin/env bash
# Runs every test: set-up, the wasm build (once, shared by all Node tests), the Rust tests,
# the TypeScript type check, the Node tests (core API, bad input, CLI end to end, the Obsidian
# plugin over a fake obsidian module, the MCP bridge), and the plugin's UI test in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")"

bash scripts/setup.sh
bash scripts/build-wasm.sh
cargo test --workspace
node esbuild.config.mjs
node_modules/.bin/tsc --noEmit
node --import tsx --test --test-concurrency=2 tests/node/*.test.ts
node --import tsx tests/ui/run.ts
