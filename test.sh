#!/usr/bin/env bash
# Runs every check and every test:
#   1. set-up (scripts/setup.sh) and the wasm, built once and shared by every Node test
#      (scripts/build-wasm.sh: skipped when ./run.sh built it from the same sources);
#   2. format and lint: the module and docs checks, rustfmt, prettier, tsc (and the wasm modules'
#      declarations), eslint (with this repository's config and the Obsidian review bot's), and
#      clippy for the configurations the Rust tests do not compile (the native embedder, wasm32);
#   3. the tests: the Rust tests, compiled through clippy-driver with warnings as errors (so every
#      native target is linted as it is built: the core with the code chunker, its tests and
#      examples, the bench, the chunker), the Node tests (core API, bad input, CLI end to end, the
#      plugin over a fake obsidian module, the MCP bridge) and the UI test in headless Chromium.
# Every check starts before any test. Steps that do not depend on each other run at the same time
# (2 cores: a Rust compile beside single-threaded Node work), each with its output in
# build/test-logs/, shown when it ends; the first failure stops everything. The time of each step
# is printed at the end (docs/benchmarks.md, "Build and test times").
set -euo pipefail
# Each background step in its own process group, so a failure stops all of a step's processes.
set -m
cd "$(dirname "$0")"

logs=build/test-logs
mkdir -p "$logs"
rm -f "$logs"/*.log
t0=$(date +%s)
times=()

# run NAME CMD...: a step in the foreground, timed.
run() {
  local name=$1 s
  shift
  s=$(date +%s)
  "$@"
  times+=("$name $(($(date +%s) - s)) s")
}

# spawn NAME CMD...: starts a step in the background, its output in $logs/NAME.log.
declare -A pid_of started
declare -A name_of
spawn() {
  local name=$1
  shift
  started[$name]=$(date +%s)
  ("$@") >"$logs/$name.log" 2>&1 </dev/null &
  pid_of[$name]=$!
  name_of[$!]=$name
}

stop_all() {
  local p
  for p in "${pid_of[@]}"; do kill -- -"$p" 2>/dev/null || true; done
}
trap stop_all EXIT

# join NAME...: waits for these steps. Any step that ends meanwhile (these or others) shows its
# output then; the first that fails stops them all and the script.
declare -A finished
join() {
  local name done_pid status
  while :; do
    local left=0
    for name in "$@"; do [ -n "${finished[$name]:-}" ] || left=1; done
    [ "$left" = 1 ] || return 0
    status=0
    done_pid=
    wait -n -p done_pid || status=$?
    if [ -z "$done_pid" ]; then
      echo "test.sh: waiting for $*, but no step is running" >&2
      exit 1
    fi
    name=${name_of[$done_pid]:-}
    [ -n "$name" ] || continue
    finished[$name]=1
    unset "pid_of[$name]"
    if [ "$status" = 0 ]; then
      times+=("$name $(($(date +%s) - started[$name])) s")
      printf '\n=== %s: passed\n' "$name"
      cat "$logs/$name.log"
    else
      printf '\n=== %s: FAILED (exit %s)\n' "$name" "$status"
      cat "$logs/$name.log"
      stop_all
      exit 1
    fi
  done
}

# 1. Set-up and the wasm. Chromium for the UI test installs meanwhile.
run setup bash scripts/setup.sh
spawn ui-setup bash scripts/setup.sh --ui
run wasm bash scripts/build-wasm.sh
run bundles node esbuild.config.mjs

# 2. Format and lint.
lint() {
  set -e
  # This repository's eslint (the longest check, about 50 s of CPU) beside all the others.
  node_modules/.bin/eslint plugin tests "*.mjs" &
  local eslint_pid=$!
  lint_rest
  wait "$eslint_pid"
}
lint_rest() {
  set -e
  # The layout: no import cycle between the Rust core's modules (nor between the files of a folder
  # module) and no oversized source file; no TypeScript import cycle, type-only imports counted
  # (.dependency-cruiser.json; eslint's max-lines below holds TypeScript files to 600 lines).
  python3 scripts/check-modules.py --quiet
  # The three wasm builds compile the crates they share with the same features, so each is
  # compiled once (scripts/check-wasm-features.py).
  python3 scripts/check-wasm-features.py --quiet
  node_modules/.bin/depcruise --config .dependency-cruiser.json --output-type err plugin tests
  # The docs held to the code: the format version, the module map, the constants they state, the
  # commands, scripts and Rust paths they cite (scripts/check-docs.py); docs/ranking.md's table of
  # constants matches crate/src/ranking.rs.
  python3 scripts/check-docs.py --quiet
  python3 docs/ranking-table.py --check
  # Rust and TypeScript formatting (rustfmt.toml, .prettierrc.json; `npm run format` rewrites).
  cargo fmt --all --check
  cargo fmt --check --manifest-path scripts/wasm-bindgen/Cargo.toml
  node_modules/.bin/prettier --check --log-level warn "plugin/**/*.ts" "tests/**/*.{ts,mjs,html}" "*.{mjs,mts,json}"
  # Types: the TypeScript, and the wasm modules' declarations on their own (tsconfig.wasm.json:
  # every type crate/src/wasm.rs names must resolve).
  node_modules/.bin/tsc --noEmit
  node_modules/.bin/tsc --noEmit -p tsconfig.wasm.json
  # (TypeScript lint: typescript-eslint and the Obsidian review's rules, eslint.config.mjs, 0 errors,
  # runs beside these, in lint above.)
  # The Obsidian review bot's own config, without this repository's overrides, on the code the
  # plugin loads: 0 errors, and no warning beyond those eslint.review.config.mjs explains.
  node_modules/.bin/eslint -c eslint.review.config.mjs --max-warnings 3 plugin/obsidian plugin/core
}
spawn lint lint
# The Rust side: clippy for the configurations the Rust tests do not compile, the wasm32 builds
# (the core with its bindings; the embedder, with its own tests and the core's tests of the native
# embedder, and the bench crate: those tests run natively only and are compiled for wasm32 under
# clippy, so tract is never built or checked natively; the chunker with the grammars' C flags of
# scripts/wasm-cflags.sh); then the Rust tests. Both compile through clippy-driver as the
# workspace's rustc (RUSTC_WORKSPACE_WRAPPER, warnings as errors): it lints the workspace's crates
# as it builds them and hands every dependency to plain rustc, so the wasm32 lint reuses the
# dependencies the wasm build compiled (same profile, target and features; `cargo clippy` would
# check each of them again) and compiles only the workspace's crates, at opt-level 0. (The wasm
# itself is never built through clippy-driver: it compiles with MIR optimisations off, and the
# embedder ran at half speed that way.)
rust() {
  set -e
  RUSTC_WORKSPACE_WRAPPER=$(command -v clippy-driver)
  export RUSTC_WORKSPACE_WRAPPER
  export CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
  local wasm=(--profile release --target wasm32-unknown-unknown) p
  for p in strata-core strata-model strata-chunker strata-embedder strata-bench; do
    wasm+=(--config "profile.release.package.$p.opt-level=0")
  done
  cargo build "${wasm[@]}" -p strata-core -p strata-embedder -p strata-bench --no-default-features \
    --features strata-core/embedder --all-targets
  cargo build "${wasm[@]}" -p strata-core --no-default-features --features bindings,unify-deps --all-targets
  CFLAGS_wasm32_unknown_unknown="$(bash scripts/wasm-cflags.sh)" \
    cargo build "${wasm[@]}" -p strata-chunker --features bindings --all-targets
  # Without the native embedder: tract is built once, for wasm, and the Node tests check that
  # embedder against the reference vectors (`cargo test --workspace` runs its own tests too).
  # The chunker's tests (fixtures per language, JSON/YAML, garbage, huge and nested input) in the
  # same build: strata-core/code turns on its `parse`, and one build compiles the crates they
  # share once (a second `cargo test -p strata-chunker` compiled serde, regex and syn again).
  cargo test -p strata-core -p strata-bench -p strata-chunker --no-default-features --features strata-core/code
}
spawn rust rust
join lint

# 3. The Node tests (the Rust side goes on beside them), and the UI test as soon as the Rust side
# has ended (beside the Node tests' last files, which leave a core idle).
spawn node-tests node --import tsx tests/run-node-tests.ts
join rust ui-setup
spawn ui-test node --import tsx tests/ui/run.ts
join node-tests ui-test
trap - EXIT
printf '\ntest.sh: %s s in all; %s\n' "$(($(date +%s) - t0))" "$(
  IFS=';'
  echo "${times[*]}"
)"
