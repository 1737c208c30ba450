// What the hosts share around the core's structured queries (`tasks`, `query`, outlines): the
// host's date that relative dates count from, one line per task, a note's outline with its tasks.

import type { NoteInfo, Outline, OutlineHeading, OutlineLink, TaskHit } from "./api.ts";

/** The host's calendar date (YYYY-MM-DD), now (ms) and offset from UTC (minutes): what
 *  `overdue`, `today`, `this-week`, `today-7d` and `now` count from. */
export function hostClock(now = new Date()): { today: string; now: number; utcOffsetMinutes: number } {
  const pad = (n: number) => String(n).padStart(2, "0");
  return {
    today: `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`,
    now: now.getTime(),
    utcOffsetMinutes: -now.getTimezoneOffset(),
  };
}

/** Whether `s` is written as a date (YYYY-MM-DD); the core checks that it is one. */
export function isIsoDate(s: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(s);
}

/** A task as one line: its checkbox as written, its text, then its dates and priority
 *  ("- [/] Draft the API · due 2026-11-26 · priority high"). */
export function taskLine(t: TaskHit): string {
  const bits = [`- [${t.status}] ${t.text}`];
  if (t.due) bits.push(`due ${t.due}`);
  if (t.scheduled) bits.push(`scheduled ${t.scheduled}`);
  if (t.start) bits.push(`starts ${t.start}`);
  if (t.done) bits.push(`done ${t.done}`);
  if (t.cancelled) bits.push(`cancelled ${t.cancelled}`);
  if (t.priority !== "normal") bits.push(`priority ${t.priority}`);
  return bits.join(" · ");
}

/** "12 tasks (todo 8, in-progress 1, done 3)". */
export function taskCounts(total: number, byStatus: [string, number][]): string {
  const parts = byStatus.map(([k, n]) => `${k} ${n}`).join(", ");
  return `${total} task${total === 1 ? "" : "s"}${parts ? ` (${parts})` : ""}`;
}

/** A heading of a note's outline with the section id the index gives it (when it split the note
 *  there) and the tasks it holds directly. */
export interface OutlinedHeading extends OutlineHeading {
  sectionId: string | null;
  tasks: TaskHit[];
}

export interface NoteOutline {
  lineCount: number;
  headings: OutlinedHeading[];
  /** Tasks above the first heading. */
  before: TaskHit[];
  /** Links above the first heading. */
  linksBefore: OutlineLink[];
  links: number;
  /** False when the note is not in the index yet (no section ids, no tasks). */
  indexed: boolean;
}

/** A note's outline (the core's parse of its text) with its indexed sections and tasks: each task
 *  under the innermost heading whose lines hold it. */
export function outlineWithTasks(outline: Outline, info: NoteInfo | null, tasks: TaskHit[]): NoteOutline {
  const sectionAt = new Map((info?.sections ?? []).filter((s) => s.depth > 0).map((s) => [s.startLine, s.id]));
  const headings: OutlinedHeading[] = outline.headings.map((h) => ({ ...h, sectionId: sectionAt.get(h.line) ?? null, tasks: [] }));
  const before: TaskHit[] = [];
  for (const t of tasks) {
    let owner: OutlinedHeading | null = null;
    for (const h of headings) if (h.line <= t.line && t.line <= h.endLine) owner = h;
    (owner ? owner.tasks : before).push(t);
  }
  return {
    lineCount: outline.lineCount,
    headings,
    before,
    linksBefore: outline.linksBefore,
    links: info?.links.length ?? 0,
    indexed: info !== null,
  };
}

/** Tasks counted by kind, in the order the kinds first appear. */
export function countKinds(tasks: TaskHit[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const t of tasks) counts.set(t.kind, (counts.get(t.kind) ?? 0) + 1);
  return [...counts];
}

/** The outline as text: a summary line, then each heading indented by level with its lines and
 *  section id, and at most `perHeading` of its tasks. */
export function outlineText(path: string, o: NoteOutline, perHeading: number): string {
  const all = [...o.before, ...o.headings.flatMap((h) => h.tasks)];
  const lines = [
    `${path}: ${o.lineCount} lines, ${o.headings.length} headings, ${taskCounts(all.length, countKinds(all))}` +
      (o.indexed ? "" : " (not indexed yet: no section ids, no tasks)"),
  ];
  const taskLines = (list: TaskHit[], indent: string) => {
    for (const t of list.slice(0, perHeading)) lines.push(`${indent}${taskLine(t)} (line ${t.line})`);
    if (list.length > perHeading) lines.push(`${indent}… ${list.length - perHeading} more`);
  };
  const linkLine = (list: OutlineLink[], indent: string) => {
    if (list.length === 0) return;
    const shown = list.slice(0, perHeading).map((l) => `${linkText(l)} (line ${l.line})`);
    if (list.length > perHeading) shown.push(`… ${list.length - perHeading} more`);
    lines.push(`${indent}links: ${shown.join(", ")}`);
  };
  taskLines(o.before, "");
  linkLine(o.linksBefore, "");
  for (const h of o.headings) {
    const indent = "  ".repeat(h.level - 1);
    lines.push(
      `${indent}${"#".repeat(h.level)} ${h.text} (lines ${h.line}–${h.endLine})${h.sectionId ? ` · section_id ${h.sectionId}` : ""}`,
    );
    taskLines(h.tasks, indent + "  ");
    linkLine(h.links, indent + "  ");
  }
  return lines.join("\n");
}

/** A link as a wikilink: "[[Target#Heading]]", "![[image.png]]" for an embed. */
export function linkText(l: OutlineLink): string {
  return `${l.embed ? "!" : ""}[[${l.target}${l.heading ? `#${l.heading}` : ""}]]`;
}
