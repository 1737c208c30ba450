// The plugin's settings (data.json in the plugin folder), their defaults and the core config
// derived from them.

import type { CoreConfig, SearchMode } from "../core/api.ts";
import type { ToolSettings } from "../core/vault-backend.ts";
import { AUTO_MODEL, type ModelCatalog } from "../core/models.ts";
import { chooseWorkers, MAX_WORKERS, type WorkerChoice } from "../core/embedding/pool.ts";
import { DEFAULT_CODE_EXCLUDE, DEFAULT_CODE_EXTENSIONS, DEFAULT_MAX_CODE_BYTES } from "../core/code-hook.ts";

export interface StrataSettings extends ToolSettings {
  /** Vault folders not indexed (prefix on whole segments). */
  excludeFolders: string[];
  /** Extensions indexed, without dot. */
  extensions: string[];
  /** Section split budget in estimated tokens. */
  chunkBudget: number;
  /** Index source files (and JSON, YAML) as definitions: functions, classes, keys. */
  codeEnabled: boolean;
  /** Extensions indexed as code, without dot. */
  codeExtensions: string[];
  /** Folders whose code files are skipped, by name anywhere in a path (node_modules) or as a path. */
  codeExcludeFolders: string[];
  /** Code files larger than this (KB) are skipped with a warning. */
  maxCodeKB: number;
  /** Hybrid fusion: reciprocal rank fusion (default) or linear (the same per-query weights on max-normalised BM25 and cosine). */
  fusion: "rrf" | "linear";
  /** The sidebar's and the modal's search mode. */
  mode: SearchMode;
  /** Embed notes for semantic search. null = automatic: on on desktop, off on mobile. */
  semantic: boolean | null;
  /** The embedding model: "auto" (by the vault's scripts) or a model id (the core's catalog:
   *  checked once the worker has said which models it knows). The headless bridge reads it
   *  from data.json too. */
  embeddingModel: string;
  /** MCP bridge (desktop): serve the vault's index to the bridge over 127.0.0.1. */
  bridgeEnabled: boolean;
  /** Loopback port; 0 = any free port. */
  bridgePort: number;
  /** Bearer token of the loopback endpoint (regenerated on demand). */
  bridgeToken: string;
  /** Results shown in the modal and the sidebar. */
  resultCount: number;
  /** Embedder workers beside the search worker: "auto" (cores − 1, within the memory budget;
   *  none on mobile, where the search worker's own embedder embeds) or 1…16. */
  embedWorkers: "auto" | number;
  /** Where model downloads come from: a folder URL holding the release's assets (a mirror, a
   *  company server); "" = this version's release on the repository the plugin was built for. */
  modelDownloadUrl: string;
  /** Models whose download a notice has offered (once each: the settings tab keeps offering it). */
  offeredModels: string[];
}

export const DEFAULT_SETTINGS: StrataSettings = {
  excludeFolders: [],
  extensions: ["md"],
  chunkBudget: 512,
  codeEnabled: true,
  codeExtensions: DEFAULT_CODE_EXTENSIONS,
  codeExcludeFolders: DEFAULT_CODE_EXCLUDE,
  maxCodeKB: DEFAULT_MAX_CODE_BYTES / 1024,
  fusion: "rrf",
  mode: "hybrid",
  semantic: null,
  embeddingModel: AUTO_MODEL,
  bridgeEnabled: false,
  bridgePort: 0,
  bridgeToken: "",
  resultCount: 30,
  modelDownloadUrl: "",
  offeredModels: [],
  embedWorkers: "auto",
  writeToolsEnabled: false,
  sessionsFolder: "Strata/Sessions",
  memoryFolder: "Strata/Memory",
  changelogFolder: "Strata",
};

/** Settings from data.json, with bad or missing values replaced by the defaults. */
export function sanitizeSettings(raw: unknown): StrataSettings {
  const s: StrataSettings = {
    ...DEFAULT_SETTINGS,
    excludeFolders: [],
    extensions: [...DEFAULT_SETTINGS.extensions],
    codeExtensions: [...DEFAULT_CODE_EXTENSIONS],
    codeExcludeFolders: [...DEFAULT_CODE_EXCLUDE],
    offeredModels: [],
  };
  if (!raw || typeof raw !== "object") return s;
  const r = raw as Record<string, unknown>;
  const strList = (v: unknown) =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x.trim() !== "").map((x) => x.trim()) : null;
  const str = (v: unknown, d: string) => (typeof v === "string" ? v : d);
  const bool = (v: unknown, d: boolean) => (typeof v === "boolean" ? v : d);
  const int = (v: unknown, d: number, lo: number, hi: number) =>
    typeof v === "number" && Number.isFinite(v) ? Math.min(hi, Math.max(lo, Math.round(v))) : d;
  s.excludeFolders = folderList(strList(r.excludeFolders) ?? []);
  const exts = extensionList(strList(r.extensions) ?? s.extensions);
  s.extensions = exts.length ? exts : ["md"];
  s.chunkBudget = int(r.chunkBudget, s.chunkBudget, 64, 4096);
  s.codeEnabled = bool(r.codeEnabled, true);
  s.codeExtensions = extensionList(strList(r.codeExtensions) ?? s.codeExtensions);
  s.codeExcludeFolders = folderList(strList(r.codeExcludeFolders) ?? s.codeExcludeFolders);
  s.maxCodeKB = int(r.maxCodeKB, s.maxCodeKB, 1, MAX_CODE_KB);
  s.fusion = r.fusion === "linear" ? "linear" : "rrf";
  s.mode = r.mode === "lexical" || r.mode === "semantic" ? r.mode : "hybrid";
  s.semantic = typeof r.semantic === "boolean" ? r.semantic : null;
  s.embeddingModel = typeof r.embeddingModel === "string" && /^[\w.-]{1,100}$/.test(r.embeddingModel) ? r.embeddingModel : AUTO_MODEL;
  s.bridgeEnabled = bool(r.bridgeEnabled, false);
  s.bridgePort = int(r.bridgePort, 0, 0, 65535);
  s.bridgeToken = str(r.bridgeToken, "");
  s.resultCount = int(r.resultCount, s.resultCount, 5, 200);
  s.offeredModels = (strList(r.offeredModels) ?? []).filter((id) => /^[\w.-]{1,100}$/.test(id));
  s.modelDownloadUrl =
    typeof r.modelDownloadUrl === "string" && /^https?:\/\/\S+$/.test(r.modelDownloadUrl.trim()) ? r.modelDownloadUrl.trim() : "";
  s.embedWorkers = r.embedWorkers === "auto" ? "auto" : int(r.embedWorkers, 0, 1, MAX_WORKERS) || "auto";
  s.writeToolsEnabled = bool(r.writeToolsEnabled, false);
  s.sessionsFolder = str(r.sessionsFolder, s.sessionsFolder).trim() || DEFAULT_SETTINGS.sessionsFolder;
  s.memoryFolder = str(r.memoryFolder, s.memoryFolder).trim() || DEFAULT_SETTINGS.memoryFolder;
  s.changelogFolder = str(r.changelogFolder, s.changelogFolder).trim() || DEFAULT_SETTINGS.changelogFolder;
  return s;
}

/** The largest value of the "Largest code file" setting (KB): 64 MB. */
export const MAX_CODE_KB = 65536;

/** Extensions as settings keep them: without the dot, lower case, letters and digits only. */
export function extensionList(items: string[]): string[] {
  return [...new Set(items.map((e) => e.trim().replace(/^\./, "").toLowerCase()).filter((e) => /^[a-z0-9]+$/.test(e)))];
}

/** Folders as settings keep them: vault-relative, without leading or trailing slashes. */
export function folderList(items: string[]): string[] {
  return items.map((f) => f.trim().replace(/^\/+|\/+$/g, "")).filter(Boolean);
}

/** The core's configuration: the vault-wide settings, and this device's id (device-id.ts). */
export function coreConfig(s: StrataSettings, configDir: string, deviceId: string): CoreConfig {
  return {
    configDir,
    deviceId,
    extensions: s.extensions,
    excludeFolders: s.excludeFolders,
    chunkBudget: s.chunkBudget,
    codeEnabled: s.codeEnabled,
    codeExtensions: s.codeExtensions,
    codeExcludeFolders: s.codeExcludeFolders,
    maxCodeBytes: s.maxCodeKB * 1024,
  };
}

/** The extensions of the files the plugin lists and follows events of: the notes', and the
 *  code's when code is indexed (the core's shouldIndex then decides, folders included). */
export function listedExtensions(s: StrataSettings): Set<string> {
  return new Set([...s.extensions, ...(s.codeEnabled ? s.codeExtensions : [])]);
}

/** How to add a model to the plugin (its files are not in main.js: the settings tab downloads them). */
export function pluginModelHowTo(modelsDir: string, id: string, catalog: ModelCatalog): string {
  const license = catalog.info(id)?.license;
  return `download it in Settings → Strata → Semantic search${license ? ` (license ${license})` : ""}, or import its model.onnx and tokenizer.json from a folder there (they go to ${modelsDir}/${id}/)`;
}

/** A new random bearer token (hex, 256 bits). */
export function newToken(): string {
  const b = new Uint8Array(32);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** The embedder workers the setting gives on this device (navigator's cores and memory; Chromium
 *  reports at most 8 GB), for a model id (null: the largest's memory). On mobile: none, the
 *  search worker's own embedder embeds. */
export function embedWorkerChoice(setting: "auto" | number, model: string | null, mobile: boolean): WorkerChoice {
  const nav = typeof navigator === "undefined" ? undefined : (navigator as Navigator & { deviceMemory?: number });
  const cores = nav?.hardwareConcurrency || 2;
  const totalMemoryMB = nav?.deviceMemory ? nav.deviceMemory * 1024 : undefined;
  return chooseWorkers(setting, { cores, totalMemoryMB, mobile, model });
}
