//! Tasks: every task list item of a note (`- [ ] …`, `1. [x] …`, inside callouts and
//! quotes too; never inside code), with its status character, its text as it renders, its
//! line, heading path, tags, parent task, and the dates and priority written in either of the
//! two formats people use: the Tasks plugin's emoji (`📅 2026-12-01`, `⏫`) and Dataview's
//! inline fields (`[due:: 2026-12-01]`, `[priority:: high]`).
//!
//! pulldown-cmark finds the list items (so code blocks and quotes are handled as Obsidian
//! renders them); the item's source line gives the status, since its task-list extension
//! knows only `[ ]` and `[x]`. Dates are days since 1970-01-01 (`dates`).

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use serde::{Deserialize, Serialize};

use crate::dates;
use crate::markdown::{self, LineIndex};
use crate::sections::HEADING_SEPARATOR;

/// A task's priority, ordered: `Lowest` < … < `Normal` (none given) < … < `Highest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Priority {
    Lowest,
    Low,
    #[default]
    Normal,
    Medium,
    High,
    Highest,
}

impl Priority {
    pub fn parse(s: &str) -> Option<Priority> {
        Some(match s.trim().to_lowercase().as_str() {
            "lowest" => Priority::Lowest,
            "low" => Priority::Low,
            "normal" | "none" => Priority::Normal,
            "medium" => Priority::Medium,
            "high" => Priority::High,
            "highest" => Priority::Highest,
            _ => return None,
        })
    }
}

/// A task's dates (days since 1970-01-01).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskDates {
    pub due: Option<i32>,
    pub scheduled: Option<i32>,
    pub start: Option<i32>,
    pub done: Option<i32>,
    pub created: Option<i32>,
    pub cancelled: Option<i32>,
}

/// One task list item, as the catalog keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// 1-based line of the item.
    pub line: u32,
    /// The character between the brackets (`' '`, `'x'`, `'/'`, …), kept as written.
    pub status: char,
    /// The text as it renders, without the dates, priority and fields that were read.
    pub text: String,
    /// The headings above the task ("A > B"; empty before the first heading).
    pub heading: String,
    /// Tags in the item, without `#`.
    pub tags: Vec<String>,
    /// Index (in the note's tasks) of the task whose item holds this one.
    pub parent: Option<u32>,
    pub dates: TaskDates,
    pub priority: Priority,
}

/// The kinds of status a character stands for (the Tasks plugin's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum StatusKind {
    Todo,
    InProgress,
    Done,
    Cancelled,
    Deferred,
    Question,
    Important,
    /// Any other character.
    Other,
}

impl StatusKind {
    pub fn of(c: char) -> StatusKind {
        match c {
            ' ' => StatusKind::Todo,
            'x' | 'X' => StatusKind::Done,
            '/' => StatusKind::InProgress,
            '-' => StatusKind::Cancelled,
            '>' => StatusKind::Deferred,
            '?' => StatusKind::Question,
            '!' => StatusKind::Important,
            _ => StatusKind::Other,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            StatusKind::Todo => "todo",
            StatusKind::InProgress => "in-progress",
            StatusKind::Done => "done",
            StatusKind::Cancelled => "cancelled",
            StatusKind::Deferred => "deferred",
            StatusKind::Question => "question",
            StatusKind::Important => "important",
            StatusKind::Other => "other",
        }
    }

    /// Still to do: neither done nor cancelled.
    pub fn is_open(self) -> bool {
        !matches!(self, StatusKind::Done | StatusKind::Cancelled)
    }
}

/// A cheap look for a line that could be a task item (`[`, one character, `]` after a list
/// marker), so that notes without one are not parsed a second time.
fn may_have_tasks(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start_matches(|c: char| c == '>' || c.is_whitespace());
        marker_len(l).is_some_and(|n| status_at(&l[n..]).is_some())
    })
}

/// Length of a list marker and the blanks after it (`- `, `* `, `+ `, `12. `, `3) `).
fn marker_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let after = match b.first()? {
        b'-' | b'*' | b'+' => 1,
        b'0'..=b'9' => {
            let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
            if n > 9 || !matches!(b.get(n), Some(b'.' | b')')) {
                return None;
            }
            n + 1
        }
        _ => return None,
    };
    let blanks = b[after..].iter().take_while(|c| matches!(c, b' ' | b'\t')).count();
    (blanks > 0).then_some(after + blanks)
}

/// `[c]` then a blank or the line's end: the status character and the length to skip.
fn status_at(s: &str) -> Option<(char, usize)> {
    let rest = s.strip_prefix('[')?;
    let mut chars = rest.chars();
    let c = chars.next()?;
    if c == ']' || c == '\n' || c == '\r' {
        return None;
    }
    let after = chars.as_str().strip_prefix(']')?;
    if !(after.is_empty() || after.starts_with([' ', '\t', '\n', '\r'])) {
        return None;
    }
    Some((c, 1 + c.len_utf8() + 1))
}

/// Every task of a note's text.
pub fn extract(text: &str) -> Vec<Task> {
    if !may_have_tasks(text) {
        return Vec::new();
    }
    let lines = LineIndex::new(text);
    let opts = crate::markdown::PARSE_OPTIONS;
    let mut tasks: Vec<Task> = Vec::new();
    // Open list items: the index of their task, if they are one.
    let mut items: Vec<Option<u32>> = Vec::new();
    let mut headings: Vec<(u8, String)> = Vec::new();
    let mut heading: Option<(u8, String)> = None;
    let mut in_metadata = false;
    for (event, range) in Parser::new_ext(text, opts).into_offset_iter() {
        match event {
            Event::Start(Tag::MetadataBlock(_)) => in_metadata = true,
            Event::End(TagEnd::MetadataBlock(_)) => in_metadata = false,
            Event::Start(Tag::Heading { level, .. }) => heading = Some((level as u8, String::new())),
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, t)) = heading.take() {
                    while headings.last().is_some_and(|(l, _)| *l >= level) {
                        headings.pop();
                    }
                    headings.push((level, t.trim().to_string()));
                }
            }
            Event::Text(t) | Event::Code(t) if !in_metadata => {
                if let Some((_, h)) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::Start(Tag::Item) => {
                let parent = items.iter().rev().find_map(|t| *t);
                let task = item_task(text, range.start, &lines, parent, &headings);
                items.push(task.map(|t| {
                    tasks.push(t);
                    tasks.len() as u32 - 1
                }));
            }
            Event::End(TagEnd::Item) => {
                items.pop();
            }
            _ => {}
        }
    }
    tasks
}

/// The task of the list item starting at byte `start`, if it is one.
fn item_task(
    text: &str,
    start: usize,
    lines: &LineIndex,
    parent: Option<u32>,
    headings: &[(u8, String)],
) -> Option<Task> {
    let line_end = memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |i| start + i);
    let src = text[start..line_end].trim_end_matches('\r').trim_start_matches([' ', '\t']);
    let m = marker_len(src)?;
    let (status, skip) = status_at(&src[m..])?;
    let description = &src[m + skip..];
    let fields = read_fields(description);
    let mut tags = Vec::new();
    markdown::scan_inline_tags(&fields.rest, &mut tags);
    Some(Task {
        line: lines.line_of(start),
        status,
        text: crate::snippet::make_snippet(&fields.rest, &[]).text,
        heading: headings.iter().map(|(_, h)| h.as_str()).collect::<Vec<_>>().join(HEADING_SEPARATOR),
        tags,
        parent,
        dates: fields.dates,
        priority: fields.priority,
    })
}

struct Fields {
    dates: TaskDates,
    priority: Priority,
    /// The description without what was read.
    rest: String,
}

/// Which date an emoji stands for (the Tasks plugin's signifiers and their variants).
fn emoji_date(c: char) -> Option<fn(&mut TaskDates) -> &mut Option<i32>> {
    Some(match c {
        '📅' | '📆' | '🗓' => |d| &mut d.due,
        '⏳' | '⌛' => |d| &mut d.scheduled,
        '🛫' => |d| &mut d.start,
        '✅' => |d| &mut d.done,
        '➕' => |d| &mut d.created,
        '❌' => |d| &mut d.cancelled,
        _ => return None,
    })
}

fn emoji_priority(c: char) -> Option<Priority> {
    Some(match c {
        '🔺' => Priority::Highest,
        '⏫' => Priority::High,
        '🔼' => Priority::Medium,
        '🔽' => Priority::Low,
        '⏬' => Priority::Lowest,
        _ => return None,
    })
}

/// Which date a Dataview field names.
fn field_date(key: &str) -> Option<fn(&mut TaskDates) -> &mut Option<i32>> {
    Some(match key {
        "due" => |d| &mut d.due,
        "scheduled" => |d| &mut d.scheduled,
        "start" => |d| &mut d.start,
        "completion" | "done" | "completed" => |d| &mut d.done,
        "created" => |d| &mut d.created,
        "cancelled" | "canceled" => |d| &mut d.cancelled,
        _ => return None,
    })
}

/// Reads the emoji and the Dataview fields (`[key:: value]`, `(key:: value)`) of a task's
/// description. What cannot be read (a field whose date is not a date, an unknown field) stays
/// in the text as written.
fn read_fields(s: &str) -> Fields {
    let mut dates = TaskDates::default();
    let mut priority = Priority::Normal;
    let mut rest = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let c = s[i..].chars().next().expect("char boundary");
        let next = i + c.len_utf8();
        if let Some(slot) = emoji_date(c) {
            let after = skip_selector(&s[next..]);
            let value = after.trim_start();
            if let Some(day) = value.get(..10).and_then(dates::parse_date) {
                *slot(&mut dates) = Some(day);
                i = s.len() - value.len() + 10;
                continue;
            }
        } else if let Some(p) = emoji_priority(c) {
            priority = p;
            i = s.len() - skip_selector(&s[next..]).len();
            continue;
        } else if c == '[' || c == '(' {
            if let Some((len, key, value)) = inline_field(&s[i..], if c == '[' { ']' } else { ')' }) {
                let key = key.to_lowercase();
                let read = if let Some(slot) = field_date(&key) {
                    dates::parse_date(value).map(|day| *slot(&mut dates) = Some(day)).is_some()
                } else if key == "priority" {
                    Priority::parse(value).map(|p| priority = p).is_some()
                } else {
                    false
                };
                if read {
                    i += len;
                    continue;
                }
            }
        }
        rest.push(c);
        i = next;
    }
    Fields { dates, priority, rest }
}

fn skip_selector(s: &str) -> &str {
    s.strip_prefix('\u{FE0F}').unwrap_or(s)
}

/// `[key:: value]` at the start of `s`, closed by `close` on the same line: its length, key
/// and value (trimmed).
fn inline_field(s: &str, close: char) -> Option<(usize, &str, &str)> {
    let body_end = s[1..].find([close, '\n', '[', '('])? + 1;
    if !s[body_end..].starts_with(close) {
        return None;
    }
    let (key, value) = s[1..body_end].split_once("::")?;
    let key = key.trim();
    if key.is_empty() || !key.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' ')) {
        return None;
    }
    Some((body_end + 1, key, value.trim()))
}

#[cfg(test)]
mod tests;
