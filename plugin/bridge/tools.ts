// The MCP tool set over a VaultBackend: names, descriptions, input schemas and annotations
// (what MCP clients list), and callTool(), which checks the arguments against the tool's schema,
// runs the tool and turns every failure into a tool error the model can read (never a thrown
// exception). The stdio bridge (headless) and the plugin's loopback endpoint run this same
// module, so both modes answer the same. Each tool's input schema lives with its code.

import type { z } from "zod";

import { errorMessage } from "../core/errors.ts";
import type { VaultBackend } from "../core/vault-backend.ts";
import type { ToolResult } from "./loopback-protocol.ts";
import { memorySaveInput, memorySaveTool, memorySearchInput, memorySearchTool } from "./memory.ts";
import { logInput, logTool } from "./audit-tools.ts";
import { projectSnapshotInput, projectSnapshotTool, sessionDiffInput, sessionDiffTool } from "./governance-tools.ts";
import { applyPatchInput, applyPatchTool } from "./patch.ts";
import { outlineInput, outlineTool, queryInput, queryTool, tasksInput, tasksTool } from "./query-tools.ts";
import {
  listInput,
  listTool,
  readInput,
  readTool,
  searchInput,
  searchTool,
  similarInput,
  similarTool,
  statusInput,
  statusTool,
} from "./read-tools.ts";
import { sessionCompactInput, sessionCompactTool, sessionSaveInput, sessionSaveTool } from "./sessions.ts";
import { jsonSchema, parseArgs, ToolInputError } from "./tool-schema.ts";
import type { Caller } from "./writes.ts";

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, unknown>; required?: string[]; additionalProperties: false };
  annotations: ToolAnnotations;
}

interface ToolDef {
  name: string;
  title: string;
  description: string;
  /** The tool's arguments: listed as a JSON schema, every call checked against it. */
  input: z.ZodType;
  annotations: ToolAnnotations;
  /** Write tools are refused unless the user turned them on (but a call with `dry_run: true`,
   *  which writes nothing). */
  write: boolean;
  run(backend: VaultBackend, args: unknown, caller: Caller): Promise<ToolResult>;
}

/** A tool whose `run` takes what its schema parses. */
function tool<S extends z.ZodType>(
  def: Omit<ToolDef, "input" | "run"> & {
    input: S;
    run(backend: VaultBackend, args: z.output<S>, caller: Caller): Promise<ToolResult>;
  },
): ToolDef {
  return def;
}

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const DEFS: ToolDef[] = [
  tool({
    name: "search",
    title: "Search the vault",
    description:
      "Search the user's Obsidian vault (hybrid: keyword BM25 + semantic vectors, fused). Returns a compact overview, best first: " +
      "path, heading path, line range, score breakdown, a short snippet, the section_id to read, and the folder's context. " +
      "Put the user's own words first in queries, then 2–3 rephrasings (synonyms, the likely wording of a note, another language " +
      "the vault uses) unless the previous answer reported a strong signal. Then read the best sections with `read` rather than whole notes. " +
      "Code files in the vault are indexed by definition: a code result is cited as path:line with its language, kind and signature; " +
      "filters.lang and filters.kind (e.g. python, function) keep to code, and the query may say lang:python or kind:function. " +
      'filters.where keeps notes whose frontmatter matches a property expression, as in query ("status = draft AND file.mtime >= today-7d").',
    input: searchInput,
    annotations: { title: "Search the vault", ...READ_ONLY },
    write: false,
    run: searchTool,
  }),
  tool({
    name: "read",
    title: "Read a note or a section",
    description:
      "Read text from a note: one section (section_id or section_ids from search, or a heading), a line range (start_line + max_lines), " +
      "or the whole note (whole: true, or nothing but path). Returns the text with its location and the note's content_hash " +
      "(apply_patch needs it). parent: true widens a section to its parent. Long text is cut at max_chars and says where to continue. " +
      'In a code file, symbol ("rebuild_auth" or "SessionRedirectMixin.rebuild_auth") reads that definition with a few lines of context and the file\'s imports.',
    input: readInput,
    annotations: { title: "Read a note or a section", ...READ_ONLY },
    write: false,
    run: readTool,
  }),
  tool({
    name: "similar",
    title: "Find similar notes",
    description:
      "Notes whose meaning is closest to a note or one of its sections (semantic vectors; needs the embedding model, see status). " +
      "Use it to find related material the user did not name.",
    input: similarInput,
    annotations: { title: "Find similar notes", ...READ_ONLY },
    write: false,
    run: similarTool,
  }),
  tool({
    name: "list",
    title: "List notes",
    description:
      "List notes by folder, tag or frontmatter property (no ranking): path, title, tags, modified date, usage and folder context. " +
      "Use it to browse a folder or to see what exists before searching.",
    input: listInput,
    annotations: { title: "List notes", ...READ_ONLY },
    write: false,
    run: listTool,
  }),
  tool({
    name: "tasks",
    title: "Find tasks",
    description:
      "Task list items (- [ ] …) across the vault, open ones by default: filter by status, folder, note, tag, text, the note's properties (where), " +
      "due/scheduled/done dates, when (overdue, today, this-week) and priority; sort by due or priority; group_by status, folder, note or tag with counts. " +
      "Reads Tasks-plugin emoji dates and Dataview fields. Each task comes with its path and line (to read or patch it) and heading.",
    input: tasksInput,
    annotations: { title: "Find tasks", ...READ_ONLY },
    write: false,
    run: tasksTool,
  }),
  tool({
    name: "query",
    title: "Query notes by properties",
    description:
      'Notes whose frontmatter matches a property expression, e.g. "status = draft AND file.mtime >= today-7d" or "tags contains project AND due < 2026-12-01", ' +
      "sorted (sort) and paged. Returns each note's path and the values of the fields named. A bad expression is refused with its position.",
    input: queryInput,
    annotations: { title: "Query notes by properties", ...READ_ONLY },
    write: false,
    run: queryTool,
  }),
  tool({
    name: "outline",
    title: "Outline a note",
    description:
      "A note's structure without its text: every heading with its level and line range (and the section_id to read it), " +
      "and the note's tasks and links under the heading that holds them, with their lines. Use it to find where to read or patch in a long note.",
    input: outlineInput,
    annotations: { title: "Outline a note", ...READ_ONLY },
    write: false,
    run: outlineTool,
  }),
  tool({
    name: "log",
    title: "Show the audit log",
    description:
      "The writes Strata's tools made to the vault (the audit log), newest last: time, tool, note path, content hash before → after, " +
      "the reason given, the client that asked and the notes the write was based on. " +
      "Filter by path (a note or a folder), tool and since (ISO date or date-time); last says how many.",
    input: logInput,
    annotations: { title: "Show the audit log", ...READ_ONLY },
    write: false,
    run: logTool,
  }),
  tool({
    name: "session_diff",
    title: "What changed since a session's last save",
    description:
      "The writes Strata's tools made since a session was last saved (from the audit log: time, tool, note, hashes, reason, client) " +
      "and the notes those writes were based on. Use it before session_save to record what was done, or when the user asks what you changed.",
    input: sessionDiffInput,
    annotations: { title: "What changed since a session's last save", ...READ_ONLY },
    write: false,
    run: sessionDiffTool,
  }),
  tool({
    name: "project_snapshot",
    title: "A project folder at a glance",
    description:
      "An overview of a project folder within max_chars: its index note's lead, open tasks by status, the newest decisions and " +
      'summaries of sessions about it, and the notes changed last, each with its path to read further. Start here for "where are we on X?".',
    input: projectSnapshotInput,
    annotations: { title: "A project folder at a glance", ...READ_ONLY },
    write: false,
    run: projectSnapshotTool,
  }),
  tool({
    name: "status",
    title: "Index status",
    description:
      "The vault's index: note and section counts, whether semantic search is on and how much is embedded, pending updates, " +
      "whether the write tools are enabled, and notices for the user.",
    input: statusInput,
    annotations: { title: "Index status", ...READ_ONLY },
    write: false,
    run: (backend) => statusTool(backend),
  }),
  tool({
    name: "apply_patch",
    title: "Edit a note",
    description:
      "Edit one note of the vault, only if it is unchanged since you read it: expected_hash is the content_hash `read` returned. " +
      'edit is either {type: "replace_section", heading, content} (the section\'s text below its heading line is replaced; the heading stays) ' +
      'or {type: "unified_diff", diff} (a unified diff of this one file, made against the text you read). Give a short reason: the user sees ' +
      "it in CHANGELOG.md and the audit log. dry_run: true writes nothing and returns the diff and the resulting hash (allowed with write tools off). " +
      "Off unless the user enabled write tools; refused when the note changed (read it again).",
    input: applyPatchInput,
    annotations: { title: "Edit a note", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    write: true,
    run: applyPatchTool,
  }),
  tool({
    name: "session_save",
    title: "Save a session summary",
    description:
      "At the end of substantial work (or at a milestone), save what happened as a session note in the vault: a short overview, " +
      "decisions, outcomes, open items and the sources (note paths) you used. Without session_id it starts a new session note and " +
      'returns its id; with session_id it appends an entry to that session. status "closed" marks the session finished. Off unless the user enabled write tools.',
    input: sessionSaveInput,
    annotations: {
      title: "Save a session summary",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    write: true,
    run: sessionSaveTool,
  }),
  tool({
    name: "session_compact",
    title: "Compact a session",
    description:
      "Fold a session's older entries into its rolling summary (keeping the newest keep_last entries as they are). Decisions, outcomes, " +
      "open items and every source reference are kept in the summary. Give summary to write the rolling summary text yourself " +
      "(recommended: a few sentences covering the folded entries and the previous summary); open_items replaces the summary's open items. Off unless the user enabled write tools.",
    input: sessionCompactInput,
    annotations: { title: "Compact a session", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    write: true,
    run: sessionCompactTool,
  }),
  tool({
    name: "memory_save",
    title: "Remember something",
    description:
      "Save a durable memory as a note: a fact, preference, convention or finding worth recalling in later sessions. level is project " +
      "(holds for the whole project), task, or subtask; parent_id links a task to its project memory or a subtask to its task. ttl_days " +
      "makes it expire (it is then left out of searches and listed for review, never deleted); confidence 0–1 says how sure you are; " +
      "promoted_from names a lower-level memory this one generalises. Off unless the user enabled write tools.",
    input: memorySaveInput,
    annotations: { title: "Remember something", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    write: true,
    run: memorySaveTool,
  }),
  tool({
    name: "memory_search",
    title: "Recall memories",
    description:
      "Find saved memories, by meaning and words (query) or newest first (no query), filtered by level and parent_id. Expired memories " +
      "are left out and listed for review (include_expired: true shows them). Each retrieval counts as a use of the memory.",
    input: memorySearchInput,
    annotations: { title: "Recall memories", readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    write: false,
    run: memorySearchTool,
  }),
];

/** The tools as MCP's tools/list gives them. */
export const TOOLS: ToolSpec[] = DEFS.map(({ name, title, description, input, annotations }) => ({
  name,
  title,
  description,
  inputSchema: jsonSchema(input) as ToolSpec["inputSchema"],
  annotations,
}));

/** A tool error: the model reads `message` and can try again differently. */
export function toolError(message: string): ToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/**
 * The result as every client reads it: some clients (Claude Code, VS Code) give the model only
 * `structuredContent` when a result has it, others only `content`. So the structured result
 * starts with `answer`, the text written for the model (its hits, notices and next steps), or,
 * where a tool's structured result already holds the long part of that text (`read`: the
 * note's text), the rest of it, which the tool sets itself.
 */
export function readable(r: ToolResult): ToolResult {
  if (!r.structuredContent) return r;
  const { answer, ...rest } = r.structuredContent;
  const text = typeof answer === "string" ? answer : r.content.map((c) => c.text).join("\n");
  return { ...r, structuredContent: { answer: text, ...rest } };
}

/** Thrown into a tool that its client cancelled, at the tool's next step. */
export class CallCancelled extends Error {
  constructor(reason?: unknown) {
    super(`cancelled by the client${typeof reason === "string" && reason ? ` (${reason})` : ""}`);
  }
}

/**
 * The backend as a cancellable call sees it: every step (a search, a read, a write) checks
 * `signal` before it starts and after it ends, so a cancelled call stops at its next step and
 * writes nothing after it was cancelled. (A step under way finishes: the core's work is not
 * interrupted halfway.)
 */
export function cancellable(backend: VaultBackend, signal: AbortSignal): VaultBackend {
  const check = () => {
    if (signal.aborted) throw new CallCancelled(signal.reason);
  };
  const step =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      check();
      const out = await fn(...a);
      check();
      return out;
    };
  return {
    status: step(() => backend.status()),
    settings: () => backend.settings(),
    search: step((r) => backend.search(r)),
    read: step((r) => backend.read(r)),
    coreRead: (read, r) => step(() => backend.coreRead(read, r))(),
    note: step((p) => backend.note(p)),
    recordAccess: step((p) => backend.recordAccess(p)),
    readText: step((p) => backend.readText(p)),
    writeText: step((p, t, e) => backend.writeText(p, t, e)),
    outline: step((t) => backend.outline(t)),
    appendPluginFile: step((n, t) => backend.appendPluginFile(n, t)),
    readPluginFile: step((n) => backend.readPluginFile(n)),
  };
}

/**
 * Runs one tool for `caller` (recorded with its writes). Never throws: unknown tools, bad arguments, refusals and failures come back
 * as `isError` results whose text says what went wrong and what to do. With `signal`, the call stops at its next step once it aborts.
 */
export async function callTool(
  backend: VaultBackend,
  name: unknown,
  rawArgs: unknown,
  caller: Caller = {},
  signal?: AbortSignal,
): Promise<ToolResult> {
  const def = typeof name === "string" ? DEFS.find((d) => d.name === name) : undefined;
  if (!def) {
    return toolError(`unknown tool ${JSON.stringify(name)}; the tools are: ${DEFS.map((d) => d.name).join(", ")}`);
  }
  try {
    const args = parseArgs(def.input, rawArgs);
    const preview = (args as { dry_run?: unknown }).dry_run === true;
    if (def.write && !preview && !backend.settings().writeToolsEnabled) {
      return toolError(
        `${def.name} is turned off: the user has not enabled Strata's write tools (Obsidian → Settings → Strata → "Allow write tools"). ` +
          "Nothing was written. Tell the user what you would have written instead.",
      );
    }
    return readable(await def.run(signal ? cancellable(backend, signal) : backend, args, caller));
  } catch (err) {
    if (err instanceof ToolInputError) return toolError(`invalid arguments for ${def.name}: ${err.message}`);
    if (err instanceof CallCancelled) return toolError(`${def.name} stopped: ${err.message}. What it did before is kept.`);
    return toolError(`${def.name} failed: ${errorMessage(err)}`);
  }
}
