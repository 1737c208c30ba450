//! The structured queries over the fixture vault `tests/fixtures/tasks-vault`: tasks by every
//! filter with exact results, property queries, incremental updates and persistence.

use super::*;
use crate::error::CoreError;

macro_rules! fixture {
    ($path:literal, $mtime:expr) => {
        NoteInput {
            path: $path.into(),
            bytes: include_bytes!(concat!("../../../../tests/fixtures/tasks-vault/", $path)).to_vec(),
            mtime: $mtime,
            ctime: None,
        }
    };
}

/// 2026-11-26T00:00Z in ms.
const NOV_26: f64 = 1_795_651_200_000.0;
const DAY: f64 = 86_400_000.0;

pub(super) fn vault() -> Vec<NoteInput> {
    vec![
        fixture!("Projects/Alpha/Plan.md", NOV_26 - 1.0 * DAY + 3_600_000.0),
        fixture!("Projects/Beta/Notes.md", NOV_26 - 10.0 * DAY),
        fixture!("Daily/2026-11-25.md", NOV_26 - 0.5 * DAY),
        fixture!("Reading/Book A.md", NOV_26 - 40.0 * DAY),
        fixture!("Reading/Book B.md", NOV_26 - 3.0 * DAY),
    ]
}

pub(super) fn engine() -> Engine {
    let mut e = Engine::create(cfg()).unwrap();
    upsert(&mut e, vault());
    e
}

fn req() -> TasksRequest {
    TasksRequest { today: Some("2026-11-26".into()), ..Default::default() }
}

/// "path:line" of each task the request finds, in order.
fn found(e: &Engine, r: TasksRequest) -> Vec<String> {
    let res = e.tasks(&TasksRequest { limit: Some(1000), ..r }).unwrap();
    assert_eq!(res.total, res.tasks.len().max(res.groups.iter().map(|g| g.count).sum()));
    res.tasks.iter().map(|t| format!("{}:{}", short(&t.path), t.line)).collect()
}

fn short(path: &str) -> &str {
    match path {
        "Projects/Alpha/Plan.md" => "A",
        "Projects/Beta/Notes.md" => "B",
        "Daily/2026-11-25.md" => "D",
        other => other,
    }
}

fn range(before: Option<&str>, after: Option<&str>, on: Option<&str>) -> Option<DateRange> {
    Some(DateRange { before: before.map(Into::into), after: after.map(Into::into), on: on.map(Into::into) })
}

#[test]
fn a_table_of_task_queries_with_exact_results() {
    let e = engine();
    let s = |v: &[&str]| Some(v.iter().map(|x| x.to_string()).collect::<Vec<_>>());
    let table: Vec<(&str, TasksRequest, &[&str])> = vec![
        (
            "every task, by path",
            req(),
            &[
                "D:3", "D:4", "D:5", "A:13", "A:14", "A:15", "A:16", "A:17", "A:18", "A:19", "A:20", "A:21", "A:26",
                "A:27", "A:34", "A:35", "A:37", "A:38", "B:9", "B:10",
            ],
        ),
        ("done, either case", TasksRequest { status: s(&["done"]), ..req() }, &["A:14", "A:27", "A:35", "B:10"]),
        ("custom characters", TasksRequest { status: s(&["[/]", ">", "s"]), ..req() }, &["A:15", "A:18", "A:21"]),
        ("cancelled or question", TasksRequest { status: s(&["cancelled", "question"]), ..req() }, &["A:17", "A:19"]),
        (
            "open in a folder",
            TasksRequest { status: s(&["open"]), folder: Some("projects/alpha".into()), ..req() },
            &["A:13", "A:15", "A:16", "A:18", "A:19", "A:20", "A:21", "A:26", "A:34", "A:37", "A:38"],
        ),
        (
            "a task's tag, nested",
            TasksRequest { tag: Some("#alpha".into()), folder: Some("Daily".into()), ..req() },
            &[],
        ),
        (
            "a note's tag",
            TasksRequest { where_: Some("file.tags contains project".into()), status: s(&["todo"]), ..req() },
            &["A:13", "A:16", "A:26", "A:34", "A:37", "A:38", "B:9"],
        ),
        ("a task tag", TasksRequest { tag: Some("alpha/callout".into()), ..req() }, &["A:34"]),
        ("a CJK tag", TasksRequest { tag: Some("翻译".into()), ..req() }, &["A:37"]),
        ("text, CJK", TasksRequest { text: Some("中文".into()), ..req() }, &["A:37"]),
        ("text, words in any order", TasksRequest { text: Some("room BOOK".into()), ..req() }, &["A:14"]),
        (
            "due before",
            TasksRequest { due: range(Some("2026-11-25"), None, None), ..req() },
            &["D:4", "A:13", "A:14", "A:34"],
        ),
        ("due on today", TasksRequest { due: range(None, None, Some("today")), ..req() }, &["A:15", "A:37"]),
        ("due after tomorrow", TasksRequest { due: range(None, Some("tomorrow"), None), ..req() }, &["B:9"]),
        ("scheduled", TasksRequest { scheduled: range(None, Some("2026-11-29"), None), ..req() }, &["A:18", "A:26"]),
        (
            "done in a range",
            TasksRequest { done: range(Some("2026-11-20"), Some("2026-11-01"), None), ..req() },
            &["A:14", "B:10"],
        ),
        (
            "overdue (open only)",
            TasksRequest { when: Some(TaskWhen::Overdue), ..req() },
            &["D:3", "D:4", "A:13", "A:34"],
        ),
        ("today", TasksRequest { when: Some(TaskWhen::Today), ..req() }, &["A:15", "A:37"]),
        (
            "this week (Nov 23–29)",
            TasksRequest { when: Some(TaskWhen::ThisWeek), ..req() },
            &["D:3", "D:4", "D:5", "A:15", "A:16", "A:34", "A:37"],
        ),
        ("high and above", TasksRequest { priority: Some(">=high".into()), ..req() }, &["A:13", "A:15", "A:20"]),
        ("lowest", TasksRequest { priority: Some("lowest".into()), ..req() }, &["B:9"]),
        ("below normal", TasksRequest { priority: Some("<normal".into()), ..req() }, &["A:26", "B:9"]),
        ("a note's properties", TasksRequest { where_: Some("status = draft".into()), ..req() }, &["B:9", "B:10"]),
        (
            "one note, by due",
            TasksRequest { path: Some("Daily/2026-11-25.md".into()), sort: Some(TaskSort::Due), ..req() },
            &["D:4", "D:3", "D:5"],
        ),
        (
            "open with a due date, by due",
            TasksRequest {
                status: s(&["open"]),
                due: range(None, Some("2026-01-01"), None),
                sort: Some(TaskSort::Due),
                ..req()
            },
            &["A:13", "D:4", "A:34", "D:3", "A:15", "A:37", "A:16", "B:9"],
        ),
        (
            "by priority",
            TasksRequest { priority: Some("!=normal".into()), sort: Some(TaskSort::Priority), ..req() },
            &["A:20", "A:13", "A:15", "A:26", "B:9"],
        ),
    ];
    for (what, r, want) in table {
        assert_eq!(found(&e, r), want.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "{what}");
    }
}

#[test]
fn hits_carry_what_a_client_needs_to_open_or_patch_the_line() {
    let e = engine();
    let r = e.tasks(&TasksRequest { path: Some("Projects/Alpha/Plan.md".into()), ..req() }).unwrap();
    let t = r.tasks.iter().find(|t| t.line == 16).unwrap();
    assert_eq!(
        (t.status.as_str(), t.kind, t.text.as_str(), t.heading.as_str(), t.parent_line, t.due.as_deref()),
        (" ", StatusKind::Todo, "Review the types", "Alpha plan > Now", Some(15), Some("2026-11-27"))
    );
    let t = r.tasks.iter().find(|t| t.line == 15).unwrap();
    assert_eq!(
        (t.status.as_str(), t.kind, t.priority, t.due.as_deref()),
        ("/", StatusKind::InProgress, Priority::High, Some("2026-11-26"))
    );
    assert_eq!(r.by_status.iter().find(|(k, _)| *k == StatusKind::Done), Some(&(StatusKind::Done, 3)));
}

#[test]
fn groups_count_everything_and_the_limit_fills_them_in_order() {
    let e = engine();
    let r = e.tasks(&TasksRequest { group_by: Some(TaskGroupBy::Status), limit: Some(5), ..req() }).unwrap();
    let groups: Vec<(&str, usize, usize)> = r.groups.iter().map(|g| (g.key.as_str(), g.count, g.tasks.len())).collect();
    assert_eq!(
        groups,
        [
            ("todo", 10, 5),
            ("in-progress", 1, 0),
            ("done", 4, 0),
            ("cancelled", 1, 0),
            ("deferred", 1, 0),
            ("question", 1, 0),
            ("important", 1, 0),
            ("other", 1, 0)
        ]
    );
    assert_eq!((r.total, r.tasks.len()), (20, 0));
    let by = |g: TaskGroupBy| -> Vec<(String, usize)> {
        e.tasks(&TasksRequest { group_by: Some(g), status: Some(vec!["open".into()]), ..req() })
            .unwrap()
            .groups
            .into_iter()
            .map(|g| (g.key, g.count))
            .collect()
    };
    let owned = |v: &[(&str, usize)]| v.iter().map(|(k, n)| (k.to_string(), *n)).collect::<Vec<_>>();
    assert_eq!(by(TaskGroupBy::Folder), owned(&[("Daily", 3), ("Projects/Alpha", 11), ("Projects/Beta", 1)]));
    assert_eq!(
        by(TaskGroupBy::Note),
        owned(&[("Daily/2026-11-25.md", 3), ("Projects/Alpha/Plan.md", 11), ("Projects/Beta/Notes.md", 1)])
    );
    assert_eq!(by(TaskGroupBy::Tag), owned(&[("", 11), ("alpha/callout", 1), ("errand", 1), ("spec", 1), ("翻译", 1)]));
}

#[test]
fn bad_task_requests_are_errors_not_panics() {
    let e = engine();
    let bad = |r: TasksRequest, says: &str| {
        let err = e.tasks(&r).unwrap_err();
        assert!(matches!(err, CoreError::BadRequest(_)) && err.message().contains(says), "{err}");
    };
    bad(TasksRequest { status: Some(vec!["finished".into()]), ..req() }, "status `finished`");
    bad(TasksRequest { due: range(Some("next week"), None, None), ..req() }, "due.before");
    bad(TasksRequest { when: Some(TaskWhen::Overdue), today: None, ..Default::default() }, "today");
    bad(TasksRequest { due: range(None, None, Some("today")), today: None, ..Default::default() }, "needs today");
    bad(TasksRequest { today: Some("26/11/2026".into()), ..Default::default() }, "not a date");
    bad(TasksRequest { priority: Some(">>high".into()), ..req() }, "priority");
    bad(TasksRequest { where_: Some("status = ".into()), ..req() }, "at character 8");
    bad(TasksRequest { path: Some("../x.md".into()), ..req() }, "");
}

#[test]
fn an_edited_note_updates_its_tasks_incrementally_and_they_persist() {
    let mut e = engine();
    let mut folder = Folder::default();
    folder.apply(&e.flush().unwrap());
    let daily = |e: &Engine| found(e, TasksRequest { path: Some("Daily/2026-11-25.md".into()), ..req() });
    assert_eq!(daily(&e), ["D:3", "D:4", "D:5"]);
    // One task done, one removed, one added: an update of that note alone.
    let edited = "# Wednesday\n\n- [x] Call the printer 📅 2026-11-25 ✅ 2026-11-26\n- [ ] Read chapter 3 ⏳ 2026-11-29\n- [ ] New one [due:: 2026-11-27]\n";
    let r = upsert(
        &mut e,
        vec![NoteInput { path: "Daily/2026-11-25.md".into(), bytes: edited.into(), mtime: NOV_26, ctime: None }],
    );
    assert_eq!((r.updated, r.added), (1, 0));
    assert_eq!(daily(&e), ["D:3", "D:4", "D:5"]);
    let done = e
        .tasks(&TasksRequest { status: Some(vec!["done".into()]), path: Some("Daily/2026-11-25.md".into()), ..req() })
        .unwrap();
    assert_eq!((done.tasks[0].line, done.tasks[0].done.as_deref()), (3, Some("2026-11-26")));
    assert_eq!(found(&e, TasksRequest { text: Some("new one".into()), ..req() }), ["D:5"]);
    assert!(found(&e, TasksRequest { text: Some("plants".into()), ..req() }).is_empty());
    // The flush writes a small catalog delta; a reopened index has the edited tasks.
    let out = e.flush().unwrap();
    let cat: Vec<&IndexFile> = out.writes.iter().filter(|w| w.name.starts_with(&Folder::own(store::CAT_DIR))).collect();
    assert_eq!(cat.len(), 1);
    assert!(cat[0].bytes.len() < 2000, "a delta of one note: {} bytes", cat[0].bytes.len());
    folder.apply(&out);
    let reopened =
        Engine::open(cfg(), folder.0.iter().map(|(n, b)| IndexFile { name: n.clone(), bytes: b.clone() }).collect());
    assert_eq!(found(&reopened, TasksRequest { text: Some("new one".into()), ..req() }), ["D:5"]);
    assert_eq!(found(&reopened, req()).len(), 20);
    // Deleted and renamed notes take their tasks with them.
    e.update(UpdateBatch { deletes: vec!["Projects/Beta/Notes.md".into()], ..Default::default() }).unwrap();
    assert!(found(&e, TasksRequest { folder: Some("Projects/Beta".into()), ..req() }).is_empty());
}

fn query(e: &Engine, r: QueryRequest) -> Vec<String> {
    e.query(&QueryRequest { today: Some("2026-11-26".into()), ..r })
        .unwrap()
        .notes
        .into_iter()
        .map(|n| n.path)
        .collect()
}

fn q(expr: &str) -> QueryRequest {
    QueryRequest { where_: Some(expr.into()), ..Default::default() }
}

#[test]
fn property_queries_over_the_catalog() {
    let e = engine();
    let table: &[(&str, &[&str])] = &[
        ("status = draft", &["Projects/Beta/Notes.md"]),
        ("type = book AND rating >= 4", &["Reading/Book A.md"]),
        ("type = book AND NOT rating >= 4", &["Reading/Book B.md"]),
        ("authors contains 'ursula k. le guin'", &["Reading/Book A.md"]),
        ("owner contains ana", &["Projects/Alpha/Plan.md", "Projects/Beta/Notes.md"]),
        ("read < 2026-11-01", &["Reading/Book A.md"]),
        ("file.mtime >= today-7d AND file.folder != daily", &["Projects/Alpha/Plan.md", "Reading/Book B.md"]),
        ("file.tags contains project", &["Projects/Alpha/Plan.md", "Projects/Beta/Notes.md"]),
        ("draft exists OR due = 2026-12-01", &["Projects/Alpha/Plan.md", "Reading/Book B.md"]),
        ("Priority > 1 AND priority < 5", &["Projects/Alpha/Plan.md"]),
    ];
    for (src, want) in table {
        assert_eq!(query(&e, q(src)), *want, "{src}");
    }
    let sorted = query(&e, QueryRequest { sort: Some("-file.mtime".into()), ..q("file.size > 0") });
    assert_eq!(
        sorted,
        [
            "Daily/2026-11-25.md",
            "Projects/Alpha/Plan.md",
            "Reading/Book B.md",
            "Projects/Beta/Notes.md",
            "Reading/Book A.md"
        ]
    );
    let by_priority =
        e.query(&QueryRequest { sort: Some("priority desc".into()), limit: Some(2), ..q("priority exists") }).unwrap();
    assert_eq!(by_priority.total, 2);
    let first = &by_priority.notes[0];
    assert_eq!(
        (first.path.as_str(), first.fields.get("priority")),
        ("Projects/Beta/Notes.md", Some(&serde_json::json!(5)))
    );
    assert_eq!(
        query(&e, QueryRequest { limit: Some(2), offset: Some(1), ..Default::default() }),
        ["Projects/Alpha/Plan.md", "Projects/Beta/Notes.md"]
    );
    let err = e.query(&q("status = draft AND (")).unwrap_err();
    assert!(err.message().contains("at character 21") && err.message().contains("  status = draft AND (\n"), "{err}");
    let err = e.query(&QueryRequest { sort: Some("file.bogus".into()), ..Default::default() }).unwrap_err();
    assert!(err.message().starts_with("bad sort: unknown field"), "{err}");
    assert!(
        e.query(&QueryRequest { where_: Some("file.mtime > today".into()), ..Default::default() }).is_err(),
        "no today"
    );
}

#[test]
fn only_the_named_properties_are_decoded_whatever_their_case_or_script() {
    let mut e = Engine::create(cfg()).unwrap();
    let text = "---\nStatus: Done\n状态: 进行中\n\"say \\\"hi\\\"\": 2\nnested: {a: 1}\nother: [1, 2]\n---\nbody\n";
    upsert(&mut e, vec![NoteInput { path: "a.md".into(), bytes: text.into(), mtime: NOV_26, ctime: None }]);
    upsert(&mut e, vec![NoteInput { path: "b.md".into(), bytes: "no frontmatter".into(), mtime: NOV_26, ctime: None }]);
    let paths = |src: &str| query(&e, q(src));
    assert_eq!(paths("status = done"), ["a.md"]);
    assert_eq!(paths("STATUS = DONE"), ["a.md"]);
    assert_eq!(paths("状态 = 进行中"), ["a.md"]);
    assert_eq!(paths(r#""say \"hi\"" = 2"#), ["a.md"]);
    assert_eq!(paths("nested exists AND other contains 2"), ["a.md"]);
    assert_eq!(paths("status !exists"), ["b.md"]);
    let hit = e.query(&q("status exists AND other exists")).unwrap().notes.remove(0);
    assert_eq!(serde_json::Value::Object(hit.fields), serde_json::json!({"status": "Done", "other": [1, 2]}));
    // The decoded columns go with an update: an edited property answers at once.
    upsert(
        &mut e,
        vec![NoteInput { path: "a.md".into(), bytes: text.replace("Done", "Open").into(), mtime: NOV_26, ctime: None }],
    );
    assert!(query(&e, q("status = done")).is_empty());
    assert_eq!(query(&e, q("status = open")), ["a.md"]);
    e.update(UpdateBatch { deletes: vec!["a.md".into()], ..Default::default() }).unwrap();
    assert!(query(&e, q("status = open")).is_empty());
    assert_eq!(query(&e, q("status !exists")), ["b.md"]);
}

#[test]
fn file_ctime_is_the_hosts_and_kept_through_edits_renames_and_persistence() {
    let mut e = Engine::create(cfg()).unwrap();
    let at = |s: &str| crate::dates::parse_datetime(s, 0);
    let input = |path: &str, text: &str, ctime: Option<f64>| NoteInput {
        path: path.into(),
        bytes: text.into(),
        mtime: NOV_26,
        ctime,
    };
    upsert(
        &mut e,
        vec![
            input("old.md", "# Old\n\nkumquat jam\n", at("2019-06-01T12:00:00Z")),
            input("new.md", "# New\n\nkumquat tart\n", at("2026-01-15T08:00:00Z")),
            input("unknown.md", "# Unknown\n\nkumquat pie\n", None),
            // A file system without birth times reports 0: not a creation time.
            input("zero.md", "# Zero\n\nkumquat cake\n", Some(0.0)),
        ],
    );
    let paths = |e: &Engine, src: &str| query(e, q(src));
    assert_eq!(paths(&e, "file.ctime > 2020-01-01"), ["new.md"]);
    assert_eq!(paths(&e, "file.ctime < 2020-01-01"), ["old.md"]);
    assert_eq!(paths(&e, "file.ctime exists"), ["new.md", "old.md"]);
    assert_eq!(paths(&e, "file.ctime !exists"), ["unknown.md", "zero.md"]);
    assert_eq!(paths(&e, "file.ctime >= today-365d"), ["new.md"]);
    let sorted = query(&e, QueryRequest { sort: Some("-file.ctime".into()), ..Default::default() });
    assert_eq!(sorted, ["new.md", "old.md", "unknown.md", "zero.md"], "notes without one last");
    let hit = e.query(&q("file.name = old AND file.ctime exists")).unwrap().notes.remove(0);
    assert_eq!(hit.fields.get("file.ctime"), Some(&serde_json::json!(at("2019-06-01T12:00:00Z").unwrap())));
    let unknown = e.query(&q("file.name = unknown AND file.ctime !exists")).unwrap().notes.remove(0);
    assert_eq!(unknown.fields.get("file.ctime"), Some(&serde_json::Value::Null));

    // An edit from a host that does not know the creation time keeps the indexed one; a rename
    // carries it to the new path; a host that knows it sets it.
    upsert(&mut e, vec![input("old.md", "# Old\n\nkumquat marmalade\n", None)]);
    let r = e.update(UpdateBatch {
        renames: vec![rename("old.md", "Archive/old.md", b"# Old\n\nkumquat marmalade\n")],
        ..Default::default()
    });
    assert_eq!(r.unwrap().moved, 1);
    upsert(&mut e, vec![input("unknown.md", "# Unknown\n\nkumquat pie\n", at("2021-03-03T00:00:00Z"))]);
    assert_eq!(paths(&e, "file.ctime < 2020-01-01"), ["Archive/old.md"]);
    assert_eq!(paths(&e, "file.ctime = 2021-03-03"), ["unknown.md"]);

    // The search filters' where, and the index reopened from its files.
    let req = SearchRequest {
        query: "kumquat".into(),
        mode: Some(SearchMode::Lexical),
        filters: Some(SearchFilters { where_: Some("file.ctime < 2020-01-01".into()), ..Default::default() }),
        ..Default::default()
    };
    let hits: Vec<String> = e.search(&req).unwrap().hits.into_iter().map(|h| h.path).collect();
    assert_eq!(hits, ["Archive/old.md"]);
    let mut folder = Folder::default();
    folder.apply(&e.flush().unwrap());
    let reopened = Engine::open(cfg(), folder.files());
    assert_eq!(paths(&reopened, "file.ctime exists"), ["Archive/old.md", "new.md", "unknown.md"]);
    assert_eq!(paths(&reopened, "file.ctime > 2020-01-01 AND file.ctime < 2026-01-01"), ["unknown.md"]);
}

#[test]
fn warmed_columns_answer_as_the_lazy_ones() {
    let lazy = engine();
    let warm = engine();
    // The fixture's notes have more than 8 distinct properties: the 8 most common are built.
    assert_eq!(warm.warm_queries(), 8);
    assert_eq!(warm.warm_queries(), 0, "already built");
    let table = [
        "status = draft",
        "type = book AND rating >= 4",
        "authors contains 'ursula k. le guin'",
        "owner contains ana",
        "read < 2026-11-01",
        "draft exists OR due = 2026-12-01",
        "Priority > 1 AND priority < 5",
        "TAGS contains project OR aliases exists",
        "status !exists",
    ];
    let answer = |e: &Engine, src: &str| {
        let r = QueryRequest { sort: Some("-priority".into()), today: Some("2026-11-26".into()), ..q(src) };
        let res = e.query(&r).unwrap();
        (res.total, res.notes.into_iter().map(|n| (n.path, n.fields)).collect::<Vec<_>>())
    };
    for src in table {
        assert_eq!(answer(&warm, src), answer(&lazy, src), "{src}");
    }
    let tasks = |e: &Engine| found(e, TasksRequest { where_: Some("owner contains ana".into()), ..req() });
    assert_eq!(tasks(&warm), tasks(&lazy));
    // Warmed columns follow an edit as the lazy ones do.
    let mut warm = engine();
    warm.warm_queries();
    let mut lazy = engine();
    let edit = || {
        let text = "---\nstatus: draft\ntype: book\nrating: 5\n---\n# Book C\n";
        vec![NoteInput { path: "Reading/Book C.md".into(), bytes: text.into(), mtime: NOV_26, ctime: None }]
    };
    upsert(&mut warm, edit());
    upsert(&mut lazy, edit());
    for src in table {
        assert_eq!(answer(&warm, src), answer(&lazy, src), "{src} after an edit");
    }
}
