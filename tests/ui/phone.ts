// The phone profile of the Chromium harness: the plugin as Obsidian's mobile app runs it
// (Platform.isMobile, no Node modules: every `require` the bundle attempts is recorded and throws;
// the vault adapter only; the memory budget of memory-budget.ts, with the web view's
// navigator.deviceMemory as a phone reports it, or none as on iOS) over a vault whose index and
// vectors a desktop made.
//
// phoneTest: part of the UI test (the fixture vault, the desktop profile's index; not timed).
// phoneBench: `npm run bench:plugin -- --phone` (the help vault, the desktop being the CLI):
// plugin load → first hybrid search, memory, embeddings on the phone, and the desktop's segments.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";

import type { Page } from "playwright-core";

import { fileHashes } from "../file-tree.ts";
import { newestManifest } from "../index-manifest.ts";
import { launchChromium } from "./chromium.ts";

const INDEX = ".obsidian/plugins/strata-search/index";
/** The vault's settings as sync carries them from the desktop (data.json: the device's own are not in it). */
const SYNCED_SETTINGS = { embeddingModel: "all-MiniLM-L6-v2" };

/** Calls the harness page's `harness[name](...args)` (tests/ui/harness.ts). */
function call<T = unknown>(page: Page, name: string, ...args: unknown[]): Promise<T> {
  return page.evaluate(([n, a]) => (window as unknown as { harness: Record<string, (...x: unknown[]) => unknown> }).harness[n](...a), [
    name,
    args,
  ] as const) as Promise<T>;
}

/** Every file of the index folder with its bytes' hash. */
function indexFiles(vault: string): Promise<Map<string, string>> {
  return fileHashes(path.join(vault, INDEX));
}

/** The phone's part of the UI test, on the vault the desktop profile indexed and embedded. */
export async function phoneTest(page: Page, vault: string): Promise<void> {
  const desktop = await indexFiles(vault);
  assert.ok(
    [...desktop.keys()].some((f) => f.startsWith("vectors/") && f.endsWith(".svec")),
    "the desktop wrote vectors",
  );
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.ready === "1");

  // The bundle reaches Node's modules through the global `require` the profile traps.
  assert.deepEqual(await call(page, "probeRequire"), ["node:os"], "the trap sees the bundle's requires");

  await call(page, "load", { profile: "phone", settings: SYNCED_SETTINGS });
  assert.equal(await call(page, "modelState"), "off", "a phone does not embed: no model at start");
  const res = await call<{ mode: string; paths: string[]; notice: string | null }>(page, "search", "thirsty veggies");
  assert.equal(res.mode, "hybrid", res.notice ?? "");
  assert.ok(res.paths.includes("Garden/Drip irrigation.md"), `the desktop's vectors answer: ${res.paths}`);
  assert.equal(await call(page, "modelState"), "queries", "the model loaded for queries only");
  const counters = await call<{ embedded: number }>(page, "counters");
  assert.equal(counters.embedded, 0, "the phone embedded nothing");
  const progress = await call<{ done: number; total: number }>(page, "embedProgress");
  assert.ok(progress.total > 0 && progress.done === progress.total, `every text has the desktop's vector: ${JSON.stringify(progress)}`);
  assert.match((await call<string[]>(page, "statusLines")).join("\n"), /embedded by your other devices/);
  assert.deepEqual(await call(page, "requireAttempts"), [], "the phone loaded no Node module");
  const mem = await call<{ coreWasm: number; embedderWasm: number; pageHeap: number | null }>(page, "memory");
  const mb = (b: number) => Math.round(b / 1048576);
  assert.ok(mem.embedderWasm > 0, "the embedder's memory is reported");
  assert.ok(mb(mem.coreWasm + mem.embedderWasm + (mem.pageHeap ?? 0)) <= 600, `within the phone's budget: ${JSON.stringify(mem)}`);
  await call(page, "unload");

  // The phone wrote its own folder and left every file of the desktop's as it was.
  const after = await indexFiles(vault);
  for (const [f, hash] of desktop) assert.equal(after.get(f), hash, `${f} is as the desktop wrote it`);
  const added = [...after.keys()].filter((f) => !desktop.has(f));
  const phoneDirs = new Set(added.map((f) => f.split("/").slice(0, 2).join("/")));
  assert.equal(phoneDirs.size, 1, `one folder of the phone's: ${[...phoneDirs]}`);
  assert.match([...phoneDirs][0], /^devices\/[0-9a-f]+\.v\d+$/);

  // A phone with 1 GB (Android's web view says so): the model would pass a quarter of it, so it
  // is not loaded, and search says why (not "download a model").
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.ready === "1");
  await call(page, "clearNotices");
  await call(page, "load", { profile: "phone", deviceMemoryGB: 1, settings: SYNCED_SETTINGS });
  const lean = await call<{ mode: string; notice: string | null }>(page, "search", "thirsty veggies");
  assert.equal(await call(page, "modelState"), "over-budget");
  assert.equal(lean.mode, "lexical");
  assert.match(lean.notice ?? "", /semantic search is off on this device: all-MiniLM-L6-v2 would bring Strata to about \d+ MB/);
  assert.match(lean.notice ?? "", /memory budget of 256 MB, a quarter of its 1 GB/);
  const notices = await call<string[]>(page, "notices");
  assert.ok(
    notices.some((n) => /over its memory budget of 256 MB/.test(n)),
    `the budget's notice: ${notices}`,
  );
  assert.ok(!notices.some((n) => /download/i.test(n)), `no download offer: ${notices}`);
  assert.match((await call<string[]>(page, "statusLines")).join("\n"), /semantic: off on this device, over its memory budget/);
  assert.equal((await call<{ embedderWasm: number }>(page, "memory")).embedderWasm, 0, "no model was loaded");
  await call(page, "unload");
  console.log(
    `ui: phone profile: the desktop's vectors answer a hybrid search, 0 embedded, no Node module, no desktop file touched ` +
      `(wasm: core ${mb(mem.coreWasm)} MB, embedder ${mb(mem.embedderWasm)} MB; page heap ${mb(mem.pageHeap ?? 0)} MB); over budget it stays lexical and says why`,
  );
}

// ---- the bench ---------------------------------------------------------------------------------

/** Peak and current resident memory (MB) of Chromium's renderer processes (the page and its workers). */
async function rendererMemory(): Promise<{ peakMB: number; rssMB: number }> {
  let peak = 0;
  let rss = 0;
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const cmd = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (!cmd.includes("--type=renderer")) continue;
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
    peak = Math.max(peak, kb("VmHWM"));
    rss = Math.max(rss, kb("VmRSS"));
  }
  return { peakMB: Math.round(peak / 1024), rssMB: Math.round(rss / 1024) };
}

/** Runs `node args` in the repository; resolves with its standard output. */
function node(root: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`node ${args.join(" ")} exited ${code}`))));
  });
}

/** The desktop's segments of the vault's vectors: files on disk, and as its manifest lists them. */
async function segments(vault: string): Promise<{ files: number; live: number; merged: number }> {
  const files = [...(await indexFiles(vault)).keys()];
  const manifests = files.filter((f) => /^devices\/desk\.v\d+\/manifest-[ab]\.json$/.test(f));
  const newest = newestManifest(await Promise.all(manifests.map((m) => readFile(path.join(vault, INDEX, m), "utf8"))));
  const own = newest?.segments ?? [];
  const merged = own.filter((s) => s.mergedInto).length;
  return { files: files.filter((f) => f.endsWith(".svec")).length, live: own.length - merged, merged };
}

export interface PhoneBenchOptions {
  root: string;
  /** The vault copy the harness serves. */
  vault: string;
  /** The bundle's harness server, started on `vault`. */
  url: string;
  chromiumPath: string;
  /** An index folder a desktop made for this vault (copied in); else the CLI makes one, embedding. */
  desktopIndex: string | null;
  runs: number;
}

/**
 * The phone's figures on a vault a desktop indexed and embedded (all-MiniLM-L6-v2): the CLI as the
 * desktop (device "desk"; its flushes and segment files counted while it embeds, and again after
 * a flush past the grace period), then the phone profile: its first start (no index of its own:
 * load → its lexical index built → first hybrid search), then `runs` starts with its index, each
 * in a fresh browser process (plugin load → first hybrid search answered, the renderer's peak
 * memory, the wasm memories, embeddings computed on the phone, Node modules attempted).
 */
export async function phoneBench(o: PhoneBenchOptions): Promise<void> {
  const log = (s: string) => console.log(`bench (phone): ${s}`);
  const cli = path.join(o.root, "dist", "strata.js");
  const state = await mkdtemp(path.join(os.tmpdir(), "strata-phone-state-"));
  const env = { STRATA_DEVICE_ID: "desk", XDG_STATE_HOME: state };
  if (o.desktopIndex) {
    await rm(path.join(o.vault, INDEX), { recursive: true, force: true });
    await mkdir(path.dirname(path.join(o.vault, INDEX)), { recursive: true });
    await cp(o.desktopIndex, path.join(o.vault, INDEX), { recursive: true });
    log(`the desktop's index: copied from ${o.desktopIndex}`);
  } else {
    // The desktop embeds the whole vault: its flushes (manifest writes) and every segment file
    // seen are counted while it runs.
    const seen = new Set<string>();
    let flushes = 0;
    let lastManifest = "";
    const watch = setInterval(() => {
      // A look that meets a file gone between the listing and the read is dropped: the next counts it.
      void indexFiles(o.vault).then(
        (files) => {
          for (const f of files.keys()) if (f.endsWith(".svec")) seen.add(f);
          const m = [...files]
            .filter(([f]) => /^devices\/desk\.v\d+\/manifest-[ab]\.json$/.test(f))
            .map(([, h]) => h)
            .sort()
            .join();
          if (m !== lastManifest) [flushes, lastManifest] = [flushes + 1, m];
        },
        () => undefined,
      );
    }, 500);
    const t0 = Date.now();
    try {
      log((await node(o.root, [cli, "index", o.vault, "--model", "all-MiniLM-L6-v2", "--threads", "2"], env)).trim());
    } finally {
      clearInterval(watch);
    }
    // Kept for the next runs (--desktop-index): the embedding takes an hour on 2 cores.
    const kept = path.join(o.root, "build", "artifacts", "ui", "phone-desktop-index");
    await rm(kept, { recursive: true, force: true });
    await cp(path.join(o.vault, INDEX), kept, { recursive: true });
    const s = await segments(o.vault);
    log(
      `desktop index kept in ${path.relative(o.root, kept)}; desktop: index and embed ${Math.round((Date.now() - t0) / 1000)} s; about ${flushes} flushes (one segment each before compaction); ` +
        `${seen.size} segment files written; at the end ${s.files} on disk: ${s.live} live, ${s.merged} merged (deleted after the grace period)`,
    );
  }
  // A run of the desktop a week later (the grace period past): its merged segments go.
  const week = "data:text/javascript,const n=Date.now;Date.now=()=>n()+8*864e5;";
  await node(o.root, ["--import", week, cli, "index", o.vault, "--no-embed"], env);
  const s = await segments(o.vault);
  log(`desktop a week later: ${s.files} segment files (${s.live} live, ${s.merged} merged)`);

  const userDir = await mkdtemp(path.join(os.tmpdir(), "strata-phone-"));
  const query = "how do I sync my vault between devices";
  const result = async (first: boolean) => {
    // The profile folder (local storage: the phone's device id) outlives the runs.
    const { browser, page } = await launchChromium(userDir, o.chromiumPath, 400);
    try {
      await page.goto(o.url + "/");
      await page.waitForFunction(() => document.body.dataset.ready === "1");
      const r = await call<{ totalMs: number; hits: number; mode: string; indexedMs: number | null }>(
        page,
        "loadAndSearch",
        query,
        SYNCED_SETTINGS,
        "phone",
        first,
      );
      const mem = await call<{ coreWasm: number; embedderWasm: number; pageHeap: number | null }>(page, "memory");
      const counters = await call<{ embedded: number }>(page, "counters");
      const attempts = await call<string[]>(page, "requireAttempts");
      const model = await call<string>(page, "modelState");
      await call(page, "unload");
      return { ...r, mem, counters, attempts, model, renderer: await rendererMemory() };
    } finally {
      await browser.close();
    }
  };
  const mb = (b: number) => Math.round(b / 1048576);
  const line = (r: Awaited<ReturnType<typeof result>>) =>
    `${Math.round(r.totalMs)} ms, ${r.hits} hits (${r.mode}, model ${r.model}); renderer peak ${r.renderer.peakMB} MB (now ${r.renderer.rssMB}); ` +
    `wasm: core ${mb(r.mem.coreWasm)} MB + embedder ${mb(r.mem.embedderWasm)} MB; page JS heap ${mb(r.mem.pageHeap ?? 0)} MB; ` +
    `embedded on the phone ${r.counters.embedded}; Node modules attempted ${r.attempts.length}`;
  const first = await result(true);
  log(
    `first start (no index of its own: built, then the search${first.indexedMs ? `, indexed at ${Math.round(first.indexedMs)} ms` : ""}): ${line(first)}`,
  );
  const runs = [];
  for (let i = 0; i < o.runs; i++) runs.push(await result(false));
  const sorted = [...runs].sort((a, b) => a.totalMs - b.totalMs);
  const mid = sorted[Math.floor(sorted.length / 2)];
  log(
    `starts with its own index, plugin load → first hybrid search: median ${Math.round(mid.totalMs)} ms (${sorted.map((r) => Math.round(r.totalMs)).join(", ")})`,
  );
  log(`median run: ${line(mid)}`);
  log(`renderer peaks: ${runs.map((r) => r.renderer.peakMB).join(", ")} MB`);
  assert.ok([first, ...runs].every((r) => r.counters.embedded === 0 && r.attempts.length === 0 && r.mode === "hybrid"));
  await rm(userDir, { recursive: true, force: true });
  await rm(state, { recursive: true, force: true });
}
