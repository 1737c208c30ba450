// The governance tools built from what the vault and the audit log hold: `session_diff` (the writes
// made since a session was last saved, and the notes they were based on) and `project_snapshot`
// (a project folder at a glance within a character budget: its index note's lead, open tasks by
// status, the newest decisions and summaries of the sessions about it, the notes changed last).
// Both are read-only; every item carries its path so the client can read further.

import type { z } from "zod";

import type { TaskHit } from "../core/api.ts";
import { hostClock, taskLine } from "../core/structured.ts";
import type { VaultBackend } from "../core/vault-backend.ts";
import { type AuditEntry, parseAuditLog } from "./audit-tools.ts";
import { isoDate } from "./format.ts";
import { AUDIT_LOG_FILE, type ToolResult } from "./loopback-protocol.ts";
import { bodyOf, readFrontmatter } from "./markdown-edit.ts";
import { asked, result } from "./read-tools.ts";
import { checkId, parseSession, sessionPath, sessionsFolder, type SessionBlock } from "./sessions.ts";
import { args, int, text, ToolInputError } from "./tool-schema.ts";
import { checkVaultFolder } from "./vault-paths.ts";

/** Writes listed by session_diff at most (the newest). */
export const MAX_DIFF_WRITES = 100;
export const DEFAULT_SNAPSHOT_CHARS = 4000;
export const MAX_SNAPSHOT_CHARS = 20_000;
/** Session notes project_snapshot reads at most (the newest). */
const SNAPSHOT_SESSIONS = 30;

export const sessionDiffInput = args({
  session_id: text(80, { required: true }).describe("The session, as session_save returned its id."),
});

export const projectSnapshotInput = args({
  folder: text(1024, { required: true }).describe('The project folder, e.g. "Projects/Alpha".'),
  max_chars: int(500, MAX_SNAPSHOT_CHARS).optional().describe(`The answer's length at most (default ${DEFAULT_SNAPSHOT_CHARS}).`),
});

const stamp = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`;

function writeLine(e: AuditEntry): string {
  const hashes = `${e.old_hash ? e.old_hash.slice(0, 8) : "new"} → ${e.new_hash.slice(0, 8)}`;
  const by = e.actor ? ` · by ${e.actor}` : "";
  const from = e.based_on.length ? ` · based on ${e.based_on.join(", ")}` : "";
  return `- ${stamp(e.time)} · ${e.tool} · ${e.path} · ${hashes} · ${e.reason || "(no reason)"}${by}${from}`;
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}

export async function sessionDiffTool(backend: VaultBackend, a: z.output<typeof sessionDiffInput>): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const folder = sessionsFolder(backend, configDir);
  const id = checkId(a.session_id, "session_id");
  const p = sessionPath(folder, id);
  const note = await backend.readText(p);
  if (note === null) throw new ToolInputError(`there is no session ${JSON.stringify(id)} in ${folder || "the vault root"}`);
  const log = parseAuditLog((await backend.readPluginFile(AUDIT_LOG_FILE)) ?? "");
  // The last save: the session's newest write in the audit log, else its `updated` property.
  const saves = log.filter((e) => e.path === p && (e.tool === "session_save" || e.tool === "session_compact"));
  const updated = readFrontmatter(note).updated;
  const lastSave = saves.at(-1)?.time ?? (typeof updated === "string" ? updated : updated instanceof Date ? updated.toISOString() : null);
  const since = lastSave === null ? Number.NEGATIVE_INFINITY : Date.parse(lastSave);
  const writes = log.filter((e) => Date.parse(e.time) > since);
  const shown = writes.slice(-MAX_DIFF_WRITES);
  const parsed = parseSession(note, await backend.outline(note));
  const last: SessionBlock | undefined = parsed.entries.at(-1) ?? parsed.summary ?? undefined;
  const basedOn = unique(writes.flatMap((e) => e.based_on));
  const notes = unique(writes.map((e) => e.path));
  const lines = [
    `session ${id} (${p}): last saved ${lastSave ? stamp(lastSave) : "never (no save in the audit log)"}; ` +
      `${writes.length} write${writes.length === 1 ? "" : "s"} since, to ${notes.length} note${notes.length === 1 ? "" : "s"}`,
    "",
  ];
  if (writes.length > shown.length) lines.push(`(the newest ${shown.length} of them, oldest first)`);
  lines.push(...shown.map(writeLine));
  if (writes.length === 0) lines.push("Nothing was written through Strata's tools since the last save.");
  lines.push("", `Based on (sources the writes recorded): ${basedOn.length ? basedOn.join(", ") : "none given"}`);
  if (last?.sources.length) lines.push(`Sources at the last save: ${last.sources.join(", ")}`);
  lines.push("", `Next: save the session (session_save with session_id "${id}") to record this work, or read a note to check a change.`);
  return result(lines.join("\n"), {
    session_id: id,
    path: p,
    last_save: lastSave,
    total: writes.length,
    writes: shown,
    notes,
    based_on: basedOn,
    saved_sources: last?.sources ?? [],
  });
}

/** Candidate index notes of a folder: a folder note inside or beside it, index, README. */
function indexCandidates(folder: string): string[] {
  const base = folder.slice(folder.lastIndexOf("/") + 1);
  return [`${folder}/${base}.md`, `${folder}/index.md`, `${folder}/Index.md`, `${folder}/README.md`, `${folder}/_index.md`, `${folder}.md`];
}

/** A note's lead: its body's first paragraphs (headings left out), one line, about `max` characters. */
function lead(text: string, max = 600): string {
  const body = bodyOf(text)
    .split("\n")
    .filter((l) => !/^\s{0,3}#{1,6}\s/.test(l))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  return body.length > max ? body.slice(0, max).replace(/\s+\S*$/, "") + "…" : body;
}

/** Lines added while they fit the budget; what did not fit is counted. */
class Budget {
  readonly lines: string[] = [];
  private used = 0;
  cut = 0;
  constructor(private readonly max: number) {}
  add(line: string): boolean {
    if (this.cut > 0 || this.used + line.length + 1 > this.max) {
      this.cut++;
      return false;
    }
    this.lines.push(line);
    this.used += line.length + 1;
    return true;
  }
}

interface SessionAbout {
  path: string;
  updated: string | null;
  overview: string;
  decisions: string[];
}

/** The newest sessions whose text names a note of `folder` (a source, a link), newest first. */
async function sessionsAbout(backend: VaultBackend, configDir: string, folder: string): Promise<SessionAbout[]> {
  const sFolder = sessionsFolder(backend, configDir);
  const listed = await backend.coreRead("list", { folder: sFolder || undefined, sort: "mtime", limit: SNAPSHOT_SESSIONS });
  const out: SessionAbout[] = [];
  for (const e of listed.entries) {
    if (!e.path.endsWith(".md")) continue;
    const note = await backend.readText(e.path);
    if (note === null || readFrontmatter(note).type !== "strata-session") continue;
    if (!note.includes(`${folder}/`) && !note.includes(`[[${folder}]]`)) continue;
    const s = parseSession(note, await backend.outline(note));
    const blocks = [...s.entries].reverse();
    if (s.summary) blocks.push(s.summary);
    out.push({
      path: e.path,
      updated: isoDate(e.mtime),
      overview:
        blocks
          .find((b) => b.overview.trim())
          ?.overview.replace(/\s+/g, " ")
          .trim() ?? "",
      decisions: blocks.flatMap((b) => b.decisions),
    });
  }
  return out;
}

export async function projectSnapshotTool(backend: VaultBackend, a: z.output<typeof projectSnapshotInput>): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const folder = checkVaultFolder(a.folder, configDir, "folder");
  if (!folder) throw new ToolInputError('folder is the vault root; give a project folder, e.g. "Projects/Alpha"');
  const max = a.max_chars ?? DEFAULT_SNAPSHOT_CHARS;

  let index: { path: string; lead: string } | null = null;
  for (const p of indexCandidates(folder)) {
    const t = await backend.readText(p);
    if (t !== null) {
      index = { path: p, lead: lead(t) };
      break;
    }
  }
  const tasks = await asked(() => backend.coreRead("tasks", { folder, groupBy: "status", limit: 15, today: hostClock().today }));
  const sessions = await sessionsAbout(backend, configDir, folder);
  const recent = await backend.coreRead("list", { folder, sort: "mtime", limit: 10 });
  if (!index && recent.total === 0) throw new ToolInputError(`${folder} holds no indexed notes`);

  const b = new Budget(max);
  b.add(`# ${folder}: ${recent.total} note${recent.total === 1 ? "" : "s"}, ${tasks.total} open task${tasks.total === 1 ? "" : "s"}`);
  if (index) b.add(`Index note ${index.path}: ${index.lead || "(empty)"}`);
  else b.add(`No index note (looked for ${indexCandidates(folder).slice(0, 2).join(", ")}, README.md)`);
  b.add("");
  b.add(`## Open tasks (${tasks.byStatus.map(([k, n]) => `${k} ${n}`).join(", ") || "none"})`);
  const at = (t: TaskHit) => `${taskLine(t)} — ${t.path}:${t.line}`;
  for (const g of tasks.groups) {
    b.add(`${g.key} (${g.count}):`);
    for (const t of g.tasks) b.add(`  ${at(t)}`);
    if (g.tasks.length < g.count) b.add(`  … ${g.count - g.tasks.length} more (tasks {folder: "${folder}"})`);
  }
  b.add("");
  const decisions = sessions.flatMap((s) => s.decisions.map((d) => ({ d, path: s.path })));
  b.add(`## Newest decisions (${decisions.length})`);
  for (const { d, path } of decisions.slice(0, 10)) b.add(`- ${d} — ${path}`);
  b.add("");
  b.add(`## Sessions about ${folder} (${sessions.length})`);
  for (const s of sessions.slice(0, 5))
    b.add(`- ${s.updated?.slice(0, 10) ?? "?"} ${s.path}: ${s.overview.slice(0, 300) || "(no overview)"}`);
  b.add("");
  b.add("## Changed recently");
  for (const e of recent.entries) b.add(`- ${isoDate(e.mtime)?.slice(0, 16).replace("T", " ") ?? "?"} ${e.path}`);
  const text = b.lines.join("\n").trimEnd() + (b.cut ? `\n… ${b.cut} more lines cut at max_chars ${max}` : "");
  return result(text, {
    folder,
    index: index,
    tasks: { total: tasks.total, by_status: Object.fromEntries(tasks.byStatus) },
    decisions: decisions.slice(0, 10),
    sessions: sessions.slice(0, 5).map((s) => ({ path: s.path, updated: s.updated, overview: s.overview.slice(0, 300) })),
    recent: recent.entries.map((e) => ({ path: e.path, modified: isoDate(e.mtime) })),
    cut_lines: b.cut,
  });
}
