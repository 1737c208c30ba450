// The governance tool `log`: the audit log of the tools' writes (audit.jsonl in the plugin
// folder, which the read tools may not open) as readable entries, newest last.

import type { z } from "zod";

import type { VaultBackend } from "../core/vault-backend.ts";
import type { ToolResult } from "./loopback-protocol.ts";
import { AUDIT_LOG_FILE } from "./loopback-protocol.ts";
import { result } from "./read-tools.ts";
import { args, int, text, ToolInputError } from "./tool-schema.ts";

export const MAX_LOG = 200;

export const logInput = args({
  last: int(1, MAX_LOG).optional().describe("How many entries, the newest (default 20)."),
  path: text(1024).optional().describe('Only the writes to this note, or to the notes in this folder ("Strata/Sessions").'),
  tool: text(50).optional().describe("Only the writes of this tool (apply_patch, session_save, …)."),
  since: text(40).optional().describe("Only the writes at or after this time (an ISO date or date-time, UTC)."),
});

export interface AuditEntry {
  time: string;
  tool: string;
  path: string;
  old_hash: string | null;
  new_hash: string;
  reason: string;
  /** The MCP client that asked for the write (null: unknown, or written before it was recorded). */
  actor: string | null;
  /** The notes the write was based on, as the client gave them. */
  based_on: string[];
}

/** The audit log's entries; lines that are not entries (a torn last line) are skipped. */
export function parseAuditLog(text: string): AuditEntry[] {
  const out: AuditEntry[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line) as Partial<AuditEntry>;
      if (typeof e.time === "string" && typeof e.tool === "string" && typeof e.path === "string" && typeof e.new_hash === "string") {
        out.push({
          time: e.time,
          tool: e.tool,
          path: e.path,
          old_hash: e.old_hash ?? null,
          new_hash: e.new_hash,
          reason: String(e.reason ?? ""),
          actor: typeof e.actor === "string" ? e.actor : null,
          based_on: Array.isArray(e.based_on) ? e.based_on.filter((p): p is string => typeof p === "string") : [],
        });
      }
    } catch {
      // not an entry
    }
  }
  return out;
}

export async function logTool(backend: VaultBackend, a: z.output<typeof logInput>): Promise<ToolResult> {
  let since: number | null = null;
  if (a.since?.trim()) {
    const t = a.since.trim();
    since = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(t) ? `${t}T00:00:00Z` : t);
    if (!Number.isFinite(since)) throw new ToolInputError(`since must be an ISO date or date-time, got ${JSON.stringify(a.since)}`);
  }
  const where = a.path?.trim().replace(/\/+$/, "");
  const all = parseAuditLog((await backend.readPluginFile(AUDIT_LOG_FILE)) ?? "");
  const matching = all.filter(
    (e) =>
      (!where || e.path === where || e.path.startsWith(`${where}/`)) &&
      (!a.tool?.trim() || e.tool === a.tool.trim()) &&
      (since === null || Date.parse(e.time) >= since),
  );
  const shown = matching.slice(-(a.last ?? 20));
  const lines = [
    all.length === 0
      ? "the audit log is empty: no tool has written to the vault"
      : `${matching.length} of ${all.length} writes match; the newest ${shown.length}, oldest first`,
    "",
  ];
  for (const e of shown) {
    const hashes = `${e.old_hash ? e.old_hash.slice(0, 8) : "new"} → ${e.new_hash.slice(0, 8)}`;
    const by = e.actor ? ` · by ${e.actor}` : "";
    const from = e.based_on.length ? ` · based on ${e.based_on.join(", ")}` : "";
    lines.push(
      `- ${e.time.slice(0, 19).replace("T", " ")} UTC · ${e.tool} · ${e.path} · ${hashes} · ${e.reason || "(no reason)"}${by}${from}`,
    );
  }
  return result(lines.join("\n"), { total: all.length, matching: matching.length, entries: shown });
}
