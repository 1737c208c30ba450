// What the plugin's views and helpers use of the plugin (plugin.ts), as interfaces the plugin
// class implements. They import this module, never plugin.ts, so plugin.ts imports them
// without an import cycle; each takes the narrowest interface that covers what it uses.

import type { App } from "obsidian";
import type { EmbedProgress, SearchRequest, SearchResponse, SimilarResponse, Status, TasksRequest, TasksResponse } from "../core/api.ts";
import type { ModelCatalog, ModelLoad } from "../core/models.ts";
import type { VaultBackend } from "../core/vault-backend.ts";
import type { ModelInstaller } from "./model-install.ts";
import type { Endpoint } from "./rpc.ts";
import type { StrataSettings } from "./settings.ts";
import type { ApplyResult, ChangeSet, HostApi, WorkerApi, WorkerState } from "./worker-protocol.ts";

/** The embedding model: off in the settings, its files missing, loading, loaded, or failed to load;
 *  `queries`: loaded for queries only, on a device that does not embed (other devices' vectors answer);
 *  `over-budget`: not loaded, a phone's memory budget does not allow it (memory-budget.ts). */
export type ModelState = "off" | "absent" | "loading" | "loaded" | "error" | "queries" | "over-budget";

/** The MCP bridge's loopback endpoint, or the presence marker while it is off (bridge-endpoint.ts). */
export interface BridgeHandle {
  port: number;
  /** The endpoint's MCP calls over HTTP: in flight, cancelled, clients (absent for the presence marker). */
  mcpStats?(): { inFlight: number; cancelled: number; clients: number };
  close(): Promise<void>;
}

/** The search views (search-modal.ts, tasks-modal.ts, sidebar.ts): the worker's answers and the
 *  search settings they read (the sidebar's mode switch also changes and saves `mode`). */
export interface SearchHost {
  readonly settings: Pick<StrataSettings, "mode" | "resultCount">;
  search(req: SearchRequest, signal?: AbortSignal): Promise<SearchResponse>;
  similar(path: string, k: number, signal?: AbortSignal): Promise<SimilarResponse>;
  tasks(req: TasksRequest): Promise<TasksResponse>;
  saveSettings(): Promise<void>;
}

/** The MCP bridge's endpoint (bridge-endpoint.ts): the vault's folder on disk, the plugin folder
 *  (for bridge.json) and the tools' backend. */
export interface BridgeHost {
  readonly app: Pick<App, "vault">;
  readonly pluginDir: string;
  readonly backend: VaultBackend;
}

/** The settings tab's Claude rows (settings-claude.ts): where the bridge is, and its download; the
 *  loopback endpoint (its address and token, turning it on, rotating the token). */
export interface ClaudeRowsHost {
  readonly app: Pick<App, "vault">;
  readonly pluginDir: string;
  readonly installer: ModelInstaller;
  readonly settings: Pick<StrataSettings, "bridgeEnabled" | "bridgePort" | "bridgeToken">;
  readonly bridge: BridgeHandle | null;
  readonly bridgeError: string | null;
  saveSettings(): Promise<void>;
  restartBridge(): Promise<void>;
  regenerateToken(): Promise<void>;
}

/** The settings tab's model rows (settings-model.ts): downloads, the missing model, the embedder build in use. */
export interface ModelRowsHost {
  readonly installer: ModelInstaller;
  /** The model the setting chose whose files are missing, or null. */
  readonly missingModel: string | null;
  workerState(): Promise<WorkerState | null>;
}

/** The settings tab (settings-tab.ts): the settings, the state its rows show and the actions they start. */
export interface SettingsHost extends ClaudeRowsHost, ModelRowsHost {
  readonly settings: StrataSettings;
  readonly semanticEnabled: boolean;
  readonly indexDir: string;
  readonly modelsDir: string;
  /** The models the core knows; null until the worker started. */
  readonly models: ModelCatalog | null;
  readonly modelState: ModelState;
  readonly modelError: string | null;
  readonly modelLoad: ModelLoad | null;
  readonly embedProgress: EmbedProgress | null;
  readonly embedWorkers: { workers: number; reason: string };
  readonly bridge: BridgeHandle | null;
  readonly bridgeError: string | null;
  saveSettings(): Promise<void>;
  loadModel(): Promise<void>;
  setEmbeddingModel(setting: string): Promise<void>;
  setEmbedWorkers(setting: "auto" | number): Promise<void>;
  reindexForSettings(): Promise<void>;
  restartBridge(): Promise<void>;
  regenerateToken(): Promise<void>;
  indexStatus(): Promise<Status | null>;
  rebuild(): Promise<void>;
  clearIndex(): Promise<void>;
}

/** The MCP tools' backend (tool-backend.ts): the worker, the vault, what the status tool reports,
 *  the tools' settings, and the write path that indexes a note it wrote. */
export interface ToolHost {
  readonly app: Pick<App, "vault">;
  readonly pluginDir: string;
  readonly modelsDir: string;
  /** Resolves when the index is open. */
  readonly ready: Promise<void>;
  readonly worker: Endpoint<WorkerApi, HostApi> | null;
  readonly settings: StrataSettings;
  readonly notices: readonly string[];
  readonly modelState: ModelState;
  readonly modelLoad: ModelLoad | null;
  /** Vault changes not yet sent to the worker. */
  readonly queue: { readonly size: number } | null;
  applyChanges(cs: ChangeSet): Promise<ApplyResult | null>;
}

/** The index status notice (status.ts): the index, the embedding and the bridge, as the plugin has them. */
export interface StatusHost {
  readonly indexDir: string;
  readonly modelsDir: string;
  readonly modelState: ModelState;
  readonly modelError: string | null;
  readonly embedProgress: EmbedProgress | null;
  readonly bridge: BridgeHandle | null;
  indexStatus(): Promise<Status | null>;
  workerState(): Promise<WorkerState | null>;
}
