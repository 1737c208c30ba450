#!/usr/bin/env bash
# Installs what building and testing Strata needs. Idempotent and quiet when already done:
#   - the wasm32-unknown-unknown Rust target
#   - wasm-bindgen-cli at exactly the version of wasm-bindgen in Cargo.lock
#   - the npm dev dependencies (npm ci, only when node_modules is stale)
#   - the embedding model, through scripts/fetch-model.sh when that script exists
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*" >&2; }

# 1. Rust target.
if ! rustup target list --installed 2>/dev/null | grep -qx 'wasm32-unknown-unknown'; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen-cli, the exact version the crate links against (their schemas must match).
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$want" ]; then
  say "Cargo.lock names no wasm-bindgen version"; exit 1
fi
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  # Another install of it may be under way (a developer's background job): wait for it.
  while pgrep -f 'cargo install wasm-bindgen-cli' >/dev/null 2>&1; do
    say "waiting for a running 'cargo install wasm-bindgen-cli'"; sleep 20
  done
  have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
fi
if [ "$have" != "$want" ]; then
  say "installing wasm-bindgen-cli $want (was: ${have:-none}); this takes a few minutes"
  log=$(mktemp)
  if ! cargo install wasm-bindgen-cli --version "$want" --locked >"$log" 2>&1; then
    # The crate's own lock file can name a dependency version the registry no longer serves
    # (yanked): resolve its dependencies afresh instead.
    say "the --locked install failed ($(grep -m1 '^error' "$log" || echo 'see log')); retrying without --locked"
    cargo install wasm-bindgen-cli --version "$want" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
  fi
  rm -f "$log"
fi

# 3. npm dependencies, only when node_modules is older than the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] \
   || [ package.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error >&2
  touch node_modules/.package-lock.json
fi

# 4. The model for the semantic mode (written with the semantic issue).
if [ -f scripts/fetch-model.sh ]; then
  bash scripts/fetch-model.sh
fi
