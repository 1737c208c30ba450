// The read-only tools: search (compact overview first), read (a section, a line range, or
// the whole note), similar, list and status. They orchestrate the core through a
// VaultBackend; ranking, snippets and section boundaries are the core's.

import type { CodeInfo, Hit, ListRequest, ReadRequest, ReadResult, SearchFilters } from "../core/api.ts";
import type { VaultBackend } from "../core/vault-backend.ts";
import { coreErrorCode, errorMessage } from "../core/errors.ts";
import { hostClock } from "../core/structured.ts";
import type { z } from "zod";

import { args, argName, bool, int, oneOf, text, textList, ToolInputError } from "./tool-schema.ts";
import { capText, isoDate, lineRange, oneLineSnippet, round, shortContext } from "./format.ts";
import type { ToolResult } from "./loopback-protocol.ts";
import { checkVaultFolder, checkVaultPath } from "./vault-paths.ts";

export const MAX_TOP_K = 50;
export const DEFAULT_READ_CHARS = 6000;
export const MAX_READ_CHARS = 20_000;
export const MAX_SECTION_IDS = 10;
export const MAX_LIST = 200;

/** A note's path argument. */
export const notePath = (what: string) =>
  text(1024, { required: true }).describe(
    `${what} Vault-relative, "/" separated, with the extension, e.g. "Projects/Plan.md" (as search results give it).`,
  );

const propertyFilter = args({ key: text(200, { required: true }), value: text(1000, { required: true }) }).describe(
  "A frontmatter property that must equal value (case-insensitive; list properties match any item).",
);

/** A code filter: a name, or several separated by commas (any of them matches). */
const codeNames = (what: string, example: string) =>
  text(200)
    .refine((v) => /^\s*[A-Za-z0-9+#_-]+(\s*,\s*[A-Za-z0-9+#_-]+)*\s*$/.test(v), {
      error: (iss) => `${argName(iss.path)} must be ${what} or several separated by commas, e.g. ${example}`,
    })
    .transform((v) => v.replace(/\s+/g, "").toLowerCase());

export const searchInput = args({
  queries: textList({
    min: 1,
    max: 5,
    maxLen: 500,
    missing: 'queries is required: 1 to 5 strings, the user\'s words first, e.g. {"queries": ["sourdough feeding"]}',
  }).describe("1–5 query strings. The first is the user's words (weighted double); the others are your expansions."),
  mode: oneOf(["hybrid", "lexical", "semantic"])
    .optional()
    .describe(
      "hybrid (default) fuses keywords and meaning; lexical = exact words, names, codes; semantic = meaning only (needs the model).",
    ),
  top_k: int(1, MAX_TOP_K).optional().describe("How many results (default 10, at most 50)."),
  filters: args({
    folder: text(1024).optional().describe('Folder prefix, e.g. "Projects" or "Projects/Alpha".'),
    tag: text(200).optional().describe('A tag, with or without "#"; nested tags match their children ("a" matches "a/b").'),
    property: propertyFilter.optional(),
    where: text(2000)
      .optional()
      .describe(
        'A property expression the note must match, as in the query tool: "status = draft AND file.mtime >= today-7d", "tags contains project AND NOT archived exists".',
      ),
    min_depth: int(0, 6).optional().describe("0 = whole note, 1–3 = heading levels (code: 0 = file, 1 = class, 2 = method)."),
    max_depth: int(0, 6).optional(),
    lang: codeNames("a language", '"python" or "typescript,javascript"')
      .optional()
      .describe(
        "Code only, in these languages: python, javascript, typescript, tsx, go, rust, java, c, cpp, json, yaml (comma-separated for several).",
      ),
    kind: codeNames("a kind of definition", '"function" or "function,method"')
      .optional()
      .describe(
        "Code definitions of these kinds: function, method, class, interface, type, enum, constant, module (comma-separated for several).",
      ),
  })
    .optional()
    .describe("Narrow the search."),
  depth_order: oneOf(["relevance", "shallow", "deep"])
    .optional()
    .describe("Tie-break: relevance (default), shallow (overviews first) or deep (details first)."),
});

export const readInput = args({
  path: notePath("The note."),
  section_id: text(1200).optional().describe('A section id from search or similar, e.g. "Projects/Plan.md#3".'),
  section_ids: textList({ min: 1, max: MAX_SECTION_IDS, maxLen: 1200 }).optional().describe("Several sections of the same note at once."),
  heading: text(1000).optional().describe('Heading text, or a heading path such as "Plan > Risks".'),
  symbol: text(500)
    .optional()
    .describe(
      'A definition in a code file, by name or by its parent and name: "rebuild_auth" or "SessionRedirectMixin.rebuild_auth". Returns it with a few lines of context and the file\'s imports.',
    ),
  start_line: int(1, 10_000_000).optional().describe("First line (1-based) of a line range."),
  max_lines: int(1, 100_000).optional().describe("Lines to read from start_line."),
  max_chars: int(100, MAX_READ_CHARS).optional().describe("Cut the text here (default 6000, at most 20000)."),
  parent: bool().optional().describe("Widen the section to its parent section."),
  whole: bool().optional().describe("Read the whole note."),
});

export const similarInput = args({
  path: text(1024)
    .optional()
    .describe(
      'The note to compare with (give this or section_id). Vault-relative, "/" separated, with the extension, e.g. "Projects/Plan.md" (as search results give it).',
    ),
  section_id: text(1200).optional().describe("A section to compare with, from search or read."),
  top_k: int(1, MAX_TOP_K).optional().describe("How many notes (default 10)."),
});

export const listInput = args({
  folder: text(1024).optional().describe('Folder prefix, e.g. "Projects". Omit for the whole vault.'),
  tag: text(200).optional().describe("A tag; nested tags match their children."),
  property: propertyFilter.optional(),
  sort: oneOf(["path", "mtime"]).optional().describe("path (default) or mtime (newest first)."),
  offset: int(0, 10_000_000).optional().describe("Skip this many (paging)."),
  limit: int(1, MAX_LIST).optional().describe("At most this many (default 50)."),
});

export const statusInput = args({});

/** The core's request errors (a bad expression, a bad date) as the model's input errors. */
export async function asked<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (coreErrorCode(err) === "bad-request") throw new ToolInputError(errorMessage(err).replace(/^\[bad-request\]\s*/, ""));
    throw err;
  }
}

export function result(text: string, structured?: Record<string, unknown>): ToolResult {
  return { content: [{ type: "text", text: capText(text) }], ...(structured ? { structuredContent: structured } : {}) };
}

function parseFilters(f: z.output<typeof searchInput>["filters"], configDir: string): SearchFilters | undefined {
  if (!f) return undefined;
  const out: SearchFilters = {};
  if (f.folder !== undefined) {
    const checked = checkVaultFolder(f.folder, configDir, "filters.folder");
    if (checked) out.folder = checked;
  }
  if (f.tag !== undefined && f.tag.trim()) out.tag = f.tag.trim();
  if (f.property) out.property = f.property;
  if (f.where?.trim()) Object.assign(out, { where: f.where.trim() }, hostClock());
  if (f.min_depth !== undefined) out.minDepth = f.min_depth;
  if (f.max_depth !== undefined) out.maxDepth = f.max_depth;
  if (f.lang !== undefined) out.lang = f.lang;
  if (f.kind !== undefined) out.kind = f.kind;
  if (f.min_depth !== undefined && f.max_depth !== undefined && f.min_depth > f.max_depth) {
    throw new ToolInputError("filters.min_depth is larger than filters.max_depth");
  }
  return out;
}

/** A code hit's definition (absent for notes). */
export interface CompactCode {
  lang: string;
  kind: string;
  name: string;
  signature: string;
  syntax_errors: boolean;
}

export interface CompactHit {
  /** "path:line": where the hit starts, to cite. */
  cite: string;
  path: string;
  title: string;
  heading_path: string;
  start_line: number;
  end_line: number;
  section_id: string;
  parent_section_id: string | null;
  score: number;
  lexical: number;
  vector: number;
  explain: string;
  snippet: string;
  context: string | null;
  code?: CompactCode;
  /** A weaker match: few of the query's words, and near the query's background similarity (listed last). */
  weak?: boolean;
  /** The note's languages ("de", "en de"), when detected: the language to ask a follow-up in. */
  lang?: string;
}

export function compactCode(c: CodeInfo): CompactCode {
  return { lang: c.lang, kind: c.kind, name: c.name, signature: c.signature.slice(0, 500), syntax_errors: c.syntaxErrors };
}

export function compactHit(h: Hit): CompactHit {
  return {
    cite: `${h.path}:${h.startLine}`,
    path: h.path,
    title: h.title,
    heading_path: h.headingPath,
    start_line: h.startLine,
    end_line: h.endLine,
    section_id: h.sectionId,
    parent_section_id: h.parentId,
    score: round(h.finalScore ?? h.score, 4),
    lexical: round(h.lexNorm ?? 0),
    vector: round(h.vecScore ?? 0),
    explain: (h.explain ?? "").slice(0, 200),
    snippet: oneLineSnippet(h.snippet),
    context: shortContext(h.context),
    ...(h.code ? { code: compactCode(h.code) } : {}),
    ...(h.weak ? { weak: true } : {}),
    ...(h.lang ? { lang: h.lang } : {}),
  };
}

/** "[python method] def rebuild_auth(self, …):" on one line. */
function codeLine(c: CompactCode): string {
  const sig = c.signature.replace(/\s+/g, " ").trim() || c.name;
  return `[${c.lang} ${c.kind}${c.syntax_errors ? ", syntax errors" : ""}] ${sig.length > 200 ? `${sig.slice(0, 199)}…` : sig}`;
}

function hitLines(i: number, h: CompactHit): string[] {
  // A definition is cited by its first line (path:line); a note's section by its heading path.
  const at = h.code ? h.cite : h.path;
  const where = h.heading_path ? `${at} › ${h.heading_path}` : at;
  const weak = h.weak ? " [weaker match: few of the query's words, not much closer in meaning than the rest of the vault]" : "";
  const lang = h.lang ? `; ${h.lang}` : "";
  const lines = [`${i + 1}. ${where} (${lineRange(h.start_line, h.end_line)}; section_id ${h.section_id}${lang})${weak}`];
  if (h.code) lines.push(`   ${codeLine(h.code)}`);
  lines.push(`   score ${h.score}: lexical ${h.lexical}, vector ${h.vector}${h.explain ? ` [${h.explain}]` : ""}`);
  if (h.context) lines.push(`   folder context: ${h.context}`);
  if (h.snippet) lines.push(`   ${h.snippet}`);
  return lines;
}

export async function searchTool(backend: VaultBackend, a: z.output<typeof searchInput>): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const cleaned = a.queries.map((q) => q.trim()).filter((q) => q.length > 0);
  if (cleaned.length === 0) throw new ToolInputError("queries holds only empty strings");
  const mode = a.mode ?? "hybrid";
  const topK = a.top_k ?? 10;
  const filters = parseFilters(a.filters, configDir);
  const order = a.depth_order;
  const res = await asked(() =>
    backend.search({
      query: cleaned[0],
      queries: cleaned.slice(1),
      mode,
      k: topK,
      filters,
      depthOrder: order,
      snippets: true,
    }),
  );
  const hits = res.hits.slice(0, topK).map(compactHit);
  const head = [
    `${hits.length} result${hits.length === 1 ? "" : "s"} · mode ${res.mode}` +
      (res.weights ? ` (lexical ${round(res.weights.lex, 2)} / vector ${round(res.weights.vec, 2)})` : "") +
      (res.semanticCoverage !== null && res.semanticCoverage !== undefined && res.semanticCoverage < 1
        ? ` · ${Math.round(res.semanticCoverage * 100)}% of the vault embedded so far`
        : ""),
    res.strongSignal
      ? "strong signal: the top lexical result is clearly ahead; expansions are unlikely to help"
      : "strong signal: no (if the results miss, search again with 2–3 different phrasings)",
  ];
  if (res.notice) head.push(`notice: ${res.notice}`);
  const body = hits.flatMap((h, i) => hitLines(i, h));
  if (hits.length === 0) body.push("No matches. Try other words, a synonym, or fewer filters.");
  else
    body.push(
      "",
      "Next: read a hit with read {path, section_id} (or heading / start_line; a definition with symbol) before reading whole notes.",
    );
  return result([...head, "", ...body].join("\n"), {
    mode: res.mode,
    strong_signal: res.strongSignal,
    notice: res.notice,
    semantic_coverage: res.semanticCoverage,
    weights: res.weights,
    results: hits,
  });
}

function nextStartLine(r: ReadResult): number {
  const lines = r.text.length === 0 ? 0 : r.text.split("\n").length;
  // The last line may be cut mid-way: continue from it.
  return r.startLine + Math.max(0, lines - 1);
}

function readHeader(r: ReadResult): string {
  // A definition is cited by its first line (path:line), with its language, kind and signature.
  const at = r.code ? `${r.path}:${r.startLine}` : r.path;
  const where = r.headingPath ? `${at} › ${r.headingPath}` : at;
  const code = r.code ? `\n${codeLine(compactCode(r.code))}` : "";
  const lang = r.lang ? `; ${r.lang}` : "";
  return `${where} (${lineRange(r.startLine, r.endLine)}${r.sectionId ? `; section_id ${r.sectionId}` : ""}${lang})${code}\ncontent_hash: ${r.contentHash}`;
}

function readStructured(r: ReadResult) {
  return {
    path: r.path,
    title: r.title,
    heading_path: r.headingPath,
    section_id: r.sectionId,
    start_line: r.startLine,
    end_line: r.endLine,
    content_hash: r.contentHash,
    truncated: r.truncated,
    text: r.text,
    ...(r.code ? { cite: `${r.path}:${r.startLine}`, code: compactCode(r.code) } : {}),
    ...(r.lang ? { lang: r.lang } : {}),
  };
}

export async function readTool(backend: VaultBackend, a: z.output<typeof readInput>): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const path = checkVaultPath(a.path, configDir);
  const { heading, section_id: sectionId, section_ids: sectionIds, start_line: startLine, max_lines: maxLines } = a;
  const maxChars = a.max_chars ?? DEFAULT_READ_CHARS;
  const parent = a.parent ?? false;
  const whole = a.whole ?? false;
  const ids = [...(sectionId !== undefined ? [sectionId] : []), ...(sectionIds ?? [])];
  const symbol = a.symbol?.trim();
  if (a.symbol !== undefined && !symbol) throw new ToolInputError('symbol is empty (a definition\'s name, e.g. "rebuild_auth")');
  const selectors = [heading !== undefined, ids.length > 0, startLine !== undefined, symbol !== undefined].filter(Boolean).length;
  if (selectors > 1) throw new ToolInputError("give only one of heading, section_id/section_ids, start_line, symbol");
  if (maxLines !== undefined && startLine === undefined) throw new ToolInputError("max_lines goes with start_line");
  for (const id of ids) {
    if (!id.startsWith(path + "#")) {
      throw new ToolInputError(
        `section_id ${JSON.stringify(id)} does not belong to ${JSON.stringify(path)} (section ids look like "${path}#3")`,
      );
    }
  }
  const base: ReadRequest = { path, maxChars, parent, whole };
  if (ids.length > 1) {
    // Several sections of one note: read each (budget shared), in the order given.
    const parts: ReadResult[] = [];
    let budget = maxChars;
    for (const id of ids) {
      if (budget < 100) break;
      const r = await backend.read({ ...base, sectionId: id, maxChars: budget });
      parts.push(r);
      budget -= r.text.length;
    }
    const cut = (r: ReadResult) => (r.truncated ? `\n[truncated; continue with start_line ${nextStartLine(r)}]` : "");
    const skipped = ids.length - parts.length;
    const rest = skipped ? `\n\n[${skipped} more section(s) not read: the max_chars budget is spent]` : "";
    const text = parts.map((r) => `${readHeader(r)}\n\n${r.text}${cut(r)}`).join("\n\n---\n\n");
    // The sections' text is in `sections`: the answer holds where each is and what is left.
    const answer = parts.map((r) => `${readHeader(r)}${cut(r)}`).join("\n---\n") + rest;
    return result(text + rest, { answer, sections: parts.map(readStructured) });
  }
  const req: ReadRequest = { ...base };
  if (heading !== undefined) req.heading = heading;
  if (symbol !== undefined) req.symbol = symbol;
  if (ids.length === 1) req.sectionId = ids[0];
  if (startLine !== undefined) {
    req.startLine = startLine;
    if (maxLines !== undefined) req.maxLines = maxLines;
  }
  if (selectors === 0 && !whole) req.whole = true;
  const r = await backend.read(req);
  const more = r.truncated
    ? `\n[truncated at ${maxChars} characters; continue with start_line ${nextStartLine(r)}, or raise max_chars (≤ ${MAX_READ_CHARS})]`
    : "";
  // A definition read by symbol: the file's imports first, then the definition.
  const imports = r.imports?.trim() ? `imports:\n${r.imports.trimEnd()}\n\n` : "";
  // The text is in `text` (and the imports in `imports`): the answer holds where it is and what is left.
  return result(`${readHeader(r)}\n\n${imports}${r.text}${more}`, {
    answer: `${readHeader(r)}${more}`,
    ...readStructured(r),
    ...(r.imports ? { imports: r.imports } : {}),
  });
}

export async function similarTool(backend: VaultBackend, a: z.output<typeof similarInput>): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const { path: p, section_id: sectionId } = a;
  if ((p === undefined) === (sectionId === undefined)) throw new ToolInputError("give exactly one of path or section_id");
  if (p !== undefined) checkVaultPath(p, configDir);
  if (sectionId !== undefined) checkVaultPath(sectionId.replace(/#[^#]*$/, ""), configDir, "section_id");
  const k = a.top_k ?? 10;
  const res = await backend.coreRead("similar", { path: p, sectionId, k });
  const hits = res.hits.slice(0, k).map((h) => ({
    path: h.path,
    title: h.title,
    score: round(h.score),
    sections: h.sections.slice(0, 3).map((s) => ({
      section_id: s.sectionId,
      heading_path: s.headingPath,
      start_line: s.startLine,
      end_line: s.endLine,
      score: round(s.score),
    })),
  }));
  const lines = [`${hits.length} note${hits.length === 1 ? "" : "s"} similar to ${res.source}`, ""];
  hits.forEach((h, i) => {
    lines.push(`${i + 1}. ${h.path} (score ${h.score})`);
    for (const s of h.sections)
      lines.push(`   - ${s.heading_path || "(note)"} (${lineRange(s.start_line, s.end_line)}; section_id ${s.section_id}; ${s.score})`);
  });
  return result(lines.join("\n"), { source: res.source, results: hits });
}

export async function listTool(backend: VaultBackend, a: z.output<typeof listInput>): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const req: ListRequest = {};
  if (a.folder !== undefined) {
    const f = checkVaultFolder(a.folder, configDir);
    if (f) req.folder = f;
  }
  if (a.tag?.trim()) req.tag = a.tag.trim();
  if (a.property) req.property = a.property;
  req.sort = a.sort ?? "path";
  req.offset = a.offset ?? 0;
  req.limit = a.limit ?? 50;
  const res = await backend.coreRead("list", req);
  const entries = res.entries.slice(0, req.limit).map((e) => ({
    path: e.path,
    title: e.title,
    tags: e.tags.slice(0, 20),
    modified: isoDate(e.mtime),
    size: e.size,
    used: e.access ? { count: e.access.count, last: isoDate(e.access.last) } : null,
    context: shortContext(e.context, 200),
  }));
  const lines = [`${res.total} note${res.total === 1 ? "" : "s"} match; showing ${entries.length} from offset ${req.offset}`, ""];
  for (const e of entries) {
    const extra = [e.tags.length ? e.tags.map((t) => "#" + t).join(" ") : "", e.modified ? `modified ${e.modified.slice(0, 10)}` : ""]
      .filter(Boolean)
      .join(" · ");
    lines.push(`- ${e.path}${e.title && !e.path.endsWith(`${e.title}.md`) ? ` (“${e.title}”)` : ""}${extra ? ` · ${extra}` : ""}`);
  }
  if (req.offset + entries.length < res.total) lines.push("", `More: list again with offset ${req.offset + entries.length}.`);
  return result(lines.join("\n"), { total: res.total, offset: req.offset, entries });
}

export async function statusTool(backend: VaultBackend): Promise<ToolResult> {
  const st = await backend.status();
  const s = backend.settings();
  const emb = st.embedding;
  const sw = st.index.switching;
  const lines = [
    `vault: ${st.vault} (answered by ${st.mode === "plugin" ? "the running Obsidian plugin" : "the headless bridge: Obsidian is not running"})`,
    `index: ${st.index.notes} notes, ${st.index.sections} sections, ${st.index.vectors} vectors, generation ${st.index.generation}`,
    `semantic search: ${st.index.modelLoaded || sw?.fromLoaded ? `on (${st.index.model ?? "model"})` : "off (lexical only)"}` +
      (emb && emb.total > 0 ? ` · embedded ${emb.done}/${emb.total}` : "") +
      (sw ? ` · re-embedding for ${sw.to}${sw.fromLoaded ? ` (${sw.from} answers meanwhile)` : ""}` : ""),
    `pending notes: ${st.pendingNotes} · last update: ${isoDate(st.lastUpdate) ?? "none this session"}`,
    `write tools: ${s.writeToolsEnabled ? "on" : "off (turn on in the Strata plugin settings)"} · sessions in ${s.sessionsFolder} · memory in ${s.memoryFolder} · changelog in ${s.changelogFolder}`,
    ...st.notices.map((n) => `notice: ${n}`),
  ];
  return result(lines.join("\n"), {
    mode: st.mode,
    vault: st.vault,
    notes: st.index.notes,
    sections: st.index.sections,
    vectors: st.index.vectors,
    model: st.index.model,
    model_loaded: st.index.modelLoaded,
    switching: sw ?? null,
    embedding: emb ? { done: emb.done, total: emb.total, rate: emb.rate, eta_seconds: emb.etaSeconds } : null,
    pending_notes: st.pendingNotes,
    last_update: isoDate(st.lastUpdate),
    notices: st.notices,
    write_tools_enabled: s.writeToolsEnabled,
    sessions_folder: s.sessionsFolder,
    memory_folder: s.memoryFolder,
    changelog_folder: s.changelogFolder,
  });
}
