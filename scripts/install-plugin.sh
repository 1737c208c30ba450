#!/usr/bin/env bash
# Installs the built plugin into a vault: npm run install-plugin -- <vault>
# Copies main.js, manifest.json, styles.css (and mcp-bridge.js with the three .wasm files when
# built, and the embedding model when scripts/fetch-model.sh fetched it) into <vault>/<configDir>/plugins/strata-search/.
# Build first with `node esbuild.config.mjs` (or `npm run build`). Then enable "Strata" under
# Settings → Community plugins (and reload Obsidian if it was running).
set -euo pipefail
cd "$(dirname "$0")/.."

vault=${1:-}
config_dir=${STRATA_CONFIG_DIR:-.obsidian}
if [ -z "$vault" ]; then
  echo "usage: npm run install-plugin -- <vault folder>" >&2; exit 2
fi
if [ ! -d "$vault" ]; then
  echo "install-plugin: not a folder: $vault" >&2; exit 2
fi
for f in main.js manifest.json styles.css; do
  if [ ! -f "$f" ]; then
    echo "install-plugin: $f is missing: build first (node esbuild.config.mjs)" >&2; exit 1
  fi
done
dest="$vault/$config_dir/plugins/strata-search"
mkdir -p "$dest"
cp main.js manifest.json styles.css "$dest/"
if [ -f mcp-bridge.js ]; then cp mcp-bridge.js "$dest/"; elif [ -f dist/mcp-bridge.js ]; then cp dist/mcp-bridge.js "$dest/"; fi
# The headless MCP bridge (Obsidian not running) loads the wasm from beside itself; main.js
# carries its own copies inline.
for w in strata_core_bg.wasm strata_embedder_bg.wasm strata_chunker_bg.wasm; do
  if [ -f "build/wasm/$w" ]; then cp "build/wasm/$w" "$dest/"; fi
done
# The embedding models (folders models/<id>/ with model.onnx + tokenizer.json), each optional.
installed=0
for id in all-MiniLM-L6-v2 multilingual-e5-small; do
  model="models/$id"
  if [ -f "$model/model.onnx" ] && [ -f "$model/tokenizer.json" ]; then
    mkdir -p "$dest/models/$id"
    cp "$model/model.onnx" "$model/tokenizer.json" "$dest/models/$id/"
    echo "install-plugin: model $id installed"
    installed=$((installed + 1))
  else
    echo "install-plugin: no $id in $model (scripts/fetch-model.sh and scripts/fetch-e5.sh make the models)"
  fi
done
if [ "$installed" = 0 ]; then
  echo "install-plugin: no embedding model: search is lexical until one is installed"
fi
echo "install-plugin: installed into $dest"
echo "Enable Strata in Obsidian: Settings → Community plugins (reload Obsidian if it is running)."
