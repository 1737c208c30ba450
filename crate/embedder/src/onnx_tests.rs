//! Tests of the ONNX embedder against the reference vectors (native, with the models in
//! `models/`; they skip themselves without them).

use super::*;
use std::path::PathBuf;

fn model_dir() -> PathBuf {
    if let Ok(d) = std::env::var("STRATA_MODEL_DIR") {
        return PathBuf::from(d);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../models/all-MiniLM-L6-v2")
}

fn fixture_path() -> PathBuf {
    if let Ok(p) = std::env::var("STRATA_REFERENCE_JSON") {
        return PathBuf::from(p);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/embeddings/reference.json")
}

/// Model bytes, or None (with a message) when the model was not fetched.
fn load_model() -> Option<(Vec<u8>, Vec<u8>)> {
    let dir = model_dir();
    match (std::fs::read(dir.join("model.onnx")), std::fs::read(dir.join("tokenizer.json"))) {
        (Ok(m), Ok(t)) => Some((m, t)),
        _ => {
            println!("SKIP: no model in {} (run scripts/fetch-model.sh)", dir.display());
            None
        }
    }
}

#[derive(serde::Deserialize)]
struct RefSentence {
    lang: String,
    text: String,
    ids: Vec<u32>,
    vector: Vec<f32>,
}
#[derive(serde::Deserialize)]
struct Reference {
    max_tokens: usize,
    dimension: usize,
    sentences: Vec<RefSentence>,
}

fn reference() -> Reference {
    let bytes = std::fs::read(fixture_path()).expect("reference.json (tests/fixtures/embeddings)");
    serde_json::from_slice(&bytes).expect("reference.json parses")
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

fn check_against_reference(mode: ShapeMode) {
    let Some((model, tok)) = load_model() else { return };
    let r = reference();
    let cfg = EmbedderConfig { shape_mode: mode, ..EmbedderConfig::minilm_l6_v2() };
    assert_eq!(cfg.max_tokens, r.max_tokens);
    assert_eq!(cfg.dimension, r.dimension);
    let mut e = Embedder::new(&model, &tok, cfg).expect("load model");

    for s in &r.sentences {
        assert_eq!(e.token_ids(&s.text), s.ids, "token ids differ for {:?} ({})", s.text, s.lang);
    }
    assert!(r.sentences.iter().any(|s| s.ids.len() == r.max_tokens), "fixture must exercise truncation");

    let texts: Vec<&str> = r.sentences.iter().map(|s| s.text.as_str()).collect();
    let got = e.embed_passages(&texts).expect("embed");
    let mut worst = 1.0f32;
    for (s, v) in r.sentences.iter().zip(&got) {
        assert_eq!(v.len(), r.dimension);
        let c = cosine(v, &s.vector);
        worst = worst.min(c);
        assert!(c >= 0.999, "cosine {c} < 0.999 for {:?} ({})", s.text, s.lang);
    }
    // Single-text path (query) agrees with the batched path.
    let q = e.embed_query(texts[0]).unwrap();
    assert!(cosine(&q, &got[0]) >= 0.9999);
    println!("{mode:?}: {} sentences, token ids identical, worst cosine {worst:.7}", r.sentences.len());
}

#[test]
fn matches_reference_symbolic() {
    check_against_reference(ShapeMode::Symbolic);
}

#[test]
fn matches_reference_concrete() {
    check_against_reference(ShapeMode::Concrete);
}

#[test]
fn concrete_plan_cache_is_bounded_and_agrees_with_symbolic() {
    let Some((model, tok)) = load_model() else { return };
    let mut conc = Embedder::new(&model, &tok, EmbedderConfig { max_plans: 2, ..Default::default() }).unwrap();
    let mut sym =
        Embedder::new(&model, &tok, EmbedderConfig { shape_mode: ShapeMode::Symbolic, ..Default::default() }).unwrap();
    assert_eq!(sym.cached_plans(), 1);
    let long = |n: usize| vec!["notes"; n].join(" ");
    let texts = [long(3), long(40), long(100), long(3), long(70)];
    for t in &texts {
        let a = conc.embed_query(t).unwrap();
        let b = sym.embed_query(t).unwrap();
        assert!(cosine(&a, &b) > 0.9999, "concrete and symbolic disagree on a {}-char text", t.len());
        assert!(conc.cached_plans() <= 2);
    }
    let batch: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
    let a = conc.embed_passages(&batch).unwrap();
    let b = sym.embed_passages(&batch).unwrap();
    for (x, y) in a.iter().zip(&b) {
        assert!(cosine(x, y) > 0.9999);
    }
}

#[test]
fn semantic_sanity() {
    let Some((model, tok)) = load_model() else { return };
    let mut e = Embedder::new(&model, &tok, EmbedderConfig::default()).unwrap();
    let v = e
        .embed_passages(&["How to link to a heading", "Linking to headings in other notes", "Baking sourdough bread"])
        .unwrap();
    for x in &v {
        let n: f32 = x.iter().map(|a| a * a).sum();
        assert!((n - 1.0).abs() < 1e-4);
    }
    assert!(cosine(&v[0], &v[1]) > cosine(&v[0], &v[2]) + 0.2);
    assert!(e.embed_passages(&[]).unwrap().is_empty());
}

#[test]
fn rejects_bad_inputs() {
    assert!(Embedder::new(b"not onnx", b"{}", EmbedderConfig::default()).is_err());
    let Some((model, tok)) = load_model() else { return };
    assert!(Embedder::new(&model, b"{ not json", EmbedderConfig::default()).is_err());
    let wrong_dim = EmbedderConfig { dimension: 768, ..EmbedderConfig::default() };
    let e = Embedder::new(&model, &tok, wrong_dim);
    assert!(e.is_err(), "a dimension mismatch must be an error");
}

/// The trap the issue measured: with the tokenizer.json's own Fixed(128)
/// padding left on, the model sees pad tokens as content.
#[test]
fn hub_padding_would_be_wrong() {
    let Some((model, tok)) = load_model() else { return };
    let t = Tokenizer::from_bytes(&tok).unwrap();
    assert!(t.get_padding().is_some(), "the Hub tokenizer.json carries fixed padding");
    let padded: Vec<u32> = t.encode("Daily notes are created from a template.", true).unwrap().get_ids().to_vec();
    assert_eq!(padded.len(), 128);
    let mut e = Embedder::new(&model, &tok, EmbedderConfig::default()).unwrap();
    let good = e.embed_passages(&["Daily notes are created from a template."]).unwrap();
    let bad = e.embed_ids(&[padded]).unwrap();
    let c = cosine(&good[0], &bad[0]);
    println!("cosine with the Hub's fixed padding fed as content: {c:.3}");
    assert!(c < 0.9);
}

/// Throughput on ~200-token chunks. `cargo test --release -- --ignored --nocapture embed_throughput`
#[test]
#[ignore]
fn embed_throughput() {
    let Some((model, tok)) = load_model() else { return };
    let words = "the vault keeps notes about projects meetings books travel recipes code ideas and daily \
                 journals linked together by wikilinks tags and folders so that search across them matters";
    let words: Vec<&str> = words.split(' ').collect();
    let mut chunks = Vec::new();
    let mut seed = 12345u64;
    for _ in 0..64 {
        let mut s = String::new();
        let n = 150 + (seed % 60) as usize;
        for _ in 0..n {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            s.push_str(words[(seed >> 33) as usize % words.len()]);
            s.push(' ');
        }
        chunks.push(s);
    }
    let refs: Vec<&str> = chunks.iter().map(|s| s.as_str()).collect();
    for mode in [ShapeMode::Symbolic, ShapeMode::Concrete] {
        let t0 = std::time::Instant::now();
        let mut e = Embedder::new(&model, &tok, EmbedderConfig { shape_mode: mode, ..Default::default() }).unwrap();
        let load = t0.elapsed();
        let toks: usize = refs.iter().map(|t| e.token_ids(t).len()).sum();
        // First pass (Concrete compiles its plans here), then the timed pass.
        let t1 = std::time::Instant::now();
        e.embed_passages(&refs).unwrap();
        let warm = t1.elapsed();
        let t2 = std::time::Instant::now();
        let v = e.embed_passages(&refs).unwrap();
        let dt = t2.elapsed().as_secs_f64();
        assert_eq!(v.len(), refs.len());
        println!(
            "{mode:?}: load {:.2}s, first pass {:.2}s, {} chunks avg {:.0} tokens: {:.1} chunks/s ({:.0} tokens/s)",
            load.as_secs_f64(),
            warm.as_secs_f64(),
            refs.len(),
            toks as f64 / refs.len() as f64,
            refs.len() as f64 / dt,
            toks as f64 / dt
        );
    }
}

/// A model loaded without its tokenizer (a pool worker) gives, from the token ids the full
/// embedder makes, the very vectors the full embedder gives from the texts; it refuses texts.
#[test]
fn token_ids_only_embedder_matches_bit_for_bit() {
    let Some((model, tok)) = load_model() else { return };
    let r = reference();
    let texts: Vec<&str> = r.sentences.iter().map(|s| s.text.as_str()).collect();
    for mode in [ShapeMode::Symbolic, ShapeMode::Concrete] {
        let cfg = EmbedderConfig { shape_mode: mode, batch_size: 3, ..EmbedderConfig::minilm_l6_v2() };
        let mut full = Embedder::new(&model, &tok, cfg.clone()).unwrap();
        let ids = full.passage_ids(&texts).unwrap();
        let want = full.embed_passages(&texts).unwrap();
        let mut bare = Embedder::for_token_ids(model.clone(), full.pad_id(), cfg).unwrap();
        let got = bare.embed_ids(&ids).unwrap();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(
                g.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                w.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
        }
        let refused = bare.embed_passages(&texts[..1]).unwrap_err();
        assert!(refused.contains("no tokenizer"), "{refused}");
    }
}
