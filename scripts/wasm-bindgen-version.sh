# Sourced by scripts/setup.sh and scripts/wasm-bindgen.sh: the version of wasm-bindgen in
# Cargo.lock ($wasm_bindgen_version) and, when scripts/wasm-bindgen's lock file pins another
# wasm-bindgen-cli-support, what to do about it ($wasm_bindgen_mismatch, else empty).
lock_version() { awk -v n="$1" '$0 == "name = \"" n "\"" { getline; gsub(/version = |"/, ""); print; exit }' "$2"; }
wasm_bindgen_version=$(lock_version wasm-bindgen Cargo.lock)
wasm_bindgen_cli_version=$(lock_version wasm-bindgen-cli-support scripts/wasm-bindgen/Cargo.lock)
wasm_bindgen_mismatch=
if [ -z "$wasm_bindgen_version" ]; then
  wasm_bindgen_mismatch="Cargo.lock names no wasm-bindgen version"
elif [ "$wasm_bindgen_cli_version" != "$wasm_bindgen_version" ]; then
  wasm_bindgen_mismatch="Cargo.lock has wasm-bindgen $wasm_bindgen_version but scripts/wasm-bindgen builds wasm-bindgen-cli-support ${wasm_bindgen_cli_version:-(none)}: set its version and pin to =$wasm_bindgen_version in scripts/wasm-bindgen/Cargo.toml and run cargo update --manifest-path scripts/wasm-bindgen/Cargo.toml"
fi
