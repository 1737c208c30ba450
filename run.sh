#!/usr/bin/env bash
# Builds everything and runs the main job: index a vault and search it.
#   ./run.sh                     the example vault in tests/fixtures/vault, a few sample queries
#   ./run.sh VAULT ["QUERY"]     your vault (the index goes to VAULT/.obsidian/plugins/strata-search/index)
set -euo pipefail
cd "$(dirname "$0")"

# Set-up leaves npm, the models and clang installing in the background while the wasm compiles
# (scripts/setup.sh --background); --wait waits for them before the bundles and the demo.
bash scripts/setup.sh --background
bash scripts/build-wasm.sh
bash scripts/setup.sh --wait
node esbuild.config.mjs

if [ "$#" -ge 1 ]; then
  vault=$1
  node dist/strata.js index "$vault"
  if [ "$#" -ge 2 ]; then
    node dist/strata.js search "$vault" "$2"
  fi
else
  # The example vault ships in the repository: keep its index in build/, out of the tracked tree.
  vault=tests/fixtures/vault
  idx=(--index-dir build/example-index)
  # Every core embeds: nothing else runs now (`strata index` leaves one to the desktop by default).
  threads=$(nproc 2>/dev/null || echo 2)
  [ "$threads" -le 16 ] || threads=16
  node dist/strata.js index "$vault" "${idx[@]}" --threads "$threads"
  # The last query shares no word with the vault: hybrid search finds the note by meaning
  # (with the model from scripts/fetch-model.sh; without it, hybrid answers lexically).
  for q in "sourdough hydration" "乌龙茶 水温" "山小屋" "thirsty veggies"; do
    printf '\n$ strata search %s "%s"\n' "$vault" "$q"
    node dist/strata.js search "$vault" "$q" --k 3 "${idx[@]}"
  done
  if [ -f "${STRATA_MODEL_DIR:-models/all-MiniLM-L6-v2}/model.onnx" ]; then
    printf '\n$ strata similar %s "Cooking/Sourdough starter.md"\n' "$vault"
    node dist/strata.js similar "$vault" "Cooking/Sourdough starter.md" --k 3 "${idx[@]}"
  fi
fi
