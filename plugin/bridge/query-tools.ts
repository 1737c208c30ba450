// The structured read tools: `tasks` (task list items across the vault, filtered, sorted,
// grouped), `query` (notes whose frontmatter matches a property expression) and `outline` (a
// note's headings with their lines and section ids, and its tasks under each). The core
// answers from its catalog and its Markdown parse; these shape the answer compactly.

import type { z } from "zod";

import type { OutlineLink, QueryRequest, TaskHit, TasksRequest } from "../core/api.ts";
import { hostClock, isIsoDate, outlineText, outlineWithTasks, taskCounts, taskLine } from "../core/structured.ts";
import type { VaultBackend } from "../core/vault-backend.ts";
import { isoDate } from "./format.ts";
import type { ToolResult } from "./loopback-protocol.ts";
import { asked, notePath, result } from "./read-tools.ts";
import { args, int, oneOf, text, textList, ToolInputError } from "./tool-schema.ts";
import { checkVaultFolder, checkVaultPath } from "./vault-paths.ts";

export const MAX_TASKS = 200;
export const MAX_QUERY = 200;

const day = (what: string) => text(10).describe(`${what}: a date (YYYY-MM-DD) or today, tomorrow, yesterday.`);
const dateRange = (what: string) =>
  args({ before: day("Strictly before").optional(), after: day("Strictly after").optional(), on: day("On").optional() })
    .optional()
    .describe(`A range on the task's ${what} date; tasks without one are left out.`);
const expression = text(2000).describe(
  "A property expression over the note's frontmatter: = != < <= > >= (numbers, ISO dates), contains (lists, text), exists, !exists, " +
    'AND, OR, NOT, parentheses; fields file.name, file.folder, file.tags, file.mtime, file.ctime (creation time, when the host knows it), file.path; dates may be today, today-7d, now-2h. E.g. "status = active AND due < 2026-12-01".',
);
const today = text(10).optional().describe("The date relative dates count from (YYYY-MM-DD); default the host's today.");

export const tasksInput = args({
  status: textList({ max: 10, maxLen: 20 })
    .optional()
    .describe(
      'Any of: open (default: neither done nor cancelled), closed, all, todo, in-progress, done, cancelled, deferred, question, important, or a status character like "/".',
    ),
  folder: text(1024).optional().describe('Notes in this folder and below, e.g. "Projects/Alpha".'),
  path: notePath("One note's tasks.").optional(),
  tag: text(200).optional().describe('A tag in the task ("#a" also matches "#a/b"). For the note\'s tags: where "file.tags contains a".'),
  text: text(500).optional().describe("Words the task's text contains."),
  where: expression.optional(),
  due: dateRange("due"),
  scheduled: dateRange("scheduled"),
  done: dateRange("done"),
  when: oneOf(["overdue", "today", "this-week"])
    .optional()
    .describe("Open tasks overdue, due or scheduled today, or this week (Monday to Sunday)."),
  priority: text(20).optional().describe("highest, high, medium, normal, low, lowest, or a bound like >=high."),
  sort: oneOf(["path", "due", "priority"])
    .optional()
    .describe("path (default: note, then line), due (earliest first) or priority (highest first)."),
  group_by: oneOf(["status", "folder", "note", "tag"]).optional().describe("Group the tasks and count each group."),
  limit: int(1, MAX_TASKS).optional().describe("Tasks shown (default 50); the counts cover every match."),
  today,
});

export const queryInput = args({
  where: expression.optional(),
  sort: text(300).optional().describe('Fields to sort by, e.g. "-file.mtime" (newest first) or "due, priority desc". Default: path.'),
  offset: int(0, 10_000_000).optional().describe("Skip this many (paging)."),
  limit: int(1, MAX_QUERY).optional().describe("At most this many notes (default 50)."),
  today,
});

function checkToday(value: string | undefined): string {
  const t = value?.trim() || hostClock().today;
  if (!isIsoDate(t)) throw new ToolInputError(`today must be a date (YYYY-MM-DD), got ${JSON.stringify(value)}`);
  return t;
}

function compactTask(t: TaskHit) {
  return {
    path: t.path,
    line: t.line,
    status: t.status,
    kind: t.kind,
    text: t.text,
    heading: t.heading,
    ...(t.tags.length ? { tags: t.tags } : {}),
    ...(t.parentLine !== undefined ? { parent_line: t.parentLine } : {}),
    ...(t.priority !== "normal" ? { priority: t.priority } : {}),
    ...(t.due ? { due: t.due } : {}),
    ...(t.scheduled ? { scheduled: t.scheduled } : {}),
    ...(t.start ? { start: t.start } : {}),
    ...(t.done ? { done: t.done } : {}),
  };
}

export async function tasksTool(backend: VaultBackend, a: z.output<typeof tasksInput>): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const req: TasksRequest = { today: checkToday(a.today), limit: a.limit ?? 50 };
  const status = (a.status ?? ["open"]).map((s) => s.trim()).filter((s) => s !== "");
  if (!status.some((s) => s.toLowerCase() === "all")) req.status = status;
  if (a.folder !== undefined) {
    const f = checkVaultFolder(a.folder, configDir);
    if (f) req.folder = f;
  }
  if (a.path !== undefined) req.path = checkVaultPath(a.path, configDir);
  if (a.tag?.trim()) req.tag = a.tag.trim();
  if (a.text?.trim()) req.text = a.text.trim();
  if (a.where?.trim()) req.where = a.where.trim();
  for (const k of ["due", "scheduled", "done"] as const) if (a[k]) req[k] = a[k];
  if (a.when) req.when = a.when;
  if (a.priority?.trim()) req.priority = a.priority.trim();
  if (a.sort) req.sort = a.sort;
  if (a.group_by) req.groupBy = a.group_by;
  const res = await asked(() => backend.coreRead("tasks", req));

  const shown = res.tasks.length + res.groups.reduce((n, g) => n + g.tasks.length, 0);
  const lines = [`${taskCounts(res.total, res.byStatus)} match; showing ${shown}`];
  const at = (t: TaskHit, withPath: boolean) => `${taskLine(t)} — ${withPath ? `${t.path}:` : "line "}${t.line}`;
  if (res.groups.length > 0) {
    for (const g of res.groups) {
      lines.push("", `## ${g.key || "(none)"} (${g.count})`);
      for (const t of g.tasks) lines.push(at(t, a.group_by !== "note"));
      if (g.tasks.length < g.count) lines.push(`… ${g.count - g.tasks.length} more`);
    }
  } else {
    lines.push("");
    for (const t of res.tasks) lines.push(at(t, true));
  }
  if (shown < res.total) lines.push("", `More: raise limit (at most ${MAX_TASKS}) or narrow the filters.`);
  return result(lines.join("\n"), {
    total: res.total,
    by_status: Object.fromEntries(res.byStatus),
    ...(res.groups.length
      ? { groups: res.groups.map((g) => ({ key: g.key, count: g.count, tasks: g.tasks.map(compactTask) })) }
      : { tasks: res.tasks.map(compactTask) }),
  });
}

/** A field's value in one short line. */
function shortValue(v: unknown): string {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > 80 ? s.slice(0, 80) + "…" : s;
}

export async function queryTool(backend: VaultBackend, a: z.output<typeof queryInput>): Promise<ToolResult> {
  const clock = hostClock();
  const req: QueryRequest = {
    today: checkToday(a.today),
    utcOffsetMinutes: clock.utcOffsetMinutes,
    offset: a.offset ?? 0,
    limit: a.limit ?? 50,
  };
  if (!a.today) req.now = clock.now;
  if (a.where?.trim()) req.where = a.where.trim();
  if (a.sort?.trim()) req.sort = a.sort.trim();
  const res = await asked(() => backend.coreRead("query", req));
  const offset = req.offset ?? 0;
  const lines = [`${res.total} note${res.total === 1 ? "" : "s"} match; showing ${res.notes.length} from offset ${offset}`, ""];
  for (const n of res.notes) {
    const fields = Object.entries(n.fields)
      .map(([k, v]) => `${k}: ${(k === "file.mtime" || k === "file.ctime") && typeof v === "number" ? isoDate(v) : shortValue(v)}`)
      .join(" · ");
    lines.push(`- ${n.path}${fields ? ` · ${fields}` : ""}`);
  }
  if (offset + res.notes.length < res.total) lines.push("", `More: query again with offset ${offset + res.notes.length}.`);
  return result(lines.join("\n"), {
    total: res.total,
    offset,
    notes: res.notes.map((n) => ({ path: n.path, title: n.title, modified: isoDate(n.mtime), fields: n.fields })),
  });
}

export const outlineInput = args({
  path: notePath("The note (Markdown, .md: a code file has no headings to outline)."),
  tasks: int(0, 100).optional().describe("Tasks and links listed per heading at most (default 10); the counts cover them all."),
});

/** A link of an outline: its target (and heading, alias), whether it embeds, its line. */
function compactLink(l: OutlineLink) {
  return {
    target: l.target,
    ...(l.heading ? { heading: l.heading } : {}),
    ...(l.alias ? { alias: l.alias } : {}),
    ...(l.embed ? { embed: true } : {}),
    line: l.line,
  };
}

/** A note's headings (levels, line ranges, section ids), and its tasks under each heading. */
export async function outlineTool(backend: VaultBackend, a: z.output<typeof outlineInput>): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const path = checkVaultPath(a.path, configDir);
  // The outline is the Markdown parse's headings: a code file has none (its definitions are
  // its indexed sections).
  if (!path.toLowerCase().endsWith(".md")) {
    throw new ToolInputError(
      `${path} is not a Markdown note: outline lists the headings of .md notes. For a code file, read a definition with read {path, symbol} or find definitions with search and filters.kind.`,
    );
  }
  const text = await backend.readText(path);
  if (text === null) throw new ToolInputError(`${path} does not exist`);
  const info = await backend.note(path);
  const tasks = info ? (await asked(() => backend.coreRead("tasks", { path, limit: 1000, today: hostClock().today }))).tasks : [];
  const o = outlineWithTasks(await backend.outline(text), info, tasks);
  const perHeading = a.tasks ?? 10;
  return result(outlineText(path, o, perHeading), {
    path,
    line_count: o.lineCount,
    headings: o.headings.map((h) => ({
      level: h.level,
      text: h.text,
      line: h.line,
      end_line: h.endLine,
      ...(h.sectionId ? { section_id: h.sectionId } : {}),
      tasks: h.tasks.slice(0, perHeading).map(compactTask),
      task_count: h.tasks.length,
      links: h.links.slice(0, perHeading).map(compactLink),
      link_count: h.links.length,
    })),
    tasks_before_headings: o.before.slice(0, perHeading).map(compactTask),
    links_before_headings: o.linksBefore.slice(0, perHeading).map(compactLink),
    links: o.links,
  });
}
