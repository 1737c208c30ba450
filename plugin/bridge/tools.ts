// The MCP tool set over a VaultBackend: names, JSON schemas and annotations (what MCP
// clients list), and callTool(), which checks the arguments, runs the tool and turns every
// failure into a tool error the model can read (never a thrown exception). The stdio bridge
// (headless) and the plugin's loopback endpoint run this same module, so both modes answer
// the same.

import { errorMessage } from "../core/errors.ts";
import type { VaultBackend } from "../core/vault-backend.ts";
import { argsObject, ToolInputError } from "./args.ts";
import type { ToolResult } from "./loopback-protocol.ts";
import { memorySaveTool, memorySearchTool } from "./memory.ts";
import { applyPatchTool } from "./patch.ts";
import { sessionCompactTool, sessionSaveTool } from "./sessions.ts";
import { listTool, MAX_LIST, MAX_READ_CHARS, MAX_SECTION_IDS, MAX_TOP_K, readTool, searchTool, similarTool, statusTool } from "./read-tools.ts";

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

interface ToolDef extends ToolSpec {
  /** Write tools are refused unless the user turned them on. */
  write: boolean;
  run(backend: VaultBackend, args: Record<string, unknown>): Promise<ToolResult>;
}

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const pathProp = (what: string) => ({
  type: "string",
  description: `${what} Vault-relative, "/" separated, with the extension, e.g. "Projects/Plan.md" (as search results give it).`,
});

const propertyFilter = {
  type: "object",
  description: "A frontmatter property that must equal value (case-insensitive; list properties match any item).",
  properties: { key: { type: "string" }, value: { type: "string" } },
  required: ["key", "value"],
  additionalProperties: false,
};

const DEFS: ToolDef[] = [
  {
    name: "search",
    title: "Search the vault",
    description:
      "Search the user's Obsidian vault (hybrid: keyword BM25 + semantic vectors, fused). Returns a compact overview, best first: " +
      "path, heading path, line range, score breakdown, a short snippet, the section_id to read, and the folder's context. " +
      "Put the user's own words first in queries, then 2–3 rephrasings (synonyms, the likely wording of a note, another language " +
      "the vault uses) unless the previous answer reported a strong signal. Then read the best sections with `read` rather than whole notes.",
    inputSchema: {
      type: "object",
      properties: {
        queries: {
          type: "array",
          items: { type: "string" },
          minItems: 1,
          maxItems: 5,
          description: "1–5 query strings. The first is the user's words (weighted double); the others are your expansions.",
        },
        mode: {
          type: "string",
          enum: ["hybrid", "lexical", "semantic"],
          description: "hybrid (default) fuses keywords and meaning; lexical = exact words, names, codes; semantic = meaning only (needs the model).",
        },
        top_k: { type: "integer", minimum: 1, maximum: MAX_TOP_K, description: "How many results (default 10, at most 50)." },
        filters: {
          type: "object",
          description: "Narrow the search.",
          properties: {
            folder: { type: "string", description: 'Folder prefix, e.g. "Projects" or "Projects/Alpha".' },
            tag: { type: "string", description: 'A tag, with or without "#"; nested tags match their children ("a" matches "a/b").' },
            property: propertyFilter,
            min_depth: { type: "integer", minimum: 0, maximum: 6, description: "0 = whole note, 1–3 = heading levels." },
            max_depth: { type: "integer", minimum: 0, maximum: 6 },
          },
          additionalProperties: false,
        },
        depth_order: {
          type: "string",
          enum: ["relevance", "shallow", "deep"],
          description: "Tie-break: relevance (default), shallow (overviews first) or deep (details first).",
        },
      },
      required: ["queries"],
      additionalProperties: false,
    },
    annotations: { title: "Search the vault", ...READ_ONLY },
    write: false,
    run: searchTool,
  },
  {
    name: "read",
    title: "Read a note or a section",
    description:
      "Read text from a note: one section (section_id or section_ids from search, or a heading), a line range (start_line + max_lines), " +
      "or the whole note (whole: true, or nothing but path). Returns the text with its location and the note's content_hash " +
      "(apply_patch needs it). parent: true widens a section to its parent. Long text is cut at max_chars and says where to continue.",
    inputSchema: {
      type: "object",
      properties: {
        path: pathProp("The note."),
        section_id: { type: "string", description: 'A section id from search or similar, e.g. "Projects/Plan.md#3".' },
        section_ids: {
          type: "array",
          items: { type: "string" },
          minItems: 1,
          maxItems: MAX_SECTION_IDS,
          description: "Several sections of the same note at once.",
        },
        heading: { type: "string", description: 'Heading text, or a heading path such as "Plan > Risks".' },
        start_line: { type: "integer", minimum: 1, description: "First line (1-based) of a line range." },
        max_lines: { type: "integer", minimum: 1, description: "Lines to read from start_line." },
        max_chars: { type: "integer", minimum: 100, maximum: MAX_READ_CHARS, description: "Cut the text here (default 6000, at most 20000)." },
        parent: { type: "boolean", description: "Widen the section to its parent section." },
        whole: { type: "boolean", description: "Read the whole note." },
      },
      required: ["path"],
      additionalProperties: false,
    },
    annotations: { title: "Read a note or a section", ...READ_ONLY },
    write: false,
    run: readTool,
  },
  {
    name: "similar",
    title: "Find similar notes",
    description:
      "Notes whose meaning is closest to a note or one of its sections (semantic vectors; needs the embedding model, see status). " +
      "Use it to find related material the user did not name.",
    inputSchema: {
      type: "object",
      properties: {
        path: pathProp("The note to compare with (give this or section_id)."),
        section_id: { type: "string", description: "A section to compare with, from search or read." },
        top_k: { type: "integer", minimum: 1, maximum: MAX_TOP_K, description: "How many notes (default 10)." },
      },
      additionalProperties: false,
    },
    annotations: { title: "Find similar notes", ...READ_ONLY },
    write: false,
    run: similarTool,
  },
  {
    name: "list",
    title: "List notes",
    description:
      "List notes by folder, tag or frontmatter property (no ranking): path, title, tags, modified date, usage and folder context. " +
      "Use it to browse a folder or to see what exists before searching.",
    inputSchema: {
      type: "object",
      properties: {
        folder: { type: "string", description: 'Folder prefix, e.g. "Projects". Omit for the whole vault.' },
        tag: { type: "string", description: "A tag; nested tags match their children." },
        property: propertyFilter,
        sort: { type: "string", enum: ["path", "mtime"], description: "path (default) or mtime (newest first)." },
        offset: { type: "integer", minimum: 0, description: "Skip this many (paging)." },
        limit: { type: "integer", minimum: 1, maximum: MAX_LIST, description: "At most this many (default 50)." },
      },
      additionalProperties: false,
    },
    annotations: { title: "List notes", ...READ_ONLY },
    write: false,
    run: listTool,
  },
  {
    name: "status",
    title: "Index status",
    description:
      "The vault's index: note and section counts, whether semantic search is on and how much is embedded, pending updates, " +
      "whether the write tools are enabled, and notices for the user.",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    annotations: { title: "Index status", ...READ_ONLY },
    write: false,
    run: (backend) => statusTool(backend),
  },
  {
    name: "apply_patch",
    title: "Edit a note",
    description:
      "Edit one note of the vault, only if it is unchanged since you read it: expected_hash is the content_hash `read` returned. " +
      "edit is either {type: \"replace_section\", heading, content} (the section's text below its heading line is replaced; the heading stays) " +
      "or {type: \"unified_diff\", diff} (a unified diff of this one file, made against the text you read). Give a short reason: the user sees " +
      "it in CHANGELOG.md and the audit log. Off unless the user enabled write tools; refused when the note changed (read it again).",
    inputSchema: {
      type: "object",
      properties: {
        path: pathProp("The note to edit (a .md note)."),
        expected_hash: { type: "string", description: "The content_hash from your latest read of this note (64 hex characters)." },
        edit: {
          type: "object",
          description: "What to change.",
          properties: {
            type: { type: "string", enum: ["replace_section", "unified_diff"] },
            heading: { type: "string", description: 'replace_section: the heading text or path ("Plan > Risks").' },
            content: { type: "string", description: "replace_section: the new text of the section, without its heading line." },
            diff: { type: "string", description: "unified_diff: the diff (---/+++ headers optional, @@ hunks with context lines)." },
          },
          required: ["type"],
          additionalProperties: false,
        },
        reason: { type: "string", description: "Why, in one sentence (shown to the user)." },
      },
      required: ["path", "expected_hash", "edit", "reason"],
      additionalProperties: false,
    },
    annotations: { title: "Edit a note", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    write: true,
    run: applyPatchTool,
  },
  {
    name: "session_save",
    title: "Save a session summary",
    description:
      "At the end of substantial work (or at a milestone), save what happened as a session note in the vault: a short overview, " +
      "decisions, outcomes, open items and the sources (note paths) you used. Without session_id it starts a new session note and " +
      "returns its id; with session_id it appends an entry to that session. status \"closed\" marks the session finished. Off unless the user enabled write tools.",
    inputSchema: {
      type: "object",
      properties: {
        session_id: { type: "string", description: "The id a previous session_save returned; omit to start a new session." },
        overview: { type: "string", description: "What was done and why, in a few sentences." },
        decisions: { type: "array", items: { type: "string" }, maxItems: 50, description: "Decisions taken." },
        outcomes: { type: "array", items: { type: "string" }, maxItems: 50, description: "Results, artefacts, answers." },
        open_items: { type: "array", items: { type: "string" }, maxItems: 50, description: "What is left to do." },
        tags: { type: "array", items: { type: "string" }, maxItems: 20, description: "Tags for the session note (no spaces)." },
        sources: { type: "array", items: { type: "string" }, maxItems: 50, description: "Vault paths (or URLs) the work relied on." },
        status: { type: "string", enum: ["active", "closed"], description: "active (default) or closed." },
      },
      required: ["overview"],
      additionalProperties: false,
    },
    annotations: { title: "Save a session summary", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    write: true,
    run: sessionSaveTool,
  },
  {
    name: "session_compact",
    title: "Compact a session",
    description:
      "Fold a session's older entries into its rolling summary (keeping the newest keep_last entries as they are). Decisions, outcomes, " +
      "open items and every source reference are kept in the summary. Give summary to write the rolling summary text yourself " +
      "(recommended: a few sentences covering the folded entries and the previous summary); open_items replaces the summary's open items. Off unless the user enabled write tools.",
    inputSchema: {
      type: "object",
      properties: {
        session_id: { type: "string", description: "The session to compact." },
        keep_last: { type: "integer", minimum: 0, maximum: 50, description: "Entries to keep unfolded (default 1)." },
        summary: { type: "string", description: "The new rolling summary text (optional)." },
        open_items: { type: "array", items: { type: "string" }, maxItems: 50, description: "The open items still open (optional)." },
      },
      required: ["session_id"],
      additionalProperties: false,
    },
    annotations: { title: "Compact a session", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    write: true,
    run: sessionCompactTool,
  },
  {
    name: "memory_save",
    title: "Remember something",
    description:
      "Save a durable memory as a note: a fact, preference, convention or finding worth recalling in later sessions. level is project " +
      "(holds for the whole project), task, or subtask; parent_id links a task to its project memory or a subtask to its task. ttl_days " +
      "makes it expire (it is then left out of searches and listed for review, never deleted); confidence 0–1 says how sure you are; " +
      "promoted_from names a lower-level memory this one generalises. Off unless the user enabled write tools.",
    inputSchema: {
      type: "object",
      properties: {
        level: { type: "string", enum: ["project", "task", "subtask"] },
        text: { type: "string", description: "The memory itself, self-contained (it is read without its context)." },
        parent_id: { type: "string", description: "The id of the parent memory (a project for a task, a task for a subtask)." },
        metadata: { type: "object", description: "Extra key → string/number/boolean values.", additionalProperties: { type: ["string", "number", "boolean"] } },
        ttl_days: { type: "number", exclusiveMinimum: 0, maximum: 36500, description: "Days until it expires (omit: never)." },
        confidence: { type: "number", minimum: 0, maximum: 1 },
        tags: { type: "array", items: { type: "string" }, maxItems: 20 },
        promoted_from: { type: "string", description: "The id of a lower-level memory this one promotes." },
      },
      required: ["level", "text"],
      additionalProperties: false,
    },
    annotations: { title: "Remember something", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    write: true,
    run: memorySaveTool,
  },
  {
    name: "memory_search",
    title: "Recall memories",
    description:
      "Find saved memories, by meaning and words (query) or newest first (no query), filtered by level and parent_id. Expired memories " +
      "are left out and listed for review (include_expired: true shows them). Each retrieval counts as a use of the memory.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "What to recall (omit to list the newest)." },
        level: {
          description: "One level or a list of levels.",
          anyOf: [
            { type: "string", enum: ["project", "task", "subtask"] },
            { type: "array", items: { type: "string", enum: ["project", "task", "subtask"] }, minItems: 1, maxItems: 3 },
          ],
        },
        parent_id: { type: "string", description: "Only the memories directly under this one." },
        top_k: { type: "integer", minimum: 1, maximum: 50, description: "How many (default 10)." },
        include_expired: { type: "boolean", description: "Also return expired memories (default false)." },
      },
      additionalProperties: false,
    },
    annotations: { title: "Recall memories", readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    write: false,
    run: memorySearchTool,
  },
];

/** The tools as MCP's tools/list gives them. */
export const TOOLS: ToolSpec[] = DEFS.map(({ name, title, description, inputSchema, annotations }) => ({
  name,
  title,
  description,
  inputSchema,
  annotations,
}));

/** A tool error: the model reads `message` and can try again differently. */
export function toolError(message: string): ToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

const ARG_KEYS = new Map(DEFS.map((d) => [d.name, Object.keys(d.inputSchema.properties)]));

/**
 * Runs one tool. Never throws: unknown tools, bad arguments, refusals and failures come back
 * as `isError` results whose text says what went wrong and what to do.
 */
export async function callTool(backend: VaultBackend, name: unknown, rawArgs: unknown): Promise<ToolResult> {
  const def = typeof name === "string" ? DEFS.find((d) => d.name === name) : undefined;
  if (!def) {
    return toolError(`unknown tool ${JSON.stringify(name)}; the tools are: ${DEFS.map((d) => d.name).join(", ")}`);
  }
  try {
    const args = argsObject(rawArgs, ARG_KEYS.get(def.name) ?? []);
    if (def.write && !backend.settings().writeToolsEnabled) {
      return toolError(
        `${def.name} is turned off: the user has not enabled Strata's write tools (Obsidian → Settings → Strata → "Allow Claude to write"). ` +
          "Nothing was written. Tell the user what you would have written instead.",
      );
    }
    return await def.run(backend, args);
  } catch (err) {
    if (err instanceof ToolInputError) return toolError(`invalid arguments for ${def.name}: ${err.message}`);
    return toolError(`${def.name} failed: ${errorMessage(err)}`);
  }
}
