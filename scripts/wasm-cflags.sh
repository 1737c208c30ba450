#!/usr/bin/env bash
# Prints the C flags the tree-sitter grammars need to build for wasm32-unknown-unknown (clang):
# tree-sitter-language's wasm headers (its minimal libc: the grammars' crates do not pass them
# to their C build), stddef.h for the C++ scanner's wchar_t, and C11's static_assert (without
# it clang leaves `static_assert` an undefined function, an `env` import in the wasm).
# Used as CFLAGS_wasm32_unknown_unknown by scripts/build-wasm.sh and test.sh's wasm32 clippy.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=$(cargo metadata --format-version 1 | python3 -c '
import json, os, sys
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == "tree-sitter-language":
        print(os.path.dirname(p["manifest_path"]))
        break
')
if [ -z "$dir" ] || [ ! -d "$dir/wasm/include" ]; then
  echo "wasm-cflags: no wasm/include in tree-sitter-language's package (cargo metadata gave '${dir}')" >&2
  exit 1
fi
printf '%s\n' "-isystem $dir/wasm/include -include stddef.h -Dstatic_assert=_Static_assert"
