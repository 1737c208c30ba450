//! The structured queries' request and response types: tasks (`Engine::tasks`) and notes by a
//! property expression (`Engine::query`, the language of `expr`).

use serde::{Deserialize, Serialize};

pub use crate::tasks::{Priority, StatusKind};

/// A date range on one of a task's dates. Each bound is an ISO date or `today`, `yesterday`,
/// `tomorrow` (relative to the request's `today`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
pub struct DateRange {
    /// Strictly before.
    pub before: Option<String>,
    /// Strictly after.
    pub after: Option<String>,
    pub on: Option<String>,
}

/// Tasks by the time they are due, relative to `today`: open tasks due before today
/// (`overdue`), due or scheduled today (`today`), due or scheduled in today's week, Monday
/// to Sunday (`this-week`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum TaskWhen {
    Overdue,
    Today,
    ThisWeek,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum TaskSort {
    /// By path, then line (the default).
    #[default]
    Path,
    /// Earliest due first; tasks without a due date last.
    Due,
    /// Highest priority first.
    Priority,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum TaskGroupBy {
    Status,
    Folder,
    Note,
    /// The task's own tags (a task with several is in each group; without one: "").
    Tag,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
pub struct TasksRequest {
    /// Any of: a status kind (`todo`, `in-progress`, `done`, `cancelled`, `deferred`,
    /// `question`, `important`, `other`), `open` (neither done nor cancelled), `closed`, or the
    /// status character itself (`/` or `[/]`).
    pub status: Option<Vec<String>>,
    /// Notes in this folder (and below).
    pub folder: Option<String>,
    /// One note.
    pub path: Option<String>,
    /// A tag in the task (`#a` also matches `#a/b`); for its note's tags, `where` with
    /// `file.tags contains a`.
    pub tag: Option<String>,
    /// Words the task's text contains (case-insensitive).
    pub text: Option<String>,
    /// A property expression its note must match (`status = active AND priority > 1`).
    #[serde(rename = "where")]
    #[cfg_attr(test, ts(rename = "where"))]
    pub where_: Option<String>,
    pub due: Option<DateRange>,
    pub scheduled: Option<DateRange>,
    pub done: Option<DateRange>,
    pub when: Option<TaskWhen>,
    /// A priority (`high`), or a bound (`>=medium`, `<normal`).
    pub priority: Option<String>,
    /// The host's date (`YYYY-MM-DD`), for `when` and relative dates. Required by them.
    pub today: Option<String>,
    pub sort: Option<TaskSort>,
    pub group_by: Option<TaskGroupBy>,
    /// Tasks returned (default 100, at most 1000); `total` and the groups count them all.
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TaskHit {
    pub path: String,
    /// 1-based line of the task's item.
    pub line: u32,
    /// The character between the brackets, as written.
    pub status: String,
    pub kind: StatusKind,
    pub text: String,
    /// The headings above the task ("A > B").
    pub heading: String,
    pub tags: Vec<String>,
    /// The line of the task whose item holds this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub parent_line: Option<u32>,
    pub priority: Priority,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub due: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub scheduled: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub start: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub done: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub created: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub cancelled: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TaskGroup {
    /// The status kind, folder, note path or tag ("" for no folder or no tag).
    pub key: String,
    /// Matching tasks in the group (all of them, whatever the limit).
    pub count: usize,
    /// The group's tasks, in the request's order, while the limit lasts.
    pub tasks: Vec<TaskHit>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TasksResponse {
    /// Matching tasks, whatever the limit.
    pub total: usize,
    /// Without `groupBy`: the tasks, up to the limit. With it: empty (see `groups`).
    pub tasks: Vec<TaskHit>,
    /// With `groupBy`: the groups by key (statuses in the order of their kinds); the limit
    /// fills them in that order.
    pub groups: Vec<TaskGroup>,
    /// Matching tasks by status kind (over all of them).
    pub by_status: Vec<(StatusKind, usize)>,
    pub took_ms: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
pub struct QueryRequest {
    /// The property expression (`status = draft AND file.mtime >= today-7d`); empty: every
    /// note.
    #[serde(rename = "where")]
    #[cfg_attr(test, ts(rename = "where"))]
    pub where_: Option<String>,
    /// Fields to sort by, comma-separated, each optionally followed by `asc`/`desc` or prefixed
    /// with `-` for descending (`-file.mtime, title`). Default: by path.
    pub sort: Option<String>,
    pub limit: Option<usize>,
    pub offset: Option<usize>,
    /// The host's date (`YYYY-MM-DD`), for `today`/`now` in the expression.
    pub today: Option<String>,
    /// Now, in ms since the epoch, for `now` (default: midnight of `today`).
    pub now: Option<f64>,
    /// The host's offset from UTC in minutes (UTC+2: 120), for dates without a zone.
    pub utc_offset_minutes: Option<i32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct QueryHit {
    pub path: String,
    pub title: String,
    pub mtime: f64,
    /// The values of the fields the expression and the sort name (null: missing).
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub fields: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct QueryResponse {
    /// Matching notes, whatever the limit.
    pub total: usize,
    pub notes: Vec<QueryHit>,
    pub took_ms: f64,
}
