// The index folder through the TypeScript store (plugin/core/index-store.ts): an open reads the
// shared segments of the device's own model only, and "Rebuild index" (deleteOwnIndex, then an
// open) keeps the list of the shared segments the device wrote, which only it may merge and
// delete (crate/src/vectors/merge.rs; the merges and deletions themselves are tested in
// crate/src/engine/tests/devices.rs).

import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { cp, mkdir, readdir, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import type { CoreConfig } from "../../plugin/core/api.ts";
import { deleteOwnIndex, openIndex, prefetching, type IndexStore } from "../../plugin/core/index-store.ts";
import { FsIndexStore } from "../../plugin/node/host.ts";
import { newestManifest } from "../index-manifest.ts";
import { copyEmbeddedFixture } from "./embedded-fixture.ts";
import { cleanupTemps, CONFIG, copyFixture, Core, indexDirOf, indexVault, loadModelInto, NEEDS_MODEL, ROOT } from "./helpers.ts";

after(cleanupTemps);

/** The folder this format wrote for the fixture vault (the newest of tests/fixtures/formats): device "local", one
 *  segment of the 8-dimensional fixture model. */
const FORMATS = path.join(ROOT, "tests", "fixtures", "formats");
const CURRENT = path.join(
  FORMATS,
  `v${Math.max(
    ...readdirSync(FORMATS)
      .filter((n) => /^v\d+$/.test(n))
      .map((n) => Number(n.slice(1))),
  )}`,
);
const LOCAL: CoreConfig = { configDir: ".obsidian", deviceId: "local" };

/** A store that records every file read. */
function reading(inner: IndexStore): IndexStore & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    list: (prefix) => inner.list(prefix),
    read: (name) => (reads.push(name), inner.read(name)),
    write: (name, bytes) => inner.write(name, bytes),
    delete: (name) => inner.delete(name),
  };
}

const isManifest = (name: string) => /\/manifest-[ab]\.json$/.test(name);

/** The files of `device`'s own folders. */
async function ownFiles(store: IndexStore, device: string): Promise<string[]> {
  return (await store.list("devices/")).filter((n) => n.startsWith(`devices/${device}.`)).sort();
}

/** The shared segments the newest manifest of `device` lists as written by it. */
async function listedSegments(store: IndexStore, device: string): Promise<string[]> {
  const newest = newestManifest(
    await Promise.all(
      (await ownFiles(store, device)).filter(isManifest).map(async (name) => new TextDecoder().decode(await store.read(name))),
    ),
  );
  return (newest?.segments ?? []).map((s) => s.name).sort();
}

describe("index stores", () => {
  test("an open reads the shared segments of the device's model only", async () => {
    const vault = await copyFixture();
    const index = indexDirOf(vault);
    await cp(CURRENT, index, { recursive: true });
    // Another model's vectors beside them, as a device embedding with it writes them: its folder
    // with a spec file and a segment (the bytes of the fixture's, which verify by their name).
    const [space] = await readdir(path.join(index, "vectors"));
    const [segment] = (await readdir(path.join(index, "vectors", space))).filter((n) => n.endsWith(".svec"));
    const mine = `vectors/${space}/${segment}`;
    const other = "vectors/00000000000000ff";
    await mkdir(path.join(index, other));
    await cp(path.join(index, mine), path.join(index, other, segment));
    await writeFile(path.join(index, other, "space.json"), "{}\n");
    const theirs = `${other}/${segment}`;

    // Its own model's segment is read (after the open) and its vectors are there; the other's is not read.
    const store = reading(new FsIndexStore(index));
    const { core, report } = await openIndex(Core, store, LOCAL);
    assert.equal(report.rebuilt, false, report.reason ?? "");
    assert.ok(store.reads.includes(mine), `its model's segment is read: ${store.reads.join(", ")}`);
    assert.ok(!store.reads.includes(theirs), `the other model's is not: ${store.reads.join(", ")}`);
    const vectors = core.status().vectors;
    assert.ok(vectors > 0 && report.sharedVectors === vectors, JSON.stringify(report));
    core.free();

    // The same when the plugin reads ahead while the wasm compiles.
    const ahead = reading(new FsIndexStore(index));
    const p = await prefetching(ahead, LOCAL.deviceId);
    const opened = await openIndex(Core, p.store, LOCAL);
    await p.settled;
    assert.ok(ahead.reads.includes(mine) && !ahead.reads.includes(theirs), ahead.reads.join(", "));
    assert.equal(opened.core.status().vectors, vectors);
    opened.core.free();

    // A device without an index of its own reads both, to take the model with the most vectors.
    const fresh = reading(new FsIndexStore(index));
    const tablet = await openIndex(Core, fresh, { ...LOCAL, deviceId: "tablet" });
    assert.ok(fresh.reads.includes(mine) && fresh.reads.includes(theirs), fresh.reads.join(", "));
    tablet.core.free();
  });

  test("an open takes the files a few reads at a time and opens what they hold", async () => {
    const vault = await copyFixture();
    const { core: indexed } = await indexVault(vault);
    const want = { status: indexed.status(), hits: indexed.search({ query: "note", k: 5, mode: "lexical" }).hits };
    indexed.free();
    // A store whose reads each take a moment, counting those in flight at once; a file listed
    // in the device's folder is gone by its read (sync removed it): left out, the open goes on.
    const inner = new FsIndexStore(indexDirOf(vault));
    const listed = await inner.list();
    const manifest = listed.find(isManifest);
    assert.ok(manifest, listed.join(", "));
    const gone = manifest.replace(/manifest-[ab]\.json$/, "cat/99999999-00000000.bin");
    const names = [...listed, gone];
    const reads: string[] = [];
    let inFlight = 0;
    let most = 0;
    const slow: IndexStore = {
      write: (name, bytes) => inner.write(name, bytes),
      delete: (name) => inner.delete(name),
      list: () => Promise.resolve(names),
      read: async (name) => {
        reads.push(name);
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 2));
        inFlight--;
        if (name === gone) throw new Error("ENOENT");
        return inner.read(name);
      },
    };
    const { core, report } = await openIndex(Core, slow, CONFIG);
    assert.ok(!report.fresh && !report.rebuilt, JSON.stringify(report));
    assert.ok(most > 1 && most <= 4, `reads in flight at once: ${most}`);
    assert.ok(reads.includes(gone), `the vanished file was asked for: ${reads.join(", ")}`);
    assert.deepEqual(core.status(), want.status);
    assert.deepEqual(core.search({ query: "note", k: 5, mode: "lexical" }).hits, want.hits);
    core.free();
  });

  test("Rebuild index keeps the list of the shared segments the device wrote", NEEDS_MODEL, async () => {
    const vault = await copyEmbeddedFixture();
    const store = new FsIndexStore(indexDirOf(vault));
    const device = CONFIG.deviceId ?? "";
    const wrote = await listedSegments(store, device);
    assert.ok(wrote.length > 0 && wrote.every((n) => n.startsWith("vectors/")), wrote.join(", "));

    // Rebuild index deletes the device's index but its manifests, which hold the list.
    await deleteOwnIndex(Core, store, CONFIG);
    const left = await ownFiles(store, device);
    assert.ok(left.length > 0 && left.every(isManifest), left.join(", "));
    // Closed before the rebuild's first write: a fresh index, the manifests still there.
    const crashed = await openIndex(Core, store, CONFIG);
    assert.ok(crashed.report.fresh && !crashed.report.rebuilt && crashed.report.notes === 0, JSON.stringify(crashed.report));
    assert.ok(crashed.core.status().vectors > 0, "the shared vectors are read");
    crashed.core.free();
    assert.deepEqual(await ownFiles(store, device), left);

    // Rebuilt: the new index lists them, and nothing is embedded again.
    const { core } = await indexVault(vault, store);
    assert.deepEqual(await listedSegments(store, device), wrote);
    assert.ok(!(await ownFiles(store, device)).every(isManifest), "the new index is written");
    loadModelInto(core);
    const progress = core.embedProgress();
    assert.ok(progress.total > 0 && progress.done === progress.total, JSON.stringify(progress));
    core.free();
    const again = await openIndex(Core, store, CONFIG);
    assert.ok(!again.report.fresh && !again.report.rebuilt && again.report.notes > 0, JSON.stringify(again.report));
    again.core.free();
  });
});
