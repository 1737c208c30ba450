// The embedding half of `npm run bench:plugin`, in the headless Chromium the UI test uses (the
// engine Obsidian's renderer runs): on the same chunk texts of the help vault's `en` notes,
//   - onnxruntime-web on one wasm thread (what a transformers.js plugin gets inside Obsidian,
//     whose renderer is not cross-origin isolated and so has no wasm threads);
//   - the real plugin (main.js's worker and its pool of nested embedder Web Workers) with 1 and
//     2 embedder workers, from load to every chunk embedded, with the built-in simd128 embedder
//     and, when build/wasm-relaxed holds a relaxed-SIMD build (scripts/build-wasm.sh relaxed),
//     again with that build installed in the vault as the plugin downloads it from a release;
//     then once more with 2 workers and a hybrid search every 100 ms meanwhile (its latency),
//     and the main thread's long tasks;
//   - each embedder wasm build on its own in the page (simd128, and +relaxed-simd when
//     build/wasm-relaxed holds one), so the builds can be compared.
// Runs alternate (ORT, pool 1, pool 2, builds) for `rounds` rounds; medians are reported.

import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";

import type { Page } from "playwright-core";

import { chunkTexts, sampleNotes } from "../../plugin/bench/embed-bench.ts";
import { percentile, round } from "../../plugin/cli/metrics.ts";
import { loadCore, NodeVault } from "../../plugin/node/host.ts";
import { startServer, type ServedFolder } from "./server.ts";
import type { StepTimes } from "./embed-bench-page.ts";
import { RELAXED_EMBEDDER_FILE, RELAXED_EMBEDDER_ID } from "../../plugin/core/embedding/builds.ts";

const PLUGIN_DIR = ".obsidian/plugins/strata-search";
const MODEL = "all-MiniLM-L6-v2";
/** Leaf sections in the sample (about 230 chunks with the notes' leads). */
const SAMPLE_LEAVES = 200;
/** Steps left out of a steady rate (plan building, JIT warm-up), as in `strata bench`. */
const WARMUP_STEPS = 2;
const QUERIES = ["sync settings", "link to a heading", "keyboard shortcuts", "graph view", "daily notes", "templates"];

interface PoolRun {
  workers: number;
  build: "simd128" | "relaxed-simd";
  chunks: number;
  /** Plugin load → every chunk embedded. */
  fullMs: number;
  /** From the first stored vectors to the last. */
  steadyChunksPerSec: number;
  searchMs: number[];
  longTasks: { start: number; duration: number }[];
}

const median = (xs: number[]) => percentile(xs, 50);

function steadyRate(r: StepTimes): number {
  const steady = r.steps.length > WARMUP_STEPS ? r.steps.slice(WARMUP_STEPS) : r.steps;
  return steady.reduce((a, s) => a + s.n, 0) / (steady.reduce((a, s) => a + s.ms, 0) / 1000);
}

async function walk(dir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.name.startsWith(".")) continue;
    if (e.isDirectory()) out.push(...(await walk(dir, p)));
    else if (e.name.endsWith(".md")) out.push(p);
  }
  return out;
}

/** The sample notes (spread over the folder, as `strata bench` picks them) copied into a fresh vault with the model. */
async function sampleVault(src: string, modelDir: string): Promise<{ vault: string; tmp: string; texts: string[]; notes: number }> {
  const reader = new NodeVault(src);
  const all = await Promise.all((await walk(src)).map(async (p) => ({ path: p, bytes: await reader.read(p) })));
  const core = loadCore().create({ configDir: ".obsidian" });
  core.update({ upserts: all.map((n) => ({ path: n.path, bytes: n.bytes, mtime: 0 })) });
  const picked = new Set(sampleNotes(core, SAMPLE_LEAVES));
  core.free();
  if (picked.size === 0) throw new Error(`no notes to sample in ${src}`);
  const notes = all.filter((n) => picked.has(n.path));
  const tmp = await mkdtemp(path.join(os.tmpdir(), "strata-embed-bench-"));
  const vault = path.join(tmp, "vault");
  for (const n of notes) {
    await mkdir(path.dirname(path.join(vault, n.path)), { recursive: true });
    await cp(path.join(src, n.path), path.join(vault, n.path));
  }
  await mkdir(path.join(vault, PLUGIN_DIR, "models"), { recursive: true });
  await symlink(modelDir, path.join(vault, PLUGIN_DIR, "models", MODEL));
  return { vault, tmp, texts: chunkTexts(notes), notes: notes.length };
}

/** The plugin from load to every chunk embedded; with `search`, a hybrid search every 100 ms meanwhile. */
async function poolRun(page: Page, vault: string, workers: number, search = false, relaxedGz: string | null = null): Promise<PoolRun> {
  await rm(path.join(vault, PLUGIN_DIR, "index"), { recursive: true, force: true });
  // The relaxed-SIMD build where the plugin's download puts it (or none: the built-in build).
  const installed = path.join(vault, PLUGIN_DIR, RELAXED_EMBEDDER_ID, RELAXED_EMBEDDER_FILE);
  await rm(path.dirname(installed), { recursive: true, force: true });
  if (relaxedGz) {
    await mkdir(path.dirname(installed), { recursive: true });
    await cp(relaxedGz, installed);
  }
  const build = relaxedGz ? "relaxed-simd" : "simd128";
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.ready === "1");
  await page.evaluate(() => (window as any).harness.clearLongTasks());
  const settings = { semantic: true, embeddingModel: MODEL, embedWorkers: workers };
  const { t0 } = await page.evaluate((s) => (window as any).harness.load({ settings: s }), settings);
  const r = await page.evaluate((q) => (window as any).harness.embedWhileSearching(q), search ? QUERIES : null);
  const state = await page.evaluate(() => (window as any).harness.embedWorkers());
  if (state.workers !== workers || state.fallback || state.build?.build !== build)
    throw new Error(`the pool ran ${JSON.stringify(state)}, not ${workers} worker(s) with the ${build} build`);
  const longTasks = await page.evaluate(() => (window as any).harness.longTasks());
  await page.evaluate(() => (window as any).harness.unload());
  const end = r.startedAt + r.ms;
  const steady = r.firstAt === null ? NaN : (r.total - r.firstDone) / ((r.ms - r.firstAt) / 1000);
  return { workers, build, chunks: r.total, fullMs: end - t0, steadyChunksPerSec: steady, searchMs: r.searchMs, longTasks };
}

/** Runs the comparison; prints its lines and writes build/artifacts/ui/embed-bench.json. */
export async function embedBench(
  page: Page,
  bundle: string,
  opts: { root: string; src: string; modelDir: string; artifacts: string; rounds?: number },
): Promise<void> {
  const { root, modelDir } = opts;
  const ortDir = path.join(root, "node_modules", "onnxruntime-web", "dist");
  const tokDir = path.join(root, "node_modules", "@huggingface", "tokenizers", "dist");
  if (!existsSync(path.join(modelDir, "model.onnx"))) return console.log(`bench: embedding skipped: no ${MODEL} in ${modelDir}`);
  if (!existsSync(ortDir) || !existsSync(tokDir))
    return console.log("bench: embedding skipped: onnxruntime-web or @huggingface/tokenizers missing (npm ci)");
  const src = existsSync(path.join(opts.src, "en")) ? path.join(opts.src, "en") : opts.src;
  const { vault, tmp, texts, notes } = await sampleVault(src, modelDir);
  const builds = [{ name: "simd128", dir: path.join(root, "build", "wasm") }];
  const relaxed = path.join(root, "build", "wasm-relaxed");
  if (existsSync(path.join(relaxed, "strata_embedder_bg.wasm"))) builds.push({ name: "simd128 + relaxed-simd", dir: relaxed });
  // The gzip file the bundle's table describes (esbuild.config.mjs writes it beside the build).
  const relaxedGz = existsSync(path.join(relaxed, RELAXED_EMBEDDER_FILE)) ? path.join(relaxed, RELAXED_EMBEDDER_FILE) : null;
  const folders: ServedFolder[] = [
    { prefix: "/bench/ort/", dir: ortDir },
    { prefix: "/bench/tok/", dir: tokDir },
    { prefix: "/bench/model/", dir: modelDir },
    ...builds.map((b, i) => ({ prefix: `/bench/build${i}/`, dir: b.dir })),
  ];
  const server = await startServer(root, vault, bundle, undefined, folders);
  const ort: StepTimes[] = [];
  const pools: PoolRun[] = [];
  let searching: PoolRun | null = null;
  const perBuild: number[][] = builds.map(() => []);
  try {
    await page.goto(server.url + "/");
    await page.waitForFunction(() => document.body.dataset.ready === "1");
    for (let round_ = 0; round_ < (opts.rounds ?? 2); round_++) {
      console.error(`bench: embedding round ${round_ + 1}: onnxruntime-web…`);
      ort.push(await page.evaluate((t) => (window as any).harness.ortRun(t), texts));
      for (const gz of relaxedGz ? [null, relaxedGz] : [null])
        for (const w of [1, 2]) {
          console.error(`bench: embedding round ${round_ + 1}: the plugin's pool, ${w} worker(s)${gz ? ", relaxed-SIMD build" : ""}…`);
          pools.push(await poolRun(page, vault, w, false, gz));
        }
      for (const [i, b] of builds.entries()) {
        console.error(`bench: embedding round ${round_ + 1}: embedder build ${b.name}…`);
        await page.reload();
        await page.waitForFunction(() => document.body.dataset.ready === "1");
        const r: StepTimes = await page.evaluate(([p, t]) => (window as any).harness.embedderRun(p, t), [
          `/bench/build${i}/`,
          texts,
        ] as const);
        perBuild[i].push(steadyRate(r));
      }
    }
    console.error("bench: embedding: the plugin's pool, 2 workers, searching meanwhile…");
    searching = await poolRun(page, vault, 2, true, relaxedGz);
  } finally {
    await server.close();
    await rm(tmp, { recursive: true, force: true });
  }

  const ortRate = median(ort.map(steadyRate));
  const poolBuilds = relaxedGz ? (["simd128", "relaxed-simd"] as const) : (["simd128"] as const);
  const pool = (w: number, build: string) => pools.filter((p) => p.workers === w && p.build === build);
  const poolRate = (w: number, build: string) => median(pool(w, build).map((p) => p.steadyChunksPerSec));
  const fullMs = (w: number, build: string) => median(pool(w, build).map((p) => p.fullMs));
  const searches = searching?.searchMs ?? [];
  const tasks = searching?.longTasks ?? [];
  const result = {
    notes,
    chunks: texts.length,
    tokens: ort[0]?.tokens ?? 0,
    rounds: ort.length,
    ortChunksPerSec: round(ortRate, 2),
    ortRuns: ort.map((r) => round(steadyRate(r), 2)),
    pool: poolBuilds.flatMap((build) =>
      [1, 2].map((w) => ({
        workers: w,
        build,
        steadyChunksPerSec: round(poolRate(w, build), 2),
        fullMs: Math.round(fullMs(w, build)),
        runs: pool(w, build).map((p) => round(p.steadyChunksPerSec, 2)),
        ratioToOrt: round(poolRate(w, build) / ortRate, 3),
      })),
    ),
    /** What Obsidian's desktop app gets: the relaxed-SIMD build where the bench has one. */
    ratioTwoWorkersToOrt: round(poolRate(2, poolBuilds.at(-1)!) / ortRate, 3),
    scalingSecondWorker: round(poolRate(2, poolBuilds.at(-1)!) / poolRate(1, poolBuilds.at(-1)!), 3),
    searchesWhileEmbedding: {
      n: searches.length,
      p50Ms: round(median(searches), 1),
      p95Ms: round(percentile(searches, 95), 1),
      maxMs: round(Math.max(...searches), 1),
    },
    longTasksOver50: tasks.filter((t) => t.duration > 50).length,
    longestTaskMs: Math.round(tasks.reduce((m, t) => Math.max(m, t.duration), 0)),
    builds: builds.map((b, i) => ({
      build: b.name,
      chunksPerSec: round(median(perBuild[i]), 2),
      runs: perBuild[i].map((x) => round(x, 2)),
    })),
  };
  await writeFile(path.join(opts.artifacts, "embed-bench.json"), JSON.stringify(result, null, 2));
  const r2 = (x: number) => x.toFixed(2);
  console.log(
    `bench: embedding in Chromium, ${MODEL}, ${result.chunks} chunks of ${notes} help/en notes (${result.tokens} tokens), steady chunks/s, median of ${result.rounds} alternated rounds:`,
  );
  console.log(`bench:   onnxruntime-web, 1 wasm thread, one text per run: ${r2(ortRate)}`);
  for (const p of result.pool)
    console.log(
      `bench:   Strata, the plugin's pool with ${p.workers} embedder worker(s), ${p.build} build: ${r2(p.steadyChunksPerSec)} (${r2(p.ratioToOrt)}× onnxruntime-web); plugin load → all embedded ${(p.fullMs / 1000).toFixed(1)} s`,
    );
  console.log(
    `bench:   2 workers (${poolBuilds.at(-1)} build) against onnxruntime-web on one thread: ${r2(result.ratioTwoWorkersToOrt)}× — target ≥ 1.8×; the second worker adds ${r2(result.scalingSecondWorker - 1)}× one worker's rate`,
  );
  for (const b of result.builds) console.log(`bench:   embedder wasm ${b.build}, alone in the page: ${r2(b.chunksPerSec)}`);
  const s = result.searchesWhileEmbedding;
  console.log(
    `bench: searches while 2 workers embed (${poolBuilds.at(-1)} build): ${s.n} hybrid searches every 100 ms, p50 ${s.p50Ms} ms, p95 ${s.p95Ms} ms, max ${s.maxMs} ms — target p95 < 300 ms; main-thread long tasks over 50 ms: ${result.longTasksOver50} (longest ${result.longestTaskMs} ms)`,
  );
}
