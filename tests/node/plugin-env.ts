// The Obsidian plugin in Node: the fake `obsidian` module (tests/obsidian-fake) backed by a real
// temporary copy of the fixture vault, and the real worker engine + wasm reached through the
// real message protocol over a MessageChannel (Node has no Web Worker).

import { readFileSync } from "node:fs";
import { mkdir, symlink } from "node:fs/promises";
import { register } from "node:module";
import * as path from "node:path";

import { serveWorker } from "../../plugin/obsidian/worker-server.ts";
import type { WorkerState } from "../../plugin/obsidian/worker-protocol.ts";
import { EMBEDDER_WASM_NAME, findModelDir, findWasm, modelPresent } from "../../plugin/node/host.ts";
import { nodeEmbedSpawner } from "../../plugin/node/pool-workers.ts";
import { ROOT } from "./helpers.ts";

register("../obsidian-fake/loader.mjs", import.meta.url);

const fake = await import("../obsidian-fake/index.ts");
const { FsAdapter } = await import("../obsidian-fake/fs-adapter.ts");
const pluginModule = await import("../../plugin/obsidian/plugin.ts");
export const StrataPlugin = pluginModule.default;
export type StrataPluginT = InstanceType<typeof StrataPlugin>;
export const { App, Notice, TFile, Modal, Platform } = fake;
export type AppT = InstanceType<typeof App>;

const WASM = readFileSync(findWasm());
const EMBEDDER_WASM = readFileSync(findWasm(EMBEDDER_WASM_NAME));
export const manifest = JSON.parse(readFileSync(path.join(ROOT, "manifest.json"), "utf8"));

/** Engines started by the in-process transport (tests read their counters through the plugin). */
StrataPlugin.spawn = () => {
  const ch = new MessageChannel();
  // The pool's embedder workers as worker_threads (the plugin starts Web Workers: Node has none).
  serveWorker(ch.port2, { core: () => WASM, embedder: () => EMBEDDER_WASM }, () => nodeEmbedSpawner());
  return {
    port: ch.port1,
    terminate: () => {
      ch.port1.close();
      ch.port2.close();
    },
  };
};

export const PLUGIN_DIR = ".obsidian/plugins/strata-search";

/** Puts the repository's models into the vault's plugin folder (symlinks), when they are
 *  there; true when every one of `ids` is. */
export async function installModel(vault: string, ids: string[] = ["all-MiniLM-L6-v2"]): Promise<boolean> {
  if (!ids.every(modelPresent)) return false;
  const dir = path.join(vault, PLUGIN_DIR, "models");
  await mkdir(dir, { recursive: true });
  for (const id of ids) await symlink(findModelDir(id), path.join(dir, id));
  return true;
}

/** A row of the plugin's settings tab (displayed afresh), by its name: its description and dropdown. */
export function settingRow(app: AppT, name: string): { desc: string; select: { value: string; dispatch(type: string): void } | undefined } {
  const tab = app.settingTabs[0];
  app.openSettingTab(tab);
  const els = (el: HTMLElement, cls: string) => Array.from(el.querySelectorAll<HTMLElement>(cls));
  const row = els(tab.containerEl, "setting-item").find((r) => els(r, "setting-item-name")[0]?.getText() === name);
  if (!row) throw new Error(`no setting named ${name}`);
  return { desc: els(row, "setting-item-description")[0].getText(), select: els(row, "dropdown")[0] as never };
}

export interface Loaded {
  app: AppT;
  plugin: StrataPluginT;
  adapter: InstanceType<typeof FsAdapter>;
}

/** Opens the vault folder in a fake app, loads the plugin, makes the layout ready and waits for start-up. */
export async function loadPlugin(vault: string, opts: { settings?: object; waitIndexed?: boolean } = {}): Promise<Loaded> {
  const adapter = new FsAdapter(vault);
  if (opts.settings) {
    await adapter.mkdir(PLUGIN_DIR);
    await adapter.write(`${PLUGIN_DIR}/data.json`, JSON.stringify(opts.settings));
  }
  const app = await App.create(adapter);
  const plugin = new StrataPlugin(app as never, { ...manifest, dir: PLUGIN_DIR });
  (plugin as unknown as { _loaded: boolean })._loaded = true;
  await plugin.onload();
  app.workspace.setLayoutReady();
  if (opts.waitIndexed !== false) await plugin.indexed;
  return { app, plugin, adapter };
}

export async function unloadPlugin(plugin: StrataPluginT): Promise<void> {
  plugin.unload();
  await plugin.shutdown();
}

export async function workerState(plugin: StrataPluginT): Promise<WorkerState> {
  const st = await plugin.workerState();
  if (!st) throw new Error("no worker");
  return st;
}

/** Polls `fn` until it returns a truthy value (or fails after `ms`). */
export async function eventually<T>(fn: () => Promise<T>, ms = 5000, what = "condition"): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
