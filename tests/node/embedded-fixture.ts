// The fixture vault with its index built and every chunk embedded with all-MiniLM-L6-v2, for
// the tests whose point is what comes after the embedding (a tool that answers from the
// vectors), not the embedding itself. It is built once, into build/test-cache/, keyed by what
// the index depends on (the wasm, the model, the fixture, the TypeScript that writes the
// index), and each test gets a copy: on 2 cores, embedding the fixture again in every such test
// cost a few minutes of the suite.

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import * as path from "node:path";

import { embedAll } from "../../plugin/core/embedding/loop.ts";
import { persist } from "../../plugin/core/index-store.ts";
import { EMBEDDER_WASM_NAME, findWasm, NodeVault } from "../../plugin/node/host.ts";
import { CONFIG, copyFixture, FIXTURE, hashTree, indexVault, loadModelInto, MODEL, ROOT, tempDir } from "./helpers.ts";

const CACHE = path.join(ROOT, "build", "test-cache");
/** The sources whose change may change the index the cache holds. */
const SOURCES = ["plugin/core", "plugin/node", "tests/node/helpers.ts", "tests/node/embedded-fixture.ts"];

async function cacheKey(): Promise<string> {
  if (!MODEL) throw new Error("no model");
  const h = createHash("sha256");
  h.update(`device ${CONFIG.deviceId}\n`);
  for (const file of [findWasm(), findWasm(EMBEDDER_WASM_NAME)]) h.update(await readFile(file));
  h.update(MODEL.model).update(MODEL.tokenizer);
  for (const dir of [FIXTURE, ...SOURCES.map((s) => path.join(ROOT, s))]) {
    const tree = (await stat(dir)).isDirectory()
      ? await hashTree(dir)
      : new Map([
          [
            "",
            createHash("sha256")
              .update(await readFile(dir))
              .digest("hex"),
          ],
        ]);
    for (const [f, hash] of [...tree].sort()) h.update(`${dir} ${f} ${hash}\n`);
  }
  return h.digest("hex").slice(0, 16);
}

/** Builds the embedded fixture into `dir` (the caller renames it into place). */
async function build(dir: string): Promise<void> {
  await cp(FIXTURE, dir, { recursive: true, preserveTimestamps: true });
  const { core, store } = await indexVault(dir);
  try {
    loadModelInto(core);
    const sum = await embedAll(core, new NodeVault(dir), store);
    const p = core.embedProgress();
    if (sum.aborted || p.done !== p.total) throw new Error(`the embedded fixture stopped at ${p.done}/${p.total}`);
    await persist(core, store);
  } finally {
    core.free();
  }
}

let ready: Promise<string> | null = null;

/** The cached embedded fixture's folder, built if needed (once per key: another process that
 *  builds it at the same time waits for the first, through a lock folder). */
function cached(): Promise<string> {
  ready ??= (async () => {
    const dir = path.join(CACHE, `embedded-fixture-${await cacheKey()}`);
    if (existsSync(dir)) return dir;
    await mkdir(CACHE, { recursive: true });
    const lock = `${dir}.lock`;
    for (;;) {
      try {
        await mkdir(lock);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
        // A lock older than ten minutes was left by a process that died.
        const age = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
        if (age > 600_000) await rm(lock, { recursive: true, force: true });
        else await new Promise((r) => setTimeout(r, 200));
      }
      if (existsSync(dir)) return dir;
    }
    try {
      if (existsSync(dir)) return dir;
      const tmp = `${dir}.tmp-${process.pid}`;
      await rm(tmp, { recursive: true, force: true });
      await build(tmp);
      await rename(tmp, dir);
      // The copies of earlier keys are stale: only one is kept.
      for (const name of await readdir(CACHE)) {
        if (/^embedded-fixture-[0-9a-f]{16}$/.test(name) && path.join(CACHE, name) !== dir)
          await rm(path.join(CACHE, name), { recursive: true, force: true });
      }
      return dir;
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  })();
  return ready;
}

/** A fresh copy of the fixture vault whose index (the test device's, and the shared vectors)
 *  holds a vector for every chunk (the caller checked MODEL, NEEDS_MODEL). */
export async function copyEmbeddedFixture(): Promise<string> {
  const src = await cached();
  const dir = path.join(await tempDir(), "vault");
  await cp(src, dir, { recursive: true, preserveTimestamps: true });
  return dir;
}

/** A fresh copy of the fixture vault with the test device's index: every chunk embedded when
 *  the model is there (copyEmbeddedFixture), else lexical only. */
export async function copyIndexedFixture(): Promise<string> {
  if (MODEL) return copyEmbeddedFixture();
  const vault = await copyFixture();
  (await indexVault(vault)).core.free();
  return vault;
}

/** A fresh copy of the fixture vault whose shared vectors hold every chunk when the model is
 *  there (for a host that embeds in the background: it then has nothing left to embed). */
export async function copyFixtureWithVectors(): Promise<string> {
  return MODEL ? copyEmbeddedFixture() : copyFixture();
}
