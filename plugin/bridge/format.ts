// Small text helpers for tool output: one-line snippets, dates, size caps.

import type { Snippet } from "../core/api.ts";

/** Any tool answer's text is cut here (the model's context is precious). */
export const MAX_TEXT_CHARS = 40_000;

/** Whitespace collapsed, highlights in **bold**, at most `max` characters around the first one. */
export function oneLineSnippet(snippet: Snippet | null | undefined, max = 220): string {
  if (!snippet || !snippet.text) return "";
  const text = snippet.text;
  const hl = [...(snippet.highlights ?? [])]
    .filter(([s, e]) => Number.isInteger(s) && Number.isInteger(e) && s >= 0 && e <= text.length && s < e)
    .sort((a, b) => a[0] - b[0]);
  let start = 0;
  if (text.length > max && hl.length > 0) start = Math.max(0, Math.min(hl[0][0] - 60, text.length - max));
  const end = Math.min(text.length, start + max);
  let out = "";
  let pos = start;
  for (const [s, e] of hl) {
    if (e <= pos || s >= end) continue;
    const a = Math.max(s, pos);
    const b = Math.min(e, end);
    out += text.slice(pos, a) + "**" + text.slice(a, b) + "**";
    pos = b;
  }
  out += text.slice(pos, end);
  out = out.replace(/\s+/g, " ").trim();
  return (start > 0 ? "…" : "") + out + (end < text.length ? "…" : "");
}

export function isoDate(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms <= 0) return null;
  return new Date(ms).toISOString();
}

export function round(n: number, digits = 3): number {
  if (!Number.isFinite(n)) return 0;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Cuts `text` to `max` characters, saying so. */
export function capText(text: string, max = MAX_TEXT_CHARS): string {
  if (text.length <= max) return text;
  return text.slice(0, max) + `\n[… cut at ${max} characters; ask for fewer results or a narrower range]`;
}

/** Lines: "a–b" for a range, "a" for one line. */
export function lineRange(start: number, end: number): string {
  return start === end ? `line ${start}` : `lines ${start}–${end}`;
}

/** Context strings are folder descriptions; keep them short in result lists. */
export function shortContext(ctx: string | null | undefined, max = 300): string | null {
  if (!ctx) return null;
  const t = ctx.replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max) + "…" : t;
}

/** SHA-256 hex of the text's UTF-8 bytes: the core's note hash of a file with these bytes. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
