// The plugin's VaultBackend (plugin/core/vault-backend.ts) for the MCP tools: index reads go to the
// search worker, note reads and writes go through app.vault, the audit log through the adapter
// into the plugin folder. A write is pushed to the worker directly (not left to the debounced
// vault event), so a search right after it sees the new text.

import { normalizePath, TFile } from "obsidian";
import type { NoteInfo, Outline, ReadRequest, ReadResult, SearchRequest, SearchResponse } from "../core/api.ts";
import { callCoreRead, requestPath, type CoreRead, type CoreReadAnswer, type CoreReadRequest } from "../core/core-reads.ts";
import type { BackendStatus, ToolSettings, VaultBackend } from "../core/vault-backend.ts";
import type { ToolHost } from "./host.ts";
import type { HostApi, WorkerApi } from "./worker-protocol.ts";
import type { Endpoint } from "./rpc.ts";

export class ObsidianBackend implements VaultBackend {
  constructor(private readonly plugin: ToolHost) {}

  private async worker(): Promise<Endpoint<WorkerApi, HostApi>> {
    await this.plugin.ready;
    const w = this.plugin.worker;
    if (!w) throw new Error("[unavailable] Strata is not running");
    return w;
  }

  /** The second line of path checks (the tools check first): inside the vault, outside the config folder. */
  private safe(path: string): string {
    const p = normalizePath(path);
    const cfg = this.plugin.app.vault.configDir;
    if (
      !p ||
      p !== path.replace(/\/+$/, "") ||
      p.startsWith("/") ||
      /^[A-Za-z]:/.test(p) ||
      p.split("/").some((s) => s === ".." || s === "." || s.startsWith(".")) ||
      p === cfg ||
      p.startsWith(cfg + "/")
    ) {
      throw new Error(`refused: ${JSON.stringify(path)} is not a note path inside the vault`);
    }
    return p;
  }

  async status(): Promise<BackendStatus> {
    const w = await this.worker();
    const [index, state] = await Promise.all([w.call("status", {}), w.call("state", {})]);
    const notices = [...this.plugin.notices];
    // A missing model's notice (how to get it) is among the plugin's notices already.
    if (this.plugin.modelState === "absent" && !this.plugin.modelLoad?.notice)
      notices.push(`semantic search is off: no embedding model in ${this.plugin.modelsDir}`);
    const e = state.embedding;
    if (e && e.modelLoaded && e.done < e.total) notices.push(`embedding in progress: ${e.done}/${e.total}`);
    return {
      mode: "plugin",
      vault: this.plugin.app.vault.getName(),
      configDir: this.plugin.app.vault.configDir,
      index,
      embedding: e && e.modelLoaded ? e : null,
      pendingNotes: state.pendingNotes + (this.plugin.queue?.size ?? 0),
      lastUpdate: state.lastUpdate,
      notices,
    };
  }

  settings(): ToolSettings {
    const s = this.plugin.settings;
    return {
      writeToolsEnabled: s.writeToolsEnabled,
      sessionsFolder: s.sessionsFolder,
      memoryFolder: s.memoryFolder,
      changelogFolder: s.changelogFolder,
    };
  }

  async search(req: SearchRequest): Promise<SearchResponse> {
    return (await this.worker()).call("search", { fusion: this.plugin.settings.fusion, ...req });
  }

  async read(req: ReadRequest): Promise<ReadResult> {
    return (await this.worker()).call("read", { ...req, path: this.safe(req.path) });
  }

  async coreRead<K extends CoreRead>(read: K, req: CoreReadRequest<K>): Promise<CoreReadAnswer<K>> {
    const path = requestPath(req);
    const checked = path ? { ...req, path: this.safe(path) } : req;
    return callCoreRead(await this.worker(), read, checked);
  }

  async note(path: string): Promise<NoteInfo | null> {
    return (await this.worker()).call("note", { path: this.safe(path) });
  }

  async recordAccess(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    await (await this.worker()).call("recordAccess", { paths: paths.map((p) => this.safe(p)) });
  }

  async readText(path: string): Promise<string | null> {
    const p = this.safe(path);
    const file = this.plugin.app.vault.getAbstractFileByPath(p);
    if (!file) return null;
    if (!(file instanceof TFile)) throw new Error(`${p} is a folder, not a note`);
    return this.plugin.app.vault.read(file);
  }

  async writeText(path: string, text: string, expected?: string | null): Promise<void> {
    const p = this.safe(path);
    const { vault } = this.plugin.app;
    const existing = vault.getAbstractFileByPath(p);
    let file: TFile;
    if (existing instanceof TFile) {
      if (expected === null) throw new Error(`[conflict] ${p} was created meanwhile: nothing written`);
      if (expected === undefined) await vault.modify(existing, text);
      else {
        // Read, compare and write in one step: an edit saved by the editor meanwhile wins.
        await vault.process(existing, (current) => {
          if (current !== expected) throw new Error(`[conflict] ${p} changed since it was read: nothing written`);
          return text;
        });
      }
      file = existing;
    } else if (existing) {
      throw new Error(`refused: ${p} is a folder`);
    } else {
      if (typeof expected === "string") throw new Error(`[conflict] ${p} was deleted meanwhile: nothing written`);
      const parts = p.split("/");
      for (let i = 1; i < parts.length; i++) {
        const dir = parts.slice(0, i).join("/");
        const f = vault.getAbstractFileByPath(dir);
        if (!f) await vault.createFolder(dir);
        else if (f instanceof TFile) throw new Error(`refused: ${dir} is a file, not a folder`);
      }
      file = await vault.create(p, text);
    }
    await this.plugin.applyChanges({
      changed: [{ path: p, size: file.stat.size, mtime: file.stat.mtime, ctime: file.stat.ctime }],
      deleted: [],
      renames: [],
    });
  }

  async outline(text: string): Promise<Outline> {
    return (await this.worker()).call("outline", { bytes: new TextEncoder().encode(text) });
  }

  async readPluginFile(name: string): Promise<string | null> {
    if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith(".")) throw new Error(`refused: plugin file name ${JSON.stringify(name)}`);
    const adapter = this.plugin.app.vault.adapter;
    const file = `${this.plugin.pluginDir}/${name}`;
    return (await adapter.exists(file)) ? adapter.read(file) : null;
  }

  async appendPluginFile(name: string, text: string): Promise<void> {
    if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith(".")) throw new Error(`refused: plugin file name ${JSON.stringify(name)}`);
    const adapter = this.plugin.app.vault.adapter;
    const dir = this.plugin.pluginDir;
    if (!(await adapter.exists(dir))) await adapter.mkdir(dir);
    const file = `${dir}/${name}`;
    if (await adapter.exists(file)) await adapter.append(file, text);
    else await adapter.write(file, text);
  }
}
