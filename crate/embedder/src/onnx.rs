//! Sentence embeddings with a BERT-family ONNX model, run by tract, tokenized
//! by the Hugging Face `tokenizers` crate. Native and wasm32 alike.
//!
//! Model-agnostic: any encoder ONNX whose inputs are some of `input_ids`,
//! `attention_mask`, `token_type_ids` (shape `[batch, sequence]`, i64 or i32)
//! and whose first output (or the one named `last_hidden_state` /
//! `token_embeddings`) is `[batch, sequence, dim]` (token states, pooled here)
//! or `[batch, dim]` (already pooled by the model), plus its `tokenizer.json`.
//! Model and tokenizer are given as bytes: nothing here touches a file system.
//!
//! The pipeline (the same as `scripts/make-reference-vectors.py`, which makes
//! the reference vectors the tests compare against):
//! 1. the tokenizer.json's own padding and truncation are turned off: a Hub
//!    tokenizer.json carries `Fixed(128)` padding and 128-token truncation,
//!    which silently gives wrong vectors (cosine .23–.57 against the
//!    reference) when the model is fed padded rows with a mask we did not make;
//! 2. each text is truncated to `max_tokens` here, keeping its trailing
//!    special tokens (`[SEP]`), which is what the tokenizer's own truncation
//!    at `max_tokens` gives;
//! 3. texts are sorted by length and cut into batches of `batch_size`; each
//!    batch is padded to its longest row with the tokenizer's pad id
//!    (`attention_mask` 0, `token_type_ids` 0);
//! 4. the model runs with the input shapes its ONNX declares (`[batch,
//!    sequence]` symbols). Adding symbols of our own fails in tract with
//!    "Impossible to unify Sym(sequence) with Sym(S)";
//! 5. mean pooling over the attention mask (or the `[CLS]` row), then L2
//!    normalisation.
//!
//! tract notes (0.23): `set_output_outlets` is `select_output_outlets`;
//! tract-onnx-opl pulls getrandom 0.4, which needs tract-onnx's
//! `getrandom-js` feature (getrandom/wasm_js) and
//! `--cfg getrandom_backend="wasm_js"` on wasm32; build the wasm with
//! `-C target-feature=+simd128` (tract's wasm matmul kernels need it).

use std::collections::HashMap;
use std::sync::Arc;

use tokenizers::Tokenizer;
use tract_onnx::prelude::*;
use tract_onnx::tract_hir::infer::Factoid;

use strata_model::{EmbedderConfig, Pooling, ShapeMode, TextEmbedder, SEQ_BUCKET};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    InputIds,
    AttentionMask,
    TokenTypeIds,
}

type Plan = Arc<TypedRunnableModel>;

/// A loaded model + tokenizer (or a model alone, fed token ids: a pool worker).
pub struct Embedder {
    cfg: EmbedderConfig,
    /// None for an embedder made with [`Embedder::for_token_ids`]: multilingual-e5-small's
    /// 250k-piece Unigram tokenizer alone holds ~234 MiB (its trie), which a pool worker need not.
    tokenizer: Option<Tokenizer>,
    pad_id: u32,
    /// Model inputs in order: their role and datum type.
    inputs: Vec<(Role, DatumType)>,
    /// Rank of the selected output (3: token states, 2: already pooled).
    output_rank: usize,
    /// Decluttered model, symbolic in batch and sequence (Concrete mode only).
    typed: Option<TypedModel>,
    /// The symbols of the first input's two axes.
    batch_sym: Option<Symbol>,
    seq_sym: Option<Symbol>,
    /// The sequence length, if the ONNX fixes it.
    fixed_seq: Option<usize>,
    /// Symbolic-mode plan.
    plan: Option<Plan>,
    /// Concrete-mode plans by (batch, padded sequence), with their last use.
    concrete: HashMap<(usize, usize), (Plan, u64)>,
    clock: u64,
}

fn err<E: std::fmt::Display>(ctx: &'static str) -> impl FnOnce(E) -> String {
    move |e| format!("{ctx}: {e}")
}

/// `Gather(Mul(Cast(table), scale), ids)` → `Mul(Cast(Gather(table, ids)), Gather(scale, ids))`
/// when the table and the scale are constants and the scale is per row (or one value): an
/// int8 embedding table dequantised in the graph (all-MiniLM-L6-v2's word embeddings,
/// 30522×384 with a scale per row). tract does not fold that dequantisation (the f32 table
/// would be 4× the int8 one), so every run cast and scaled the whole table — two 47 MB
/// tensors — to gather a few rows. Gathering first gives the same values: cast and scale
/// are elementwise.
fn gather_before_dequant(model: &mut TypedModel) -> TractResult<()> {
    use tract_onnx::tract_core::ops::array::Gather;
    use tract_onnx::tract_core::ops::binary::TypedBinOp;
    use tract_onnx::tract_core::ops::cast::Cast;
    use tract_onnx::tract_core::ops::change_axes::AxisOp;
    loop {
        let mut found = None;
        for gid in model.eval_order()? {
            let g = model.node(gid);
            let Some(gather) = g.op_as::<Gather>() else { continue };
            let mul = model.node(g.inputs[0].node);
            let Some(bin) = mul.op_as::<TypedBinOp>() else { continue };
            if bin.0.name() != "Mul" || mul.inputs.len() != 2 || mul.outputs[0].successors.len() != 1 {
                continue;
            }
            let Some(cast_ix) = (0..2).find(|&i| model.node(mul.inputs[i].node).op_is::<Cast>()) else { continue };
            let scale_ix = 1 - cast_ix;
            let cast = model.node(mul.inputs[cast_ix].node);
            let table_fact = model.outlet_fact(cast.inputs[0])?;
            let Some(scale_k) = model.outlet_fact(mul.inputs[scale_ix])?.konst.clone() else { continue };
            if cast.outputs[0].successors.len() != 1 || table_fact.konst.is_none() {
                continue;
            }
            // The scale: one value, or one per row of the gathered axis (1 on the other axes).
            let table_shape = table_fact.shape.as_concrete().map(|s| s.to_vec()).unwrap_or_default();
            let per_row = scale_k.len() != 1
                && scale_k.rank() == table_shape.len()
                && scale_k
                    .shape()
                    .iter()
                    .enumerate()
                    .all(|(i, &d)| if i == gather.axis { d == table_shape[i] } else { d == 1 });
            if scale_k.len() != 1 && !per_row {
                continue;
            }
            let mut patch = TypedModelPatch::default();
            let table = patch.tap_model(model, cast.inputs[0])?;
            let ids = patch.tap_model(model, g.inputs[1])?;
            let mut scale = patch.tap_model(model, mul.inputs[scale_ix])?;
            if per_row {
                scale = patch.wire_node(format!("{}.scale_rows", g.name), gather.clone(), &[scale, ids])?[0];
            }
            let rows = patch.wire_node(format!("{}.rows", g.name), gather.clone(), &[table, ids])?;
            let rows = patch.wire_node(format!("{}.rows_cast", g.name), cast.op.clone(), &rows)?[0];
            let rank = patch.outlet_fact(rows)?.rank();
            for i in patch.outlet_fact(scale)?.rank()..rank {
                scale = patch.wire_node(format!("{}.scale_axis{i}", g.name), AxisOp::Add(0), &[scale])?[0];
            }
            let inputs = if cast_ix == 0 { [rows, scale] } else { [scale, rows] };
            let out = patch.wire_node(format!("{}.rows_scaled", g.name), mul.op.clone(), &inputs)?[0];
            patch.shunt_outside(model, gid.into(), out)?;
            found = Some(patch);
            break;
        }
        match found {
            Some(patch) => patch.apply(model)?,
            None => return Ok(()),
        }
    }
}

impl Embedder {
    /// Load an ONNX model and its tokenizer.json from bytes.
    pub fn new(model: &[u8], tokenizer_json: &[u8], cfg: EmbedderConfig) -> Result<Embedder, String> {
        Self::from_owned(model.to_vec(), tokenizer_json, cfg)
    }

    /// Load an ONNX model (bytes we own, dropped as soon as they are decoded) and its
    /// tokenizer.json. Measured with multilingual-e5-small (194 MB ONNX) in wasm: tract's
    /// `model_for_read` copies the bytes, decodes them into a protobuf (a second copy) and
    /// builds tensors (a third) while the caller's bytes are still alive.
    pub fn from_owned(model: Vec<u8>, tokenizer_json: &[u8], cfg: EmbedderConfig) -> Result<Embedder, String> {
        let mut e = Self::model_only(model, cfg)?;
        // The plan first, the tokenizer after: the model's transient copies are freed by
        // then and their memory is reused (a wasm memory never shrinks; a 250k-piece
        // Unigram tokenizer is itself ~230 MiB).
        let mut tokenizer = Tokenizer::from_bytes(tokenizer_json).map_err(err("tokenizer.json"))?;
        e.pad_id = tokenizer
            .get_padding()
            .map(|p| p.pad_id)
            .or_else(|| tokenizer.token_to_id("[PAD]"))
            .or_else(|| tokenizer.token_to_id("<pad>"))
            .unwrap_or(0);
        tokenizer.with_padding(None);
        tokenizer.with_truncation(None).map_err(err("tokenizer truncation"))?;
        e.tokenizer = Some(tokenizer);
        Ok(e)
    }

    /// A model without its tokenizer, fed token ids ([`Embedder::embed_ids`]) made by an
    /// embedder that has one ([`Embedder::passage_ids`], [`Embedder::pad_id`]): the vectors are
    /// the same, bit for bit. What a pool worker loads.
    pub fn for_token_ids(model: Vec<u8>, pad_id: u32, cfg: EmbedderConfig) -> Result<Embedder, String> {
        let mut e = Self::model_only(model, cfg)?;
        e.pad_id = pad_id;
        Ok(e)
    }

    fn model_only(model: Vec<u8>, cfg: EmbedderConfig) -> Result<Embedder, String> {
        if cfg.max_tokens < 2 || cfg.batch_size == 0 || cfg.dimension == 0 || cfg.max_plans == 0 {
            return Err(
                "embedder config: max_tokens >= 2, batch_size, dimension and max_plans >= 1 are required".into()
            );
        }
        let onnx = tract_onnx::onnx();
        let proto = {
            use prost::Message;
            tract_onnx::pb::ModelProto::decode(prost::bytes::Bytes::from(model)).map_err(err("onnx model"))?
        };
        let mut model = onnx.model_for_proto_model(&proto).map_err(err("onnx model"))?;
        drop(proto);

        // Inputs, by name.
        let mut inputs = Vec::new();
        for (ix, outlet) in model.input_outlets().map_err(err("onnx inputs"))?.to_vec().iter().enumerate() {
            let name = model.node(outlet.node).name.clone();
            let role = match name.as_str() {
                "input_ids" => Role::InputIds,
                "attention_mask" => Role::AttentionMask,
                "token_type_ids" | "segment_ids" => Role::TokenTypeIds,
                other => return Err(format!("onnx model: unsupported input `{other}`")),
            };
            let dt =
                model.input_fact(ix).map_err(err("onnx inputs"))?.datum_type.concretize().unwrap_or(DatumType::I64);
            if !matches!(dt, DatumType::I64 | DatumType::I32) {
                return Err(format!("onnx model: input `{name}` has type {dt:?}, want i64 or i32"));
            }
            inputs.push((role, dt));
        }
        if !inputs.iter().any(|(r, _)| *r == Role::InputIds) {
            return Err("onnx model: no `input_ids` input".into());
        }

        // Output: the token states (or a pooled output); drop the others (e.g. pooler_output).
        let outs = model.output_outlets().map_err(err("onnx outputs"))?.to_vec();
        let label = |o: &OutletId| model.outlet_label(*o).unwrap_or("").to_string();
        let chosen = outs
            .iter()
            .find(|o| matches!(label(o).as_str(), "last_hidden_state" | "token_embeddings"))
            .or_else(|| outs.first())
            .copied()
            .ok_or("onnx model: no output")?;
        model.select_output_outlets(&[chosen]).map_err(err("onnx outputs"))?;

        let mut typed = model.into_typed().and_then(|m| m.into_decluttered()).map_err(err("onnx typing"))?;
        gather_before_dequant(&mut typed).map_err(err("onnx embeddings"))?;
        let out_fact = typed.output_fact(0).map_err(err("onnx outputs"))?;
        let output_rank = out_fact.rank();
        if output_rank != 2 && output_rank != 3 {
            return Err(format!("onnx model: output rank {output_rank}, want 3 (token states) or 2 (pooled)"));
        }
        if let Some(d) = out_fact.shape.last().and_then(|d| d.to_i64().ok()) {
            if d as usize != cfg.dimension {
                return Err(format!("onnx model: output dimension {d}, config says {}", cfg.dimension));
            }
        }
        let in_shape = typed.input_fact(0).map_err(err("onnx inputs"))?.shape.to_tvec();
        if in_shape.len() != 2 {
            return Err(format!("onnx model: input rank {}, want 2 ([batch, sequence])", in_shape.len()));
        }
        let as_sym = |d: &TDim| if let TDim::Sym(s) = d { Some(s.clone()) } else { None };
        let batch_sym = as_sym(&in_shape[0]);
        let seq_sym = as_sym(&in_shape[1]);
        // A model exported with fixed shapes: pad every row to its length,
        // run one text at a time if its batch is 1.
        let mut cfg = cfg;
        let fixed_seq = in_shape[1].to_i64().ok().map(|n| n as usize);
        if let Some(n) = fixed_seq {
            cfg.max_tokens = cfg.max_tokens.min(n);
        }
        match in_shape[0].to_i64() {
            Ok(1) => cfg.batch_size = 1,
            Ok(n) => {
                return Err(format!("onnx model: fixed batch size {n} is not supported (export with a dynamic batch)"))
            }
            Err(_) => {}
        }

        let (plan, typed) = match cfg.shape_mode {
            ShapeMode::Symbolic => {
                // tract turns the elementwise ops (GELU's, the residual adds, the scalings)
                // into its SIMD by-scalar / unicast forms, and fuses some into the matrix
                // products, only when it can prove the tensor holds 32+ elements: not with
                // `batch × sequence` symbolic (a product of two symbols), but with the batch
                // fixed to 1 (our wasm default) and `sequence >= 1` asserted. Measured in wasm
                // (Node 20, CPU time), one 256-token row: all-MiniLM-L6-v2 517 → 401 ms per
                // run (the unfused Add/Mul ops ~100 ms → ~5), multilingual-e5-small 876 → 785
                // ms; vectors bit-identical. Still one plan for every length.
                let mut typed = typed;
                if let Some(s) = &seq_sym {
                    typed.symbols.add_assertion(format!("{s}>=1")).map_err(err("onnx symbols"))?;
                }
                if cfg.batch_size == 1 {
                    if let Some(b) = &batch_sym {
                        let subs = HashMap::from([(b.clone(), TDim::Val(1))]);
                        typed = typed.set_symbols(&subs).map_err(err("onnx batch of 1"))?;
                    }
                }
                (Some(typed.into_optimized().and_then(|m| m.into_runnable()).map_err(err("onnx optimize"))?), None)
            }
            ShapeMode::Concrete => (None, Some(typed)),
        };
        Ok(Embedder {
            cfg,
            tokenizer: None,
            pad_id: 0,
            inputs,
            output_rank,
            typed,
            batch_sym,
            seq_sym,
            fixed_seq,
            plan,
            concrete: HashMap::new(),
            clock: 0,
        })
    }

    pub fn config(&self) -> &EmbedderConfig {
        &self.cfg
    }

    pub fn dimension(&self) -> usize {
        self.cfg.dimension
    }

    /// Number of optimized plans held (Concrete mode; 1 in Symbolic mode).
    pub fn cached_plans(&self) -> usize {
        self.concrete.len() + self.plan.is_some() as usize
    }

    /// Token ids of `text` as the model sees it: special tokens included,
    /// truncated to `max_tokens` (no prefix added).
    pub fn token_ids(&self, text: &str) -> Vec<u32> {
        self.encode(text).unwrap_or_default()
    }

    /// The id padded rows are filled with.
    pub fn pad_id(&self) -> u32 {
        self.pad_id
    }

    fn encode(&self, text: &str) -> Result<Vec<u32>, String> {
        let tokenizer =
            self.tokenizer.as_ref().ok_or("embed: this embedder has no tokenizer (it embeds token ids only)")?;
        let enc = tokenizer.encode_fast(text, true).map_err(err("tokenize"))?;
        let ids = enc.get_ids();
        let max = self.cfg.max_tokens;
        if ids.len() <= max {
            return Ok(ids.to_vec());
        }
        // Keep the trailing special tokens ([SEP] / </s>).
        let mask = enc.get_special_tokens_mask();
        let tail = mask.iter().rev().take_while(|&&m| m == 1).count().min(max - 1);
        let mut out = Vec::with_capacity(max);
        out.extend_from_slice(&ids[..max - tail]);
        out.extend_from_slice(&ids[ids.len() - tail..]);
        Ok(out)
    }

    /// Embed passages (chunks of notes), with the passage prefix.
    pub fn embed_passages(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        let prefix = self.cfg.passage_prefix.clone();
        self.embed_with_prefix(&prefix, texts)
    }

    /// Embed one query, with the query prefix.
    pub fn embed_query(&mut self, text: &str) -> Result<Vec<f32>, String> {
        let prefix = self.cfg.query_prefix.clone();
        Ok(self.embed_with_prefix(&prefix, &[text])?.pop().expect("one vector per text"))
    }

    /// Token ids of passages as [`Embedder::embed_passages`] feeds them to the model (passage
    /// prefix, special tokens, truncation), for an embedder made with [`Embedder::for_token_ids`].
    pub fn passage_ids(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>, String> {
        self.ids_with_prefix(&self.cfg.passage_prefix, texts)
    }

    fn ids_with_prefix(&self, prefix: &str, texts: &[&str]) -> Result<Vec<Vec<u32>>, String> {
        texts
            .iter()
            .map(|t| if prefix.is_empty() { self.encode(t) } else { self.encode(&format!("{prefix}{t}")) })
            .collect()
    }

    fn embed_with_prefix(&mut self, prefix: &str, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        let ids = self.ids_with_prefix(prefix, texts)?;
        self.embed_ids(&ids)
    }

    /// Embed already-tokenized sequences (each at most `max_tokens`, special
    /// tokens included). Results are in input order.
    pub fn embed_ids(&mut self, ids: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, String> {
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| ids[i].len());
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); ids.len()];
        for chunk in order.chunks(self.cfg.batch_size) {
            let rows: Vec<&[u32]> = chunk.iter().map(|&i| ids[i].as_slice()).collect();
            let vecs = self.run_batch(&rows)?;
            for (&i, v) in chunk.iter().zip(vecs) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    fn plan_for(&mut self, b: usize, s: usize) -> Result<Plan, String> {
        if let Some(p) = &self.plan {
            return Ok(p.clone());
        }
        self.clock += 1;
        if let Some((p, used)) = self.concrete.get_mut(&(b, s)) {
            *used = self.clock;
            return Ok(p.clone());
        }
        let typed = self.typed.as_ref().ok_or("embedder: no model for concrete shapes")?;
        let mut subs = HashMap::new();
        if let Some(sym) = &self.batch_sym {
            subs.insert(sym.clone(), TDim::Val(b as i64));
        }
        if let Some(sym) = &self.seq_sym {
            subs.insert(sym.clone(), TDim::Val(s as i64));
        }
        let plan = typed
            .set_symbols(&subs)
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .map_err(err("onnx optimize (concrete)"))?;
        if self.concrete.len() >= self.cfg.max_plans {
            if let Some(oldest) = self.concrete.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| *k) {
                self.concrete.remove(&oldest);
            }
        }
        self.concrete.insert((b, s), (plan.clone(), self.clock));
        Ok(plan)
    }

    fn run_batch(&mut self, rows: &[&[u32]]) -> Result<Vec<Vec<f32>>, String> {
        let b = rows.len();
        let longest = rows.iter().map(|r| r.len()).max().unwrap_or(0);
        if longest == 0 {
            return Err("embed: empty token sequence".into());
        }
        if longest > self.cfg.max_tokens {
            return Err(format!("embed: sequence of {longest} tokens exceeds max_tokens {}", self.cfg.max_tokens));
        }
        // Concrete mode rounds the width up to bound the number of plans.
        let s = match (self.fixed_seq, self.cfg.shape_mode) {
            (Some(n), _) => n,
            (None, ShapeMode::Symbolic) => longest,
            (None, ShapeMode::Concrete) => {
                (longest.div_ceil(SEQ_BUCKET) * SEQ_BUCKET).min(self.cfg.max_tokens).max(longest)
            }
        };
        let mut input_ids = vec![self.pad_id as i64; b * s];
        let mut mask = vec![0i64; b * s];
        for (r, row) in rows.iter().enumerate() {
            for (t, &id) in row.iter().enumerate() {
                input_ids[r * s + t] = id as i64;
                mask[r * s + t] = 1;
            }
        }
        let zeros = vec![0i64; b * s];
        let mut feed: TVec<TValue> = tvec![];
        for (role, dt) in &self.inputs {
            let data = match role {
                Role::InputIds => &input_ids,
                Role::AttentionMask => &mask,
                Role::TokenTypeIds => &zeros,
            };
            let mut t = Tensor::from_shape(&[b, s], data).map_err(err("input tensor"))?;
            if *dt != DatumType::I64 {
                t = t.cast_to_dt(*dt).map_err(err("input tensor"))?.into_owned();
            }
            feed.push(t.into());
        }
        let plan = self.plan_for(b, s)?;
        let outputs = plan.run(feed).map_err(err("onnx run"))?;
        let out = outputs[0].try_as_plain_ram().map_err(err("onnx output"))?;
        let shape = out.shape().to_vec();
        let data: &[f32] = out.as_slice::<f32>().map_err(err("onnx output"))?;
        let d = self.cfg.dimension;
        let mut vecs = Vec::with_capacity(b);
        match self.output_rank {
            3 => {
                if shape != [b, s, d] {
                    return Err(format!("onnx output shape {shape:?}, want [{b}, {s}, {d}]"));
                }
                for (r, row) in rows.iter().enumerate() {
                    let base = r * s * d;
                    let mut v = vec![0f32; d];
                    match self.cfg.pooling {
                        Pooling::Mean => {
                            for t in 0..row.len() {
                                let tok = &data[base + t * d..base + (t + 1) * d];
                                for (acc, x) in v.iter_mut().zip(tok) {
                                    *acc += *x;
                                }
                            }
                            let n = row.len() as f32;
                            v.iter_mut().for_each(|x| *x /= n);
                        }
                        Pooling::Cls => v.copy_from_slice(&data[base..base + d]),
                    }
                    vecs.push(v);
                }
            }
            _ => {
                if shape != [b, d] {
                    return Err(format!("onnx output shape {shape:?}, want [{b}, {d}]"));
                }
                vecs.extend(data.chunks_exact(d).map(|c| c.to_vec()));
            }
        }
        if self.cfg.normalize {
            for v in &mut vecs {
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                if n > 0.0 {
                    v.iter_mut().for_each(|x| *x /= n);
                }
            }
        }
        Ok(vecs)
    }
}

// Run natively (`cargo test --workspace`); clippy also checks them for wasm32, with the
// embedder's wasm32 lint in test.sh, so no native build of tract is needed to lint them.
#[cfg(all(test, any(not(target_arch = "wasm32"), clippy)))]
#[path = "onnx_tests.rs"]
mod tests;

impl TextEmbedder for Embedder {
    fn config(&self) -> &EmbedderConfig {
        Embedder::config(self)
    }

    fn embed_passages(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        Embedder::embed_passages(self, texts)
    }

    fn embed_query(&mut self, text: &str) -> Result<Vec<f32>, String> {
        Embedder::embed_query(self, text)
    }
}
