// One vault on three devices, kept in step by a simulated sync service: Strata runs on each
// device (the core as the CLI and the bridge run it, each device with its own id), and between
// the runs a sync process copies creates, updates and deletions in random order, delivers
// some files partly written first, makes conflict copies the way Dropbox, Syncthing and
// Obsidian Sync name them, and carries deletions. Only the desktop embeds, flushing after every
// text as a long first embedding does, so it merges its segments and, a week of simulated time
// later, deletes the ones it merged. At the end: no note was ever changed by Strata, every device
// answers as a fresh rebuild does, every text was embedded once, no device deleted a file it did
// not write, no device ever saw a vector leave its union, the segments stay few, and the index of
// an older Strata (format 15) and a newer one's folder are left as they were.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import type { CoreConfig, StrataCoreApi } from "../../plugin/core/api.ts";
import { embedAll } from "../../plugin/core/embedding/loop.ts";
import { addSharedVectors, openIndex, persist } from "../../plugin/core/index-store.ts";
import { reconcile } from "../../plugin/core/reconcile.ts";
import { FsIndexStore, NodeVault } from "../../plugin/node/host.ts";
import { fileHashes } from "../file-tree.ts";
import { newestManifest } from "../index-manifest.ts";
import { copyEmbeddedFixture } from "./embedded-fixture.ts";
import {
  cleanupTemps,
  CONFIG,
  copyFixture,
  Core,
  FIXTURE,
  indexDirOf,
  loadModelInto,
  NEEDS_MODEL,
  RecordingStore,
  ROOT,
  tempDir,
} from "./helpers.ts";
import { checkModelBudget, JS_HEAP_MB, MODEL_LOAD_MB, mobileBudgetMB } from "../../plugin/obsidian/memory-budget.ts";
import { installModel, loadPlugin, Platform, unloadPlugin } from "./plugin-env.ts";

after(cleanupTemps);

/** The simulated wall clock: the wasm core reads Date.now (merged segments are deleted a week
 *  after the merge); the simulator moves it on a day per round. */
const realNow = Date.now;
let clockDays = 0;
const DAY = 864e5;

/** The keys of a segment's vectors (crate/src/vectors/segment.rs: count at 12, keys from 40). */
function segmentKeys(bytes: Buffer): string[] {
  const count = bytes.readUInt32LE(12);
  return Array.from({ length: count }, (_, i) => bytes.subarray(40 + i * 32, 72 + i * 32).toString("hex"));
}

/** The keys in the vector segments of `dir`'s index that are whole (their bytes match their name). */
async function unionOf(dir: string): Promise<Set<string>> {
  const keys = new Set<string>();
  const index = path.join(dir, INDEX);
  if (!(await stat(index).catch(() => null))) return keys;
  for (const [f] of await tree(index)) {
    const m = /^vectors\/[0-9a-f]{16}\/([0-9a-f]{32})\.svec$/.exec(f);
    if (!m) continue;
    const bytes = await readFile(path.join(index, f));
    if (!createHash("sha256").update(bytes).digest("hex").startsWith(m[1])) continue;
    for (const k of segmentKeys(bytes)) keys.add(k);
  }
  return keys;
}

const QUERIES = ["sourdough hydration", "telescope", "乌龙茶", "山小屋", "reading list", "backup drive", "garden water"];
const INDEX = ".obsidian/plugins/strata-search/index";

/** A seeded random source (mulberry32): a failure replays. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const tree = fileHashes;

const isNote = (f: string) => !f.startsWith(".obsidian/");

/** What the simulated sync did, so the test can say it exercised each case. */
const did = { partial: 0, conflicts: 0, deletions: 0, runsMidDelivery: 0 };

interface Device {
  id: string;
  dir: string;
  embeds: boolean;
  /** Index files this device deleted, and those it wrote, over every run. */
  deleted: string[];
  written: Set<string>;
  /** The vector keys of its index folder at its last run (a vector never leaves it). */
  union: Set<string>;
  /** Texts it embedded, over every run. */
  embedded: number;
  /** What the sync process last delivered from here to each other device (name → hash). */
  synced: Map<string, Map<string, string>>;
  /** Every file here (own or received) at the last delivery from here (name → hash). */
  seen: Map<string, string>;
  /** Files deleted here since (own or received), with the bytes' hash they had, in order. */
  tombstones: { f: string; h: string }[];
  /** How many of the tombstones each other device has been sent. */
  tombstonesSent: Map<string, number>;
  /** Files as the sync process delivered them here (name → hash): not this device's changes. */
  received: Map<string, string>;
}

/** A device whose vault is `root`/`id`, nothing run or synced yet. */
function device(root: string, id: string, embeds: boolean): Device {
  return {
    id,
    dir: path.join(root, id),
    embeds,
    deleted: [],
    written: new Set(),
    union: new Set(),
    embedded: 0,
    synced: new Map(),
    seen: new Map(),
    tombstones: [],
    tombstonesSent: new Map(),
    received: new Map(),
  };
}

/** One run of Strata on a device: open, bring the index up to date, embed (the desktop), persist. */
async function runStrata(d: Device): Promise<void> {
  const notesBefore = [...(await tree(d.dir))].filter(([f]) => isNote(f));
  const union = await unionOf(d.dir);
  for (const k of d.union) assert.ok(union.has(k), `${d.id}: a vector left the union before a run (${k})`);
  d.union = union;
  const store = new RecordingStore(new FsIndexStore(path.join(d.dir, INDEX)));
  const config: CoreConfig = { configDir: ".obsidian", deviceId: d.id };
  const { core } = await openIndex(Core, store, config);
  try {
    await reconcile(core, new NodeVault(d.dir), { store });
    if (d.embeds) {
      loadModelInto(core);
      await addSharedVectors(core, store);
      // A flush after every text, as a long first embedding makes one every few seconds.
      d.embedded += (await embedAll(core, new NodeVault(d.dir), store, { maxChunks: 1, flushEveryMs: 0 })).embedded;
    }
    await persist(core, store);
  } finally {
    core.free();
  }
  d.deleted.push(...store.deletes);
  for (const w of store.writes) d.written.add(w);
  const notesAfter = [...(await tree(d.dir))].filter(([f]) => isNote(f));
  assert.deepEqual(notesAfter, notesBefore, `${d.id}: Strata changed no note`);
}

/** The conflict copy names of three sync services. */
const CONFLICT_NAMES = [
  (f: string) => f.replace(/(\.[^./]+)?$/, (ext) => ` (conflicted copy 2026-11-27)${ext}`), // Dropbox
  (f: string) => f.replace(/(\.[^./]+)?$/, (ext) => `.sync-conflict-20261127-101112-ABCDEFG${ext}`), // Syncthing
  (f: string) => f.replace(/(\.[^./]+)?$/, (ext) => ` 2${ext}`), // Obsidian Sync, iCloud
];

/**
 * Delivers `src`'s changes since the last delivery to `dst`, in random order: what it created or
 * changed (not what it received) is copied (sometimes first cut short, as a file still arriving
 * is seen, and whole only at the end of the delivery); a file deleted at `src`, its own or one it
 * received, is deleted at `dst` unless `dst` changed it since (a change wins over a deletion, as
 * the sync services keep it); a note both changed keeps `src`'s version with `dst`'s as a
 * conflict copy. `between` runs Strata on `dst` halfway, partial files still there.
 */
async function deliver(src: Device, dst: Device, rand: () => number, between?: () => Promise<void>): Promise<void> {
  const now = await tree(src.dir);
  const own = new Map([...now].filter(([f, h]) => src.received.get(f) !== h));
  const last = src.synced.get(dst.id) ?? new Map<string, string>();
  const there = await tree(dst.dir);
  const changed = [...own].filter(([f, h]) => last.get(f) !== h && there.get(f) !== h).map(([f]) => f);
  for (const [f, h] of src.seen) if (!now.has(f)) src.tombstones.push({ f, h });
  src.seen = now;
  const from = src.tombstonesSent.get(dst.id) ?? 0;
  src.tombstonesSent.set(dst.id, src.tombstones.length);
  const gone = [
    ...new Set(
      src.tombstones
        .slice(from)
        .filter(({ f, h }) => !now.has(f) && there.get(f) === h)
        .map(({ f }) => f),
    ),
  ];
  const work = [...changed.map((f) => ({ f, del: false })), ...gone.map((f) => ({ f, del: true }))].sort(() => rand() - 0.5);
  const partial: string[] = [];
  const half = Math.floor(work.length / 2);
  for (const [i, { f, del }] of work.entries()) {
    if (i === half && between) {
      did.runsMidDelivery++;
      await between();
    }
    const to = path.join(dst.dir, f);
    if (del) {
      await rm(to, { force: true });
      dst.received.delete(f);
      did.deletions++;
      continue;
    }
    const bytes = await readFile(path.join(src.dir, f));
    const theirs = there.get(f);
    if (isNote(f) && theirs !== undefined && theirs !== dst.received.get(f)) {
      // Both changed the note: the receiver's version becomes a conflict copy.
      const copy = CONFLICT_NAMES[Math.floor(rand() * CONFLICT_NAMES.length)](f);
      await cp(to, path.join(dst.dir, copy));
      did.conflicts++;
    }
    await mkdir(path.dirname(to), { recursive: true });
    if (!isNote(f) && rand() < 0.3 && bytes.length > 8) {
      await writeFile(to, bytes.subarray(0, Math.floor(bytes.length / 2)));
      partial.push(f);
      did.partial++;
    } else {
      await writeFile(to, bytes);
    }
    dst.received.set(f, own.get(f)!);
  }
  for (const f of partial) await writeFile(path.join(dst.dir, f), await readFile(path.join(src.dir, f)));
  const sent = new Map(last);
  for (const f of sent.keys()) if (!now.has(f)) sent.delete(f);
  for (const f of changed) sent.set(f, own.get(f)!);
  src.synced.set(dst.id, sent);
}

/** An edit a user makes on a device. */
async function edit(d: Device, round: number, rand: () => number): Promise<void> {
  const notes = [...(await tree(d.dir)).keys()].filter((f) => isNote(f) && f.endsWith(".md"));
  const r = rand();
  if (r < 0.5) {
    const f = notes[Math.floor(rand() * notes.length)];
    const text = await readFile(path.join(d.dir, f), "utf8");
    await writeFile(path.join(d.dir, f), `${text}\n\nEdited on ${d.id} in round ${round}: lantern ${round} moss.\n`);
  } else if (r < 0.85) {
    await mkdir(path.join(d.dir, "Sync"), { recursive: true });
    await writeFile(
      path.join(d.dir, `Sync/${d.id}-${round}.md`),
      `# From ${d.id}\n\nRound ${round} notes about quartz ${round} gardens.\n`,
    );
  } else {
    const mine = notes.filter((f) => f.startsWith("Sync/"));
    if (mine.length > 0) await rm(path.join(d.dir, mine[Math.floor(rand() * mine.length)]));
  }
}

/**
 * Each query's answers: lexically every section it matches (which sections match depends on
 * their text alone; their order does not compare, because BM25's statistics count deleted
 * documents until tantivy merges them, so an index that has seen edits scores a little
 * differently from a rebuild and close hits can swap); semantically the top 10 in rank order,
 * hits tied on score sorted by id (their order among themselves is arbitrary) and a tie at the
 * cut left out (which of them makes the 10 is arbitrary).
 */
function answers(core: StrataCoreApi): string[][] {
  return QUERIES.flatMap((q) => {
    const all = core.search({ query: q, mode: "lexical", k: 200 }).hits;
    assert.ok(all.length < 200, `${q}: every match within k`);
    const lexical = all.map((h) => `${q} lexical: ${h.sectionId}`).sort();
    const hits = core.search({ query: q, mode: "semantic", k: 10 }).hits;
    const groups: string[][] = [];
    let last: string | null = null;
    for (const h of hits) {
      const score = h.score.toFixed(4);
      if (score !== last) groups.push([]);
      groups.at(-1)!.push(`${q} semantic: ${h.sectionId}`);
      last = score;
    }
    if (hits.length === 10 && groups.length > 1) groups.pop();
    return [lexical, groups.flatMap((g) => g.sort())];
  });
}

/** A device's answers now: its index as it opens, the model loaded for queries only. */
async function deviceAnswers(d: Device): Promise<string[][]> {
  const store = new FsIndexStore(path.join(d.dir, INDEX));
  const { core } = await openIndex(Core, store, { configDir: ".obsidian", deviceId: d.id }, { removeOrphans: false });
  try {
    loadModelInto(core);
    await addSharedVectors(core, store);
    assert.equal(core.embedProgress().done, core.embedProgress().total, `${d.id} has a vector for every text`);
    return answers(core);
  } finally {
    core.free();
  }
}

/** The answers of an index built from nothing on a copy of the vault, everything embedded. */
async function rebuiltAnswers(vault: string): Promise<string[][]> {
  const copy = path.join(await tempDir(), "vault");
  await cp(vault, copy, { recursive: true, filter: (s) => !s.includes(`${path.sep}.obsidian`) });
  const store = new FsIndexStore(path.join(copy, INDEX));
  const { core } = await openIndex(Core, store, { configDir: ".obsidian", deviceId: "rebuild" });
  try {
    await reconcile(core, new NodeVault(copy), { store });
    loadModelInto(core);
    await embedAll(core, new NodeVault(copy), null);
    return answers(core);
  } finally {
    core.free();
  }
}

/** The segments the desktop merged into another and has not deleted yet (its manifest): name → merged into. */
async function mergedSegments(indexDir: string): Promise<Map<string, string>> {
  const manifests = [...(await tree(indexDir)).keys()].filter((f) => /^devices\/desk\.v\d+\/manifest-[ab]\.json$/.test(f));
  const newest = newestManifest(await Promise.all(manifests.map((f) => readFile(path.join(indexDir, f), "utf8"))));
  const out = new Map<string, string>();
  for (const s of newest?.segments ?? []) if (s.mergedInto) out.set(s.name, s.mergedInto);
  return out;
}

/** The vectors in the shared segments of a model (its space's spec file names it) but `except`, and the files. */
async function segmentCounts(indexDir: string, modelId: string, except = new Set<string>()): Promise<{ vectors: number; files: number }> {
  let vectors = 0;
  let files = 0;
  const all = await tree(indexDir);
  const spaces = new Set<string>();
  for (const [f] of all) {
    if (!f.startsWith("vectors/") || !f.endsWith("/space.json")) continue;
    const spec = JSON.parse(await readFile(path.join(indexDir, f), "utf8")) as { modelId: string };
    if (spec.modelId === modelId) spaces.add(path.posix.dirname(f));
  }
  for (const [f] of all) {
    if (!spaces.has(path.posix.dirname(f)) || !f.endsWith(".svec") || except.has(f)) continue;
    vectors += (await readFile(path.join(indexDir, f))).readUInt32LE(12);
    files++;
  }
  return { vectors, files };
}

describe("one vault on three devices, synced", NEEDS_MODEL, () => {
  test("a phone that opens the index before the desktop's manifests arrive deletes nothing; the desktop embeds nothing again", async () => {
    const root = await tempDir();
    const make = (id: string, embeds: boolean) => device(root, id, embeds);
    const desk = make("desk", true);
    const phone = make("phone", false);
    // Four notes (a third of the fixture's chunks): the desktop embeds each, a flush after each.
    await cp(await copyFixture(["Cooking/Sourdough starter.md", "Garden/Drip irrigation.md", "中文/茶道笔记.md", "Welcome.md"]), desk.dir, {
      recursive: true,
    });
    await runStrata(desk);
    const embedded = desk.embedded;
    assert.ok(embedded > 0);
    // The phone gets every file but the desktop's manifests, and runs Strata.
    await cp(desk.dir, phone.dir, { recursive: true, filter: (s) => !/manifest-[ab]\.json$/.test(s) });
    await runStrata(phone);
    assert.deepEqual(
      phone.deleted.filter((f) => !f.startsWith("devices/phone.")),
      [],
      "the phone deleted nothing it did not write",
    );
    // Its files go back to the desktop (sync carries no deletion: there was none).
    await cp(phone.dir, desk.dir, { recursive: true, force: false });
    await runStrata(desk);
    assert.equal(desk.embedded, embedded, "the desktop embeds nothing again");
    assert.deepEqual(await deviceAnswers(phone), await deviceAnswers(desk));
  });

  test("rounds of edits on three devices: answers of a rebuild, every text embedded once, no foreign file deleted", async (t) => {
    const rand = rng(Number(process.env.STRATA_SYNC_SEED ?? 20261127)); // another seed replays another history
    const root = await tempDir();
    const make = (id: string, embeds: boolean) => device(root, id, embeds);
    const devices = [make("desk", true), make("phone", false), make("tablet", false)];
    // The vault was indexed by Strata of format 15 before (one index for all), and a newer
    // Strata on the phone has a folder of its own: both are left as they are.
    const legacy = path.join(ROOT, "tests", "fixtures", "formats", "v15");
    const newer = "devices/phone.v99/manifest-a.json";
    for (const d of devices) {
      await cp(FIXTURE, d.dir, { recursive: true });
      await cp(legacy, path.join(d.dir, INDEX), { recursive: true, filter: (s) => !s.endsWith("README.md") });
      await mkdir(path.dirname(path.join(d.dir, INDEX, newer)), { recursive: true });
      await writeFile(path.join(d.dir, INDEX, newer), "a newer Strata's manifest");
    }
    const untouchable = [...(await tree(path.join(devices[0].dir, INDEX))).entries()];
    Date.now = () => realNow() + clockDays * DAY;
    t.after(() => void (Date.now = realNow));

    for (let round = 0; round < 8; round++) {
      clockDays = round;
      const d = devices[Math.floor(rand() * devices.length)];
      await edit(d, round, rand);
      await runStrata(d);
      // Sync: each device's changes reach the others, in random order; Strata runs on a
      // receiver in the middle of some deliveries.
      for (const src of devices) {
        for (const dst of devices) {
          if (src === dst) continue;
          await deliver(src, dst, rand, rand() < 0.4 ? () => runStrata(dst) : undefined);
        }
      }
    }
    // Sync settles: a full exchange, every device runs once more (the desktop first), and its
    // files reach the others.
    const exchange = async () => {
      for (const src of devices) for (const dst of devices) if (src !== dst) await deliver(src, dst, rand);
    };
    await exchange();
    for (const d of devices) await runStrata(d);
    await exchange();
    // A week later (the grace period past) the desktop deletes the segments it merged, and a week
    // after that those it merged in the runs above; sync carries the deletions.
    for (const week of [1, 2]) {
      clockDays = 8 + 8 * week;
      await runStrata(devices[0]);
      await exchange();
    }
    for (const d of devices.slice(1)) await runStrata(d);

    // The simulation met each case it is meant to.
    assert.ok(did.partial > 0 && did.conflicts > 0 && did.deletions > 0 && did.runsMidDelivery > 0, JSON.stringify(did));
    const notes = async (d: Device) => [...(await tree(d.dir))].filter(([f]) => isNote(f));
    const first = await notes(devices[0]);
    for (const d of devices.slice(1)) assert.deepEqual(await notes(d), first, `${d.id} has the same notes`);

    // Every device answers as a fresh rebuild of the vault does.
    const expected = await rebuiltAnswers(devices[0].dir);
    for (const d of devices) assert.deepEqual(await deviceAnswers(d), expected, `${d.id}'s top 10s`);

    // Every text embedded once, across all devices: only the desktop embedded, and no key is in
    // two of the segments it keeps (they hold as many vectors as distinct texts); a segment it
    // merged, until the grace period has passed, is within the one it was merged into.
    for (const d of devices.slice(1)) assert.equal(d.embedded, 0, `${d.id} embedded nothing`);
    const deskIndex = path.join(devices[0].dir, INDEX);
    const merged = await mergedSegments(deskIndex);
    const counts = await segmentCounts(deskIndex, "all-MiniLM-L6-v2", new Set(merged.keys()));
    const store = new FsIndexStore(deskIndex);
    const { core } = await openIndex(Core, store, { configDir: ".obsidian", deviceId: "desk" }, { removeOrphans: false });
    const distinct = core.status().vectors;
    core.free();
    assert.equal(counts.vectors, distinct, `${counts.files} segments hold ${counts.vectors} vectors for ${distinct} texts`);
    assert.ok(devices[0].embedded <= distinct, `${devices[0].embedded} embedded`);
    for (const [seg, into] of merged) {
      const keys = segmentKeys(await readFile(path.join(deskIndex, into)));
      for (const k of segmentKeys(await readFile(path.join(deskIndex, seg)))) assert.ok(keys.includes(k), `${seg} is within ${into}`);
    }
    // Compaction: the desktop wrote a segment per flush, merged them and deleted the merged ones;
    // the segments it keeps stay under the merge threshold (32 of similar size, `vectors/merge.rs`).
    const written = [...devices[0].written].filter((f) => f.endsWith(".svec")).length;
    const gone = devices[0].deleted.filter((f) => f.endsWith(".svec")).length;
    assert.ok(gone > 0, "the desktop deleted the segments it merged, after the grace period");
    assert.ok(counts.files < 32, `${counts.files} segments kept`);
    t.diagnostic(
      `sync: ${JSON.stringify(did)}; embedded ${devices.map((d) => `${d.id} ${d.embedded}`).join(", ")}; ` +
        `the desktop wrote ${written} segments and deleted ${gone}; ${counts.files} kept and ${merged.size} merged hold ` +
        `${counts.vectors} vectors for ${distinct} texts`,
    );

    // No device deleted a file it did not write, nor saw a vector leave its union; the older and
    // the newer Strata's files stand.
    for (const d of devices) {
      const foreign = d.deleted.filter((f) => !d.written.has(f));
      assert.deepEqual(foreign, [], `${d.id} deleted only files it wrote`);
      const union = await unionOf(d.dir);
      for (const k of d.union) assert.ok(union.has(k), `${d.id}: a vector left the union`);
      const now = await tree(path.join(d.dir, INDEX));
      for (const [f, h] of untouchable) assert.equal(now.get(f), h, `${d.id}: ${f} is as it was`);
    }
    assert.ok((await stat(indexDirOf(devices[1].dir))).isDirectory());
  });
});

test("a write a hard kill interrupted leaves a temporary file: its device deletes it unread at its next open, no other device does", async () => {
  const root = await tempDir();
  const vault = path.join(root, "desk");
  await cp(FIXTURE, vault, { recursive: true });
  const store = new RecordingStore(new FsIndexStore(path.join(vault, INDEX)));
  const open = async (deviceId: string) => {
    const { core, removedOrphans } = await openIndex(Core, store, { configDir: ".obsidian", deviceId });
    await reconcile(core, new NodeVault(vault), { store });
    core.free();
    return removedOrphans;
  };
  await open("desk");
  const names = await store.list();
  const own = names.find((n) => /^devices\/desk\.v\d+\/manifest-a\.json$/.test(n))!;
  // The Node host's atomic write (plugin/node/host.ts): `<name>.tmp-<pid>-<n>`, renamed when whole.
  const temps = [`${own}.tmp-4242-7`, `${path.posix.dirname(own)}/lex/0123456789abcdef0123456789abcdef.idx.tmp-4242-8`];
  const phoneTemp = own.replace(/^devices\/desk\./, "devices/phone.") + ".tmp-99-1";
  const others = [phoneTemp, `${own} (conflicted copy).tmp-4242-9`];
  for (const f of [...temps, ...others]) {
    await mkdir(path.dirname(path.join(vault, INDEX, f)), { recursive: true });
    await writeFile(path.join(vault, INDEX, f), "half a file");
  }
  const removed = await open("desk");
  assert.deepEqual(removed.sort(), [...temps].sort(), "the desk's temporary files, and only those");
  for (const f of temps) await assert.rejects(stat(path.join(vault, INDEX, f)));
  for (const f of others) assert.ok((await stat(path.join(vault, INDEX, f))).isFile(), `${f} is left alone`);
  // The phone's own folder's temporary file is the phone's: it deletes that one, nothing else.
  assert.deepEqual(await open("phone"), [phoneTemp]);
  assert.ok((await stat(path.join(vault, INDEX, others[1]))).isFile(), "not a name Strata writes: left alone");
});

test("the Node hosts' device id: made once per machine, kept outside the vault, STRATA_DEVICE_ID first", async () => {
  const state = await tempDir();
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_STATE_HOME: state };
  delete env.STRATA_DEVICE_ID;
  const script = `import { machineDeviceId } from ${JSON.stringify(path.join(ROOT, "plugin/node/device-id.ts"))}; console.log(machineDeviceId());`;
  const run = (e: NodeJS.ProcessEnv) =>
    spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { env: e, encoding: "utf8" });
  // The first process makes the id; the next ones read it.
  const a = run(env);
  const b = run(env);
  assert.equal(a.status, 0, a.stderr);
  assert.match(a.stdout.trim(), /^[0-9a-f]{16}$/);
  assert.equal(b.stdout, a.stdout);
  assert.equal((await readFile(path.join(state, "strata", "device-id"), "utf8")).trim(), a.stdout.trim());
  assert.equal(run({ ...env, STRATA_DEVICE_ID: "laptop-2" }).stdout.trim(), "laptop-2");
  const bad = run({ ...env, STRATA_DEVICE_ID: "../x" });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /STRATA_DEVICE_ID/);
});

/** A phone's vault: the fixture as a desktop (the test device) indexed and embedded it, synced
 *  whole (index folder included; the cached copy), with the model installed. */
async function phoneOfDesktop(): Promise<string> {
  const phoneDir = await copyEmbeddedFixture();
  await installModel(phoneDir);
  return phoneDir;
}

describe("the plugin on a phone that does not embed", NEEDS_MODEL, () => {
  test("hybrid search answers with the desktop's vectors: the model loads at the first search, for queries only", async () => {
    const phoneDir = await phoneOfDesktop();
    const { plugin } = await loadPlugin(phoneDir, { settings: { semantic: false } });
    try {
      assert.equal(plugin.modelState, "off", "nothing loaded at start");
      const res = await plugin.search({ query: "thirsty veggies", k: 3, mode: "hybrid" });
      assert.equal(plugin.modelState, "queries");
      assert.equal(res.mode, "hybrid", res.notice ?? "");
      assert.ok(
        res.hits.some((h) => h.path === "Garden/Drip irrigation.md"),
        JSON.stringify(res.hits.map((h) => h.path)),
      );
      const st = await plugin.workerState();
      assert.equal(st?.counters.embedded, 0, "the phone embedded nothing");
      assert.match((await plugin.statusLines()).join("\n"), /embedded by your other devices/);
    } finally {
      await unloadPlugin(plugin);
    }
    const phoneFolders = (await readdir(path.join(phoneDir, INDEX, "devices"))).filter((d) => !d.startsWith(`${CONFIG.deviceId}.`));
    assert.equal(phoneFolders.length, 1, "the phone wrote a folder of its own");
  });
});

describe("the phone's memory budget", NEEDS_MODEL, () => {
  test("the budget: none on desktop, 1 GB where the web view does not say the memory, a quarter of what it says", () => {
    assert.equal(checkModelBudget("multilingual-e5-small", 900, { mobile: false }).fits, true);
    assert.equal(mobileBudgetMB(undefined), 1024);
    assert.equal(mobileBudgetMB(2), 512);
    assert.equal(mobileBudgetMB(8), 1024);
    const mini = checkModelBudget("all-MiniLM-L6-v2", 60, { mobile: true });
    assert.ok(mini.fits && mini.needMB === 60 + MODEL_LOAD_MB["all-MiniLM-L6-v2"] + JS_HEAP_MB, JSON.stringify(mini));
    const e5 = checkModelBudget("multilingual-e5-small", 300, { mobile: true, deviceMemoryGB: 2 });
    assert.equal(e5.fits, false);
    assert.match(e5.reason ?? "", /over its memory budget of 512 MB, a quarter of its 2 GB/);
    // A model it does not know counts as the largest.
    assert.equal(
      checkModelBudget("auto", 60, { mobile: true }).needMB,
      checkModelBudget("multilingual-e5-small", 60, { mobile: true }).needMB,
    );
  });

  test("over the budget a phone does not load the model for queries, and search says why; within it, it does", async () => {
    const phoneDir = await phoneOfDesktop();
    const platform = { ...Platform };
    const nav = Object.getOwnPropertyDescriptor(globalThis, "navigator");
    const phoneWith = (deviceMemory: number) => {
      Object.assign(Platform, { isMobile: true, isDesktop: false, isDesktopApp: false, isMobileApp: true });
      Object.defineProperty(globalThis, "navigator", { configurable: true, value: { deviceMemory, hardwareConcurrency: 4 } });
    };
    try {
      phoneWith(1);
      const { plugin } = await loadPlugin(phoneDir);
      try {
        const res = await plugin.search({ query: "thirsty veggies", k: 3, mode: "hybrid" });
        assert.equal(plugin.modelState, "over-budget");
        assert.equal(res.mode, "lexical");
        assert.match(
          res.notice ?? "",
          /^semantic search is off on this device: all-MiniLM-L6-v2 would bring Strata to about \d+ MB on this device, over its memory budget of 256 MB, a quarter of its 1 GB/,
        );
        await assert.rejects(
          plugin.search({ query: "thirsty veggies", k: 3, mode: "semantic" }),
          /\[unavailable\] semantic search is off on this device/,
        );
        assert.ok(
          plugin.notices.some((n) => /over its memory budget of 256 MB/.test(n)),
          plugin.notices.join("\n"),
        );
        assert.ok(!plugin.notices.some((n) => /download/i.test(n)), plugin.notices.join("\n"));
        assert.match((await plugin.statusLines()).join("\n"), /semantic: off on this device, over its memory budget/);
        assert.equal(plugin.modelLoad, null, "no model was loaded");
      } finally {
        await unloadPlugin(plugin);
      }
      phoneWith(4);
      const again = await loadPlugin(phoneDir);
      try {
        const res = await again.plugin.search({ query: "thirsty veggies", k: 3, mode: "hybrid" });
        assert.equal(again.plugin.modelState, "queries");
        assert.equal(res.mode, "hybrid", res.notice ?? "");
        assert.equal(again.plugin.modelLoad?.loaded, "all-MiniLM-L6-v2");
        assert.ok(((await again.plugin.workerState())?.memory?.embedderWasm ?? 0) > 0);
      } finally {
        await unloadPlugin(again.plugin);
      }
    } finally {
      Object.assign(Platform, platform);
      if (nav) Object.defineProperty(globalThis, "navigator", nav);
      else delete (globalThis as { navigator?: unknown }).navigator;
    }
  });
});

test("the plugin keeps Embed notes, the workers and the bridge per device, the vault's settings in data.json", async () => {
  const root = await tempDir();
  const desk = path.join(root, "desk");
  await cp(FIXTURE, desk, { recursive: true });
  const first = await loadPlugin(desk, { settings: { semantic: false, embeddingModel: "all-MiniLM-L6-v2", bridgePort: 4321 } });
  try {
    // data.json of an earlier version (the device's choices in it) is this device's start.
    assert.equal(first.plugin.settings.semantic, false);
    first.plugin.settings.semantic = true;
    first.plugin.settings.embedWorkers = 2;
    await first.plugin.saveSettings();
  } finally {
    await unloadPlugin(first.plugin);
  }
  const data = JSON.parse(await readFile(path.join(desk, ".obsidian/plugins/strata-search/data.json"), "utf8")) as Record<string, unknown>;
  assert.equal(data.embeddingModel, "all-MiniLM-L6-v2", "the vault's choice syncs");
  for (const k of ["semantic", "embedWorkers", "bridgeEnabled", "bridgePort", "bridgeToken"])
    assert.ok(!(k in data), `${k} is not in data.json`);
  // The same device again: its choices are back.
  const again = await loadPlugin(desk);
  try {
    assert.deepEqual(
      [again.plugin.settings.semantic, again.plugin.settings.embedWorkers, again.plugin.settings.bridgePort],
      [true, 2, 4321],
    );
  } finally {
    await unloadPlugin(again.plugin);
  }
  // Another device (the vault synced elsewhere): the vault's settings, its own defaults.
  const phone = path.join(root, "phone");
  await cp(desk, phone, { recursive: true });
  const other = await loadPlugin(phone);
  try {
    assert.equal(other.plugin.settings.embeddingModel, "all-MiniLM-L6-v2");
    assert.deepEqual(
      [other.plugin.settings.semantic, other.plugin.settings.embedWorkers, other.plugin.settings.bridgePort],
      [null, "auto", 0],
    );
  } finally {
    await unloadPlugin(other.plugin);
  }
});
