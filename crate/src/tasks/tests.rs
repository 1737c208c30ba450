use super::*;

const PLAN: &str = include_str!("../../../tests/fixtures/tasks-vault/Projects/Alpha/Plan.md");

fn day(s: &str) -> Option<i32> {
    Some(dates::parse_date(s).expect("a date"))
}

#[test]
fn the_fixture_notes_tasks_exactly() {
    let tasks = extract(PLAN);
    let seen: Vec<(u32, char, &str, Option<u32>)> =
        tasks.iter().map(|t| (t.line, t.status, t.text.as_str(), t.parent)).collect();
    assert_eq!(
        seen,
        vec![
            (13, ' ', "Write the spec #spec", None),
            (14, 'x', "Book the room", None),
            (15, '/', "Draft the API", None),
            (16, ' ', "Review the types", Some(2)),
            (17, '-', "Old approach", Some(2)),
            (18, '>', "Move the meeting", None),
            (19, '?', "Ask about the budget [due:: 2026-13-45]", None),
            (20, '!', "Important call", None),
            (21, 's', "Custom status item", None),
            (26, ' ', "Numbered task", None),
            (27, 'X', "Upper-case done", None),
            (34, ' ', "Callout task #alpha/callout", None),
            (35, 'x', "Nested in the callout", Some(11)),
            (37, ' ', "检查中文翻译 #翻译", None),
            (38, ' ', "Broken field [due:: 2026-12-01 and", None),
        ]
    );
    assert!(!tasks.iter().any(|t| t.text.contains("inside code")), "a task in a code block is not a task");
}

#[test]
fn dates_and_priorities_in_both_formats() {
    let tasks = extract(PLAN);
    let at = |line: u32| tasks.iter().find(|t| t.line == line).expect("a task on that line");
    assert_eq!(at(13).dates, TaskDates { due: day("2026-11-20"), ..Default::default() });
    assert_eq!(at(13).priority, Priority::High);
    assert_eq!(at(14).dates, TaskDates { due: day("2026-11-19"), done: day("2026-11-18"), ..Default::default() });
    assert_eq!((at(15).dates.due, at(15).priority), (day("2026-11-26"), Priority::High), "Dataview fields");
    assert_eq!(at(17).dates.cancelled, day("2026-11-10"));
    assert_eq!(at(18).dates.scheduled, day("2026-11-30"));
    assert_eq!(at(19).dates, TaskDates::default(), "an impossible date is no date");
    assert_eq!((at(20).dates.start, at(20).priority), (day("2026-11-25"), Priority::Highest));
    assert_eq!((at(26).dates.scheduled, at(26).priority), (day("2026-12-07"), Priority::Low));
    assert_eq!(at(27).dates.done, day("2026-11-21"), "(completion:: …)");
    assert_eq!(at(37).dates.due, day("2026-11-26"));
    assert_eq!(at(38).dates, TaskDates { created: day("2026-11-01"), ..Default::default() }, "an unclosed field");
    assert_eq!(at(21).priority, Priority::Normal);
}

#[test]
fn headings_and_tags() {
    let tasks = extract(PLAN);
    let at = |line: u32| tasks.iter().find(|t| t.line == line).expect("a task on that line");
    assert_eq!(at(13).heading, "Alpha plan > Now");
    assert_eq!(at(13).tags, vec!["spec"]);
    assert_eq!(at(26).heading, "Alpha plan > Later");
    assert_eq!(at(34).tags, vec!["alpha/callout"]);
    assert_eq!(at(37).tags, vec!["翻译"]);
    let before = extract("- [ ] first\n# H\n- [ ] second\n");
    assert_eq!((before[0].heading.as_str(), before[1].heading.as_str()), ("", "H"));
}

#[test]
fn status_kinds() {
    let kinds: Vec<&str> = [' ', 'x', 'X', '/', '-', '>', '?', '!', 's'].map(|c| StatusKind::of(c).name()).to_vec();
    assert_eq!(
        kinds,
        ["todo", "done", "done", "in-progress", "cancelled", "deferred", "question", "important", "other"]
    );
    assert!(StatusKind::of('/').is_open() && !StatusKind::of('-').is_open() && !StatusKind::of('X').is_open());
}

#[test]
fn edge_cases_are_no_tasks_or_clean_tasks() {
    assert!(extract("").is_empty());
    assert!(extract("[ ] not in a list\n-[ ] no blank\n- [] empty\n- [ab] two\n- [x]no blank after\n").is_empty());
    let t = extract("- [ ]\n* [x] star\n+ [ ] plus\n10) [ ] paren\n");
    assert_eq!(t.iter().map(|t| t.text.as_str()).collect::<Vec<_>>(), ["", "star", "plus", "paren"]);
    // Emoji without a date, a date without an emoji, a selector after the emoji.
    let t = extract("- [ ] 📅 soon 2026-11-01 📅\u{FE0F} 2026-11-02\n");
    assert_eq!((t[0].text.as_str(), t[0].dates.due), ("📅 soon 2026-11-01", day("2026-11-02")));
    // CRLF line ends and a task in the frontmatter (not a task).
    let t = extract("---\nlist: \"- [ ] no\"\n---\r\n- [ ] crlf 📅 2026-01-02\r\n");
    assert_eq!(t.len(), 1);
    assert_eq!((t[0].line, t[0].text.as_str(), t[0].dates.due), (4, "crlf", day("2026-01-02")));
}
