// What the MCP tools (plugin/bridge/tools.ts) need from "a vault with a Strata index".
// Two implementations answer the same:
//   - the Obsidian plugin (plugin/obsidian/…): the core in its Web Worker, writes through
//     app.vault, served to the bridge over the loopback endpoint (plugin/bridge/loopback.ts);
//   - headless (plugin/bridge/headless.ts): the bridge or `strata mcp` loads the wasm core
//     and the persisted index itself (Obsidian not running), writes atomically on disk.
// Paths are vault-relative, "/" separated. Implementations must refuse paths that leave the
// vault or enter the config folder (the tools check first; this is the second line).

import type { EmbedProgress, NoteInfo, Outline, ReadRequest, ReadResult, SearchRequest, SearchResponse, Status } from "./api.ts";
import type { CoreRead, CoreReadAnswer, CoreReadRequest } from "./core-reads.ts";

export interface BackendStatus {
  mode: "plugin" | "headless";
  vault: string; // the vault's name (folder name)
  configDir: string;
  index: Status;
  embedding: EmbedProgress | null;
  /** Notes waiting to be indexed (debounced events, reconcile in progress). */
  pendingNotes: number;
  /** ms since epoch of the last index update, null if none this session. */
  lastUpdate: number | null;
  /** What the user should know (no model, index rebuilt, …). */
  notices: string[];
}

/** User settings that govern the tools (the plugin's settings tab; flags/env headless). */
export interface ToolSettings {
  /** apply_patch, session_save/compact and memory_save are refused unless true. Default false. */
  writeToolsEnabled: boolean;
  /** Vault folder of session notes. Default "Strata/Sessions". */
  sessionsFolder: string;
  /** Vault folder of memory notes. Default "Strata/Memory". */
  memoryFolder: string;
  /** Vault folder of the readable CHANGELOG.md of tool writes. Default "Strata". */
  changelogFolder: string;
}

export interface VaultBackend {
  status(): Promise<BackendStatus>;
  settings(): ToolSettings;
  search(req: SearchRequest): Promise<SearchResponse>;
  read(req: ReadRequest): Promise<ReadResult>;
  /** One of the core's reads (core-reads.ts: similar notes, notes by folder/tag/property, tasks,
   *  notes by a property expression) with the core's answer. A path the request names is checked
   *  first (inside the vault, outside the config folder). */
  coreRead<K extends CoreRead>(read: K, req: CoreReadRequest<K>): Promise<CoreReadAnswer<K>>;
  note(path: string): Promise<NoteInfo | null>;
  /** Counts a retrieval in the index catalog (memory usage tracking; never rewrites notes). */
  recordAccess(paths: string[]): Promise<void>;
  /** The raw text of a vault file, null when it does not exist. */
  readText(path: string): Promise<string | null>;
  /**
   * Creates or replaces a note (creating folders), then brings the index up to date for it,
   * so a search right after sees the new text. Plugin: through app.vault; headless: atomic
   * write (temp file + rename) and a core update + persist.
   * `expected` (when given): the text the caller read, or null for "must not exist yet";
   * the write is refused ("[conflict] …") when the note is not that any more — checked in
   * the same step as the write where the platform allows (Obsidian's vault.process),
   * immediately before the rename headless.
   */
  writeText(path: string, text: string, expected?: string | null): Promise<void>;
  /** The outline of a note's text (headings, frontmatter) from the core's Markdown parse, the
   *  one `read` uses: an edit by heading finds what `read` found. */
  outline(text: string): Promise<Outline>;
  /** Appends a line to a file in the plugin folder (the audit log "audit.jsonl"). */
  appendPluginFile(name: string, text: string): Promise<void>;
  /** The text of a file in the plugin folder (the audit log), null when it does not exist. */
  readPluginFile(name: string): Promise<string | null>;
}
