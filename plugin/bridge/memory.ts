// Layered memory: memory_save writes one note per memory in the memory folder
// (<memory folder>/<level>/<id>.md) with frontmatter (id, level, parent, created, ttl_days,
// expires, confidence, promoted, metadata); memory_search finds them by meaning and words,
// filtered by level and parent. Usage (count, last access) is recorded in the index catalog
// on retrieval, never by rewriting the notes. Expired memories are left out of the results
// and listed for review; nothing is ever deleted.

import * as z from "zod";

import type { ListEntry } from "../core/api.ts";
import type { VaultBackend } from "../core/vault-backend.ts";
import { isoDate } from "./format.ts";
import { bodyOf, composeNote } from "./markdown-edit.ts";
import type { ToolResult } from "./loopback-protocol.ts";
import { result } from "./read-tools.ts";
import { checkId, newId } from "./sessions.ts";
import { args, argName, bool, int, num, oneOf, text, textList, ToolInputError } from "./tool-schema.ts";
import { checkVaultFolder } from "./vault-paths.ts";
import { auditedWrite, basedOnInput, checkBasedOn, type Caller } from "./writes.ts";

export const LEVELS = ["project", "task", "subtask"] as const;
export type Level = (typeof LEVELS)[number];
const RANK: Record<Level, number> = { project: 0, task: 1, subtask: 2 };

export const memorySaveInput = args({
  level: oneOf(LEVELS, { required: true }),
  text: text(10_000, { required: true }).describe("The memory itself, self-contained (it is read without its context)."),
  parent_id: text(80).optional().describe("The id of the parent memory (a project for a task, a task for a subtask)."),
  metadata: z
    .record(
      z.string(),
      z.union([z.string(), z.number(), z.boolean()], { error: (iss) => `${argName(iss.path)} must be a string, number or boolean` }),
      { error: (iss) => `${argName(iss.path)} must be an object` },
    )
    .optional()
    .describe("Extra key → string/number/boolean values."),
  ttl_days: num(0, 36_500, { exclusiveMin: true }).optional().describe("Days until it expires (omit: never)."),
  confidence: num(0, 1).optional(),
  tags: textList({ max: 20, maxLen: 100 }).optional(),
  promoted_from: text(80).optional().describe("The id of a lower-level memory this one promotes."),
  based_on: basedOnInput,
});

export const memorySearchInput = args({
  query: text(500).optional().describe("What to recall (omit to list the newest)."),
  level: z
    .union([oneOf(LEVELS), z.array(oneOf(LEVELS)).min(1).max(3)], {
      error: (iss) => `${argName(iss.path)} must be one of ${LEVELS.map((l) => JSON.stringify(l)).join(", ")}, or a list of 1 to 3 of them`,
    })
    .optional()
    .describe("One level or a list of levels."),
  parent_id: text(80).optional().describe("Only the memories directly under this one."),
  top_k: int(1, 50).optional().describe("How many (default 10)."),
  include_expired: bool().optional().describe("Also return expired memories (default false)."),
});

export interface Memory {
  id: string;
  path: string;
  level: Level;
  parent: string | null;
  created: string | null;
  expires: string | null;
  confidence: number | null;
  promoted: boolean;
  used: { count: number; last: string | null } | null;
  mtime: number;
}

function memoryFolder(backend: VaultBackend, configDir: string): string {
  const f = checkVaultFolder(backend.settings().memoryFolder, configDir, "memory folder");
  if (!f) throw new ToolInputError("the memory folder setting is empty; set a folder for memory notes in the Strata settings");
  return f;
}

function asMemory(e: ListEntry): Memory | null {
  const fm = e.frontmatter ?? {};
  const level = typeof fm.level === "string" ? (fm.level.toLowerCase() as Level) : null;
  if (typeof fm.id !== "string" || !level || !LEVELS.includes(level)) return null;
  return {
    id: fm.id,
    path: e.path,
    level,
    parent: typeof fm.parent === "string" && fm.parent ? fm.parent : null,
    created: typeof fm.created === "string" ? fm.created : null,
    expires: typeof fm.expires === "string" && fm.expires ? fm.expires : null,
    confidence: typeof fm.confidence === "number" ? fm.confidence : null,
    promoted: fm.promoted === true,
    used: e.access ? { count: e.access.count, last: isoDate(e.access.last) } : null,
    mtime: e.mtime,
  };
}

/** Every memory note (paged through list()). */
async function allMemories(backend: VaultBackend, folder: string): Promise<Memory[]> {
  const out: Memory[] = [];
  for (let offset = 0; offset < 100_000; offset += 1000) {
    const page = await backend.coreRead("list", { folder, offset, limit: 1000, sort: "mtime" });
    for (const e of page.entries) {
      const m = asMemory(e);
      if (m) out.push(m);
    }
    if (offset + page.entries.length >= page.total || page.entries.length === 0) break;
  }
  return out;
}

export function isExpired(m: Memory, now: number): boolean {
  if (!m.expires) return false;
  const t = Date.parse(m.expires);
  return Number.isFinite(t) && t <= now;
}

async function findMemory(backend: VaultBackend, folder: string, id: string): Promise<Memory | null> {
  const res = await backend.coreRead("list", { folder, property: { key: "id", value: id }, limit: 5 });
  for (const e of res.entries) {
    const m = asMemory(e);
    if (m && m.id === id) return m;
  }
  return null;
}

export async function memorySaveTool(backend: VaultBackend, a: z.output<typeof memorySaveInput>, caller: Caller = {}): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const basedOn = checkBasedOn(a.based_on, configDir);
  const folder = memoryFolder(backend, configDir);
  const { level, text, parent_id: parentId, ttl_days: ttl, confidence, promoted_from: promotedFrom } = a;
  const tags = (a.tags ?? []).map((t) => t.replace(/^#/, "").trim()).filter(Boolean);
  const metadata = a.metadata ?? {};
  const keys = Object.keys(metadata);
  if (keys.length > 30) throw new ToolInputError("metadata holds more than 30 keys");
  for (const k of keys) {
    if (!/^[A-Za-z0-9_-]{1,60}$/.test(k)) throw new ToolInputError(`metadata key ${JSON.stringify(k)}: use letters, digits, "_" or "-"`);
    const v = metadata[k];
    if (typeof v === "string" && v.length > 1000) throw new ToolInputError(`metadata.${k} is longer than 1000 characters`);
  }
  if (parentId !== undefined) {
    checkId(parentId, "parent_id");
    if (level === "project") throw new ToolInputError("a project-level memory has no parent");
    const parent = await findMemory(backend, folder, parentId);
    if (!parent) throw new ToolInputError(`there is no memory ${JSON.stringify(parentId)} (parent_id must be the id of a saved memory)`);
    if (RANK[parent.level] >= RANK[level]) {
      throw new ToolInputError(`the parent of a ${level} memory must be a higher level; ${parentId} is a ${parent.level} memory`);
    }
  }
  if (promotedFrom !== undefined) {
    checkId(promotedFrom, "promoted_from");
    if (!(await findMemory(backend, folder, promotedFrom)))
      throw new ToolInputError(`there is no memory ${JSON.stringify(promotedFrom)} to promote`);
  }
  const now = new Date();
  const id = newId("m", now);
  const expires = ttl !== undefined ? new Date(now.getTime() + ttl * 86_400_000).toISOString() : null;
  const fm: Record<string, unknown> = {
    id,
    type: "strata-memory",
    level,
    parent: parentId ?? null,
    created: now.toISOString(),
    ttl_days: ttl ?? null,
    expires,
    confidence: confidence ?? null,
    promoted: promotedFrom !== undefined,
    ...(promotedFrom !== undefined ? { promoted_from: promotedFrom } : {}),
    tags: ["strata/memory", ...tags.filter((t) => t !== "strata/memory")],
    ...(Object.keys(metadata).length ? { metadata } : {}),
  };
  const p = `${folder}/${level}/${id}.md`;
  const note = composeNote(fm, text.trim() + "\n");
  const out = await auditedWrite(backend, {
    tool: "memory_save",
    path: p,
    oldText: null,
    newText: note,
    reason: `${level} memory: ${text.slice(0, 120)}`,
    actor: caller.client,
    basedOn,
  });
  return result(
    `saved ${level} memory ${id} (${p})${expires ? `, expires ${expires.slice(0, 10)}` : ""}. Use it as parent_id for lower levels.` +
      (out.warning ? `\nwarning: ${out.warning}` : ""),
    { memory_id: id, path: p, level, parent: parentId ?? null, expires },
  );
}

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max) + "…" : t;
}

export async function memorySearchTool(backend: VaultBackend, a: z.output<typeof memorySearchInput>): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const folder = memoryFolder(backend, configDir);
  const query = a.query?.trim() || undefined;
  const levels: Level[] | undefined = a.level === undefined ? undefined : Array.isArray(a.level) ? a.level : [a.level];
  const parentId = a.parent_id;
  if (parentId !== undefined) checkId(parentId, "parent_id");
  const k = a.top_k ?? 10;
  const includeExpired = a.include_expired ?? false;
  const now = Date.now();

  const all = await allMemories(backend, folder);
  const candidates = all.filter((m) => (!levels || levels.includes(m.level)) && (parentId === undefined || m.parent === parentId));
  let ordered: Memory[];
  if (query) {
    const res = await backend.search({ query, k: 200, filters: { folder }, snippets: false });
    const byPath = new Map(candidates.map((m) => [m.path, m]));
    const seen = new Set<string>();
    ordered = [];
    for (const h of res.hits) {
      const m = byPath.get(h.path);
      if (m && !seen.has(h.path)) {
        seen.add(h.path);
        ordered.push(m);
      }
    }
  } else {
    ordered = [...candidates].sort((x, y) => (y.created ?? "").localeCompare(x.created ?? "") || y.mtime - x.mtime);
  }
  const expired = ordered.filter((m) => isExpired(m, now));
  const live = includeExpired ? ordered : ordered.filter((m) => !isExpired(m, now));
  const picked = live.slice(0, k);
  const results = [];
  for (const m of picked) {
    const text = (await backend.readText(m.path)) ?? "";
    results.push({ ...m, expired: isExpired(m, now), text: oneLine(bodyOf(text), 1500) });
  }
  if (picked.length) await backend.recordAccess(picked.map((m) => m.path));
  const review = expired.slice(0, 20).map((m) => ({ id: m.id, path: m.path, level: m.level, expired: m.expires }));

  const lines = [
    `${results.length} memor${results.length === 1 ? "y" : "ies"}${query ? ` for ${JSON.stringify(query)}` : ""}` +
      `${levels ? ` at level ${levels.join("/")}` : ""}${parentId ? ` under ${parentId}` : ""}`,
    "",
  ];
  results.forEach((r, i) => {
    const meta = [
      r.level,
      r.parent ? `parent ${r.parent}` : "",
      r.confidence !== null ? `confidence ${r.confidence}` : "",
      r.promoted ? "promoted" : "",
      r.used ? `used ${r.used.count}×` : "",
      r.expires ? `expires ${r.expires.slice(0, 10)}` : "",
    ]
      .filter(Boolean)
      .join(", ");
    lines.push(`${i + 1}. ${r.id} (${meta}) ${r.path}`, `   ${r.text}`);
  });
  if (results.length === 0) lines.push("No memories match.");
  if (review.length && !includeExpired) {
    lines.push(
      "",
      `${expired.length} expired memor${expired.length === 1 ? "y" : "ies"} left out (kept for review, not deleted): ${review.map((r) => r.id).join(", ")}`,
    );
  }
  return result(lines.join("\n"), { results, expired_for_review: includeExpired ? [] : review });
}
