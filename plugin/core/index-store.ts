// The index folder: where its files live (an IndexStore each host supplies), opening the core
// over them and persisting what the core flushes, the manifest last.

import type { CoreConfig, IndexFile, OpenReport, StrataCoreApi } from "./api.ts";
import { asBytes } from "./bytes.ts";
import type { StrataCoreStatic } from "./wasm-classes.ts";

/** Where the index folder's files live. Names are relative to the index folder, "/" separated. */
export interface IndexStore {
  list(): Promise<string[]>;
  read(name: string): Promise<Uint8Array>;
  /** Must be atomic per file: a crash leaves the old file or the new one, never a torn one. */
  write(name: string, bytes: Uint8Array): Promise<void>;
  /** Deleting a missing file is not an error. */
  delete(name: string): Promise<void>;
  /** Makes the writes so far durable (where the platform can tell), e.g. fsyncs folders. */
  sync?(): Promise<void>;
}

/** The default index folder, relative to the vault, in its config folder (`vault.configDir`). */
export function defaultIndexDir(configDir: string): string {
  return `${configDir}/plugins/strata-search/index`;
}

export interface OpenedIndex {
  core: StrataCoreApi;
  report: OpenReport;
  /** Orphan files that were deleted from the store. */
  removedOrphans: string[];
}

/**
 * Reads every file of the index folder and opens the core over them. Never throws on a bad
 * index (the core starts fresh and says why in `report`); deletes the orphans it reports
 * unless `removeOrphans` is false (a reader beside another writer, whose new files in progress
 * are orphans to it).
 */
export async function openIndex(
  Core: StrataCoreStatic,
  store: IndexStore,
  config: CoreConfig,
  opts: { removeOrphans?: boolean } = {},
): Promise<OpenedIndex> {
  const names = await store.list();
  const files: IndexFile[] = await Promise.all(names.map(async (name) => ({ name, bytes: await store.read(name) })));
  const core = Core.open(config, files);
  const report = core.openReport();
  const removedOrphans: string[] = [];
  for (const name of opts.removeOrphans === false ? [] : (report.orphans ?? [])) {
    await store.delete(name);
    removedOrphans.push(name);
  }
  return { core, report, removedOrphans };
}

/**
 * Applies `core.flush()` to the store: the new files (immutable, referenced by no manifest
 * yet, so written concurrently), a sync, then the manifest (always the last write), a sync,
 * and only then the deletes. Returns the bytes written.
 */
export async function persist(core: StrataCoreApi, store: IndexStore): Promise<number> {
  const out = core.flush();
  if (out.writes.length === 0 && out.deletes.length === 0) return 0;
  const files = out.writes.map((f) => ({ name: f.name, bytes: asBytes(f.bytes) }));
  const manifest = files.pop();
  const CONCURRENCY = 8;
  for (let i = 0; i < files.length; i += CONCURRENCY) {
    await Promise.all(files.slice(i, i + CONCURRENCY).map((f) => store.write(f.name, f.bytes)));
  }
  await store.sync?.();
  if (manifest) {
    await store.write(manifest.name, manifest.bytes);
    await store.sync?.();
  }
  for (const name of out.deletes) {
    await store.delete(name);
  }
  return [...files, ...(manifest ? [manifest] : [])].reduce((n, f) => n + f.bytes.byteLength, 0);
}
