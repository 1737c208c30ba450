// What the hosts share around the core's structured queries (`tasks`, `query`): the host's
// date that relative dates count from, and one line per task for people and models.

import type { TaskHit } from "./api.ts";

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
