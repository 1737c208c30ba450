#!/usr/bin/env bash
# Builds the pinned code vault of the code retrieval evaluation (tests/eval-code/queries.jsonl)
# in OUT_DIR: this repository's crate/src and plugin at a fixed commit (line numbers never
# move), and the sources of a few npm packages from node_modules at the versions
# package-lock.json pins (under OUT_DIR/npm/<name>/). No network; running it again gives the
# same tree.
#
#   bash scripts/code-vault.sh /tmp/code-vault
#   node dist/strata.js eval /tmp/code-vault tests/eval-code/queries.jsonl --mode lexical
set -euo pipefail

REPO_COMMIT=ceb6480
# name@version path… : the package's readable sources (no bundles, tests or typings).
PACKAGES=(
  "semver@7.8.6 index.js preload.js classes functions internal ranges"
  "picomatch@4.0.7 index.js posix.js lib"
  "js-yaml@4.3.2 lib/common.js lib/dumper.js lib/exception.js lib/loader.js lib/schema.js lib/snippet.js lib/type.js lib/schema lib/type"
  "commander@13.1.0 index.js lib"
  "minisearch@7.2.0 src/index.ts src/MiniSearch.ts src/SearchableMap/SearchableMap.ts src/SearchableMap/TreeIterator.ts src/SearchableMap/fuzzySearch.ts src/SearchableMap/types.ts"
  "ignore@5.3.2 index.js"
)

out=${1:?usage: scripts/code-vault.sh OUT_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
modules="$root/node_modules"

rm -rf "$out"
mkdir -p "$out"
git -C "$root" archive "$REPO_COMMIT" crate/src plugin | tar -x -C "$out"

for spec in "${PACKAGES[@]}"; do
  read -r id paths <<<"$spec"
  name=${id%@*}
  want=${id#*@}
  have=$(node -p "require('$modules/$name/package.json').version")
  if [[ "$have" != "$want" ]]; then
    echo "code-vault: node_modules/$name is $have, the labels are for $want (npm ci)" >&2
    exit 1
  fi
  for p in $paths; do
    mkdir -p "$out/npm/$name/$(dirname "$p")"
    cp -R "$modules/$name/$p" "$out/npm/$name/$p"
  done
done

echo "code-vault: $(find "$out" -type f | wc -l) files in $out"
