// Every note the tools write goes through here: the write itself (through the backend:
// app.vault in the plugin, an atomic write headless), then one JSON line in the audit log
// (plugin folder: time, tool, path, old and new hash, reason, the client that asked and the
// notes the write was based on) and one readable line in CHANGELOG.md (in the user's changelog
// folder).

import type { VaultBackend } from "../core/vault-backend.ts";
import { errorMessage } from "../core/errors.ts";
import { sha256Hex } from "./format.ts";
import { AUDIT_LOG_FILE } from "./loopback-protocol.ts";
import { textList } from "./tool-schema.ts";
import { checkVaultFolder, checkVaultPath } from "./vault-paths.ts";

/** Who called a tool: the MCP client, as its initialize handshake named it (clientInfo). */
export interface Caller {
  /** "name version", e.g. "claude-ai 0.1.0"; absent when unknown. */
  client?: string;
}

/** The longest client name kept. */
export const MAX_CLIENT_CHARS = 200;

/** The client as the audit log records it: clientInfo's name and version, one line, capped. */
export function clientLabel(info: { name?: unknown; version?: unknown } | undefined): string | undefined {
  const parts = [info?.name, info?.version].filter((x): x is string => typeof x === "string" && x.trim() !== "");
  const label = parts.join(" ").replace(/\s+/g, " ").trim();
  return label ? label.slice(0, MAX_CLIENT_CHARS) : undefined;
}

/** The write tools' `based_on` argument. */
export const basedOnInput = textList({ max: 50, maxLen: 1024 })
  .optional()
  .describe("The vault notes this write was based on (the paths you read for it); recorded with the write in the audit log.");

/** `based_on` checked (vault paths, outside the config folder), trimmed and deduplicated. */
export function checkBasedOn(paths: string[] | undefined, configDir: string): string[] {
  const out: string[] = [];
  for (const p of paths ?? []) {
    if (!p.trim()) continue;
    const checked = checkVaultPath(p.trim(), configDir, "based_on");
    if (!out.includes(checked)) out.push(checked);
  }
  return out;
}

export interface WriteRecord {
  tool: string;
  path: string;
  /** The note's text before the write, null when it is created. */
  oldText: string | null;
  newText: string;
  reason: string;
  /** The client that asked for the write (`Caller.client`). */
  actor?: string;
  /** The notes the write was based on (`based_on`). */
  basedOn?: string[];
}

export interface WriteOutcome {
  oldHash: string | null;
  newHash: string;
  /** Set when the note was written but the audit log or changelog could not be. */
  warning?: string;
}

const CHANGELOG_HEADER =
  "# Strata changelog\n\nNotes written by Claude through Strata's tools (newest last). The audit log with content hashes is audit.jsonl in the plugin folder.\n\n";

function oneLine(s: string, max = 300): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max) + "…" : t;
}

export async function auditedWrite(backend: VaultBackend, rec: WriteRecord): Promise<WriteOutcome> {
  const oldHash = rec.oldText === null ? null : await sha256Hex(rec.oldText);
  const newHash = await sha256Hex(rec.newText);
  await backend.writeText(rec.path, rec.newText, rec.oldText);
  const time = new Date().toISOString();
  const problems: string[] = [];
  try {
    await backend.appendPluginFile(
      AUDIT_LOG_FILE,
      JSON.stringify({
        time,
        tool: rec.tool,
        path: rec.path,
        old_hash: oldHash,
        new_hash: newHash,
        reason: rec.reason,
        actor: rec.actor ?? null,
        based_on: rec.basedOn ?? [],
      }) + "\n",
    );
  } catch (err) {
    problems.push(`the audit log could not be written: ${errorMessage(err)}`);
  }
  try {
    const s = backend.settings();
    const folder = checkVaultFolder(s.changelogFolder, (await backend.status()).configDir, "changelog folder");
    const file = folder ? `${folder}/CHANGELOG.md` : "CHANGELOG.md";
    if (file !== rec.path) {
      const current = await backend.readText(file);
      const before = current ?? CHANGELOG_HEADER;
      const link = rec.path.replace(/\.md$/i, "");
      const line =
        `- ${time.slice(0, 16).replace("T", " ")} UTC · ${rec.tool} · [[${link}]] · ${oneLine(rec.reason) || "(no reason given)"}` +
        ` (${oldHash ? oldHash.slice(0, 8) : "new"} → ${newHash.slice(0, 8)})\n`;
      await backend.writeText(file, before.endsWith("\n") || before === "" ? before + line : before + "\n" + line, current);
    }
  } catch (err) {
    problems.push(`CHANGELOG.md could not be updated: ${errorMessage(err)}`);
  }
  return { oldHash, newHash, ...(problems.length ? { warning: problems.join("; ") } : {}) };
}
