//! Tasks across the vault from the catalog (`tasks::extract` keeps each note's): filtered by
//! status, place, tag, text, note properties, dates and priority; sorted; grouped and counted.

use std::collections::BTreeMap;

use super::props::NoteSubject;
use super::query::{compile, context};
use super::Engine;
use crate::api::*;
use crate::catalog::NoteEntry;
use crate::clock::now_ms;
use crate::dates;
use crate::error::{CoreError, Result};
use crate::paths;
use crate::tasks::Task;

/// A group's key: status groups sort by their kind, the others by the key's text.
type GroupKey = (Option<StatusKind>, String);

/// `tasks` page sizes.
pub const TASKS_DEFAULT_LIMIT: usize = 100;
pub const TASKS_MAX_LIMIT: usize = 1000;

/// One status a request asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    Kind(StatusKind),
    Open,
    Closed,
    Char(char),
}

fn statuses(req: &[String]) -> Result<Vec<Want>> {
    req.iter()
        .map(|s| {
            let t = s.trim();
            let inner = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')).unwrap_or(t);
            let mut chars = inner.chars();
            if let (Some(c), None) = (chars.next(), chars.next()) {
                return Ok(Want::Char(c));
            }
            if inner.is_empty() && t == "[]" {
                return Ok(Want::Char(' '));
            }
            Ok(match t.to_lowercase().replace([' ', '_'], "-").as_str() {
                "open" => Want::Open,
                "closed" => Want::Closed,
                "todo" => Want::Kind(StatusKind::Todo),
                "in-progress" | "doing" => Want::Kind(StatusKind::InProgress),
                "done" => Want::Kind(StatusKind::Done),
                "cancelled" | "canceled" => Want::Kind(StatusKind::Cancelled),
                "deferred" => Want::Kind(StatusKind::Deferred),
                "question" => Want::Kind(StatusKind::Question),
                "important" => Want::Kind(StatusKind::Important),
                "other" => Want::Kind(StatusKind::Other),
                _ => return Err(CoreError::BadRequest(format!(
                    "status `{t}`: expected open, closed, todo, in-progress, done, cancelled, deferred, question, important, other, or a status character ([/])"
                ))),
            })
        })
        .collect()
}

fn wanted(wants: &[Want], c: char) -> bool {
    let kind = StatusKind::of(c);
    wants.is_empty()
        || wants.iter().any(|w| match w {
            Want::Kind(k) => *k == kind,
            Want::Open => kind.is_open(),
            Want::Closed => !kind.is_open(),
            Want::Char(w) => *w == c,
        })
}

/// A day from a request: an ISO date or `today`, `yesterday`, `tomorrow`.
fn day(s: &str, today: Option<i32>, what: &str) -> Result<i32> {
    let t = s.trim();
    let shift = match t.to_lowercase().as_str() {
        "today" => Some(0),
        "yesterday" => Some(-1),
        "tomorrow" => Some(1),
        _ => None,
    };
    match shift {
        Some(d) => {
            today.map(|t| t + d).ok_or_else(|| CoreError::BadRequest(format!("{what}: `{t}` needs today's date")))
        }
        None => dates::parse_date(t)
            .ok_or_else(|| CoreError::BadRequest(format!("{what}: `{t}` is not a date (YYYY-MM-DD, today, tomorrow)"))),
    }
}

/// A resolved date range: (after, before, on), each exclusive but `on`.
type Range = (Option<i32>, Option<i32>, Option<i32>);

fn range(r: Option<&DateRange>, today: Option<i32>, what: &str) -> Result<Option<Range>> {
    let Some(r) = r else { return Ok(None) };
    let b = |v: &Option<String>, w: &str| v.as_deref().map(|s| day(s, today, &format!("{what}.{w}"))).transpose();
    Ok(Some((b(&r.after, "after")?, b(&r.before, "before")?, b(&r.on, "on")?)))
}

fn in_range(d: Option<i32>, r: &Option<Range>) -> bool {
    let Some((after, before, on)) = r else { return true };
    let Some(d) = d else { return false };
    after.is_none_or(|a| d > a) && before.is_none_or(|b| d < b) && on.is_none_or(|o| d == o)
}

/// `high`, `>=medium`, `<normal`, … as a test on a priority.
fn priority_test(s: &str) -> Result<impl Fn(Priority) -> bool> {
    let t = s.trim();
    let (op, name) = ["<=", ">=", "!=", "<", ">", "="]
        .iter()
        .find_map(|op| t.strip_prefix(op).map(|rest| (*op, rest)))
        .unwrap_or(("=", t));
    let want = Priority::parse(name).ok_or_else(|| {
        CoreError::BadRequest(format!(
            "priority `{t}`: expected highest, high, medium, normal, low or lowest, optionally after <, <=, >, >=, !="
        ))
    })?;
    Ok(move |p: Priority| match op {
        "<=" => p <= want,
        ">=" => p >= want,
        "!=" => p != want,
        "<" => p < want,
        ">" => p > want,
        _ => p == want,
    })
}

fn tag_matches(tags: &[String], want: &str) -> bool {
    tags.iter().any(|t| {
        let t = t.to_lowercase();
        t == want || t.strip_prefix(want).is_some_and(|r| r.starts_with('/'))
    })
}

fn hit(note: &NoteEntry, t: &Task) -> TaskHit {
    let iso = |d: Option<i32>| d.map(dates::format_date);
    TaskHit {
        path: note.path.clone(),
        line: t.line,
        status: t.status.to_string(),
        kind: StatusKind::of(t.status),
        text: t.text.clone(),
        heading: t.heading.clone(),
        tags: t.tags.clone(),
        parent_line: t.parent.and_then(|p| note.tasks.get(p as usize)).map(|p| p.line),
        priority: t.priority,
        due: iso(t.dates.due),
        scheduled: iso(t.dates.scheduled),
        start: iso(t.dates.start),
        done: iso(t.dates.done),
        created: iso(t.dates.created),
        cancelled: iso(t.dates.cancelled),
    }
}

impl Engine {
    /// Tasks of the indexed notes that match every filter of the request.
    pub fn tasks(&self, req: &TasksRequest) -> Result<TasksResponse> {
        let t0 = now_ms();
        let ctx = context(req.today.as_deref(), None, None)?;
        let today = ctx.today;
        let wants = statuses(req.status.as_deref().unwrap_or_default())?;
        let filter = compile(req.where_.as_deref(), &ctx)?;
        let mut fields = Vec::new();
        if let Some(e) = &filter {
            e.fields(&mut fields);
        }
        let columns = self.props.columns(&self.catalog, &fields);
        let due = range(req.due.as_ref(), today, "due")?;
        let scheduled = range(req.scheduled.as_ref(), today, "scheduled")?;
        let done = range(req.done.as_ref(), today, "done")?;
        let priority = req.priority.as_deref().map(priority_test).transpose()?;
        let when = match (req.when, today) {
            (Some(w), Some(t)) => Some((w, t, dates::week_start(t))),
            (Some(_), None) => return Err(CoreError::BadRequest("when: needs today's date (today)".into())),
            (None, _) => None,
        };
        let folder = req.folder.as_deref().map(|f| f.trim_matches('/').to_lowercase()).filter(|f| !f.is_empty());
        let path = req.path.as_deref().map(paths::normalize).transpose()?;
        let tag = req.tag.as_deref().map(|t| t.trim().trim_start_matches('#').to_lowercase()).filter(|t| !t.is_empty());
        let words: Vec<String> = req.text.as_deref().unwrap_or("").split_whitespace().map(str::to_lowercase).collect();

        let mut found: Vec<(&NoteEntry, &Task)> = Vec::new();
        for (i, note) in self.catalog.entries().enumerate().filter(|(_, n)| !n.tasks.is_empty()) {
            if folder.as_deref().is_some_and(|f| !paths::in_folder(&note.path.to_lowercase(), f))
                || path.as_deref().is_some_and(|p| p != note.path)
                || filter.as_ref().is_some_and(|e| !e.matches(&NoteSubject::new(note, i, &columns), &ctx))
            {
                continue;
            }
            for t in &note.tasks {
                let kind = StatusKind::of(t.status);
                let ok = wanted(&wants, t.status)
                    && tag.as_deref().is_none_or(|want| tag_matches(&t.tags, want))
                    && (words.is_empty() || {
                        let text = t.text.to_lowercase();
                        words.iter().all(|w| text.contains(w.as_str()))
                    })
                    && in_range(t.dates.due, &due)
                    && in_range(t.dates.scheduled, &scheduled)
                    && in_range(t.dates.done, &done)
                    && priority.as_ref().is_none_or(|p| p(t.priority))
                    && when.is_none_or(|(w, today, week)| {
                        let (d, s) = (t.dates.due, t.dates.scheduled);
                        kind.is_open()
                            && match w {
                                TaskWhen::Overdue => d.is_some_and(|d| d < today),
                                TaskWhen::Today => d == Some(today) || s == Some(today),
                                TaskWhen::ThisWeek => [d, s].iter().flatten().any(|x| (week..week + 7).contains(x)),
                            }
                    });
                if ok {
                    found.push((note, t));
                }
            }
        }

        let by_path =
            |a: &(&NoteEntry, &Task), b: &(&NoteEntry, &Task)| a.0.path.cmp(&b.0.path).then(a.1.line.cmp(&b.1.line));
        let due_key = |t: &Task| t.dates.due.unwrap_or(i32::MAX);
        match req.sort.unwrap_or_default() {
            TaskSort::Path => found.sort_by(by_path),
            TaskSort::Due => found.sort_by(|a, b| due_key(a.1).cmp(&due_key(b.1)).then_with(|| by_path(a, b))),
            TaskSort::Priority => found.sort_by(|a, b| {
                b.1.priority.cmp(&a.1.priority).then(due_key(a.1).cmp(&due_key(b.1))).then_with(|| by_path(a, b))
            }),
        }

        let mut counts: BTreeMap<StatusKind, usize> = BTreeMap::new();
        for (_, t) in &found {
            *counts.entry(StatusKind::of(t.status)).or_default() += 1;
        }
        let mut left = req.limit.unwrap_or(TASKS_DEFAULT_LIMIT).min(TASKS_MAX_LIMIT);
        let mut take = |n: &NoteEntry, t: &Task| {
            (left > 0).then(|| {
                left -= 1;
                hit(n, t)
            })
        };
        let (tasks, groups) = match req.group_by {
            None => (found.iter().map_while(|(n, t)| take(n, t)).collect(), Vec::new()),
            Some(by) => {
                // Status groups in the order of the kinds, the others by key.
                let mut keyed: BTreeMap<GroupKey, Vec<(&NoteEntry, &Task)>> = BTreeMap::new();
                for &(n, t) in &found {
                    let keys: Vec<GroupKey> = match by {
                        TaskGroupBy::Status => {
                            vec![(Some(StatusKind::of(t.status)), StatusKind::of(t.status).name().into())]
                        }
                        TaskGroupBy::Folder => vec![(None, paths::folder(&n.path).to_string())],
                        TaskGroupBy::Note => vec![(None, n.path.clone())],
                        TaskGroupBy::Tag if t.tags.is_empty() => vec![(None, String::new())],
                        TaskGroupBy::Tag => t.tags.iter().map(|g| (None, g.to_lowercase())).collect(),
                    };
                    for k in keys {
                        keyed.entry(k).or_default().push((n, t));
                    }
                }
                let groups = keyed
                    .into_iter()
                    .map(|((_, key), items)| TaskGroup {
                        key,
                        count: items.len(),
                        tasks: items.iter().map_while(|(n, t)| take(n, t)).collect(),
                    })
                    .collect();
                (Vec::new(), groups)
            }
        };
        Ok(TasksResponse {
            total: found.len(),
            tasks,
            groups,
            by_status: counts.into_iter().collect(),
            took_ms: now_ms() - t0,
        })
    }
}
