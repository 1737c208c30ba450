use serde_json::{json, Map, Value};

use super::*;

struct Note {
    path: &'static str,
    fm: Map<String, Value>,
    tags: Vec<String>,
    mtime: f64,
    /// The creation time, when the host knew it.
    ctime: Option<f64>,
}

impl Subject for Note {
    fn value(&self, field: &Field) -> Option<Val<'_>> {
        Some(match field {
            Field::Path => Val::Str(self.path),
            Field::Name => Val::Str(crate::paths::stem(self.path)),
            Field::Folder => Val::Str(crate::paths::folder(self.path)),
            Field::Tags => Val::Tags(&self.tags),
            Field::Mtime => Val::Instant(self.mtime),
            Field::Ctime => Val::Instant(self.ctime?),
            Field::Size => Val::Num(100.0),
            Field::Title => Val::Str(crate::paths::stem(self.path)),
            Field::Prop(k) => Val::Json(self.fm.get(k)?),
        })
    }
}

fn ctx() -> Context {
    Context { today: dates::parse_date("2026-11-26"), now: None, offset_minutes: 0 }
}

fn note(path: &'static str, fm: Value, tags: &[&str], mtime: &str) -> Note {
    Note {
        path,
        fm: fm.as_object().cloned().unwrap_or_default(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        mtime: dates::parse_datetime(mtime, 0).unwrap(),
        ctime: None,
    }
}

/// The notes, Alpha and Beta with the creation times their host gave (the others' host knew none).
fn notes_with_ctime() -> Vec<Note> {
    let mut ns = notes();
    ns[0].ctime = dates::parse_datetime("2026-01-15T08:00:00Z", 0);
    ns[1].ctime = dates::parse_datetime("2019-06-01T12:00:00Z", 0);
    ns
}

fn notes() -> Vec<Note> {
    vec![
        note(
            "Projects/Alpha.md",
            json!({"status": "active", "priority": 2, "due": "2026-12-01", "tags": ["project", "alpha"],
                   "owner": "Ana", "reviewed": "2026-11-20T09:30:00", "done": false}),
            &["project", "alpha", "team/core"],
            "2026-11-25T10:00:00Z",
        ),
        note(
            "Projects/Beta.md",
            json!({"status": "Draft", "priority": 5, "owner": ["Ben", "Ana"], "due": "2026-11-01", "done": true}),
            &["project"],
            "2026-11-10T08:00:00Z",
        ),
        note(
            "Reading/Book.md",
            json!({"rating": "five", "priority": "3", "due": "soon", "empty": null}),
            &[],
            "2026-10-01T00:00:00Z",
        ),
        note("Inbox.md", json!({}), &["team"], "2026-11-26T07:00:00Z"),
    ]
}

fn run(src: &str) -> Vec<&'static str> {
    let e = parse(src, &ctx()).unwrap_or_else(|e| panic!("{src}: {e}"));
    notes().iter().filter(|n| e.matches(*n, &ctx())).map(|n| n.path).collect()
}

#[test]
fn every_operator_on_numbers_dates_text_and_lists() {
    let table: &[(&str, &[&str])] = &[
        ("priority = 2", &["Projects/Alpha.md"]),
        ("priority != 2", &["Projects/Beta.md", "Reading/Book.md", "Inbox.md"]),
        ("priority < 3", &["Projects/Alpha.md"]),
        ("priority <= 3", &["Projects/Alpha.md", "Reading/Book.md"]),
        ("priority > 2", &["Projects/Beta.md", "Reading/Book.md"]),
        ("priority >= 5", &["Projects/Beta.md"]),
        ("status = draft", &["Projects/Beta.md"]),
        ("status == 'ACTIVE'", &["Projects/Alpha.md"]),
        ("due < 2026-11-26", &["Projects/Beta.md"]),
        ("due >= 2026-12-01", &["Projects/Alpha.md"]),
        ("due = 2026-12-01", &["Projects/Alpha.md"]),
        ("reviewed > 2026-11-20T09:00", &["Projects/Alpha.md"]),
        ("reviewed < 2026-11-20T09:00", &[]),
        ("reviewed = 2026-11-20", &["Projects/Alpha.md"]),
        ("owner = Ana", &["Projects/Alpha.md", "Projects/Beta.md"]),
        ("owner contains ben", &["Projects/Beta.md"]),
        ("tags contains alpha", &["Projects/Alpha.md"]),
        ("status contains raf", &["Projects/Beta.md"]),
        ("done = true", &["Projects/Beta.md"]),
        ("done = false", &["Projects/Alpha.md"]),
        ("rating exists", &["Reading/Book.md"]),
        ("empty exists", &[]),
        ("owner !exists", &["Reading/Book.md", "Inbox.md"]),
        ("file.tags contains team", &["Projects/Alpha.md", "Inbox.md"]),
        ("file.tags contains #team/core", &["Projects/Alpha.md"]),
        ("file.tags = team", &["Inbox.md"]),
        ("file.folder = projects", &["Projects/Alpha.md", "Projects/Beta.md"]),
        ("file.name = book", &["Reading/Book.md"]),
        ("file.path contains read", &["Reading/Book.md"]),
        ("file.mtime >= today-1d", &["Projects/Alpha.md", "Inbox.md"]),
        ("file.mtime = today", &["Inbox.md"]),
        ("file.mtime < 2026-11-01", &["Reading/Book.md"]),
        ("file.mtime > now-2h", &["Inbox.md"]),
        ("file.size >= 100", &["Projects/Alpha.md", "Projects/Beta.md", "Reading/Book.md", "Inbox.md"]),
    ];
    for (src, want) in table {
        assert_eq!(run(src), *want, "{src}");
    }
}

#[test]
fn ctime_is_the_hosts_creation_time_and_missing_without_one() {
    let ns = notes_with_ctime();
    let run = |src: &str| {
        let e = parse(src, &ctx()).unwrap_or_else(|e| panic!("{src}: {e}"));
        ns.iter().filter(|n| e.matches(*n, &ctx())).map(|n| n.path).collect::<Vec<_>>()
    };
    let table: &[(&str, &[&str])] = &[
        ("file.ctime exists", &["Projects/Alpha.md", "Projects/Beta.md"]),
        ("file.ctime !exists", &["Reading/Book.md", "Inbox.md"]),
        ("file.ctime > 2020-01-01", &["Projects/Alpha.md"]),
        ("file.ctime < 2020-01-01", &["Projects/Beta.md"]),
        ("file.ctime = 2026-01-15", &["Projects/Alpha.md"]),
        ("file.ctime >= 2019-06-01T12:00", &["Projects/Alpha.md", "Projects/Beta.md"]),
        ("file.ctime > 2019-06-01T12:00", &["Projects/Alpha.md"]),
        ("file.ctime >= today-365d", &["Projects/Alpha.md"]),
        // A note without a creation time matches no comparison; `!=` is the negation of `=`,
        // as for a missing property.
        ("file.ctime < today", &["Projects/Alpha.md", "Projects/Beta.md"]),
        ("file.ctime != 2026-01-15", &["Projects/Beta.md", "Reading/Book.md", "Inbox.md"]),
        ("file.CTime > 2020-01-01 OR file.name = inbox", &["Projects/Alpha.md", "Inbox.md"]),
        ("\"file.ctime\" exists", &[]),
    ];
    for (src, want) in table {
        assert_eq!(run(src), *want, "{src}");
    }
    let keys = parse_sort("-file.ctime").unwrap();
    assert_eq!(keys, vec![SortKey { field: Field::Ctime, descending: true }]);
    let mut by: Vec<&Note> = ns.iter().collect();
    by.sort_by(|a, b| sort_cmp(a.value(&Field::Ctime).as_ref(), b.value(&Field::Ctime).as_ref(), true, 0));
    assert_eq!(by.iter().map(|n| n.path).collect::<Vec<_>>()[..2], ["Projects/Alpha.md", "Projects/Beta.md"]);
    assert_eq!(to_json(ns[2].value(&Field::Ctime)), Value::Null, "no creation time is null, not 0");
}

#[test]
fn boolean_logic_and_precedence() {
    assert_eq!(run("status = active OR status = draft AND priority > 4"), ["Projects/Alpha.md", "Projects/Beta.md"]);
    assert_eq!(run("(status = active OR status = draft) AND priority > 4"), ["Projects/Beta.md"]);
    assert_eq!(run("NOT status exists"), ["Reading/Book.md", "Inbox.md"]);
    assert_eq!(run("!(priority < 3) && owner exists || file.name = inbox"), ["Projects/Beta.md", "Inbox.md"]);
    assert_eq!(run("not not rating exists"), ["Reading/Book.md"]);
}

#[test]
fn missing_keys_and_type_mismatches_match_nothing() {
    // "five" is no number, "soon" no date, a date is no number: nothing, but never an error.
    assert_eq!(run("rating > 3"), Vec::<&str>::new());
    assert_eq!(run("due > 2026-01-01"), ["Projects/Alpha.md", "Projects/Beta.md"]);
    assert_eq!(run("status > 2"), Vec::<&str>::new());
    assert_eq!(run("status < abc"), Vec::<&str>::new(), "text has no order");
    assert_eq!(run("nothing = 1"), Vec::<&str>::new());
    assert_eq!(run("nothing != 1"), ["Projects/Alpha.md", "Projects/Beta.md", "Reading/Book.md", "Inbox.md"]);
    assert_eq!(run("priority = 3"), ["Reading/Book.md"], "a number written as text compares as a number");
    assert_eq!(run("done = yes"), Vec::<&str>::new());
}

#[test]
fn syntax_errors_name_their_position() {
    let cases: &[(&str, usize, &str)] = &[
        ("status = ", 7, "expected a value after `=`"),
        ("status draft", 7, "expected =, !="),
        ("(status = a", 0, "never closed"),
        ("status = a)", 10, "without its `(`"),
        ("status = 'open", 9, "unterminated"),
        ("a = 1 AND", 9, "found the end"),
        ("a = 1 & b = 2", 6, "`&` alone"),
        ("file.nope = 1", 0, "unknown field `file.nope`"),
        ("file.btime > today", 0, "file.ctime"),
        ("x > today-3y", 4, "the unit is d"),
        ("a = 1 b = 2", 6, "expected AND, OR"),
        ("", 0, "empty expression"),
        ("= 3", 0, "expected a field name"),
        ("状态 = 进行中 AND", 12, "found the end"),
    ];
    for (src, pos, msg) in cases {
        let e = parse(src, &ctx()).expect_err(src);
        assert_eq!(e.position, *pos, "{src}: {e}");
        assert!(e.message.contains(msg), "{src}: {e}");
    }
    let no_today = parse("file.mtime > today", &Context::default()).unwrap_err();
    assert!(no_today.message.contains("needs the host's date"), "{no_today}");
    let deep = format!("{}a = 1{}", "(".repeat(200), ")".repeat(200));
    assert!(parse(&deep, &ctx()).unwrap_err().message.contains("nested"));
    assert!(parse(&"a = 1 OR ".repeat(1000), &ctx()).is_err(), "too long");
}

#[test]
fn fields_and_sort_keys() {
    let e = parse("status = a AND (priority > 1 OR status exists) AND file.mtime > today", &ctx()).unwrap();
    let mut f = Vec::new();
    e.fields(&mut f);
    assert_eq!(f, vec![Field::Prop("status".into()), Field::Prop("priority".into()), Field::Mtime]);
    let keys = parse_sort("-file.mtime, priority desc ,title").unwrap();
    assert_eq!(
        keys,
        vec![
            SortKey { field: Field::Mtime, descending: true },
            SortKey { field: Field::Prop("priority".into()), descending: true },
            SortKey { field: Field::Prop("title".into()), descending: false },
        ]
    );
    assert_eq!(parse_sort("a, ,b").unwrap_err().position, 2);
    assert!(parse_sort("a sideways").is_err());
    let ns = notes();
    let mut by: Vec<&Note> = ns.iter().collect();
    by.sort_by(|a, b| {
        sort_cmp(
            a.value(&Field::Prop("priority".into())).as_ref(),
            b.value(&Field::Prop("priority".into())).as_ref(),
            false,
            0,
        )
    });
    assert_eq!(
        by.iter().map(|n| n.path).collect::<Vec<_>>(),
        ["Projects/Alpha.md", "Reading/Book.md", "Projects/Beta.md", "Inbox.md"]
    );
}
