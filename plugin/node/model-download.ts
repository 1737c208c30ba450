// Node's side of model downloads (the CLI, the headless bridge): the file system and fetch
// behind plugin/core/model-download.ts, and where a vault's plugin keeps its models.

import * as fs from "node:fs/promises";
import * as path from "node:path";

import { ModelDownloadError, type Fetcher, type ModelFs } from "../core/model-download.ts";
export { nodeSourceFolder } from "./source-folder.ts";
import { loadModelFiles, modelReader } from "./host.ts";
import type { ReadModel } from "../core/models.ts";

/** ModelFs on Node's file system (paths as given). */
export const nodeModelFs: ModelFs = {
  async exists(p) {
    return fs.stat(p).then(
      () => true,
      () => false,
    );
  },
  async size(p) {
    return fs.stat(p).then(
      (st) => (st.isFile() ? st.size : null),
      () => null,
    );
  },
  async read(p) {
    const b = await fs.readFile(p);
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  },
  async write(p, bytes) {
    await fs.writeFile(p, bytes);
  },
  async append(p, bytes) {
    await fs.appendFile(p, bytes);
  },
  async mkdir(p) {
    await fs.mkdir(p, { recursive: true });
  },
  async removeDir(p) {
    await fs.rm(p, { recursive: true, force: true });
  },
  async rename(from, to) {
    await fs.rename(from, to);
  },
};

/** Fetcher on Node's fetch (redirects followed: GitHub serves release assets from another host). */
export const nodeFetcher: Fetcher = async (url, signal) => {
  const res = await fetch(url, { signal, redirect: "follow" });
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new ModelDownloadError("http", `${url} answered HTTP ${res.status}${res.status === 404 ? " (not found)" : ""}`);
  }
  return new Uint8Array(await res.arrayBuffer());
};

/** The models folder of a vault's plugin: `<vault>/<configDir>/plugins/strata-search/models`. */
export function vaultModelsDir(vaultDir: string, configDir: string): string {
  return path.join(vaultDir, configDir, "plugins", "strata-search", "models");
}

/**
 * Reads models from a vault's plugin folder (where the plugin downloads them) first, then from
 * where the bridge or CLI finds models by default (findModelDir: beside the bundle, the repository).
 */
export function vaultFirstModelReader(vaultDir: string, configDir: string): ReadModel {
  const fallback = modelReader();
  const dir = vaultModelsDir(vaultDir, configDir);
  return async (id) => (await loadModelFiles(path.join(dir, id))) ?? fallback(id);
}
