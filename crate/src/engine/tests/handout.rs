//! Chunks embedded outside the core (`embed_take` / `embed_put` / `embed_release`): the same
//! keys and bit-identical vectors as `embed_step`, in any order of the batches coming back, and
//! bad results refused or skipped cleanly. Model-free: a deterministic embedder (hashed words)
//! stands in for a model; the real models go through the same calls in tests/node (the pool).

use super::*;
use crate::embed::{EmbedderConfig, TextEmbedder};
use crate::vectors::VectorIndex;

pub(super) struct WordHash(EmbedderConfig);

impl WordHash {
    pub(super) fn boxed(id: &str) -> Box<dyn TextEmbedder> {
        Box::new(WordHash(EmbedderConfig { model_id: id.into(), dimension: 16, ..EmbedderConfig::minilm_l6_v2() }))
    }
}

/// Hashed words, normalised: what a host's worker would compute for a text.
fn vector(text: &str) -> Vec<f32> {
    let mut v = [0f32; 16];
    for w in text.split_whitespace() {
        v[(xxhash_rust::xxh3::xxh3_64(w.as_bytes()) % 16) as usize] += 1.0;
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    v.iter().map(|x| x / n).collect()
}

impl TextEmbedder for WordHash {
    fn config(&self) -> &EmbedderConfig {
        &self.0
    }
    fn embed_passages(&mut self, texts: &[&str]) -> std::result::Result<Vec<Vec<f32>>, String> {
        Ok(texts.iter().map(|t| vector(t)).collect())
    }
    fn embed_query(&mut self, text: &str) -> std::result::Result<Vec<f32>, String> {
        Ok(vector(text))
    }
}

fn vault() -> Vec<NoteInput> {
    let text = |i: usize| format!("# Note {i}\n\nwords of note {i} and more\n\n## Part\n\nsecond part {i}\n");
    let mut notes: Vec<NoteInput> = (0..6)
        .map(|i| NoteInput {
            path: format!("n{i}.md"),
            bytes: text(i).into_bytes(),
            mtime: 1000.0 + i as f64,
            ctime: None,
        })
        .collect();
    // The same text in two notes: one key, embedded once.
    notes.push(NoteInput { path: "copy.md".into(), bytes: notes[0].bytes.clone(), mtime: 999.0, ctime: None });
    notes
}

fn engine() -> Engine {
    let mut e = Engine::create(CoreConfig::default()).unwrap();
    e.update(UpdateBatch { upserts: vault(), ..Default::default() }).unwrap();
    e.use_embedder(WordHash::boxed("hash")).unwrap();
    e
}

fn texts(e: &mut Engine, n: usize) -> NoteTexts {
    let need = e.embed_needs(n).unwrap();
    let notes: Vec<NoteInput> = vault().into_iter().filter(|v| need.contains(&v.path)).collect();
    super::texts(&notes)
}

fn take(e: &mut Engine, n: usize) -> EmbedBatch {
    let t = texts(e, n);
    e.embed_take(n, &t).unwrap()
}

/// The vectors a worker returns for a batch, flat.
fn compute(b: &EmbedBatch) -> (Vec<String>, Vec<f32>) {
    (b.items.iter().map(|i| i.key.clone()).collect(), b.items.iter().flat_map(|i| vector(&i.text)).collect())
}

fn all_vectors(e: &Engine) -> Vec<(Key, Vec<u32>)> {
    let v = e.semantic.vectors().unwrap();
    let mut out: Vec<(Key, Vec<u32>)> =
        v.keys().into_iter().map(|k| (k, v.get(&k).unwrap().iter().map(|x| x.to_bits()).collect())).collect();
    out.sort();
    out
}

#[test]
fn batches_put_back_in_any_order_give_the_vectors_of_embed_step() {
    let mut stepped = engine();
    let mut p = stepped.embed_progress();
    while p.done < p.total {
        let t = texts(&mut stepped, 3);
        p = stepped.embed_step(3, &t).unwrap();
    }
    assert_eq!(p.total, 12, "6 × (lead + leaf): the copy's texts are n0's, one key each");

    let mut pooled = engine();
    let (a, b) = (take(&mut pooled, 3), take(&mut pooled, 3));
    assert_eq!(a.model, "hash");
    assert_eq!(a.dimension, 16);
    let keys_a: Vec<&str> = a.items.iter().map(|i| i.key.as_str()).collect();
    assert!(b.items.iter().all(|i| !keys_a.contains(&i.key.as_str())), "two batches in flight share no key");
    let mid = pooled.embed_progress();
    assert_eq!(mid.done, 0, "chunks in flight are still pending");
    // The second batch comes back first.
    let (k, v) = compute(&b);
    assert_eq!(pooled.embed_put("hash", &k, &v).unwrap().embedded, 3);
    let (k, v) = compute(&a);
    assert_eq!(pooled.embed_put("hash", &k, &v).unwrap().embedded, 3);
    loop {
        let batch = take(&mut pooled, 4);
        if batch.items.is_empty() && batch.dropped == 0 {
            break;
        }
        let (k, v) = compute(&batch);
        pooled.embed_put("hash", &k, &v).unwrap();
    }
    let p = pooled.embed_progress();
    assert_eq!((p.done, p.total), (12, 12));
    assert_eq!(all_vectors(&pooled), all_vectors(&stepped), "same keys, bit-identical vectors");
}

#[test]
fn bad_results_are_refused_and_unknown_keys_skipped() {
    let mut e = engine();
    let batch = take(&mut e, 2);
    let (keys, vecs) = compute(&batch);
    let msg = |r: Result<EmbedProgress>| r.unwrap_err().to_string();
    assert!(msg(e.embed_put("other-model", &keys, &vecs)).contains("the index embeds with hash"));
    assert!(msg(e.embed_put("hash", &keys, &vecs[..20])).contains("20 values for 2 keys of dimension 16"));
    let mut nan = vecs.clone();
    nan[3] = f32::NAN;
    assert!(msg(e.embed_put("hash", &keys, &nan)).contains("not finite"));
    // Nothing was stored by the refused calls; unknown and malformed keys are skipped.
    let junk = vec!["00".repeat(32), "not hex".into(), "é".repeat(32)];
    let p = e.embed_put("hash", &junk, &[0.25; 48]).unwrap();
    assert_eq!((p.embedded, p.dropped, p.done), (0, 3, 0));
    let p = e.embed_put("hash", &keys, &vecs).unwrap();
    assert_eq!((p.embedded, p.dropped, p.done), (2, 0, 2));
    // A second put of the same keys (a batch redone after a worker was thought lost) stores nothing.
    let p = e.embed_put("hash", &keys, &vecs).unwrap();
    assert_eq!((p.embedded, p.dropped, p.done), (0, 2, 2));
}

#[test]
fn released_chunks_are_handed_out_again() {
    let mut e = engine();
    let first = take(&mut e, 4);
    let p = e.embed_release();
    assert_eq!(p.done, 0);
    // The released chunks come back (late results of the cancelled batch are skipped).
    let again = take(&mut e, 4);
    let keys = |b: &EmbedBatch| b.items.iter().map(|i| i.key.clone()).collect::<Vec<_>>();
    assert_eq!(keys(&again), keys(&first));
    let (k, v) = compute(&first);
    e.embed_release();
    let p = e.embed_put("hash", &k, &v).unwrap();
    assert_eq!((p.embedded, p.dropped), (0, 4));
}

#[test]
fn an_edit_or_a_model_switch_while_chunks_are_in_flight_is_handled_cleanly() {
    let mut e = engine();
    let batch = take(&mut e, 3);
    // n5.md (the most recent note, taken first) changes while its chunks are out.
    let edited = NoteInput {
        path: "n5.md".into(),
        bytes: b"# Note 5\n\nother words now\n".to_vec(),
        mtime: 2000.0,
        ctime: None,
    };
    e.update(UpdateBatch { upserts: vec![edited], ..Default::default() }).unwrap();
    let (k, v) = compute(&batch);
    let p = e.embed_put("hash", &k, &v).unwrap();
    assert_eq!(p.embedded + p.dropped, 3);
    assert!(e.embed_progress().done <= 3);
    // A switch to another model: vectors of the old one are refused.
    let mut e = engine();
    let batch = take(&mut e, 2);
    e.use_embedder(WordHash::boxed("hash-2")).unwrap();
    let (k, v) = compute(&batch);
    assert!(e.embed_put("hash", &k, &v).is_err());
    let p = e.embed_put("hash-2", &k, &v).unwrap();
    assert_eq!((p.embedded, p.dropped), (0, 2), "handed out for the old space: skipped");
}
