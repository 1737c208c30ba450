// The index folder: where its files live (an IndexStore each host supplies), opening the core
// over them and persisting what the core flushes, the manifest last.

import type { AddVectorsReport, CoreConfig, IndexFile, OpenReport, StrataCoreApi } from "./api.ts";
import { asBytes } from "./bytes.ts";
import type { StrataCoreStatic } from "./wasm-classes.ts";

/** Where the index folder's files live. Names are relative to the index folder, "/" separated. */
export interface IndexStore {
  /** The files' names; with `prefix` (a folder's, ending in "/"), those under it at least (a
   *  store may list more: callers filter). */
  list(prefix?: string): Promise<string[]>;
  read(name: string): Promise<Uint8Array>;
  /** Must be atomic per file: a crash leaves the old file or the new one, never a torn one. */
  write(name: string, bytes: Uint8Array): Promise<void>;
  /** Deleting a missing file is not an error. */
  delete(name: string): Promise<void>;
  /** Makes the writes so far durable (where the platform can tell), e.g. fsyncs folders. */
  sync?(): Promise<void>;
}

/** The shared vectors' folder in the index folder (crate/src/layout.rs `VECTORS_DIR`). */
export const VECTORS_DIR = "vectors/";

/** The default index folder, relative to the vault, in its config folder (`vault.configDir`). */
export function defaultIndexDir(configDir: string): string {
  return `${configDir}/plugins/strata-search/index`;
}

export interface OpenedIndex {
  core: StrataCoreApi;
  report: OpenReport;
  /** Orphan files that were deleted from the store (this device's only). */
  removedOrphans: string[];
}

/**
 * Opens this device's index (`config.deviceId`; crate/src/layout.rs): reads its own folder
 * and the shared vectors of its models (not the other devices' folders, nor another model's
 * vectors), deletes its own folders of older format versions, and opens the core over them.
 * Never throws on a bad index (the core starts fresh and says why in `report`); deletes the
 * orphans it reports (this device's own crash leftovers) unless `removeOrphans` is false (a
 * reader beside another writer, whose new files in progress are orphans to it). A newer
 * Strata's folder is left alone: `report.newerFormat`.
 */
export async function openIndex(
  Core: StrataCoreStatic,
  store: IndexStore,
  config: CoreConfig,
  opts: { removeOrphans?: boolean } = {},
): Promise<OpenedIndex> {
  const plan = Core.planOpen(config, await store.list());
  const core = Core.create(config);
  await stageAll(core, store, plan.read);
  core.openStaged(config);
  const report = core.openReport();
  // With an index of its own, the shared segments come after the open: its models' only.
  const vectors = await addVectorsOf(core, store, plan.vectors);
  report.sharedVectors += vectors.added;
  report.ignored.push(...vectors.ignored);
  if (plan.newerFormat !== undefined) report.newerFormat = plan.newerFormat;
  const removedOrphans: string[] = [];
  if (opts.removeOrphans !== false) {
    for (const name of [...plan.obsolete, ...report.orphans]) {
      await store.delete(name);
      removedOrphans.push(name);
    }
  }
  return { core, report, removedOrphans };
}

/**
 * The store with the files an open may read being read already (for a host that lists and
 * reads while the core's wasm compiles): every file but other devices' folders, a superset
 * of what `planOpen` names to read, and, when the device has an index of its own, no shared
 * segment (it reads those of its models only, after the open). `settled` resolves when every
 * read has ended.
 */
export async function prefetching(
  store: IndexStore,
  deviceId: string | undefined,
): Promise<{ store: IndexStore; settled: Promise<unknown> }> {
  const names = await store.list();
  const own = `devices/${deviceId ?? ""}.`;
  const hasOwn = names.some((n) => n.startsWith(own) && /\/manifest-[ab]\.json$/.test(n));
  const segment = (n: string) => n.startsWith(VECTORS_DIR) && n.endsWith(".svec");
  // Not a killed write's temporary file either (`<name>.tmp-<pid>-<n>`): the open deletes it unread.
  const wanted = (n: string) => (!n.startsWith("devices/") || n.startsWith(own)) && !/\.tmp-\d+-\d+$/.test(n) && !(hasOwn && segment(n));
  const reads = new Map(names.filter(wanted).map((n) => [n, store.read(n)]));
  for (const p of reads.values()) p.catch(() => undefined); // failures surface in openIndex
  const list = () => Promise.resolve(names);
  return { store: { ...store, list, read: (n) => reads.get(n) ?? store.read(n) }, settled: Promise.allSettled(reads.values()) };
}

/**
 * Hands `names` to the core as they are read (`stageFile`), a few reads ahead, so that only
 * those few are held here beside the core's copy; a file gone meanwhile (sync) is left out.
 */
async function stageAll(core: StrataCoreApi, store: IndexStore, names: string[]): Promise<void> {
  const READ_AHEAD = 4;
  const inFlight: Promise<Uint8Array | null>[] = [];
  let next = 0;
  const fill = () => {
    while (next < names.length && inFlight.length < READ_AHEAD) inFlight.push(store.read(names[next++]).catch(() => null));
  };
  fill();
  for (const name of names) {
    const bytes = await inFlight.shift();
    fill();
    if (bytes) core.stageFile(name, bytes);
  }
}

/** Reads `names` from the store; a file gone meanwhile (sync) is left out. */
async function readAll(store: IndexStore, names: string[]): Promise<IndexFile[]> {
  const files = await Promise.all(
    names.map(async (name) => {
      try {
        return { name, bytes: await store.read(name) };
      } catch {
        return null;
      }
    }),
  );
  return files.filter((f): f is IndexFile => f !== null);
}

/**
 * Adds the shared vectors that arrived since the open (another device embedded them), or that
 * a newly loaded model uses: the segments the core asks for, read from the store. Returns what
 * the core added.
 */
export async function addSharedVectors(core: StrataCoreApi, store: IndexStore): Promise<AddVectorsReport> {
  // Only the shared vectors' folder: on mobile, listing each device's folder is a call each.
  const names = (await store.list(VECTORS_DIR)).filter((n) => n.startsWith(VECTORS_DIR));
  return addVectorsOf(core, store, names);
}

/** Of `names` (shared vector files), reads those the core wants and adds them. */
async function addVectorsOf(core: StrataCoreApi, store: IndexStore, names: string[]): Promise<AddVectorsReport> {
  const wanted = core.wantedVectorFiles(names);
  if (wanted.length === 0) return { added: 0, ignored: [], vectors: core.status().vectors };
  return core.addVectors(await readAll(store, wanted));
}

/**
 * Deletes this device's index (its own folders, every version): the other devices' folders and
 * the shared vectors stay. A rebuild then embeds nothing another device embedded. Its manifests
 * stay too: they list the shared segments this device wrote, which only it may merge and delete;
 * the open after this keeps the list and starts a fresh index, whose flushes overwrite them.
 */
export async function deleteOwnIndex(Core: StrataCoreStatic, store: IndexStore, config: CoreConfig): Promise<void> {
  const plan = Core.planOpen(config, await store.list());
  for (const name of [...plan.own, ...plan.obsolete]) await store.delete(name);
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
