// The UI test and bench in headless Chromium (playwright-core, /usr/bin/chromium).
//
//   node --import tsx tests/ui/run.ts           the UI test: fixture vault, the real sidebar and
//                                               modal, typed queries, keyboard navigation, then
//                                               Download in the settings tab (a release served on
//                                               127.0.0.1), screenshots in build/artifacts/ui/
//                                               (exit 1 on failure)
//   node --import tsx tests/ui/run.ts --bench   [--vault DIR] main-thread long tasks during a full
//                                               index of ../shared/vaults/obsidian-help, and plugin
//                                               load → first search with its persisted index;
//                                               then embedding (tests/ui/embed-bench.ts): the
//                                               plugin's pool against onnxruntime-web
//                                               [--embed-only] [--no-embed] [--rounds N]
//   node --import tsx tests/ui/run.ts --bench --phone [--vault DIR] [--desktop-index DIR] [--runs N]
//                                               the phone profile (tests/ui/phone.ts) on a vault a
//                                               desktop indexed and embedded (the CLI, or a copy of
//                                               DIR): load → first hybrid search, memory, segments
//
// The vault is a temporary copy: nothing is written to the original.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";
import type { BrowserContext, Page } from "playwright-core";

import { pluginBuildOptions } from "../../esbuild.config.mjs";
import { modelTable, relaxedEmbedderEntry, writeEntryParts, writeParts } from "../../scripts/model-table.mjs";
import { launchChromium } from "./chromium.ts";
import { embedBench } from "./embed-bench.ts";
import { phoneBench, phoneTest } from "./phone.ts";
import { startServer } from "./server.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const ARTIFACTS = path.join(ROOT, "build", "artifacts", "ui");
const CHROMIUM = process.env.STRATA_CHROMIUM ?? "/usr/bin/chromium";
const MODEL_DIR = path.join(ROOT, "models", "all-MiniLM-L6-v2");
const PLUGIN_DIR = ".obsidian/plugins/strata-search";

const argv = process.argv.slice(2);
const BENCH = argv.includes("--bench");
const vaultArg = argv.includes("--vault") ? argv[argv.indexOf("--vault") + 1] : null;
const EMBED_ONLY = argv.includes("--embed-only");
const NO_EMBED = argv.includes("--no-embed");
const ROUNDS = argv.includes("--rounds") ? Number(argv[argv.indexOf("--rounds") + 1]) : 2;
const PHONE = argv.includes("--phone");
const desktopIndex = argv.includes("--desktop-index") ? path.resolve(argv[argv.indexOf("--desktop-index") + 1]) : null;
const RUNS = argv.includes("--runs") ? Number(argv[argv.indexOf("--runs") + 1]) : 5;

async function bundle(): Promise<string> {
  process.chdir(ROOT);
  const out = await build({
    ...(await pluginBuildOptions({
      entry: "tests/ui/harness.ts",
      outfile: "build/artifacts/ui/harness.js",
      alias: { obsidian: "./tests/obsidian-fake/index.ts" },
      format: "iife",
    })),
    write: false,
  });
  return out.outputFiles[0].text;
}

async function launch(): Promise<{ browser: BrowserContext; page: Page; userDir: string }> {
  if (!existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium chromium-driver (scripts/setup.sh does)`);
  const userDir = await mkdtemp(path.join(os.tmpdir(), "strata-chromium-"));
  // A fresh profile (--user-data-dir) each run: playwright passes it for a persistent context.
  const { browser, page } = await launchChromium(userDir, CHROMIUM, 1200);
  page.on("console", (msg) => {
    if (msg.type() === "error" || msg.type() === "warning") console.error(`console.${msg.type()}: ${msg.text()}`);
  });
  return { browser, page, userDir };
}

async function copyVault(src: string, withModel: boolean): Promise<{ vault: string; tmp: string }> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), "strata-ui-"));
  const vault = path.join(tmp, "vault");
  await cp(src, vault, { recursive: true, filter: (p) => !p.includes(`${path.sep}.obsidian${path.sep}plugins${path.sep}strata-search`) });
  if (withModel && existsSync(path.join(MODEL_DIR, "model.onnx"))) {
    await mkdir(path.join(vault, PLUGIN_DIR, "models"), { recursive: true });
    await symlink(MODEL_DIR, path.join(vault, PLUGIN_DIR, "models", "all-MiniLM-L6-v2"));
  }
  return { vault, tmp };
}

// ---- the UI test ---------------------------------------------------------------------------

async function uiTest(page: Page, withModel: boolean): Promise<void> {
  const t0 = Date.now();
  const step = (s: string) => console.log(`ui: ${s} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  // The model is pinned: auto would choose multilingual-e5-small for the mixed fixture vault.
  await page.evaluate(() => (window as any).harness.load({ settings: { semantic: true, embeddingModel: "all-MiniLM-L6-v2" } }));
  const rec = await page.evaluate(() => (window as any).harness.waitIndexed());
  assert.equal(rec.added, 14, `indexed the fixture vault: ${JSON.stringify(rec)}`);
  step("plugin loaded, fixture indexed");
  // The sidebar opens while the worker is still embedding: its similar-notes panel must fill in
  // when embedding catches up (checked below), without the user switching notes.
  await page.evaluate(() => (window as any).harness.openNote("Cooking/Sourdough starter.md"));
  await page.evaluate(() => (window as any).harness.openSidebar());
  if (withModel) {
    assert.equal(await page.evaluate(() => (window as any).harness.modelState()), "loaded");
    const early = await page.evaluate(() => (window as any).harness.embedProgress());
    assert.ok(early && early.done < early.total, `the sidebar opened before embedding was done: ${JSON.stringify(early)}`);
    const p = await page.evaluate(() => (window as any).harness.embedIdle());
    assert.ok(p && p.done === p.total && p.total > 0, `embedded: ${JSON.stringify(p)}`);
    // By the pool: nested Web Workers started from the search worker (Auto: at least one).
    const pool = await page.evaluate(() => (window as any).harness.embedWorkers());
    assert.ok(pool.workers >= 1 && pool.fallback === null, `the pool embedded: ${JSON.stringify(pool)}`);
    step(`embedded ${p.total} chunks in the worker, with ${pool.workers} embedder worker(s)`);
    await page.waitForSelector(".strata-similar-list .strata-hit-name", { timeout: 10_000 });
    step("the similar-notes panel filled in when embedding caught up");
  }

  // The sidebar: type a query key by key (each keystroke supersedes the previous search).
  await page.click(".strata-query");
  await page.keyboard.type("telescope mirror", { delay: 15 });
  await page.waitForSelector(".strata-group .strata-hit-snippet mark", { timeout: 10_000 });
  await page.evaluate(() => (window as any).harness.sidebarSettled());
  const groups = await page.$$eval(".strata-group-title .strata-hit-name", (els) => els.map((e) => e.textContent));
  assert.ok(groups.length > 0, "results grouped by note");
  assert.equal(groups[0], "Telescope care", `first group: ${groups}`);
  const marks = await page.$$eval(".strata-group mark", (els) => els.map((e) => e.textContent?.toLowerCase()));
  assert.ok(
    marks.some((m) => m === "telescope" || m === "mirror"),
    `highlights: ${marks}`,
  );
  const crumbs = await page.$$eval(".strata-group .strata-hit-breadcrumb", (els) => els.map((e) => e.textContent));
  assert.ok(crumbs.length > 0, "heading breadcrumbs");
  const title = await page.getAttribute(".strata-group .strata-result", "title");
  assert.match(title ?? "", /score .*lexical/s, "score breakdown on hover");
  // Mode switch and folder filter.
  await page.selectOption(".strata-mode", "lexical");
  await page.fill(".strata-folder", "Cooking");
  await page.dispatchEvent(".strata-folder", "change");
  await page.fill(".strata-query", "starter");
  await page.evaluate(() => (window as any).harness.sidebarSettled());
  const folders = await page.$$eval(".strata-group-title .strata-hit-folder", (els) => els.map((e) => e.textContent));
  assert.ok(folders.length > 0 && folders.every((f) => f === "Cooking"), `folder filter: ${folders}`);
  if (withModel) {
    const similar = await page.$$eval(".strata-similar-list .strata-hit-name", (els) => els.map((e) => e.textContent));
    assert.ok(similar.length > 0, "the similar-notes panel follows the active note");
    assert.ok(!similar.includes("Sourdough starter"), "not the note itself");
  }
  await page.fill(".strata-folder", "");
  await page.dispatchEvent(".strata-folder", "change");
  await page.fill(".strata-query", "telescope mirror");
  await page.selectOption(".strata-mode", withModel ? "hybrid" : "lexical");
  await page.evaluate(() => (window as any).harness.sidebarSettled());
  await page.screenshot({ path: path.join(ARTIFACTS, "sidebar.png") });
  await page.locator("#right-sidebar").screenshot({ path: path.join(ARTIFACTS, "sidebar-panel.png") });
  // Click opens at the line.
  const before = (await page.evaluate(() => (window as any).harness.opened())).length;
  await page.click(".strata-group .strata-result");
  const opened = await page.evaluate(() => (window as any).harness.opened());
  assert.equal(opened.length, before + 1);
  assert.equal(opened.at(-1).file, "Astronomy/Telescope care.md");
  assert.ok(typeof opened.at(-1).eState?.line === "number", "opened at a line");
  step("sidebar: live results, breadcrumbs, highlights, filters, click-to-open");

  // The modal: "Search vault" from the command palette.
  assert.ok(await page.evaluate(() => (window as any).harness.runCommand("search-vault")));
  await page.waitForSelector(".strata-modal-input");
  await page.keyboard.type("sourdough hydration", { delay: 15 });
  await page.waitForSelector(".strata-modal .strata-result .strata-hit-snippet mark", { timeout: 10_000 });
  await page.evaluate(() => (window as any).harness.modalSettled());
  const rows = await page.$$(".strata-modal .strata-result");
  assert.ok(rows.length > 1, `modal results: ${rows.length}`);
  assert.equal(await page.textContent(".strata-modal .strata-result.is-selected .strata-hit-name"), "Sourdough starter");
  await page.keyboard.press("ArrowDown");
  const sel = await page.$$eval(".strata-modal .strata-result", (els) => els.findIndex((e) => e.classList.contains("is-selected")));
  assert.equal(sel, 1, "ArrowDown moves the selection");
  await page.keyboard.press("ArrowUp");
  await page.screenshot({ path: path.join(ARTIFACTS, "modal.png") });
  await page.keyboard.press("Enter");
  const afterEnter = await page.evaluate(() => (window as any).harness.opened());
  assert.equal(afterEnter.at(-1).file, "Cooking/Sourdough starter.md");
  assert.equal(afterEnter.at(-1).newTab, false);
  assert.ok(afterEnter.at(-1).eState.line > 0, "scrolled to the matching line");
  assert.equal(await page.$(".strata-modal"), null, "Enter closed the modal");
  // Mod+Enter: a new tab.
  await page.evaluate(() => (window as any).harness.runCommand("search-vault"));
  await page.waitForSelector(".strata-modal-input");
  await page.keyboard.type("登山", { delay: 15 });
  await page.waitForSelector(".strata-modal .strata-result", { timeout: 10_000 });
  await page.evaluate(() => (window as any).harness.modalSettled());
  await page.keyboard.press("Control+Enter");
  const afterMod = await page.evaluate(() => (window as any).harness.opened());
  assert.equal(afterMod.at(-1).file, "日本語/登山計画.md");
  assert.equal(afterMod.at(-1).newTab, true, "Mod+Enter opens a new tab");
  step("modal: live results, keyboard navigation, Enter / Mod+Enter");

  if (withModel) {
    await page.evaluate(() => (window as any).harness.runCommand("similar-notes"));
    await page.waitForSelector(".strata-modal .strata-similar-hit", { timeout: 10_000 });
    await page.screenshot({ path: path.join(ARTIFACTS, "similar-modal.png") });
    await page.keyboard.press("Escape");
    await page.evaluate(() => document.querySelector(".modal-container")?.remove());
  }
  assert.match(await page.evaluate(() => (window as any).harness.statusText()), /Strata: 14 notes/);
  const notices: string[] = await page.evaluate(() => (window as any).harness.notices());
  if (withModel) assert.deepEqual(notices, [], "no notice on a healthy start");
  else
    assert.ok(
      notices.length === 1 && /all-MiniLM-L6-v2 is missing: download it in Settings → Strata → Semantic search/.test(notices[0]),
      `the missing model's notice: ${notices}`,
    );
  await page.evaluate(() => (window as any).harness.unload());
  console.log(`ui: PASS — screenshots in ${path.relative(ROOT, ARTIFACTS)}/`);
}

// ---- the model download --------------------------------------------------------------------

/**
 * A new user's Download, in the settings tab: a vault without the model, a release made from
 * models/ (parts of 4 MB, scripts/model-table.mjs) served by the harness server with a delay per
 * part; clicks Download, screenshots the progress and the finished state.
 */
async function downloadTest(page: Page, src: string, js: string): Promise<void> {
  const version = "0.0.0-ui";
  const relDir = await mkdtemp(path.join(os.tmpdir(), "strata-ui-release-"));
  const { vault, tmp } = await copyVault(src, false);
  const table = await modelTable({
    version,
    models: [{ id: "all-MiniLM-L6-v2", license: "Apache-2.0" }],
    modelsDir: path.dirname(MODEL_DIR),
    partSize: 4_000_000,
  });
  await writeParts(table, path.dirname(MODEL_DIR), relDir);
  // The relaxed-SIMD embedder, which Chromium runs: the real build when build/wasm-relaxed holds
  // one (bash scripts/build-wasm.sh relaxed), else the simd128 build standing in (same glue).
  const relaxedDir = existsSync(path.join(ROOT, "build", "wasm-relaxed", "strata_embedder_bg.wasm")) ? "wasm-relaxed" : "wasm";
  const stage = path.join(relDir, ".stage");
  const wasmDir = path.join(ROOT, "build", "wasm");
  table.embedder = await relaxedEmbedderEntry({
    relaxedDir: path.join(ROOT, "build", relaxedDir),
    wasmDir,
    outDir: stage,
    license: "MIT",
    partSize: 4_000_000,
  });
  await writeEntryParts(table.embedder, stage, relDir);
  const server = await startServer(ROOT, vault, js, { dir: relDir, version, delayMs: 400 });
  try {
    await page.goto(server.url + "/");
    await page.waitForFunction(() => document.body.dataset.ready === "1");
    const release = { version, repository: server.url, table };
    await page.evaluate(
      (release) => (window as any).harness.load({ settings: { semantic: true, embeddingModel: "all-MiniLM-L6-v2" }, release }),
      release,
    );
    assert.equal(await page.evaluate(() => (window as any).harness.modelState()), "absent");
    await page.evaluate(() => (window as any).harness.openSettings());
    await page.waitForSelector("#settings button.mod-cta:text-is('Download')");
    assert.match((await page.textContent("#settings")) ?? "", /all-MiniLM-L6-v2 is not installed: 23\.4 MB, license Apache-2\.0/);
    await page.screenshot({ path: path.join(ARTIFACTS, "settings-model-missing.png") });
    await page.click("#settings button.mod-cta:text-is('Download')");
    await page.waitForFunction(
      () => /Downloading all-MiniLM-L6-v2: .* \(\d+%, part [2-5] of 7\)/.test(document.getElementById("settings")?.textContent ?? ""),
      null,
      {
        timeout: 20_000,
      },
    );
    assert.match(
      await page.evaluate(() => (window as any).harness.statusText()),
      /^Strata: downloading all-MiniLM-L6-v2 [\d.]+ MB \/ 23\.4 MB$/,
    );
    await page.screenshot({ path: path.join(ARTIFACTS, "settings-download-progress.png") });
    await page.waitForFunction(() => (window as any).harness.downloading() === null, null, { timeout: 60_000 });
    assert.equal(await page.evaluate(() => (window as any).harness.downloadError("all-MiniLM-L6-v2")), null);
    await page.waitForFunction(() => (window as any).harness.modelState() === "loaded", null, { timeout: 60_000 });
    await page.evaluate(() => (window as any).harness.openSettings());
    const text = (await page.textContent("#settings")) ?? "";
    assert.match(text, /Model all-MiniLM-L6-v2 loaded\./);
    assert.doesNotMatch(text, /is not installed/);
    // The relaxed-SIMD build came with the model (Chromium validates relaxed SIMD) and runs.
    assert.deepEqual((await page.evaluate(() => (window as any).harness.embedWorkers())).build, {
      build: "relaxed-simd",
      why: "downloaded with the model; this engine runs relaxed SIMD",
    });
    await page.waitForFunction(() =>
      /In use: the embedder's relaxed-SIMD build/.test(document.getElementById("settings")?.textContent ?? ""),
    );
    await page.locator("#settings :text-is('Faster embedder')").scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, "settings-download-done.png") });
    await page.evaluate(() => (window as any).harness.unload());
    console.log(
      `ui: Download in the settings tab: progress, checked, loaded, the relaxed-SIMD embedder (${relaxedDir}) running (settings-download-*.png)`,
    );
  } finally {
    await server.close();
    await rm(tmp, { recursive: true, force: true });
    await rm(relDir, { recursive: true, force: true });
  }
}

// ---- the bench ---------------------------------------------------------------------------

/** tests/ui/start-node.ts in a fresh process: its one line of JSON. */
function runNode(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "tests", "ui", "start-node.ts"), ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(out.trim().split("\n").pop() ?? "") : reject(new Error(`start-node.ts ${args.join(" ")} exited ${code}`)),
    );
  });
}

async function bench(page: Page, vaultName: string, vaultDir: string): Promise<void> {
  // 1. Full index of a fresh vault (lexical; embedding 5.9k notes is a background job of its own).
  await page.evaluate(() => (window as any).harness.clearLongTasks());
  const t0 = Date.now();
  const { onloadMs, t0: pageT0 } = await page.evaluate(() => (window as any).harness.load({ settings: { semantic: false } }));
  const rec = await page.evaluate(() => (window as any).harness.waitIndexed());
  const indexMs = Date.now() - t0;
  const tasks: { start: number; duration: number }[] = await page.evaluate(() => (window as any).harness.longTasks());
  const over50 = tasks.filter((t) => t.duration > 50);
  const maxTask = tasks.reduce((m, t) => Math.max(m, t.duration), 0);
  await page.evaluate(() => (window as any).harness.unload());

  // 2. Plugin load → first search, persisted index (best and median of 5 page loads: a fresh
  //    page each time, as Obsidian starting).
  const runs: { totalMs: number; onloadMs: number; hits: number; openMs: number | null }[] = [];
  for (let i = 0; i < 5; i++) {
    await page.reload();
    await page.waitForFunction(() => document.body.dataset.ready === "1");
    runs.push(await page.evaluate(() => (window as any).harness.loadAndSearch("sync settings", { semantic: false })));
    await page.evaluate(() => (window as any).harness.unload());
  }
  const totals = runs.map((r) => r.totalMs).sort((a, b) => a - b);
  const median = totals[Math.floor(totals.length / 2)];
  const fmt = (n: number) => `${Math.round(n)} ms`;
  const mid = <T>(xs: T[], key: (x: T) => number) => [...xs].sort((a, b) => key(a) - key(b))[Math.floor(xs.length / 2)];

  // 3. The harness's own I/O: the same index files read through its HTTP adapter, no plugin.
  const floors: { ms: number; bytes: number; files: number }[] = [];
  for (let i = 0; i < 3; i++) floors.push(await page.evaluate(() => (window as any).harness.readIndexFolder()));
  const floor = mid(floors, (f) => f.ms);

  // 4. The same start-up with Obsidian desktop's kind of I/O (Node's fs on the main thread, a
  //    worker thread running main.js's worker bundle): tests/ui/start-node.ts, a process each.
  const nodeRuns: { totalMs: number; readyMs: number; timings: { workerMs: number; readMs: number; coreOpenMs: number } }[] = [];
  for (let i = 0; i < 5; i++) nodeRuns.push(JSON.parse(await runNode([vaultDir, "start"])));
  await rm(path.join(vaultDir, PLUGIN_DIR, "index"), { recursive: true, force: true });
  const nodeIndex = JSON.parse(await runNode([vaultDir, "index"]));
  const nodeMid = mid(nodeRuns, (r) => r.totalMs);
  console.log(`bench: vault ${vaultName}: ${rec.listed} notes listed, ${rec.added} indexed`);
  console.log(`bench: full index (open + reconcile + persist), wall ${fmt(indexMs)}; plugin onload ${fmt(onloadMs)}`);
  console.log(
    `bench: main-thread long tasks during the full index: ${tasks.length} (${over50.length} over 50 ms), longest ${fmt(maxTask)} — target: none over 50 ms`,
  );
  console.log(
    `bench: plugin load → first search answered (persisted index): median ${fmt(median)}, best ${fmt(totals[0])} over ${runs.length} page loads; onload ${fmt(runs[0].onloadMs)}, index open in the worker ${fmt(runs[0].openMs ?? NaN)}, ${runs[0].hits} hits — target ≤ 300 ms`,
  );
  console.log(
    `bench: the harness's I/O floor: reading the ${floor.files} index files (${(floor.bytes / 1e6).toFixed(1)} MB) through its HTTP adapter, no plugin: median ${fmt(floor.ms)} of 3`,
  );
  console.log(
    `bench: with Node's fs as the vault adapter (as Obsidian desktop) and a worker thread: plugin load → first search median ${fmt(nodeMid.totalMs)} over ${nodeRuns.length} processes (worker + wasm ready ${fmt(nodeMid.timings.workerMs)}, index files read ${fmt(nodeMid.timings.readMs)}, core open ${fmt(nodeMid.timings.coreOpenMs)}, search ready ${fmt(nodeMid.readyMs)}) — target ≤ 300 ms`,
  );
  console.log(
    `bench: with Node's fs: full index ${fmt(nodeIndex.indexMs)} (${nodeIndex.added} notes), main-thread stalls over 50 ms: ${nodeIndex.stallsOver50} (longest ${fmt(nodeIndex.longestStall)}); ${nodeIndex.searches} searches sent every 100 ms meanwhile answered in p50 ${fmt(nodeIndex.searchP50)}, p95 ${fmt(nodeIndex.searchP95)}, max ${fmt(nodeIndex.searchMax)}`,
  );
  console.log(`bench: Node start-ups ${JSON.stringify(nodeRuns.map((r) => Math.round(r.totalMs)))}`);
  console.log(
    `bench: long tasks (start after load, duration): ${JSON.stringify(tasks.map((t) => [Math.round(t.start - pageT0), Math.round(t.duration)]))}; reconcile done at ${Math.round(rec.now - pageT0)} ms; start-up ${JSON.stringify(rec.timings)}`,
  );
  console.log(`bench: start-up timings per run ${JSON.stringify(runs.map((r) => (r as any).timings))}`);
  console.log(`bench: per run ${JSON.stringify(runs.map((r) => Math.round(r.totalMs)))}`);
}

// ---- main --------------------------------------------------------------------------------------

async function main(): Promise<number> {
  await mkdir(ARTIFACTS, { recursive: true });
  const js = await bundle();
  const src = BENCH
    ? (vaultArg ?? path.join(ROOT, "..", "shared", "vaults", "obsidian-help"))
    : path.join(ROOT, "tests", "fixtures", "vault");
  if (!existsSync(src)) {
    console.error(`no vault at ${src}${BENCH ? " (pass --vault DIR)" : ""}`);
    return 2;
  }
  const withModel = !BENCH && existsSync(path.join(MODEL_DIR, "model.onnx"));
  if (!BENCH && !withModel) console.log(`ui: no model in ${MODEL_DIR}: the semantic parts (similar notes) are skipped`);
  // The phone loads the desktop's model for its queries: it is in the vault's plugin folder.
  const { vault, tmp } = await copyVault(src, withModel || (BENCH && PHONE));
  const server = await startServer(ROOT, vault, js);
  const { browser, page, userDir } = await launch();
  try {
    await page.goto(server.url + "/");
    await page.waitForFunction(() => document.body.dataset.ready === "1");
    if (BENCH && PHONE) {
      await browser.close();
      await phoneBench({ root: ROOT, vault, url: server.url, chromiumPath: CHROMIUM, desktopIndex, runs: RUNS });
    } else if (BENCH) {
      if (!EMBED_ONLY) await bench(page, path.basename(src), vault);
      if (!NO_EMBED) await embedBench(page, js, { root: ROOT, src, modelDir: MODEL_DIR, artifacts: ARTIFACTS, rounds: ROUNDS });
    } else {
      await uiTest(page, withModel);
      if (withModel) await phoneTest(page, vault);
      if (withModel) await downloadTest(page, src, js);
    }
    return 0;
  } catch (err) {
    console.error(`ui: FAIL — ${(err as Error).stack ?? err}`);
    await page.screenshot({ path: path.join(ARTIFACTS, "failure.png") }).catch(() => undefined);
    return 1;
  } finally {
    await browser.close();
    await server.close();
    await rm(tmp, { recursive: true, force: true });
    await rm(userDir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
