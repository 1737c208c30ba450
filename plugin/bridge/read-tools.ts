// The read-only tools: search (compact overview first), read (a section, a line range, or
// the whole note), similar, list and status. They orchestrate the core through a
// VaultBackend; ranking, snippets and section boundaries are the core's.

import type { Hit, ListRequest, ReadRequest, ReadResult, SearchFilters, SearchMode } from "../core/api.ts";
import type { VaultBackend } from "../core/vault-backend.ts";
import {
  type Args,
  optBool,
  optEnum,
  optInt,
  optObject,
  optString,
  optStringArray,
  reqString,
  ToolInputError,
} from "./args.ts";
import { capText, isoDate, lineRange, oneLineSnippet, round, shortContext } from "./format.ts";
import type { ToolResult } from "./loopback-protocol.ts";
import { checkVaultFolder, checkVaultPath } from "./vault-paths.ts";

export const MAX_TOP_K = 50;
export const DEFAULT_READ_CHARS = 6000;
export const MAX_READ_CHARS = 20_000;
export const MAX_SECTION_IDS = 10;

export function result(text: string, structured?: Record<string, unknown>): ToolResult {
  return { content: [{ type: "text", text: capText(text) }], ...(structured ? { structuredContent: structured } : {}) };
}

function parseFilters(a: Args, configDir: string): SearchFilters | undefined {
  const f = optObject(a, "filters", ["folder", "tag", "property", "min_depth", "max_depth"]);
  if (!f) return undefined;
  const out: SearchFilters = {};
  const folder = optString(f, "folder", 1024);
  if (folder !== undefined) {
    const checked = checkVaultFolder(folder, configDir, "filters.folder");
    if (checked) out.folder = checked;
  }
  const tag = optString(f, "tag", 200);
  if (tag !== undefined && tag.trim()) out.tag = tag.trim();
  const prop = optObject(f, "property", ["key", "value"]);
  if (prop) out.property = { key: reqString(prop, "key", 200), value: reqString(prop, "value", 1000) };
  const minDepth = optInt(f, "min_depth", 0, 6);
  const maxDepth = optInt(f, "max_depth", 0, 6);
  if (minDepth !== undefined) out.minDepth = minDepth;
  if (maxDepth !== undefined) out.maxDepth = maxDepth;
  if (minDepth !== undefined && maxDepth !== undefined && minDepth > maxDepth) {
    throw new ToolInputError("filters.min_depth is larger than filters.max_depth");
  }
  return out;
}

export interface CompactHit {
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
}

export function compactHit(h: Hit): CompactHit {
  return {
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
  };
}

function hitLines(i: number, h: CompactHit): string[] {
  const where = h.heading_path ? `${h.path} › ${h.heading_path}` : h.path;
  const lines = [`${i + 1}. ${where} (${lineRange(h.start_line, h.end_line)}; section_id ${h.section_id})`];
  lines.push(`   score ${h.score}: lexical ${h.lexical}, vector ${h.vector}${h.explain ? ` [${h.explain}]` : ""}`);
  if (h.context) lines.push(`   folder context: ${h.context}`);
  if (h.snippet) lines.push(`   ${h.snippet}`);
  return lines;
}

export async function searchTool(backend: VaultBackend, a: Args): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const queries = optStringArray(a, "queries", { min: 1, max: 5, maxLen: 500 });
  if (!queries) throw new ToolInputError('queries is required: 1 to 5 strings, the user\'s words first, e.g. {"queries": ["sourdough feeding"]}');
  const cleaned = queries.map((q) => q.trim()).filter((q) => q.length > 0);
  if (cleaned.length === 0) throw new ToolInputError("queries holds only empty strings");
  const mode = optEnum<SearchMode>(a, "mode", ["hybrid", "lexical", "semantic"]) ?? "hybrid";
  const topK = optInt(a, "top_k", 1, MAX_TOP_K) ?? 10;
  const filters = parseFilters(a, configDir);
  const order = optEnum(a, "depth_order", ["relevance", "shallow", "deep"] as const);
  const res = await backend.search({
    query: cleaned[0],
    queries: cleaned.slice(1),
    mode,
    k: topK,
    filters,
    depthOrder: order,
    snippets: true,
  });
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
  else body.push("", "Next: read a hit with read {path, section_id} (or heading / start_line) before reading whole notes.");
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
  const where = r.headingPath ? `${r.path} › ${r.headingPath}` : r.path;
  return `${where} (${lineRange(r.startLine, r.endLine)}${r.sectionId ? `; section_id ${r.sectionId}` : ""})\ncontent_hash: ${r.contentHash}`;
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
  };
}

export async function readTool(backend: VaultBackend, a: Args): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const path = checkVaultPath(reqString(a, "path", 1024), configDir);
  const heading = optString(a, "heading", 1000);
  const sectionId = optString(a, "section_id", 1200);
  const sectionIds = optStringArray(a, "section_ids", { min: 1, max: MAX_SECTION_IDS, maxLen: 1200 });
  const startLine = optInt(a, "start_line", 1, 10_000_000);
  const maxLines = optInt(a, "max_lines", 1, 100_000);
  const maxChars = optInt(a, "max_chars", 100, MAX_READ_CHARS) ?? DEFAULT_READ_CHARS;
  const parent = optBool(a, "parent") ?? false;
  const whole = optBool(a, "whole") ?? false;
  const ids = [...(sectionId !== undefined ? [sectionId] : []), ...(sectionIds ?? [])];
  const selectors = [heading !== undefined, ids.length > 0, startLine !== undefined].filter(Boolean).length;
  if (selectors > 1) throw new ToolInputError("give only one of heading, section_id/section_ids, start_line");
  if (maxLines !== undefined && startLine === undefined) throw new ToolInputError("max_lines goes with start_line");
  for (const id of ids) {
    if (!id.startsWith(path + "#")) {
      throw new ToolInputError(`section_id ${JSON.stringify(id)} does not belong to ${JSON.stringify(path)} (section ids look like "${path}#3")`);
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
    const text = parts
      .map((r) => `${readHeader(r)}\n\n${r.text}${r.truncated ? `\n[truncated; continue with start_line ${nextStartLine(r)}]` : ""}`)
      .join("\n\n---\n\n");
    const skipped = ids.length - parts.length;
    return result(text + (skipped ? `\n\n[${skipped} more section(s) not read: the max_chars budget is spent]` : ""), {
      sections: parts.map(readStructured),
    });
  }
  const req: ReadRequest = { ...base };
  if (heading !== undefined) req.heading = heading;
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
  return result(`${readHeader(r)}\n\n${r.text}${more}`, readStructured(r));
}

export async function similarTool(backend: VaultBackend, a: Args): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const p = optString(a, "path", 1024);
  const sectionId = optString(a, "section_id", 1200);
  if ((p === undefined) === (sectionId === undefined)) throw new ToolInputError("give exactly one of path or section_id");
  if (p !== undefined) checkVaultPath(p, configDir);
  if (sectionId !== undefined) checkVaultPath(sectionId.replace(/#[^#]*$/, ""), configDir, "section_id");
  const k = optInt(a, "top_k", 1, MAX_TOP_K) ?? 10;
  const res = await backend.similar({ path: p, sectionId, k });
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
    for (const s of h.sections) lines.push(`   - ${s.heading_path || "(note)"} (${lineRange(s.start_line, s.end_line)}; section_id ${s.section_id}; ${s.score})`);
  });
  return result(lines.join("\n"), { source: res.source, results: hits });
}

export const MAX_LIST = 200;

export async function listTool(backend: VaultBackend, a: Args): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const req: ListRequest = {};
  const folder = optString(a, "folder", 1024);
  if (folder !== undefined) {
    const f = checkVaultFolder(folder, configDir);
    if (f) req.folder = f;
  }
  const tag = optString(a, "tag", 200);
  if (tag?.trim()) req.tag = tag.trim();
  const prop = optObject(a, "property", ["key", "value"]);
  if (prop) req.property = { key: reqString(prop, "key", 200), value: reqString(prop, "value", 1000) };
  req.sort = optEnum(a, "sort", ["path", "mtime"] as const) ?? "path";
  req.offset = optInt(a, "offset", 0, 10_000_000) ?? 0;
  req.limit = optInt(a, "limit", 1, MAX_LIST) ?? 50;
  const res = await backend.list(req);
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
