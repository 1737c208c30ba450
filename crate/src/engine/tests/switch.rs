//! Changing the embedding model: the new model's vectors are made in the background while
//! the old ones answer queries, across flushes and reopens, until the switch completes.
//!
//! Model-free: two small deterministic embedders (hashed words) stand in for two models, so
//! the switch's bookkeeping runs in every test run. The real models go through the same
//! path in tests/node (the plugin, the CLI and the bridge load them through the wasm core).

use super::*;
use crate::embed::{EmbedderConfig, TextEmbedder};

/// Bag of hashed words in `dim` dimensions; `seed` makes another "model" (another space).
pub(super) struct WordHash {
    cfg: EmbedderConfig,
    seed: u64,
}

impl WordHash {
    pub(super) fn boxed(id: &str, seed: u64) -> Box<dyn TextEmbedder> {
        Self::boxed_dim(id, seed, 64)
    }
    /// With `dimension` dimensions (384: a real model's segment sizes).
    pub(super) fn boxed_dim(id: &str, seed: u64, dimension: usize) -> Box<dyn TextEmbedder> {
        let cfg = EmbedderConfig { model_id: id.into(), dimension, ..EmbedderConfig::minilm_l6_v2() };
        Box::new(WordHash { cfg, seed })
    }
    fn vector(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0f32; self.cfg.dimension];
        for w in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            let h = xxhash_rust::xxh3::xxh3_64_with_seed(w.to_lowercase().as_bytes(), self.seed);
            v[(h % self.cfg.dimension as u64) as usize] += 1.0;
        }
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
        v.iter().map(|x| x / n).collect()
    }
}

impl TextEmbedder for WordHash {
    fn config(&self) -> &EmbedderConfig {
        &self.cfg
    }
    fn embed_passages(&mut self, texts: &[&str]) -> std::result::Result<Vec<Vec<f32>>, String> {
        Ok(texts.iter().map(|t| self.vector(t)).collect())
    }
    fn embed_query(&mut self, text: &str) -> std::result::Result<Vec<f32>, String> {
        Ok(self.vector(text))
    }
}

const A: (&str, u64) = ("model-a", 1);
const B: (&str, u64) = ("model-b", 2);
const C: (&str, u64) = ("model-c", 3);

pub(super) fn vault() -> Vec<NoteInput> {
    [
        ("Bread.md", "# Sourdough\n\nflour water starter dough oven\n"),
        ("Kyoto.md", "# Kyoto\n\ntemples shrines train Tokyo\n"),
        ("Backups.md", "# Backups\n\nvault folder external drive weekly\n"),
    ]
    .into_iter()
    .map(|(p, t)| NoteInput { path: p.into(), bytes: t.as_bytes().to_vec(), mtime: 1000.0, ctime: None })
    .collect()
}

fn embed_all(e: &mut Engine) -> EmbedProgress {
    let mut p = e.embed_progress();
    while p.done < p.total {
        p = step(e, 2);
    }
    p
}

/// One embedding step as a host makes it: the notes the step needs, then the step with them.
fn step(e: &mut Engine, n: usize) -> EmbedProgress {
    let need = e.embed_needs(n).unwrap();
    let notes: Vec<NoteInput> = vault().into_iter().filter(|v| need.contains(&v.path)).collect();
    e.embed_step(n, &super::texts(&notes)).unwrap()
}

fn semantic(e: &mut Engine, q: &str) -> SearchResponse {
    e.search(&SearchRequest { query: q.into(), mode: Some(SearchMode::Semantic), ..Default::default() }).unwrap()
}

fn vec_files(folder: &Folder) -> Vec<String> {
    folder.0.keys().filter(|n| n.starts_with(layout::VECTORS_DIR)).cloned().collect()
}

/// An engine whose vectors all come from model A, flushed into `folder`.
fn embedded_with_a(folder: &mut Folder) -> Engine {
    let mut e = Engine::create(CoreConfig::default()).unwrap();
    e.update(UpdateBatch { upserts: vault(), ..Default::default() }).unwrap();
    e.use_embedder(WordHash::boxed(A.0, A.1)).unwrap();
    let p = embed_all(&mut e);
    assert_eq!((p.done, p.total), (6, 6), "3 leaves and 3 titles");
    folder.apply(&e.flush().unwrap());
    e
}

#[test]
fn old_vectors_serve_until_the_new_model_has_embedded_everything() {
    let mut folder = Folder::default();
    let mut e = embedded_with_a(&mut folder);
    let a_files = vec_files(&folder);
    assert_eq!(semantic(&mut e, "sourdough oven").hits[0].path, "Bread.md");

    // Switch to B: a new, empty space. The old space keeps its loaded model and answers.
    let p = e.use_embedder(WordHash::boxed(B.0, B.1)).unwrap();
    assert_eq!((p.done, p.total), (0, 6));
    let sw = e.status().switching.expect("a switch is under way");
    assert_eq!((sw.from.as_str(), sw.to.as_str(), sw.from_loaded), (A.0, B.0, true));
    let r = semantic(&mut e, "sourdough oven");
    assert_eq!(r.semantic_coverage, Some(1.0));
    assert_eq!(r.hits[0].path, "Bread.md");
    // Only the named old model is accepted as the previous one.
    assert!(e.use_previous_embedder(WordHash::boxed(C.0, C.1)).is_err());

    // Part of the work, then a flush: the manifest names both spaces.
    step(&mut e, 2);
    folder.apply(&e.flush().unwrap());
    for f in &a_files {
        assert!(folder.0.contains_key(f), "the old vectors stay on disk during the switch: {f}");
    }

    // A restart mid-switch: the switch resumes where it was.
    let mut e = Engine::open(CoreConfig::default(), folder.files());
    assert!(!e.open_report().rebuilt, "{:?}", e.open_report().reason);
    let sw = e.status().switching.expect("the switch survives a reopen");
    assert_eq!((sw.from.as_str(), sw.to.as_str()), (A.0, B.0));
    // The hosts load the target model first: until the old one is loaded too, the partial
    // new space answers (and says how partial).
    e.use_embedder(WordHash::boxed(B.0, B.1)).unwrap();
    let p = e.embed_progress();
    assert_eq!((p.done, p.total), (2, 6), "what was embedded before the restart is kept");
    assert!(!e.status().switching.unwrap().from_loaded);
    let r = semantic(&mut e, "temples shrines");
    assert!((r.semantic_coverage.unwrap() - 2.0 / 6.0).abs() < 1e-6, "{:?}", r.semantic_coverage);
    e.use_previous_embedder(WordHash::boxed(A.0, A.1)).unwrap();
    let r = semantic(&mut e, "temples shrines");
    assert_eq!((r.hits[0].path.as_str(), r.semantic_coverage), ("Kyoto.md", Some(1.0)));

    // The rest: the switch completes, the old space goes, and its files with the next flushes.
    let p = embed_all(&mut e);
    assert!(p.switching.is_none());
    assert!(e.status().switching.is_none());
    assert_eq!(e.status().model.as_deref(), Some(B.0));
    let r = semantic(&mut e, "external drive");
    assert_eq!((r.hits[0].path.as_str(), r.semantic_coverage), ("Backups.md", Some(1.0)));
    folder.apply(&e.flush().unwrap());
    e.update(UpdateBatch {
        upserts: vec![NoteInput { path: "New.md".into(), bytes: b"new note\n".to_vec(), mtime: 2000.0, ctime: None }],
        ..Default::default()
    })
    .unwrap();
    folder.apply(&e.flush().unwrap());
    for f in &a_files {
        assert!(folder.0.contains_key(f), "shared vectors are never deleted (another device may use A): {f}");
    }
    let b_vectors = e.status().vectors;
    assert_eq!(b_vectors, 6);
    let e = Engine::open(CoreConfig::default(), folder.files());
    assert!(e.status().switching.is_none());
    assert_eq!(e.status().model.as_deref(), Some(B.0));
    assert_eq!(e.status().vectors, b_vectors, "B's vectors only: A's are not loaded");
}

#[test]
fn switching_back_mid_way_returns_to_the_complete_old_vectors() {
    let mut folder = Folder::default();
    let mut e = embedded_with_a(&mut folder);
    e.use_embedder(WordHash::boxed(B.0, B.1)).unwrap();
    step(&mut e, 2);
    // Back to A: nothing to embed, no switch.
    let p = e.use_embedder(WordHash::boxed(A.0, A.1)).unwrap();
    assert_eq!((p.done, p.total, p.switching.is_none()), (6, 6, true));
    assert_eq!(semantic(&mut e, "sourdough").hits[0].path, "Bread.md");
    // To B, then on to C before B is done: A (complete) keeps serving; B's partial work goes.
    e.use_embedder(WordHash::boxed(B.0, B.1)).unwrap();
    step(&mut e, 2);
    let p = e.use_embedder(WordHash::boxed(C.0, C.1)).unwrap();
    assert_eq!((p.done, p.total), (0, 6));
    let sw = e.status().switching.unwrap();
    assert_eq!((sw.from.as_str(), sw.to.as_str()), (A.0, C.0));
}

#[test]
fn a_first_model_on_an_index_without_vectors_is_no_switch() {
    let mut e = Engine::create(CoreConfig::default()).unwrap();
    e.update(UpdateBatch { upserts: vault(), ..Default::default() }).unwrap();
    e.use_embedder(WordHash::boxed(A.0, A.1)).unwrap();
    // A model change before anything was embedded: nothing to keep serving.
    let p = e.use_embedder(WordHash::boxed(B.0, B.1)).unwrap();
    assert!(p.switching.is_none());
    assert!(e.use_previous_embedder(WordHash::boxed(A.0, A.1)).is_err(), "no switch is under way");
}

#[test]
fn auto_choice_counts_notes_in_another_latin_language_as_foreign() {
    let note = |path: &str, text: &str| NoteInput {
        path: path.into(),
        bytes: text.as_bytes().to_vec(),
        mtime: 1.0,
        ctime: None,
    };
    let english = vec![
        note(
            "Backups.md",
            "# Backups\n\nCopy the vault folder to an external drive every week so no note is ever lost.\n",
        ),
        note("Sync.md", "# Sync\n\nKeep your notes identical on the phone and the laptop with encrypted sync.\n"),
        note("Short.md", "Todo\n"),
    ];
    let mut e = Engine::create(CoreConfig::default()).unwrap();
    e.update(UpdateBatch { upserts: english.clone(), ..Default::default() }).unwrap();
    let c = e.choose_model("auto").unwrap();
    assert_eq!((c.model.as_str(), c.non_english_share), (crate::embed::MINILM_L6_V2, 0.0), "{c:?}");
    // German and Spanish notes are Latin script, and foreign to the English model.
    let others = vec![
        note("Sicherung.md", "# Sicherung\n\nKopiere den Ordner deines Tresors jede Woche auf eine externe Festplatte, damit keine Notiz verloren geht.\n"),
        note("Copia.md", "# Copia de seguridad\n\nCopia la carpeta de tu bóveda a un disco externo cada semana para no perder ninguna nota.\n"),
    ];
    e.update(UpdateBatch { upserts: others, ..Default::default() }).unwrap();
    let c = e.choose_model("auto").unwrap();
    assert_eq!(c.model, crate::embed::MULTILINGUAL_E5_SMALL, "{c:?}");
    assert!(c.non_english_share > 0.1 && c.reason.contains("not in English"), "{c:?}");
    // A `lang` property pins a note's language: pinned English, it counts as English again.
    let pinned = note("Sicherung.md", "---\nlang: en\n---\n# Sicherung\n\nKopiere den Ordner deines Tresors jede Woche auf eine externe Festplatte.\n");
    e.update(UpdateBatch { upserts: vec![pinned], ..Default::default() }).unwrap();
    assert!(e.choose_model("auto").unwrap().non_english_share < c.non_english_share);
}

#[test]
fn auto_choice_follows_the_vaults_scripts() {
    let mut e = Engine::create(CoreConfig::default()).unwrap();
    e.update(UpdateBatch { upserts: vault(), ..Default::default() }).unwrap();
    let c = e.choose_model("auto").unwrap();
    assert_eq!(c.model, crate::embed::MINILM_L6_V2, "{c:?}");
    let zh = NoteInput {
        path: "笔记.md".into(),
        bytes: "# 笔记\n\n向量检索和全文检索的融合排序，适合中文和日文的笔记库。\n".as_bytes().to_vec(),
        mtime: 1.0,
        ctime: None,
    };
    e.update(UpdateBatch { upserts: vec![zh], ..Default::default() }).unwrap();
    let c = e.choose_model("auto").unwrap();
    assert_eq!(c.model, crate::embed::MULTILINGUAL_E5_SMALL, "{c:?}");
    assert!(c.non_english_share > 0.1 && c.reason.contains("not in English"), "{c:?}");
    assert_eq!(e.choose_model(crate::embed::MINILM_L6_V2).unwrap().model, crate::embed::MINILM_L6_V2);
    assert!(e.choose_model("nope").is_err());
}
