// Layered memory: memory_save writes one note per memory in the memory folder
// (<memory folder>/<level>/<id>.md) with frontmatter (id, level, parent, created, ttl_days,
// expires, confidence, promoted, metadata); memory_search finds them by meaning and words,
// filtered by level and parent. Usage (count, last access) is recorded in the index catalog
// on retrieval, never by rewriting the notes. Expired memories are left out of the results
// and listed for review; nothing is ever deleted.

import type { ListEntry } from "../core/api.ts";
import type { VaultBackend } from "../core/vault-backend.ts";
import { type Args, optBool, optEnum, optInt, optNumber, optObject, optString, optStringArray, reqString, ToolInputError } from "./args.ts";
import { isoDate } from "./format.ts";
import { bodyOf, composeNote } from "./markdown-edit.ts";
import type { ToolResult } from "./loopback-protocol.ts";
import { result } from "./read-tools.ts";
import { checkId, newId } from "./sessions.ts";
import { checkVaultFolder } from "./vault-paths.ts";
import { auditedWrite } from "./writes.ts";

export const LEVELS = ["project", "task", "subtask"] as const;
export type Level = (typeof LEVELS)[number];
const RANK: Record<Level, number> = { project: 0, task: 1, subtask: 2 };

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
    const page = await backend.list({ folder, offset, limit: 1000, sort: "mtime" });
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
  const res = await backend.list({ folder, property: { key: "id", value: id }, limit: 5 });
  for (const e of res.entries) {
    const m = asMemory(e);
    if (m && m.id === id) return m;
  }
  return null;
}

export async function memorySaveTool(backend: VaultBackend, a: Args): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const folder = memoryFolder(backend, configDir);
  const level = optEnum(a, "level", LEVELS);
  if (!level) throw new ToolInputError(`level is required: one of ${LEVELS.join(", ")}`);
  const text = reqString(a, "text", 10_000);
  const parentId = optString(a, "parent_id", 80);
  const ttl = optNumber(a, "ttl_days", 0, 36_500, true);
  const confidence = optNumber(a, "confidence", 0, 1);
  const promotedFrom = optString(a, "promoted_from", 80);
  const tags = (optStringArray(a, "tags", { max: 20, maxLen: 100 }) ?? []).map((t) => t.replace(/^#/, "").trim()).filter(Boolean);
  const metaArg = optObject(a, "metadata", Object.keys((a.metadata as object | undefined) ?? {}));
  const metadata: Record<string, string | number | boolean> = {};
  if (metaArg) {
    const keys = Object.keys(metaArg);
    if (keys.length > 30) throw new ToolInputError("metadata holds more than 30 keys");
    for (const k of keys) {
      const v = metaArg[k];
      if (!/^[A-Za-z0-9_-]{1,60}$/.test(k)) throw new ToolInputError(`metadata key ${JSON.stringify(k)}: use letters, digits, "_" or "-"`);
      if (typeof v === "string") {
        if (v.length > 1000) throw new ToolInputError(`metadata.${k} is longer than 1000 characters`);
        metadata[k] = v;
      } else if ((typeof v === "number" && Number.isFinite(v)) || typeof v === "boolean") metadata[k] = v;
      else throw new ToolInputError(`metadata.${k} must be a string, number or boolean`);
    }
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
    if (!(await findMemory(backend, folder, promotedFrom))) throw new ToolInputError(`there is no memory ${JSON.stringify(promotedFrom)} to promote`);
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
  const out = await auditedWrite(backend, { tool: "memory_save", path: p, oldText: null, newText: note, reason: `${level} memory: ${text.slice(0, 120)}` });
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

export async function memorySearchTool(backend: VaultBackend, a: Args): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const folder = memoryFolder(backend, configDir);
  const query = optString(a, "query", 500)?.trim() || undefined;
  const levelArg = a.level;
  let levels: Level[] | undefined;
  if (Array.isArray(levelArg)) {
    levels = (optStringArray(a, "level", { min: 1, max: 3, maxLen: 20 }) ?? []) as Level[];
    for (const l of levels) if (!LEVELS.includes(l)) throw new ToolInputError(`level must be among ${LEVELS.join(", ")}`);
  } else {
    const one = optEnum(a, "level", LEVELS);
    if (one) levels = [one];
  }
  const parentId = optString(a, "parent_id", 80);
  if (parentId !== undefined) checkId(parentId, "parent_id");
  const k = optInt(a, "top_k", 1, 50) ?? 10;
  const includeExpired = optBool(a, "include_expired") ?? false;
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
    lines.push("", `${expired.length} expired memor${expired.length === 1 ? "y" : "ies"} left out (kept for review, not deleted): ${review.map((r) => r.id).join(", ")}`);
  }
  return result(lines.join("\n"), { results, expired_for_review: includeExpired ? [] : review });
}
