// Test helpers: temp copies of the fixture vault and an index over them, on the real wasm core.

import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import type { CoreConfig, StrataCoreApi } from "../../plugin/core/api.ts";
import { defaultIndexDir, openIndex, type IndexStore } from "../../plugin/core/index-store.ts";
import { reconcile } from "../../plugin/core/reconcile.ts";
import { loadedModel } from "../../plugin/core/wasm-classes.ts";
import { StrataEmbedder } from "../../build/wasm/strata_embedder.js";
import { findModelDir, FsIndexStore, loadCore, loadModelFiles, modelPresent, NodeVault, type ModelFiles } from "../../plugin/node/host.ts";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const FIXTURE = path.join(ROOT, "tests", "fixtures", "vault");
/** The device the tests run as (crate/src/layout.rs): the core's config names it, and the CLI
 *  and bridge processes the tests start inherit it (plugin/node/device-id.ts). */
export const TEST_DEVICE = "test-device";
process.env.STRATA_DEVICE_ID ??= TEST_DEVICE;
export const CONFIG: CoreConfig = { configDir: ".obsidian", deviceId: process.env.STRATA_DEVICE_ID };
export const Core = loadCore();
shareModelLoads();

/**
 * One model load per process for the tests that make cores in it: a core makes its embedder
 * through `globalThis.__strataCreateEmbedder` (installed by loadCore, and by the plugin's worker
 * when it starts), and a load costs seconds of CPU (tract reads and optimises the ONNX graph: ~3 s
 * for MiniLM, ~8 s for e5), again for every core a test opens (per device, per run, per model
 * switch, per plugin load). An embedder is stateless (texts in, vectors out), so every hook
 * installed in this process is wrapped: a core gets the embedder made before from the same model,
 * tokenizer and config (by content), of the same embedder wasm (the one class both hooks make);
 * other bytes (another model, a corrupt one) make a new one.
 */
function shareModelLoads(): void {
  type Create = (model: Uint8Array, tokenizer: Uint8Array, config: unknown) => object;
  const hashes = new WeakMap<Uint8Array, string>();
  const hash = (bytes: Uint8Array) => {
    let h = hashes.get(bytes);
    if (h === undefined) hashes.set(bytes, (h = createHash("sha256").update(bytes).digest("hex")));
    return h;
  };
  const made = new Map<string, object>();
  const share =
    (create: Create): Create =>
    (model, tokenizer, config) => {
      const key = `${hash(model)} ${hash(tokenizer)} ${JSON.stringify(config)}`;
      const id = (config as { model_id?: unknown } | null)?.model_id;
      const record = typeof id === "string" ? loadedModel(id) : null;
      const known = made.get(key);
      // The hook records the model for a pool's workers, and a host may drop that record: a core
      // gets the embedder made before only while the record is of the same model.
      if (
        known &&
        (typeof id !== "string" ||
          (record && hash(record.model) === hash(model) && JSON.stringify(record.config) === JSON.stringify(config)))
      )
        return known;
      const embedder = create(model, tokenizer, config);
      if (embedder instanceof StrataEmbedder) made.set(key, embedder);
      return embedder;
    };
  const scope = globalThis as unknown as { __strataCreateEmbedder: Create };
  let hook = scope.__strataCreateEmbedder;
  Object.defineProperty(scope, "__strataCreateEmbedder", {
    configurable: true,
    get: () => hook,
    set: (create: Create) => {
      hook = share(create);
    },
  });
  scope.__strataCreateEmbedder = hook;
}

/** The embedding model (scripts/fetch-model.sh), or null: the tests that need it skip then. */
export const MODEL: ModelFiles | null = await loadModelFiles();
/** `{ skip: reason }` for tests that need the model; `{}` when it is there. */
export const NEEDS_MODEL: { skip?: string } = MODEL
  ? {}
  : { skip: `no embedding model in ${findModelDir()} (run scripts/fetch-model.sh, or set STRATA_MODEL_DIR)` };
if (!MODEL) process.stderr.write(`# ${NEEDS_MODEL.skip}: the semantic tests are skipped\n`);

/** `{ skip: reason }` for tests that need multilingual-e5-small (read by the tests that use it:
 *  it is several times MiniLM's size). */
export const NEEDS_E5: { skip?: string } = modelPresent("multilingual-e5-small")
  ? {}
  : { skip: `no multilingual-e5-small model in ${findModelDir("multilingual-e5-small")} (run scripts/fetch-e5.sh, or set STRATA_MODELS)` };
/** Both models (the switch tests). */
export const NEEDS_BOTH: { skip?: string } = NEEDS_MODEL.skip ? NEEDS_MODEL : NEEDS_E5;

/** Loads the model into `core` (the caller checked MODEL). */
export function loadModelInto(core: StrataCoreApi) {
  if (!MODEL) throw new Error("no model");
  return core.loadModel(MODEL.model, MODEL.tokenizer, null);
}

/** Every note of the shipped fixture vault. */
export const FIXTURE_NOTES = [
  "Astronomy/Observing log 2024.md",
  "Astronomy/Telescope care.md",
  "Cooking/Fermented hot sauce.md",
  "Cooking/Sourdough starter.md",
  "Garden/Drip irrigation.md",
  "Inbox/Reading list.md",
  "Projects/Bicycle rebuild.md",
  "Welcome.md",
  "中文/城市骑行路线.md",
  "中文/茶道笔记.md",
  "中文/量子计算入门.md",
  "日本語/味噌汁の作り方.md",
  "日本語/書道の練習.md",
  "日本語/登山計画.md",
];

const temps: string[] = [];

/** Cosine of two vectors. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

export async function tempDir(prefix = "strata-test-"): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

export async function cleanupTemps(): Promise<void> {
  for (const d of temps.splice(0)) await rm(d, { recursive: true, force: true });
}

/** A fresh copy of the fixture vault in a temp folder: every note, or only `notes` (paths of
 *  FIXTURE_NOTES) for a test whose embedding runs need a few chunks, not the whole vault. */
export async function copyFixture(notes?: readonly string[]): Promise<string> {
  const dir = path.join(await tempDir(), "vault");
  if (!notes) {
    await cp(FIXTURE, dir, { recursive: true });
    return dir;
  }
  for (const note of notes) {
    if (!FIXTURE_NOTES.includes(note)) throw new Error(`${note} is not a note of the fixture vault`);
    await mkdir(path.dirname(path.join(dir, note)), { recursive: true });
    await cp(path.join(FIXTURE, note), path.join(dir, note));
  }
  return dir;
}

export function indexDirOf(vault: string): string {
  return path.join(vault, defaultIndexDir(".obsidian"));
}

/** The test device's own folder in the vault's index (devices/<id>.v<format>/), where its
 *  manifests, lexical index and catalog are; the vectors are in `vectors/`, shared. */
export function ownIndexDirOf(vault: string, device = CONFIG.deviceId ?? "local"): string {
  return path.join(indexDirOf(vault), "devices", `${device}.v${Core.create(null).status().formatVersion}`);
}

/** The one device folder in the vault's index (the plugin's: its id is random, per device). */
export function onlyDeviceDirOf(vault: string): string {
  const devices = path.join(indexDirOf(vault), "devices");
  const found = readdirSync(devices);
  if (found.length !== 1) throw new Error(`one device folder expected in ${devices}: ${found.join(", ")}`);
  return path.join(devices, found[0]);
}

/** Opens (or creates) the vault's index, brings it up to date and persists it. */
export async function indexVault(vault: string, store: IndexStore = new FsIndexStore(indexDirOf(vault))) {
  const opened = await openIndex(Core, store, CONFIG);
  const summary = await reconcile(opened.core, new NodeVault(vault), { store });
  return { ...opened, summary, store };
}

export function topPaths(core: StrataCoreApi, query: string, k = 10, extra: object = {}): string[] {
  return core.search({ query, k, ...extra }).hits.map((h) => h.path);
}

/** SHA-256 of every file under `dir` (relative path → hash), skipping `skip` subfolders. */
export async function hashTree(dir: string, skip: string[] = []): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (rel: string) => {
    for (const e of await readdir(path.join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (skip.includes(p)) continue;
      if (e.isDirectory()) await walk(p);
      else if (e.isFile())
        out.set(
          p,
          createHash("sha256")
            .update(await readFile(path.join(dir, p)))
            .digest("hex"),
        );
      else if (e.isSymbolicLink()) out.set(p, "symlink");
    }
  };
  await walk("");
  return out;
}

/** An IndexStore over another that records the order of writes and deletes. */
export class RecordingStore implements IndexStore {
  writes: string[] = [];
  deletes: string[] = [];
  constructor(readonly inner: IndexStore) {}
  list(prefix?: string) {
    return this.inner.list(prefix);
  }
  read(name: string) {
    return this.inner.read(name);
  }
  async write(name: string, bytes: Uint8Array) {
    this.writes.push(name);
    await this.inner.write(name, bytes);
  }
  async delete(name: string) {
    this.deletes.push(name);
    await this.inner.delete(name);
  }
}
