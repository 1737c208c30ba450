// What the write tools need to know about a note's Markdown to edit it: where its frontmatter
// ends and where its headings are. Both come from the core's outline (StrataCore.outline, the
// parse indexing and `read` use: setext headings, `#` lines in code blocks and frontmatter are
// what `read` sees), so a section replaced by heading is the section `read` returned. The
// outline is of the current text (the index may lag behind the file). Frontmatter values are
// read and written with the `yaml` library, keeping keys it does not touch.

import { parseDocument } from "yaml";

import type { Outline } from "../core/api.ts";

export interface HeadingLine {
  /** 0-based index of the heading's first line. */
  line: number;
  /** 0-based index of its last line: the underline of a setext heading, else `line`. */
  lastLine: number;
  /** 0-based index just after its section (subsections included). */
  end: number;
  level: number;
  text: string;
  /** Heading texts from the top level down to this one. */
  path: string[];
}

export interface SplitNote {
  eol: "\n" | "\r\n";
  lines: string[];
  /** Lines of the frontmatter block including both fences; 0 when none. */
  frontmatterLines: number;
}

export function splitNote(text: string): SplitNote {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.split(/\r?\n/);
  let frontmatterLines = 0;
  if (lines[0] === "---") {
    for (let i = 1; i < lines.length; i++) {
      if (lines[i] === "---" || lines[i] === "...") {
        frontmatterLines = i + 1;
        break;
      }
    }
  }
  return { eol, lines, frontmatterLines };
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;

/** The outline's headings on the note's lines (`text.split(/\r?\n/)`), 0-based. */
export function headingLines(outline: Outline, lines: string[]): HeadingLine[] {
  return outline.headings.map((h) => {
    const line = h.line - 1;
    let lastLine = line;
    // A setext heading's text runs until its underline (=== or ---).
    if (!/^ {0,3}#/.test(lines[line] ?? "")) {
      while (lastLine + 1 < lines.length && !SETEXT_UNDERLINE.test(lines[lastLine])) lastLine++;
    }
    const end = h.endLine >= outline.lineCount ? lines.length : h.endLine;
    return { line, lastLine, end, level: h.level, text: h.text, path: h.path };
  });
}

export class EditError extends Error {}

/** The heading a `heading` argument names: text, or a path "A > B" (a suffix of its path). */
export function findHeading(headings: HeadingLine[], heading: string): HeadingLine {
  const want = heading
    .replace(/^\s*#+\s*/, "")
    .split(">")
    .map((s) => s.trim())
    .filter(Boolean);
  if (want.length === 0) throw new EditError("heading is empty");
  const matches = (ci: boolean) =>
    headings.filter((h) => {
      if (h.path.length < want.length) return false;
      const tail = h.path.slice(h.path.length - want.length);
      return tail.every((t, i) => (ci ? t.toLowerCase() === want[i].toLowerCase() : t === want[i]));
    });
  let found = matches(false);
  if (found.length === 0) found = matches(true);
  if (found.length === 0) {
    const known = headings.slice(0, 30).map((h) => h.path.join(" > "));
    throw new EditError(
      `no heading ${JSON.stringify(heading)} in the note; its headings are: ${known.length ? known.map((k) => JSON.stringify(k)).join(", ") : "(none)"}`,
    );
  }
  if (found.length > 1) {
    throw new EditError(
      `${found.length} headings match ${JSON.stringify(heading)}: ${found.map((h) => JSON.stringify(h.path.join(" > "))).join(", ")}; give the heading path`,
    );
  }
  return found[0];
}

/**
 * Replaces the body of the section under `heading` (the heading stays) with `content`, the
 * section and the heading as `outline` (the core's, of `text`) has them. Keeps the note's line
 * endings and one blank line before the next heading.
 */
export function replaceSection(text: string, outline: Outline, heading: string, content: string): string {
  const note = splitNote(text);
  const h = findHeading(headingLines(outline, note.lines), heading);
  let body = content.replace(/\r\n/g, "\n").replace(/^\n+/, "").replace(/\s+$/, "");
  // A content that repeats the heading line itself: do not duplicate it.
  const firstLine = body.split("\n")[0];
  const m = ATX.exec(firstLine);
  if (m && m[1].length === h.level && (m[2] ?? "").trim() === h.text) body = body.split("\n").slice(1).join("\n").replace(/^\n+/, "");
  const bodyLines = body === "" ? [] : ["", ...body.split("\n")];
  const atEnd = h.end >= note.lines.length;
  const tail = note.lines.slice(h.end);
  const replaced = [...note.lines.slice(0, h.lastLine + 1), ...bodyLines, ...(atEnd ? [""] : ["", ...tail])];
  // At the end of the file, keep a final newline (the split left "" as the last line).
  return replaced.join(note.eol).replace(/(\r?\n)+$/, note.eol);
}

/** Escapes the headings `outline` (the core's, of `text`) finds in user text, so the text
 *  cannot break a note's structure: "# x" becomes "\# x", a setext underline "\---". */
export function escapeHeadings(text: string, outline: Outline): string {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  for (const h of headingLines(outline, lines)) {
    if (h.lastLine === h.line) lines[h.line] = lines[h.line].replace(/^( {0,3})#/, "$1\\#");
    else lines[h.lastLine] = lines[h.lastLine].replace(/^( {0,3})([=-])/, "$1\\$2");
  }
  return lines.join("\n");
}

/** The frontmatter as a plain object ({} when none or unparseable). */
export function readFrontmatter(text: string): Record<string, unknown> {
  const note = splitNote(text);
  if (note.frontmatterLines === 0) return {};
  try {
    const doc = parseDocument(note.lines.slice(1, note.frontmatterLines - 1).join("\n"));
    const v: unknown = doc.toJS();
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The note without its frontmatter. */
export function bodyOf(text: string): string {
  const note = splitNote(text);
  return note.lines.slice(note.frontmatterLines).join("\n");
}

/** A note from frontmatter values and a body. */
export function composeNote(frontmatter: Record<string, unknown>, body: string): string {
  return `---\n${stringifyYaml(frontmatter)}---\n${body.replace(/^\n*/, "\n")}`;
}

function stringifyYaml(obj: Record<string, unknown>): string {
  const doc = parseDocument("");
  doc.contents = doc.createNode(obj) as typeof doc.contents;
  return doc.toString({ lineWidth: 0 });
}

/** Sets frontmatter keys of an existing note, keeping its other keys, comments and body. */
export function updateFrontmatter(text: string, set: Record<string, unknown>): string {
  const note = splitNote(text);
  if (note.frontmatterLines === 0) return composeNote(set, text);
  const doc = parseDocument(note.lines.slice(1, note.frontmatterLines - 1).join("\n"));
  if (doc.errors.length > 0 || (doc.contents !== null && !(doc.toJS() && typeof doc.toJS() === "object"))) {
    throw new EditError(
      `the note's frontmatter is not valid YAML (${doc.errors[0]?.message ?? "not a mapping"}); fix it in Obsidian first`,
    );
  }
  for (const [k, v] of Object.entries(set)) doc.set(k, v);
  const fm = doc.toString({ lineWidth: 0 }).split("\n");
  if (fm[fm.length - 1] === "") fm.pop();
  return ["---", ...fm, "---", ...note.lines.slice(note.frontmatterLines)].join(note.eol);
}
