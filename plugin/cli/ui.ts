// Terminal output helpers: progress bar, highlights, sizes and durations, tables.

import type { EmbedProgress, Snippet } from "../core/api.ts";
import { formatEta } from "../core/eta.ts";

const ttyErr = (): boolean => Boolean(process.stderr.isTTY) && !process.env.NO_COLOR && process.env.TERM !== "dumb";
export const ttyOut = (): boolean => Boolean(process.stdout.isTTY) && !process.env.NO_COLOR && process.env.TERM !== "dumb";

/**
 * Progress on stderr. On a terminal: a bar redrawn in place, shown once a run has lasted
 * 300 ms. Otherwise: a plain line per 10% step, only for runs of at least 1,000 notes.
 */
export class Progress {
  private readonly start = performance.now();
  private shown = false;
  private lastDraw = 0;
  private lastStep = -1;

  constructor(private readonly label: string) {}

  update(phase: string, done: number, total: number): void {
    const elapsed = performance.now() - this.start;
    if (ttyErr()) {
      if (elapsed < 300 || performance.now() - this.lastDraw < 80) return;
      this.lastDraw = performance.now();
      this.shown = true;
      const width = 30;
      const frac = total > 0 ? Math.min(1, done / total) : 0;
      const fill = Math.round(frac * width);
      const bar = "█".repeat(fill) + "░".repeat(width - fill);
      const counts = total > 0 ? `${done}/${total} notes` : "";
      process.stderr.write(`\r\x1b[2K${this.label} ${bar} ${counts} ${phase} ${seconds(elapsed)}`);
    } else if (total >= 1000 && phase === "index") {
      const step = Math.floor((done / total) * 10);
      if (step > this.lastStep) {
        this.lastStep = step;
        process.stderr.write(`${this.label}: ${done}/${total} notes (${step * 10}%) ${seconds(elapsed)}\n`);
      }
    }
  }

  end(): void {
    if (this.shown) process.stderr.write("\r\x1b[2K");
  }
}

/**
 * Embedding progress on stderr: done/total chunks, rate and ETA. On a terminal a bar redrawn
 * in place (after 300 ms); otherwise a plain line per 10% step for runs of 100+ chunks.
 */
export class EmbedBar {
  private readonly start = performance.now();
  private shown = false;
  private lastDraw = 0;
  private lastStep = -1;
  private startDone = -1;

  constructor(private readonly label = "embedding") {}

  update(p: EmbedProgress): void {
    if (this.startDone < 0) this.startDone = p.done;
    const elapsed = performance.now() - this.start;
    const pending = p.total - this.startDone;
    const rate = p.rate > 0 ? `${p.rate.toFixed(1)} chunks/s` : "";
    const eta = p.done < p.total && formatEta(p.etaSeconds) ? `ETA ${formatEta(p.etaSeconds)}` : "";
    const tail = [rate, eta].filter(Boolean).join(" · ");
    if (ttyErr()) {
      const now = performance.now();
      if (elapsed < 300 || (now - this.lastDraw < 100 && p.done < p.total)) return;
      this.lastDraw = now;
      this.shown = true;
      const width = 30;
      const frac = p.total > 0 ? Math.min(1, p.done / p.total) : 0;
      const fill = Math.round(frac * width);
      process.stderr.write(`\r\x1b[2K${this.label} ${"█".repeat(fill)}${"░".repeat(width - fill)} ${p.done}/${p.total} chunks ${tail}`);
    } else if (pending >= 100 && p.total > 0) {
      const step = Math.floor(((p.done - this.startDone) / pending) * 10);
      if (step > this.lastStep) {
        this.lastStep = step;
        process.stderr.write(
          `${this.label}: ${p.done}/${p.total} chunks (${Math.round((p.done / p.total) * 100)}%)${tail ? ` · ${tail}` : ""} · ${seconds(elapsed)}\n`,
        );
      }
    }
  }

  end(): void {
    if (this.shown) process.stderr.write("\r\x1b[2K");
  }
}

export function seconds(ms: number): string {
  return ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export function ms(value: number): string {
  return value < 10 ? `${value.toFixed(2)} ms` : value < 1000 ? `${value.toFixed(1)} ms` : `${(value / 1000).toFixed(2)} s`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

/**
 * Renders a snippet on one line, whitespace runs collapsed, highlights (overlapping ones
 * merged, as CJK bigrams overlap) in bold on a terminal and between « » otherwise (Markdown's
 * own ** would be ambiguous).
 */
export function renderSnippet(snippet: Snippet, tty: boolean): string {
  const [on, off] = tty ? ["\x1b[1m", "\x1b[22m"] : ["«", "»"];
  const merged: [number, number][] = [];
  for (const [start, end] of [...snippet.highlights].sort((a, b) => a[0] - b[0])) {
    if (end <= start) continue;
    const last = merged.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  const plain = (s: string) => s.replace(/\s+/g, " ");
  let out = "";
  let pos = 0;
  for (const [start, end] of merged) {
    out += plain(snippet.text.slice(pos, start)) + on + plain(snippet.text.slice(start, end)) + off;
    pos = end;
  }
  out += plain(snippet.text.slice(pos));
  return out.trim();
}

/** A plain text table: the first row is the header. */
export function table(rows: string[][], align: ("l" | "r")[] = []): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, displayWidth(cell))));
  const line = (row: string[]) =>
    row
      .map((cell, i) => {
        const pad = " ".repeat(widths[i] - displayWidth(cell));
        return align[i] === "r" ? pad + cell : cell + pad;
      })
      .join("  ")
      .trimEnd();
  const [head, ...body] = rows;
  return [line(head), widths.map((w) => "─".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

/** Terminal columns of a string: wide (CJK) characters take two. */
function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    w +=
      (cp >= 0x1100 && cp <= 0x115f) ||
      (cp >= 0x2e80 && cp <= 0xa4cf) ||
      (cp >= 0xac00 && cp <= 0xd7a3) ||
      (cp >= 0xf900 && cp <= 0xfaff) ||
      (cp >= 0xfe30 && cp <= 0xfe4f) ||
      (cp >= 0xff00 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6) ||
      (cp >= 0x20000 && cp <= 0x3fffd)
        ? 2
        : 1;
  }
  return w;
}
