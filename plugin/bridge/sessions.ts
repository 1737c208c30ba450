// Session notes: session_save appends an entry (overview, decisions, outcomes, open items,
// sources) to a note in the sessions folder, creating it on the first save; session_compact
// folds older entries into the note's rolling summary, which keeps every source reference.
// The notes are ordinary Markdown (indexed and searchable like any other):
//
//   ---  id, type: strata-session, status: active|compacted|closed, created, updated, entries, folded, tags
//   # Session <id>
//   ## Summary              (after a compaction)
//   ## Entry <ISO time>     (one per save, oldest first)
//   ### Decisions / ### Outcomes / ### Open items / ### Sources   (bullet lists)

import { randomBytes } from "node:crypto";

import type { z } from "zod";

import type { VaultBackend } from "../core/vault-backend.ts";
import type { Outline } from "../core/api.ts";
import { escapeHeadings, composeNote, headingLines, readFrontmatter, splitNote, updateFrontmatter } from "./markdown-edit.ts";
import type { ToolResult } from "./loopback-protocol.ts";
import { result } from "./read-tools.ts";
import { args, int, oneOf, text, textList, ToolInputError } from "./tool-schema.ts";
import { checkVaultFolder, checkVaultPath } from "./vault-paths.ts";
import { auditedWrite, basedOnInput, checkBasedOn, type Caller } from "./writes.ts";

const LISTS = ["decisions", "outcomes", "open_items", "sources"] as const;
type ListKey = (typeof LISTS)[number];
const TITLES: Record<ListKey, string> = { decisions: "Decisions", outcomes: "Outcomes", open_items: "Open items", sources: "Sources" };

const list = (description: string) => textList({ max: 50, maxLen: 2000 }).optional().describe(description);

export const sessionSaveInput = args({
  session_id: text(80).optional().describe("The id a previous session_save returned; omit to start a new session."),
  overview: text(20_000, { required: true }).describe("What was done and why, in a few sentences."),
  decisions: list("Decisions taken."),
  outcomes: list("Results, artefacts, answers."),
  open_items: list("What is left to do."),
  tags: textList({ max: 20, maxLen: 100 }).optional().describe("Tags for the session note (no spaces)."),
  sources: list("Vault paths (or URLs) the work relied on."),
  status: oneOf(["active", "closed"]).optional().describe("active (default) or closed."),
  based_on: basedOnInput,
});

export const sessionCompactInput = args({
  session_id: text(80, { required: true }).describe("The session to compact."),
  keep_last: int(0, 50).optional().describe("Entries to keep unfolded (default 1)."),
  summary: text(20_000).optional().describe("The new rolling summary text (optional)."),
  open_items: list("The open items still open (optional)."),
  based_on: basedOnInput,
});

export interface SessionBlock {
  /** "Summary" or the entry's time. */
  title: string;
  overview: string;
  decisions: string[];
  outcomes: string[];
  open_items: string[];
  sources: string[];
}

export function newId(prefix: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${prefix}-${stamp}-${randomBytes(2).toString("hex")}`;
}

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/;

export function checkId(id: string, what: string): string {
  if (!ID_RE.test(id))
    throw new ToolInputError(`${what} ${JSON.stringify(id)} is not an id (letters, digits, ".", "_", "-"; as returned when it was saved)`);
  return id;
}

function item(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** A source as written: vault note paths become wikilinks (navigable in Obsidian), others stay text. */
function renderSource(s: string, configDir: string): string {
  const t = item(s);
  const m = /^(.+?\.md)(#.*)?$/i.exec(t);
  if (m) {
    try {
      checkVaultPath(m[1], configDir);
      return `[[${m[1].replace(/\.md$/i, "")}${m[2] ?? ""}]]`;
    } catch {
      // not a vault path: keep as text
    }
  }
  return t;
}

function renderBlock(b: SessionBlock, heading: string): string {
  const out = [`## ${heading}`, ""];
  if (b.overview.trim()) out.push(b.overview.trim(), "");
  for (const k of LISTS) {
    if (b[k].length === 0) continue;
    out.push(`### ${TITLES[k]}`, "", ...b[k].map((x) => `- ${x}`), "");
  }
  return out.join("\n");
}

/** Parses the Summary and Entry blocks of a session note's body, by the headings of `outline`
 *  (the core's, of `text`). Unknown blocks are kept as `other`. */
export function parseSession(text: string, outline: Outline): { summary: SessionBlock | null; entries: SessionBlock[]; preamble: string } {
  const lines = text.split(/\r?\n/);
  const bodyStart = outline.frontmatterEnd ?? 0;
  const all = headingLines(outline, lines);
  const heads = all.filter((h) => h.level === 2);
  const preambleEnd = heads.length ? heads[0].line : lines.length;
  const preamble = lines.slice(bodyStart, preambleEnd).join("\n");
  let summary: SessionBlock | null = null;
  const entries: SessionBlock[] = [];
  heads.forEach((h, i) => {
    const end = i + 1 < heads.length ? heads[i + 1].line : lines.length;
    const blockLines = lines.slice(h.lastLine + 1, end);
    // Its level-3 headings, on the block's own lines.
    const subs = all
      .filter((s) => s.level === 3 && s.line > h.lastLine && s.line < end)
      .map((s) => ({ ...s, line: s.line - h.lastLine - 1, lastLine: s.lastLine - h.lastLine - 1 }));
    const block: SessionBlock = { title: h.text, overview: "", decisions: [], outcomes: [], open_items: [], sources: [] };
    const firstSub = subs.length ? subs[0].line : blockLines.length;
    const extra: string[] = [];
    subs.forEach((s, j) => {
      const sEnd = j + 1 < subs.length ? subs[j + 1].line : blockLines.length;
      const key = LISTS.find((k) => TITLES[k].toLowerCase() === s.text.toLowerCase());
      const body = blockLines.slice(s.lastLine + 1, sEnd);
      if (!key) {
        extra.push(blockLines.slice(s.line, sEnd).join("\n"));
        return;
      }
      for (const l of body) {
        const m = /^\s*[-*+]\s+(.*)$/.exec(l);
        if (m && m[1].trim()) block[key].push(m[1].trim());
      }
    });
    block.overview = [blockLines.slice(0, firstSub).join("\n").trim(), ...extra].filter(Boolean).join("\n\n");
    if (h.text.toLowerCase() === "summary") summary = block;
    else entries.push(block);
  });
  return { summary, entries, preamble };
}

function renderSession(id: string, parsed: { summary: SessionBlock | null; entries: SessionBlock[]; preamble: string }): string {
  const parts: string[] = [];
  const pre = parsed.preamble.trim();
  parts.push((pre || `# Session ${id}`) + "\n");
  if (parsed.summary) parts.push(renderBlock(parsed.summary, "Summary"));
  for (const e of parsed.entries) parts.push(renderBlock(e, e.title));
  return parts.join("\n");
}

export function sessionsFolder(backend: VaultBackend, configDir: string): string {
  const f = checkVaultFolder(backend.settings().sessionsFolder, configDir, "sessions folder");
  return f;
}

export function sessionPath(folder: string, id: string): string {
  return folder ? `${folder}/${id}.md` : `${id}.md`;
}

function lists(a: z.output<typeof sessionSaveInput>, configDir: string): Pick<SessionBlock, ListKey> {
  const get = (k: ListKey) => (a[k] ?? []).map(item).filter(Boolean);
  return {
    decisions: get("decisions"),
    outcomes: get("outcomes"),
    open_items: get("open_items"),
    sources: get("sources").map((s) => renderSource(s, configDir)),
  };
}

function union(a: string[], b: string[]): string[] {
  const seen = new Set(a);
  return [...a, ...b.filter((x) => !seen.has(x) && (seen.add(x), true))];
}

export async function sessionSaveTool(
  backend: VaultBackend,
  a: z.output<typeof sessionSaveInput>,
  caller: Caller = {},
): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const basedOn = checkBasedOn(a.based_on, configDir);
  const folder = sessionsFolder(backend, configDir);
  const overview = await plainText(backend, a.overview.trim());
  const tags = (a.tags ?? []).map((t) => t.replace(/^#/, "").trim()).filter(Boolean);
  for (const t of tags) if (/\s/.test(t)) throw new ToolInputError(`tag ${JSON.stringify(t)} has spaces; use "-" or "/" instead`);
  const status = a.status ?? "active";
  const givenId = a.session_id;
  const now = new Date();
  const time = now.toISOString();
  const entry: SessionBlock = { title: `Entry ${time}`, overview, ...lists(a, configDir) };

  let id: string;
  let oldText: string | null = null;
  let next: string;
  if (givenId !== undefined) {
    id = checkId(givenId, "session_id");
    const p = sessionPath(folder, id);
    oldText = await backend.readText(p);
    if (oldText === null)
      throw new ToolInputError(
        `there is no session ${JSON.stringify(id)} in ${folder || "the vault root"}; omit session_id to start a new session`,
      );
    const fm = readFrontmatter(oldText);
    const parsed = parseSession(oldText, await backend.outline(oldText));
    parsed.entries.push(entry);
    const body = renderSession(id, parsed);
    const oldTags = Array.isArray(fm.tags) ? fm.tags.map(String) : [];
    next = updateFrontmatter(
      oldText.replace(/\r\n/g, "\n").split("\n").slice(0, splitNote(oldText).frontmatterLines).join("\n") + "\n" + body,
      {
        status,
        updated: time,
        entries: parsed.entries.length,
        tags: union(oldTags, tags),
      },
    );
  } else {
    id = newId("s", now);
    next = composeNote(
      {
        id,
        type: "strata-session",
        status,
        created: time,
        updated: time,
        entries: 1,
        folded: 0,
        tags: union(["strata/session"], tags),
      },
      renderSession(id, { summary: null, entries: [entry], preamble: "" }),
    );
  }
  const p = sessionPath(folder, id);
  const out = await auditedWrite(backend, {
    tool: "session_save",
    path: p,
    oldText,
    newText: next,
    reason: `session ${id}: ${overview.slice(0, 120)}`,
    actor: caller.client,
    basedOn,
  });
  const count = parseSession(next, await backend.outline(next)).entries.length;
  return result(
    `${oldText === null ? "started" : "updated"} session ${id} (${p}, ${count} entr${count === 1 ? "y" : "ies"}, status ${status}).` +
      ` Pass session_id "${id}" to add to it later.` +
      (out.warning ? `\nwarning: ${out.warning}` : ""),
    { session_id: id, path: p, entries: count, status, content_hash: out.newHash },
  );
}

/** `text` with its headings escaped (see escapeHeadings), by the core's outline of it. */
async function plainText(backend: VaultBackend, text: string): Promise<string> {
  return escapeHeadings(text, await backend.outline(text));
}

/** Folds entries into the summary; `text` (escaped already) replaces the summary's overview. */
function fold(
  summary: SessionBlock | null,
  folded: SessionBlock[],
  text: string | undefined,
  openItems: string[] | undefined,
): SessionBlock {
  const base: SessionBlock = summary ?? { title: "Summary", overview: "", decisions: [], outcomes: [], open_items: [], sources: [] };
  const lines = folded.map((e) => {
    const when = e.title
      .replace(/^Entry\s*/i, "")
      .slice(0, 16)
      .replace("T", " ");
    const ov = e.overview.replace(/\s+/g, " ").trim();
    return `- ${when}: ${ov.length > 400 ? ov.slice(0, 400) + "…" : ov}`;
  });
  const overview = text !== undefined ? text.trim() : [base.overview.trim(), lines.join("\n")].filter(Boolean).join("\n");
  const out: SessionBlock = {
    title: "Summary",
    overview,
    decisions: base.decisions,
    outcomes: base.outcomes,
    open_items: base.open_items,
    sources: base.sources,
  };
  for (const e of folded) {
    out.decisions = union(out.decisions, e.decisions);
    out.outcomes = union(out.outcomes, e.outcomes);
    out.open_items = union(out.open_items, e.open_items);
    out.sources = union(out.sources, e.sources);
  }
  if (openItems !== undefined) out.open_items = openItems;
  return out;
}

export async function sessionCompactTool(
  backend: VaultBackend,
  a: z.output<typeof sessionCompactInput>,
  caller: Caller = {},
): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const basedOn = checkBasedOn(a.based_on, configDir);
  const folder = sessionsFolder(backend, configDir);
  const id = checkId(a.session_id, "session_id");
  const keep = a.keep_last ?? 1;
  const summaryText = a.summary;
  const openItems = a.open_items?.map(item).filter(Boolean);
  const p = sessionPath(folder, id);
  const oldText = await backend.readText(p);
  if (oldText === null) throw new ToolInputError(`there is no session ${JSON.stringify(id)} in ${folder || "the vault root"}`);
  const parsed = parseSession(oldText, await backend.outline(oldText));
  const n = Math.max(0, parsed.entries.length - keep);
  if (n === 0 && summaryText === undefined && openItems === undefined) {
    return result(
      `nothing to compact: session ${id} has ${parsed.entries.length} entr${parsed.entries.length === 1 ? "y" : "ies"} and keep_last is ${keep}. Nothing was written.`,
      {
        session_id: id,
        path: p,
        folded: 0,
        entries: parsed.entries.length,
      },
    );
  }
  const folded = parsed.entries.slice(0, n);
  const summary = fold(
    parsed.summary,
    folded,
    summaryText === undefined ? undefined : await plainText(backend, summaryText.trim()),
    openItems,
  );
  const rest = { summary, entries: parsed.entries.slice(n), preamble: parsed.preamble };
  const fm = readFrontmatter(oldText);
  const prevFolded = typeof fm.folded === "number" ? fm.folded : 0;
  const fmText = oldText.replace(/\r\n/g, "\n").split("\n").slice(0, splitNote(oldText).frontmatterLines).join("\n");
  const time = new Date().toISOString();
  const next = updateFrontmatter(fmText + "\n" + renderSession(id, rest), {
    status: fm.status === "closed" ? "closed" : "compacted",
    updated: time,
    compacted: time,
    entries: rest.entries.length,
    folded: prevFolded + n,
  });
  const out = await auditedWrite(backend, {
    tool: "session_compact",
    path: p,
    oldText,
    newText: next,
    reason: `session ${id}: folded ${n} entries into the summary`,
    actor: caller.client,
    basedOn,
  });
  return result(
    `compacted session ${id}: ${n} entr${n === 1 ? "y" : "ies"} folded into the summary (${summary.sources.length} sources kept), ${rest.entries.length} kept as they were.` +
      (out.warning ? `\nwarning: ${out.warning}` : ""),
    { session_id: id, path: p, folded: n, entries: rest.entries.length, sources: summary.sources, content_hash: out.newHash },
  );
}
