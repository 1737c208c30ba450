//! Engine tests: update, search, read, plans, listing and usage here; the helpers the test
//! modules below share (each `use super::*`); one module per concern below.

use std::collections::BTreeMap;

use super::*;
use crate::lexical::search::LexQuery;

mod code;
#[cfg(feature = "code")]
mod code_background;
#[cfg(feature = "code")]
mod code_messages;
mod devices;
mod handout;
/// Property tests of incremental indexing (proptest), native only.
#[cfg(not(target_arch = "wasm32"))]
mod incremental;
mod language;
mod persist;
/// With the real model, through the native embedder (`cargo test --workspace`); CI's
/// ./test.sh covers the same through the wasm embedder in the Node tests, and lints this module
/// for wasm32 (clippy), with the embedder's wasm32 lint.
#[cfg(all(feature = "embedder", any(not(target_arch = "wasm32"), clippy)))]
mod semantic;
mod structured;
mod switch;
mod text;
mod where_filter;

pub(super) fn cfg() -> CoreConfig {
    CoreConfig::default()
}

pub(super) fn note(path: &str, text: &str) -> NoteInput {
    NoteInput { path: path.into(), bytes: text.as_bytes().to_vec(), mtime: 1000.0, ctime: None }
}

pub(super) fn upsert(e: &mut Engine, notes: Vec<NoteInput>) -> UpdateReport {
    e.update(UpdateBatch { upserts: notes, ..Default::default() }).unwrap()
}

pub(super) fn search(e: &mut Engine, q: &str) -> Vec<Hit> {
    e.search(&SearchRequest { query: q.into(), k: Some(10), ..Default::default() }).unwrap().hits
}

pub(super) fn top_path(e: &mut Engine, q: &str) -> Option<String> {
    search(e, q).first().map(|h| h.path.clone())
}

/// The notes' bytes as a host supplies them (the index does not store note text).
pub(super) fn texts(notes: &[NoteInput]) -> NoteTexts {
    notes.iter().map(|n| (n.path.clone(), Some(serde_bytes::ByteBuf::from(n.bytes.clone())))).collect()
}

/// The snippets of `hits`, from the notes' bytes in `notes`.
pub(super) fn snippets(e: &Engine, q: &str, hits: &[Hit], notes: &[NoteInput]) -> Vec<Option<Snippet>> {
    let hits = hits.iter().map(|h| SnippetHit { path: h.path.clone(), section_id: h.section_id.clone() }).collect();
    e.snippets(&SnippetRequest { query: q.into(), hits, texts: texts(notes), ..Default::default() }).unwrap()
}

/// A read of a note with its bytes from `notes`.
pub(super) fn read(e: &Engine, notes: &[NoteInput], req: ReadRequest) -> Result<ReadResult> {
    let bytes = notes.iter().find(|n| n.path == req.path).map(|n| n.bytes.clone());
    e.read(&ReadRequest { bytes, ..req })
}

pub(super) fn rename(from: &str, to: &str, bytes: &[u8]) -> Rename {
    Rename { from: from.into(), to: to.into(), bytes: Some(bytes.to_vec()), mtime: None, ctime: None }
}

/// The index folder, as a map (what the JS side keeps on disk).
#[derive(Default, Clone)]
pub(super) struct Folder(pub(super) BTreeMap<String, Vec<u8>>);

impl Folder {
    pub(super) fn apply(&mut self, out: &FlushOutput) {
        for w in &out.writes {
            self.0.insert(w.name.clone(), w.bytes.clone());
        }
        for d in &out.deletes {
            self.0.remove(d);
        }
    }
    pub(super) fn files(&self) -> Vec<IndexFile> {
        self.0.iter().map(|(n, b)| IndexFile { name: n.clone(), bytes: b.clone() }).collect()
    }
    /// The name of a file of the default device's own folder.
    pub(super) fn own(rel: &str) -> String {
        format!("{}{rel}", layout::device_dir(layout::DEFAULT_DEVICE))
    }
    /// The default device's own files, by their name inside its folder.
    pub(super) fn own_files(&self) -> BTreeMap<String, Vec<u8>> {
        let dir = layout::device_dir(layout::DEFAULT_DEVICE);
        self.0.iter().filter_map(|(n, b)| Some((n.strip_prefix(&dir)?.to_string(), b.clone()))).collect()
    }
    /// Moves the default device's folder to `version`'s folder, its manifests rewritten as if
    /// that version of Strata had written them.
    pub(super) fn set_format_version(&mut self, version: u32) {
        let own = self.own_files();
        let dir = layout::device_dir(layout::DEFAULT_DEVICE);
        self.0.retain(|n, _| !n.starts_with(&dir));
        for (rel, mut bytes) in own {
            if store::SLOTS.contains(&rel.as_str()) {
                let mut m = store::Manifest::decode(&bytes).unwrap();
                m.version = version;
                bytes = m.encode();
            }
            self.0.insert(format!("{}{}.v{version}/{rel}", layout::DEVICES_DIR, layout::DEFAULT_DEVICE), bytes);
        }
    }
    /// Rewrites the folder in the single-device layout of format 15: the default device's files
    /// at the top, the shared vectors of its model as one base segment in `vec/`, named by the
    /// manifests.
    pub(super) fn rewrite_in_single_device_layout(&mut self) {
        let own = self.own_files();
        let shared: Vec<(String, Vec<u8>)> = self
            .0
            .iter()
            .filter(|(n, _)| n.starts_with(layout::VECTORS_DIR))
            .map(|(n, b)| (n.clone(), b.clone()))
            .collect();
        self.0.clear();
        for (rel, bytes) in own {
            if !store::SLOTS.contains(&rel.as_str()) {
                self.0.insert(rel, bytes);
                continue;
            }
            let mut m = store::Manifest::decode(&bytes).unwrap();
            m.version = 15;
            m.device.clear();
            if let Some(spec) = m.model.clone() {
                let mut index = crate::vectors::FlatIndex::new(spec.dimension, spec.space()).unwrap();
                for (name, b) in &shared {
                    if matches!(layout::parse(name), layout::Entry::Segment { space, .. } if space == spec.space()) {
                        index.add_segment(b).unwrap();
                    }
                }
                let vec_bytes = index.to_bytes();
                let name = format!("{}00000001-0a0b0c0d.bin", store::VEC_DIR);
                m.files.push(store::file_ref(&name, &vec_bytes));
                m.vectors = vec![name.clone()];
                self.0.insert(name, vec_bytes);
            }
            self.0.insert(rel, m.encode());
        }
    }
    /// Truncates every lexical file (a damaged index).
    pub(super) fn damage_lexical(&mut self) {
        for (name, bytes) in self.0.iter_mut() {
            if name.contains(store::LEX_DIR) {
                bytes.truncate(bytes.len() / 2);
            }
        }
    }
}

pub(super) fn long_note(title: &str, sections: &[(&str, &str)]) -> String {
    let mut s = format!("---\ntitle: {title}\ntags: [test]\n---\n# {title}\n\nIntro paragraph about {title}.\n\n");
    for (h, word) in sections {
        s.push_str(&format!("## {h}\n\n"));
        for i in 0..120 {
            s.push_str(&format!("{word} filler{i} "));
        }
        s.push_str("\n\n");
    }
    s
}

pub(super) fn sample() -> Vec<NoteInput> {
    vec![
        note(
            "Guides/Sync.md",
            &long_note("Sync guide", &[("Setup", "devices"), ("Conflicts", "merge"), ("Encryption", "password")]),
        ),
        note(
            "Guides/Search.md",
            "---\naliases: [Find]\n---\n# Search\n\nUse the search pane to find text. #tools/search\n",
        ),
        note("中文/同步.md", "# 同步设置\n\n如何在多台设备之间同步笔记。全文检索也支持中文。\n"),
        note("日本語/検索.md", "# 検索の使い方\n\nノートを全文検索する方法を説明します。\n"),
        note("Daily/2024-01-01.md", "---\nstatus: done\n---\nMet with Alice about the roadmap.\n"),
    ]
}

#[test]
fn update_search_and_sections() {
    let mut e = Engine::create(cfg()).unwrap();
    let r = upsert(&mut e, sample());
    assert_eq!(r.added, 5);
    assert!(r.sections > 5, "the long note is split: {}", r.sections);
    assert_eq!(top_path(&mut e, "encryption password").as_deref(), Some("Guides/Sync.md"));
    let hit = &search(&mut e, "password encryption")[0];
    assert_eq!(hit.heading_path, "Sync guide > Encryption");
    assert!(hit.depth >= 1);
    assert_eq!(top_path(&mut e, "find").as_deref(), Some("Guides/Search.md"), "alias");
    assert_eq!(top_path(&mut e, "同步笔记").as_deref(), Some("中文/同步.md"));
    assert_eq!(top_path(&mut e, "全文検索").as_deref(), Some("日本語/検索.md"));
    assert_eq!(top_path(&mut e, "Alice roadmap").as_deref(), Some("Daily/2024-01-01.md"));
}

#[test]
fn cjk_queries_rank_whole_words_and_exclude_runs() {
    let mut e = Engine::create(cfg()).unwrap();
    upsert(
        &mut e,
        vec![
            // Shares only the halves of 文字数 with the query, many times over.
            note("関数.md", "# 関数\n\n文字列を扱う関数。文字列の長さ、文字列の置換、文字列の分割、数える方法。\n"),
            note("ワードカウント.md", "# ワードカウント\n\nノートの単語数と文字数を表示します。\n"),
            note("同步.md", "# 同步\n\n同步设置的说明。\n"),
            note("设置.md", "# 设置\n\n外观设置的说明。\n"),
        ],
    );
    assert_eq!(top_path(&mut e, "文字数を数える").as_deref(), Some("ワードカウント.md"));
    let hits: Vec<String> = search(&mut e, "设置 -同步设置").into_iter().map(|h| h.path).collect();
    assert!(hits.contains(&"设置.md".to_string()) && !hits.contains(&"同步.md".to_string()), "{hits:?}");
}

#[test]
fn filters_and_depth_order() {
    let mut e = Engine::create(cfg()).unwrap();
    upsert(&mut e, sample());
    let req = |filters: SearchFilters| SearchRequest {
        query: String::new(),
        k: Some(50),
        filters: Some(filters),
        ..Default::default()
    };
    let by_folder = e.search(&req(SearchFilters { folder: Some("guides".into()), ..Default::default() })).unwrap();
    assert!(by_folder.hits.iter().all(|h| h.path.starts_with("Guides/")));
    assert!(!by_folder.hits.is_empty());
    let by_tag = e.search(&req(SearchFilters { tag: Some("#tools".into()), ..Default::default() })).unwrap();
    assert_eq!(by_tag.hits.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(), vec!["Guides/Search.md"]);
    let by_prop = e
        .search(&req(SearchFilters {
            property: Some(PropertyFilter { key: "Status".into(), value: "DONE".into() }),
            ..Default::default()
        }))
        .unwrap();
    assert_eq!(by_prop.hits.len(), 1);
    let deep = e
        .search(&SearchRequest {
            query: "filler1".into(),
            filters: Some(SearchFilters { min_depth: Some(1), ..Default::default() }),
            ..Default::default()
        })
        .unwrap();
    assert!(!deep.hits.is_empty() && deep.hits.iter().all(|h| h.depth >= 1));
    let shallow = e
        .search(&SearchRequest {
            query: "filler1".into(),
            depth_order: Some(DepthOrder::Shallow),
            ..Default::default()
        })
        .unwrap();
    let depths: Vec<u8> = shallow.hits.iter().map(|h| h.depth).collect();
    assert!(depths.windows(2).all(|w| w[0] <= w[1]), "{depths:?}");
    // Overview: a word that only a deep section of a split note has is found as the note.
    let overview = e
        .search(&SearchRequest {
            query: "password".into(),
            filters: Some(SearchFilters { max_depth: Some(0), ..Default::default() }),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(overview.hits.len(), 1, "one hit per note, lifted: {:?}", overview.hits);
    assert_eq!((overview.hits[0].path.as_str(), overview.hits[0].depth), ("Guides/Sync.md", 0));
    let detail = search(&mut e, "password");
    assert!(detail[0].depth >= 1 && detail[0].heading_path.ends_with("Encryption"));
}

#[test]
fn semantic_mode_without_model_is_a_clear_error() {
    let mut e = Engine::create(cfg()).unwrap();
    let err = e
        .search(&SearchRequest { query: "x".into(), mode: Some(SearchMode::Semantic), ..Default::default() })
        .unwrap_err();
    assert_eq!(err.code(), "unavailable");
}

#[test]
fn unchanged_moved_updated_deleted() {
    let mut e = Engine::create(cfg()).unwrap();
    upsert(&mut e, sample());
    let again = upsert(&mut e, sample());
    assert_eq!(again.unchanged, 5);
    assert_eq!(again.sections, 0, "unchanged notes are not re-indexed");

    // A rename event, with the bytes the host read at the new path: the same content, a move.
    let r = e
        .update(UpdateBatch {
            renames: vec![rename("Guides/Search.md", "Tools/Search.md", &sample()[1].bytes)],
            ..Default::default()
        })
        .unwrap();
    assert_eq!((r.moved, r.added, r.deleted), (1, 0, 0));
    assert_eq!(top_path(&mut e, "search pane").as_deref(), Some("Tools/Search.md"));
    assert!(e.note("Guides/Search.md").is_none());

    // A move seen by reconcile: delete + the same bytes at a new path.
    let bytes = sample()[4].bytes.clone();
    let r = e
        .update(UpdateBatch {
            deletes: vec!["Daily/2024-01-01.md".into()],
            upserts: vec![NoteInput { path: "Archive/2024-01-01.md".into(), bytes, mtime: 5.0, ctime: None }],
            ..Default::default()
        })
        .unwrap();
    assert_eq!((r.moved, r.deleted, r.added), (1, 0, 0));

    let r = upsert(&mut e, vec![note("中文/同步.md", "# 同步设置\n\n现在讲的是备份。\n")]);
    assert_eq!(r.updated, 1);
    assert_eq!(top_path(&mut e, "备份").as_deref(), Some("中文/同步.md"));
    assert!(search(&mut e, "同步笔记").iter().all(|h| h.path != "中文/同步.md" || h.depth == 0));

    let r = e.update(UpdateBatch { deletes: vec!["中文/同步.md".into()], ..Default::default() }).unwrap();
    assert_eq!(r.deleted, 1);
    assert!(search(&mut e, "备份").is_empty());
}

#[test]
fn read_by_section_heading_lines_parent_whole() {
    let mut e = Engine::create(cfg()).unwrap();
    let notes = sample();
    upsert(&mut e, notes.clone());
    let hit = search(&mut e, "password encryption").remove(0);
    let r = read(
        &e,
        &notes,
        ReadRequest { path: hit.path.clone(), section_id: Some(hit.section_id.clone()), ..Default::default() },
    )
    .unwrap();
    assert!(r.text.starts_with("## Encryption"));
    assert_eq!(r.start_line, hit.start_line);
    assert_eq!(r.content_hash, e.note(&hit.path).unwrap().hash);
    let parent = read(
        &e,
        &notes,
        ReadRequest {
            path: hit.path.clone(),
            section_id: Some(hit.section_id.clone()),
            parent: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(parent.start_line <= r.start_line && parent.end_line >= r.end_line);
    let by_heading = read(
        &e,
        &notes,
        ReadRequest { path: hit.path.clone(), heading: Some("conflicts".into()), ..Default::default() },
    )
    .unwrap();
    assert!(by_heading.text.starts_with("## Conflicts"));
    assert!(!by_heading.text.contains("## Encryption"));
    let lines = read(
        &e,
        &notes,
        ReadRequest { path: hit.path.clone(), start_line: Some(2), max_lines: Some(2), ..Default::default() },
    )
    .unwrap();
    assert_eq!(lines.text, "title: Sync guide\ntags: [test]");
    assert!(lines.truncated);
    let whole = read(
        &e,
        &notes,
        ReadRequest { path: hit.path.clone(), whole: true, max_chars: Some(20), ..Default::default() },
    )
    .unwrap();
    assert_eq!(whole.text.chars().count(), 20);
    assert!(read(&e, &notes, ReadRequest { path: "../etc/passwd".into(), ..Default::default() }).is_err());
    assert!(read(&e, &notes, ReadRequest { path: "missing.md".into(), ..Default::default() }).is_err());
    let no_bytes = e.read(&ReadRequest { path: hit.path.clone(), whole: true, ..Default::default() }).unwrap_err();
    assert!(no_bytes.message().contains("current bytes"), "{no_bytes}");
}

#[test]
fn read_by_heading_of_a_merged_small_section_returns_that_heading_only() {
    let mut e = Engine::create(cfg()).unwrap();
    let mut text = long_note("Starter", &[("Feeding", "flour"), ("Storage", "fridge")]);
    // Two short headings that the chunker merges into one section.
    text.push_str(
        "## Schedule

Feed twice a day.

## Troubleshooting

Hooch means it is hungry.
",
    );
    let notes = vec![note("Starter.md", &text)];
    upsert(&mut e, notes.clone());
    let n = e.note("Starter.md").unwrap();
    assert!(n.sections.iter().all(|s| !s.heading_path.ends_with("Troubleshooting")), "merged: {:?}", n.sections);
    let r = read(
        &e,
        &notes,
        ReadRequest { path: "Starter.md".into(), heading: Some("Schedule".into()), ..Default::default() },
    )
    .unwrap();
    assert_eq!(r.text, "## Schedule\n\nFeed twice a day.");
    assert_eq!(r.section_id, None);
    let r = read(
        &e,
        &notes,
        ReadRequest { path: "Starter.md".into(), heading: Some("Troubleshooting".into()), ..Default::default() },
    )
    .unwrap();
    assert!(r.text.starts_with("## Troubleshooting") && !r.text.contains("Schedule"));
}

#[test]
fn plan_reads_only_changed_files() {
    let mut e = Engine::create(cfg()).unwrap();
    upsert(&mut e, sample());
    let listing: Vec<FileStat> = sample()
        .iter()
        .map(|n| FileStat { path: n.path.clone(), size: n.bytes.len() as u64, mtime: n.mtime, ctime: None })
        .chain([FileStat { path: "new.md".into(), size: 3, mtime: 1.0, ctime: None }])
        .filter(|f| f.path != "Daily/2024-01-01.md")
        .collect();
    let mut listing = listing;
    listing[0].mtime = 2000.0;
    let plan = e.plan(&listing);
    assert_eq!(plan.read, vec!["Guides/Sync.md", "new.md"]);
    assert_eq!(plan.delete, vec!["Daily/2024-01-01.md"]);
    assert_eq!(plan.unchanged, 3);
}

#[test]
fn a_plan_in_chunks_is_the_plan_of_the_whole_listing() {
    let mut e = Engine::create(cfg()).unwrap();
    upsert(&mut e, sample());
    let mut listing: Vec<FileStat> = sample()
        .iter()
        .map(|n| FileStat { path: n.path.clone(), size: n.bytes.len() as u64, mtime: n.mtime, ctime: None })
        .filter(|f| f.path != "Daily/2024-01-01.md")
        .collect();
    listing[0].mtime = 2000.0;
    listing.extend([
        FileStat { path: "new.md".into(), size: 3, mtime: 1.0, ctime: None },
        FileStat { path: ".obsidian/x.md".into(), size: 3, mtime: 1.0, ctime: None },
        FileStat { path: "../escape.md".into(), size: 3, mtime: 1.0, ctime: None },
        FileStat { path: "huge.md".into(), size: 50_000_000, mtime: 1.0, ctime: None },
    ]);
    let whole = e.plan(&listing);
    assert_eq!(whole.delete, vec!["Daily/2024-01-01.md"]);
    assert_eq!(whole.skipped.len(), 3, "{:?}", whole.skipped);
    // A plan abandoned half-way must not leak into the next one.
    e.plan_chunk(&listing[..1], true);
    for size in [1, 2, 3, listing.len()] {
        let mut parts = Plan::default();
        for (i, chunk) in listing.chunks(size).enumerate() {
            let p = e.plan_chunk(chunk, i == 0);
            assert!(p.delete.is_empty());
            parts.read.extend(p.read);
            parts.unchanged += p.unchanged;
            parts.skipped.extend(p.skipped);
        }
        parts.delete = e.plan_deletes();
        assert_eq!(parts.read, whole.read, "chunks of {size}");
        assert_eq!(parts.unchanged, whole.unchanged, "chunks of {size}");
        assert_eq!(parts.skipped, whole.skipped, "chunks of {size}");
        assert_eq!(parts.delete, whole.delete, "chunks of {size}");
    }
}

#[test]
fn list_filters_sorts_and_pages() {
    let mut e = Engine::create(cfg()).unwrap();
    let mut notes = sample();
    notes[0].mtime = 5000.0;
    upsert(&mut e, notes);
    let all = e.list(&ListRequest::default()).unwrap();
    assert_eq!(all.total, 5);
    assert_eq!(all.entries[0].path, "Daily/2024-01-01.md", "by path");
    let guides = e.list(&ListRequest { folder: Some("Guides".into()), ..Default::default() }).unwrap();
    assert_eq!(
        guides.entries.iter().map(|n| n.path.as_str()).collect::<Vec<_>>(),
        ["Guides/Search.md", "Guides/Sync.md"]
    );
    let tagged = e.list(&ListRequest { tag: Some("#tools".into()), ..Default::default() }).unwrap();
    assert_eq!(tagged.total, 1, "nested tag tools/search matches tools");
    let done = e
        .list(&ListRequest {
            property: Some(PropertyFilter { key: "status".into(), value: "done".into() }),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(done.entries[0].path, "Daily/2024-01-01.md");
    assert_eq!(done.entries[0].frontmatter["status"], "done");
    let newest = e.list(&ListRequest { sort: ListSort::Mtime, limit: Some(1), ..Default::default() }).unwrap();
    assert_eq!((newest.total, newest.entries.len()), (5, 1));
    assert_eq!(newest.entries[0].path, "Guides/Sync.md");
    let page = e.list(&ListRequest { offset: 4, limit: Some(10), ..Default::default() }).unwrap();
    assert_eq!(page.entries.len(), 1);
}

#[test]
fn usage_is_recorded_persisted_and_follows_a_rename() {
    let mut e = Engine::create(cfg()).unwrap();
    upsert(&mut e, sample());
    let mut folder = Folder::default();
    folder.apply(&e.flush().unwrap());
    let n = e.record_access(&["Guides/Search.md".into(), "nope.md".into(), "../x.md".into()], 1234.0);
    assert_eq!(n, 1);
    e.record_access(&["Guides/Search.md".into()], 2000.0);
    let out = e.flush().unwrap();
    // A catalog delta and the manifest; no index file.
    let writes: Vec<(&str, usize)> = out.writes.iter().map(|w| (w.name.as_str(), w.bytes.len())).collect();
    let cat: usize = writes.iter().filter(|(n, _)| n.starts_with(&Folder::own("cat/"))).map(|(_, len)| len).sum();
    assert!(cat < 1024, "usage writes a small delta, not the catalog: {writes:?}");
    assert!(
        writes.iter().all(|(n, _)| n.starts_with(&Folder::own("cat/")) || n.starts_with(&Folder::own("manifest-"))),
        "{writes:?}"
    );
    folder.apply(&out);
    let mut e = Engine::open(cfg(), folder.files());
    assert!(!e.open_report().rebuilt);
    let usage = |e: &Engine, p: &str| {
        e.list(&ListRequest::default()).unwrap().entries.into_iter().find(|n| n.path == p).and_then(|n| n.access)
    };
    assert_eq!(usage(&e, "Guides/Search.md"), Some(AccessInfo { count: 2, last: 2000.0 }));
    assert_eq!(usage(&e, "Guides/Sync.md"), None);
    e.update(UpdateBatch {
        renames: vec![rename("Guides/Search.md", "Tools/Search.md", &sample()[1].bytes)],
        ..Default::default()
    })
    .unwrap();
    assert_eq!(usage(&e, "Tools/Search.md").map(|a| a.count), Some(2));
    // Renamed and edited: re-indexed, and the usage still follows.
    let edited = b"# Search\n\nNow about the quick switcher.\n";
    e.update(UpdateBatch {
        renames: vec![rename("Tools/Search.md", "Tools/Switcher.md", edited)],
        ..Default::default()
    })
    .unwrap();
    assert_eq!(usage(&e, "Tools/Switcher.md").map(|a| a.count), Some(2));
}

#[test]
fn folder_context_is_inherited_nearest_first() {
    let mut e = Engine::create(cfg()).unwrap();
    upsert(
        &mut e,
        vec![
            note("Projects/Projects.md", "---\ncontext: Work projects of the Acme team\n---\n# Projects\n"),
            note(
                "Projects/Strata.md",
                "---\ncontext: [\"The search plugin, in Rust\"]\n---\nfolder note beside its folder\n",
            ),
            note("Projects/Strata/Design.md", "# Design\n\nhybrid ranking notes\n"),
            note("Other/Note.md", "# Other\n\nhybrid ranking elsewhere\n"),
        ],
    );
    assert_eq!(
        e.folder_context("Projects/Strata/Design.md").as_deref(),
        Some("The search plugin, in Rust\nWork projects of the Acme team")
    );
    assert_eq!(e.folder_context("Other/Note.md"), None);
    let hits = search(&mut e, "hybrid ranking");
    let design = hits.iter().find(|h| h.path == "Projects/Strata/Design.md").unwrap();
    assert!(design.context.as_deref().unwrap().starts_with("The search plugin"));
    assert_eq!(hits.iter().find(|h| h.path == "Other/Note.md").unwrap().context, None);
}

#[test]
fn snippets_never_show_the_frontmatter() {
    let mut e = Engine::create(cfg()).unwrap();
    let mut notes = sample();
    notes.push(note("Bike.md", "---\ntitle: Bicycle rebuild\nbudget: 180\n---\n\n# Bicycle rebuild\n\nTurning an old steel touring frame into a commuter.\n\n## Parts\n\nA list of parts.\n"));
    upsert(&mut e, notes.clone());
    for q in ["Sync guide", "test", "bicycle rebuild", "budget"] {
        let hits = search(&mut e, q);
        for (h, s) in hits.iter().zip(snippets(&e, q, &hits, &notes)) {
            let text = s.expect("a snippet").text;
            assert!(
                !text.contains("title:") && !text.contains("tags: [test]") && !text.contains("budget: 180"),
                "{q}: {h:?}"
            );
        }
    }
}

#[test]
fn a_split_note_indexes_each_line_once_frontmatter_and_intros_included() {
    let mut e = Engine::create(cfg()).unwrap();
    let mut text = long_note("Handbook", &[("Setup", "devices"), ("Conflicts", "merge")]);
    text = text.replacen("---\n", "---\nauthor: Zebediah\n", 1);
    text = text.replacen("## Setup\n\n", "## Setup\n\nQuixotic intro line.\n\n### Phones\n\n", 1);
    upsert(&mut e, vec![note("Handbook.md", &text)]);
    let n = e.note("Handbook.md").unwrap();
    assert!(n.sections.len() > 2, "split: {:?}", n.sections);
    // A frontmatter value, only in the whole-note document's own lines.
    let hits = search(&mut e, "Zebediah");
    assert_eq!(hits.first().map(|h| (h.path.as_str(), h.depth)), Some(("Handbook.md", 0)));
    // Each body word is indexed in exactly one document.
    let docs = e.lex.search(&LexQuery { text: "filler7".into(), limit: 50, ..Default::default() }).unwrap().hits;
    assert_eq!(docs.len(), 2, "one leaf per section that has the word: {docs:?}");
}

#[test]
fn the_single_device_index_s_vectors_are_adopted_without_a_model() {
    use crate::semantic::{model_spec, Semantic};
    let mut e = Engine::create(cfg()).unwrap();
    upsert(&mut e, sample());
    let keys: Vec<[u8; 32]> =
        e.catalog.entries().flat_map(|n| n.vector_keys().map(|(_, k)| k).collect::<Vec<_>>()).collect();
    let vectors: Vec<([u8; 32], Vec<f32>)> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let mut v = vec![0.0f32; 384];
            v[i % 384] = 1.0;
            (*k, v)
        })
        .collect();
    let spec = model_spec(&crate::embed::EmbedderConfig::default());
    e.semantic = Semantic::with_vectors(spec, &vectors);
    let mut folder = Folder::default();
    folder.apply(&e.flush().unwrap());
    assert!(folder.0.keys().any(|n| n.starts_with(layout::VECTORS_DIR)));
    // The index of format 15 (one device, its vectors in `vec/`), with damaged lexical files.
    folder.rewrite_in_single_device_layout();
    folder.damage_lexical();
    assert!(folder.0.keys().any(|n| n.starts_with(store::VEC_DIR)));
    let legacy: Vec<String> = folder.0.keys().cloned().collect();
    let names: Vec<String> = legacy.clone();
    let plan = layout::plan_open(layout::DEFAULT_DEVICE, &names);
    assert!(plan.read.iter().any(|n| n.starts_with(store::VEC_DIR)), "the old vectors are read: {plan:?}");
    let mut e2 = Engine::open(cfg(), folder.files());
    let report = e2.open_report().clone();
    assert!(report.fresh && !report.rebuilt, "{report:?}");
    assert!(
        report.reason.as_deref().unwrap().contains(&format!("{} embedded chunks", keys.len())),
        "{:?}",
        report.reason
    );
    assert_eq!(e2.status().vectors, keys.len());
    assert!(report.orphans.is_empty(), "nothing of the old layout is deleted: {:?}", report.orphans);
    // Indexing finds every key; the first flush writes the vectors as a shared segment, and
    // leaves the old layout alone (a device still on format 15 uses it).
    upsert(&mut e2, sample());
    assert_eq!(e2.embed_progress().done, keys.len(), "nothing left to embed");
    let out = e2.flush().unwrap();
    assert!(
        out.deletes.iter().all(|d| d.starts_with(&layout::device_dir(layout::DEFAULT_DEVICE))),
        "{:?}",
        out.deletes
    );
    folder.apply(&out);
    for name in &legacy {
        assert!(folder.0.contains_key(name), "{name} is still there");
    }
    let e3 = Engine::open(cfg(), folder.files());
    assert!(!e3.open_report().rebuilt && !e3.open_report().fresh, "{:?}", e3.open_report().reason);
    assert_eq!(e3.status().vectors, keys.len());
    assert_eq!(e3.open_report().shared_vectors, keys.len());
}
