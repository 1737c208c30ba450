// `strata bench [vault]`: this engine and MiniSearch configured as Omnisearch configures it,
// side by side in one run; then our embedder against onnxruntime-web (embed-bench.ts), the
// embedding models side by side (throughput, query latency, memory), the vector index at
// 10k/100k/300k vectors (crate/src/vector_bench.rs, in the wasm core) and the quality of the
// lexical, semantic and hybrid modes on the shared dev queries. Full index runs and cold
// opens run in child processes (hidden `__bench-worker` command) so that peak memory and
// start-up of one engine do not pollute the other. Nothing is written into the vault: edits
// are fed to the engines in memory and every index lives in a temporary folder (or --index-dir).

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";

import type { CoreConfig, StrataCoreApi } from "../core/api.ts";
import type { VectorBenchRow } from "../core/wasm-classes.ts";
import { openIndex, persist } from "../core/index-store.ts";
import { searchWithSnippets } from "../core/note-reads.ts";
import { reconcile } from "../core/reconcile.ts";
import { embedAll } from "../core/embedding.ts";
import { DEFAULT_MODEL, isModelId, loadChosenModel, MODEL_IDS } from "../core/models.ts";
import { FsIndexStore, loadCore, NodeVault, checkVaultDir, findModelDir, modelPresent, modelReader } from "../core/node.ts";
import { CliError, intOption, MODEL_USAGE, modelOptions, parse, parseModelSetting, repoRoot } from "./common.ts";
import {
  embedModelWorker,
  embedOrtWorker,
  embedTractWorker,
  loadOrt,
  MODEL_QUERIES,
  sampleNotes,
  type EmbedEngineResult,
  type ModelBenchResult,
} from "./embed-bench.ts";
import { evalCore } from "./eval-cmd.ts";
import { evaluate, loadQueries, percentile, round, type EvalResult } from "./metrics.ts";
import { buildOmni, loadOmni, omniDoc, omniSearch } from "./omnisearch.ts";
import { bytes, ms, table } from "./ui.ts";

export const BENCH_USAGE = `strata bench [vault] [--index-dir DIR] [--index-runs 3] [--edits 20] [--embed-chunks 200] [--ort-threads 1] [--model-chunks 96] ${MODEL_USAGE}
              [--vector-sizes 10000,100000,300000] [--eval DIR] [--eval-vaults DIR] [--no-eval] [--json]
              (default vault: ../shared/vaults/obsidian-help beside the repository, else the fixture vault;
              --embed-chunks 0 skips the embedder comparison, --model-chunks 0 the models' side by side,
              --ort-threads N > 1 adds onnxruntime-web on N threads (for scale; the comparison is one thread each),
              --vector-sizes 0 the vector index;
              --model is the model of the semantic quality part)`;

/** Fixed query list for latency: the kinds of words people type, in several of the vault's languages. */
export const BENCH_QUERIES = [
  "canvas", "graph view", "sync", "publish", "hotkeys", "templates", "daily notes", "internal links",
  "embed files", "callouts", "community plugins", "vault", "backlinks", "search operators", "properties",
  "bookmarks", "workspaces", "markdown", "themes", "css snippets", "command palette", "file recovery",
  "outline", "tags", "aliases", "format your notes", "attachments", "mobile", "slides", "footnotes",
  "同步", "插件", "链接", "笔记", "模板", "ノート", "プラグイン", "検索", "リンク", "テンプレート",
];

const CONFIG: CoreConfig = { configDir: ".obsidian" };
const QUERY_ROUNDS = 5;

interface WorkerResult {
  [key: string]: number | string | boolean | null;
}

function runWorker(args: string[]): Promise<WorkerResult & { wallMs: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1], "__bench-worker", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const wallMs = performance.now() - t0;
      if (code !== 0) return reject(new Error(`bench worker ${args[0]} failed (${code}): ${err.trim()}`));
      const last = out.trim().split("\n").pop() ?? "{}";
      resolve({ ...(JSON.parse(last) as WorkerResult), wallMs });
    });
  });
}

const maxRssMb = () => process.resourceUsage().maxRSS / 1024;

/** The hidden `__bench-worker` command: one measurement in a fresh process, JSON on stdout. */
export async function benchWorker(args: string[]): Promise<number> {
  const [what, a, b] = args;
  const t0 = performance.now();
  let res: WorkerResult;
  switch (what) {
    case "baseline":
      res = {};
      break;
    case "index-strata": {
      const store = new FsIndexStore(b);
      const { core } = await openIndex(loadCore(), store, CONFIG);
      const sum = await reconcile(core, new NodeVault(a), { store });
      const st = core.status();
      res = { notes: st.notes, sections: st.sections, bytesWritten: sum.bytesWritten, indexBytes: await store.size(), warnings: sum.warnings.length, skipped: sum.skipped.length };
      break;
    }
    case "index-omni": {
      const { ms: mini, notes, bytes: read } = await buildOmni(new NodeVault(a));
      const json = JSON.stringify(mini);
      await mkdir(path.dirname(b), { recursive: true });
      await writeFile(b, json);
      res = { notes, bytesRead: read, indexBytes: Buffer.byteLength(json) };
      break;
    }
    case "cold-strata": {
      const { core } = await openIndex(loadCore(), new FsIndexStore(a), CONFIG);
      const t1 = performance.now();
      // With snippets, as a user sees it: the hit notes are read from the vault (args[3]).
      const vault = new NodeVault(args[3]);
      const hits = (await searchWithSnippets(core, (p) => vault.read(p), { query: b, k: 10, mode: "lexical" })).hits.length;
      res = { openMs: t1 - t0, queryMs: performance.now() - t1, hits };
      break;
    }
    case "cold-omni": {
      const mini = loadOmni(await readFile(a, "utf8"));
      const t1 = performance.now();
      const hits = omniSearch(mini, b).slice(0, 10).length;
      res = { openMs: t1 - t0, queryMs: performance.now() - t1, hits };
      break;
    }
    case "vectors":
      res = { rows: JSON.stringify(loadCore().benchVectors(a.split(",").map(Number), 384)) };
      break;
    case "embed-tract":
      res = { ...(await embedTractWorker(a, b, Number(args[3] ?? 8))) };
      break;
    case "embed-ort":
      res = { ...(await embedOrtWorker(a, b, Number(args[3] ?? 8), Number(args[4] ?? 1))) };
      break;
    case "embed-model": {
      const id = args[3];
      if (!isModelId(id)) throw new CliError(`unknown model ${id}`, 2);
      res = { ...(await embedModelWorker(a, b, id)) };
      break;
    }
    default:
      throw new CliError(`unknown bench worker ${what}`, 2);
  }
  res.ms = performance.now() - t0;
  res.maxRssMb = maxRssMb();
  process.stdout.write(JSON.stringify(res) + "\n");
  return 0;
}

function letters(i: number): string {
  let s = "";
  do {
    s = String.fromCharCode(97 + (i % 26)) + s;
    i = Math.floor(i / 26);
  } while (i > 0);
  return s;
}

interface EngineFigures {
  /** The median of the full-index runs (`--index-runs`), and every run's time. */
  indexMs: number;
  indexRunsMs: number[];
  peakRssMb: number;
  queryP50Ms: number;
  queryP95Ms: number;
  editP50Ms: number;
  editP95Ms: number;
  editFound: number;
  coldOpenMs: number;
  coldFirstQueryMs: number;
  coldTotalMs: number;
  coldProcessMs: number;
  editBytesWritten: number;
  indexBytes: number;
}

type Metrics = Omit<EvalResult, "per_query">;

interface QualityRow {
  lang: string;
  /** Strata lexical (the comparison with MiniSearch). */
  strata: Metrics;
  minisearch: Metrics;
  /** The embedding model of the semantic and hybrid modes (--model), null without one. */
  model: string | null;
  /** Strata's semantic and hybrid modes (absent without the model). */
  semantic: Metrics | null;
  hybrid: Metrics | null;
  /** Chunks embedded for the semantic modes, and how long it took (whole vault, our embedder). */
  embedded: number;
  embedMs: number;
}

interface EmbedComparison {
  vault: string;
  notes: number;
  /** Ours, batch 8 (the default) and batch 1 (no padding). */
  tract: EmbedEngineResult[];
  /** onnxruntime-web, batch 8 and batch 1. */
  ort: EmbedEngineResult[];
  /** onnxruntime-web on --ort-threads threads, batch 1 (not part of the ratio). */
  ortThreaded: EmbedEngineResult | null;
  /** Steady-state chunks/s, our faster configuration over onnxruntime-web's faster one. */
  ratio: number;
  target: number;
}

interface ModelsComparison {
  vault: string;
  notes: number;
  queries: number;
  /** One per model present, each run in its own process on the same sample. */
  results: ModelBenchResult[];
  /** Models not measured (absent). */
  missing: string[];
}

/** `--vector-sizes 10000,100000,300000` (the default); `0` skips the vector index part. */
function vectorSizesOption(v: string | undefined): number[] {
  if (v === undefined) return [10_000, 100_000, 300_000];
  if (v.trim() === "0") return [];
  const sizes = v.split(",").map((x) => Number(x.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 2_000_000)) {
    throw new CliError(`--vector-sizes: a comma-separated list of counts from 1 to 2000000, or 0 (got ${JSON.stringify(v)})`, 2);
  }
  return [...new Set(sizes)].sort((a, b) => a - b);
}

export async function benchCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    "index-dir": { type: "string" },
    edits: { type: "string" },
    eval: { type: "string" },
    "eval-vaults": { type: "string" },
    "no-eval": { type: "boolean" },
    "embed-chunks": { type: "string" },
    "ort-threads": { type: "string" },
    "model-chunks": { type: "string" },
    "vector-sizes": { type: "string" },
    "index-runs": { type: "string" },
    ...modelOptions,
    json: { type: "boolean" },
  });
  const json = Boolean(values.json);
  const log = (s: string) => process.stderr.write(s + "\n");
  const root = repoRoot() ?? process.cwd();
  const shared = path.resolve(root, "..", "shared");

  let vaultDir: string;
  if (positionals[0]) {
    vaultDir = path.resolve(positionals[0]);
    const problem = await checkVaultDir(vaultDir);
    if (problem) throw new CliError(problem, 2);
  } else {
    vaultDir = path.join(shared, "vaults", "obsidian-help");
    if (!existsSync(vaultDir)) {
      const fixture = path.join(root, "tests", "fixtures", "vault");
      log(`strata bench: the default vault ${vaultDir} is absent; using the fixture vault ${fixture}`);
      vaultDir = fixture;
    }
  }
  const edits = intOption(values.edits, "edits", 1) ?? 20;
  const indexRuns = intOption(values["index-runs"], "index-runs", 1) ?? 3;
  const embedChunks = intOption(values["embed-chunks"], "embed-chunks", 0) ?? 200;
  const ortThreads = intOption(values["ort-threads"], "ort-threads", 1) ?? 1;
  const modelChunks = intOption(values["model-chunks"], "model-chunks", 0) ?? 96;
  const vectorSizes = vectorSizesOption(values["vector-sizes"]);
  const setting = parseModelSetting(values.model);
  // The comparison with onnxruntime-web is on all-MiniLM-L6-v2 (its harness pools and checks
  // itself as that model wants); the models' side by side and the quality part take any.
  const present = MODEL_IDS.filter(modelPresent);
  const miniLmPresent = present.includes(DEFAULT_MODEL);
  if (present.length === 0) log(`strata bench: no embedding model in ${path.dirname(findModelDir())} (scripts/fetch-model.sh, scripts/fetch-e5.sh): embedder, model and semantic parts skipped`);
  else if (!miniLmPresent) log(`strata bench: ${findModelDir()} holds no embedding model: the comparison with onnxruntime-web is skipped`);
  const work = values["index-dir"] ? path.resolve(values["index-dir"]) : await mkdtemp(path.join(os.tmpdir(), "strata-bench-"));
  const strataDir = path.join(work, "strata");
  const omniFile = path.join(work, "minisearch", "index.json");
  await rm(strataDir, { recursive: true, force: true });

  try {
    log(`strata bench: ${vaultDir}`);
    const baseline = await runWorker(["baseline"]);

    // 1. Full index, each engine in its own process, `--index-runs` times, alternated: on a
    //    shared machine one run of either engine varies by ±20 %; the medians are compared.
    const sRuns: Awaited<ReturnType<typeof runWorker>>[] = [];
    const mRuns: Awaited<ReturnType<typeof runWorker>>[] = [];
    for (let i = 0; i < indexRuns; i++) {
      log(`  full index ${i + 1}/${indexRuns}: strata…`);
      await rm(strataDir, { recursive: true, force: true });
      sRuns.push(await runWorker(["index-strata", vaultDir, strataDir]));
      log(`  full index ${i + 1}/${indexRuns}: minisearch…`);
      mRuns.push(await runWorker(["index-omni", vaultDir, omniFile]));
    }
    const median = (runs: typeof sRuns) => [...runs].sort((a, b) => (a.ms as number) - (b.ms as number))[(runs.length - 1) >> 1];
    const sIdx = median(sRuns);
    const mIdx = median(mRuns);

    // 2. Cold open of the persisted index + first query, fresh processes; measured before this
    //    process loads both indexes (MiniSearch's is a 1 GB heap whose garbage collection on
    //    the second core slowed the children's cold starts by 150–300 ms).
    log("  cold opens…");
    const cold = async (kind: string, target: string) => {
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push(await runWorker([kind, target, "daily notes", vaultDir]));
      runs.sort((x, y) => (x.ms as number) - (y.ms as number));
      return runs[1];
    };
    const sCold = await cold("cold-strata", strataDir);
    const mCold = await cold("cold-omni", omniFile);
    // 3. Query latency, warm, in this process.
    log("  queries…");
    const Core = loadCore();
    const store = new FsIndexStore(strataDir);
    const { core } = await openIndex(Core, store, CONFIG);
    const benchVault = new NodeVault(vaultDir);
    const readNote = (p: string) => benchVault.read(p);
    const mini = loadOmni(await readFile(omniFile, "utf8"));
    const sTimes: number[] = [];
    const mTimes: number[] = [];
    for (let round_ = 0; round_ <= QUERY_ROUNDS; round_++) {
      for (const q of BENCH_QUERIES) {
        let t = performance.now();
        await searchWithSnippets(core, readNote, { query: q, k: 10, mode: "lexical" });
        const s = performance.now() - t;
        t = performance.now();
        omniSearch(mini, q).slice(0, 10);
        const m = performance.now() - t;
        if (round_ > 0) {
          sTimes.push(s);
          mTimes.push(m);
        }
      }
    }

    // 4. One-note edit → searchable, in memory (the vault is never written).
    log("  edits…");
    const edit = await editLatency(core, store, mini, vaultDir, edits);

    const indexBytes = await store.size();
    const omniBytes = (await stat(omniFile)).size;

    // 5. Embedding throughput: our embedder vs onnxruntime-web, same model, same chunks.
    let embedding: EmbedComparison | null = null;
    let embedSkipped: string | null = null;
    if (embedChunks === 0) embedSkipped = "--embed-chunks 0";
    else if (!miniLmPresent) embedSkipped = `no ${DEFAULT_MODEL} model`;
    else {
      const ortLibs = await loadOrt();
      if (typeof ortLibs === "string") embedSkipped = ortLibs;
      else {
        const sample = sampleNotes(core, embedChunks);
        const sampleFile = path.join(work, "embed-sample.json");
        await writeFile(sampleFile, JSON.stringify(sample));
        const tract: EmbedEngineResult[] = [];
        const ort: EmbedEngineResult[] = [];
        for (const batch of [8, 1]) {
          log(`  embedding: strata (tract-onnx in wasm), batch ${batch}, ${sample.length} notes…`);
          tract.push((await runWorker(["embed-tract", vaultDir, sampleFile, String(batch)])) as unknown as EmbedEngineResult);
          log(`  embedding: onnxruntime-web, batch ${batch}…`);
          ort.push((await runWorker(["embed-ort", vaultDir, sampleFile, String(batch)])) as unknown as EmbedEngineResult);
        }
        let ortThreaded: EmbedEngineResult | null = null;
        if (ortThreads > 1) {
          log(`  embedding: onnxruntime-web, batch 1, ${ortThreads} threads…`);
          ortThreaded = (await runWorker(["embed-ort", vaultDir, sampleFile, "1", String(ortThreads)])) as unknown as EmbedEngineResult;
        }
        const best = (xs: EmbedEngineResult[]) => Math.max(...xs.map((o) => o.steadyChunksPerSec));
        embedding = { vault: vaultDir, notes: sample.length, tract, ort, ortThreaded, ratio: round(best(tract) / best(ort), 3), target: 1.2 };
      }
    }
    if (embedSkipped) log(`  embedding comparison skipped: ${embedSkipped}`);

    // 6. The embedding models side by side: same sample, each in its own process.
    let models: ModelsComparison | null = null;
    if (modelChunks > 0 && present.length > 0) {
      const sample = sampleNotes(core, modelChunks);
      const sampleFile = path.join(work, "model-sample.json");
      await writeFile(sampleFile, JSON.stringify(sample));
      const results: ModelBenchResult[] = [];
      for (const id of present) {
        log(`  embedding model ${id}, ${sample.length} notes…`);
        const r = (await runWorker(["embed-model", vaultDir, sampleFile, id])) as unknown as ModelBenchResult;
        results.push({ ...r, maxRssMb: round(r.maxRssMb ?? 0, 1) });
      }
      models = { vault: vaultDir, notes: sample.length, queries: MODEL_QUERIES.length, results, missing: MODEL_IDS.filter((id) => !present.includes(id)) };
    }
    core.free();

    // 7. The vector index at 10k/100k/300k synthetic 384-d vectors, in the wasm core (its own
    //    process: 300k vectors and their f32 originals for the exact recall take ~1.7 GB).
    let vectors: VectorBenchRow[] | null = null;
    if (vectorSizes.length) {
      log(`  vector index: ${vectorSizes.join(", ")} vectors…`);
      vectors = JSON.parse(String((await runWorker(["vectors", vectorSizes.join(",")])).rows)) as VectorBenchRow[];
    }

    // 8. Quality on the shared dev sets: lexical (vs MiniSearch), semantic and hybrid.
    const quality: QualityRow[] = [];
    const evalDir = values.eval ? path.resolve(values.eval) : path.join(shared, "eval");
    const evalVaults = values["eval-vaults"] ? path.resolve(values["eval-vaults"]) : path.join(shared, "vaults", "obsidian-help");
    if (!values["no-eval"]) {
      if (!existsSync(evalDir)) {
        log(`  quality: no eval folder at ${evalDir}; skipped`);
      } else {
        for (const lang of ["en", "zh", "ja"]) {
          const file = path.join(evalDir, `dev-${lang}.jsonl`);
          const vault = path.join(evalVaults, lang);
          if (!existsSync(file) || !existsSync(vault)) {
            log(`  quality ${lang}: ${existsSync(file) ? vault : file} absent; skipped`);
            continue;
          }
          log(`  quality ${lang}…`);
          quality.push(await qualityRow(lang, file, vault, present.length > 0 ? setting : null));
        }
      }
    }

    const figures = (runs: WorkerResult[], idx: WorkerResult, times: number[], e: EditFigures, c: WorkerResult & { wallMs: number }, size: number): EngineFigures => ({
      indexMs: round(idx.ms as number, 1),
      indexRunsMs: runs.map((r) => round(r.ms as number, 1)),
      peakRssMb: round(idx.maxRssMb as number, 1),
      queryP50Ms: round(percentile(times, 50), 3),
      queryP95Ms: round(percentile(times, 95), 3),
      editP50Ms: round(percentile(e.times, 50), 2),
      editP95Ms: round(percentile(e.times, 95), 2),
      editFound: e.found,
      coldOpenMs: round(c.openMs as number, 1),
      coldFirstQueryMs: round(c.queryMs as number, 2),
      coldTotalMs: round((c.openMs as number) + (c.queryMs as number), 1),
      coldProcessMs: round(c.wallMs, 1),
      editBytesWritten: e.bytesWritten,
      indexBytes: size,
    });
    const result = {
      vault: vaultDir,
      notes: sIdx.notes as number,
      vaultBytes: mIdx.bytesRead as number,
      edits,
      editNote: edit.note,
      queries: BENCH_QUERIES.length * QUERY_ROUNDS,
      baselineRssMb: round(baseline.maxRssMb as number, 1),
      strata: { ...figures(sRuns, sIdx, sTimes, edit.strata, sCold, indexBytes), sections: sIdx.sections as number },
      minisearch: figures(mRuns, mIdx, mTimes, edit.omni, mCold, omniBytes),
      embedding,
      embedSkipped,
      models,
      vectors,
      quality,
    };

    if (json) {
      process.stdout.write(JSON.stringify(result, null, 2) + "\n");
    } else {
      process.stdout.write(render(result) + "\n");
    }
    return 0;
  } finally {
    if (!values["index-dir"]) await rm(work, { recursive: true, force: true });
  }
}

interface EditFigures {
  times: number[];
  found: number;
  bytesWritten: number;
}

async function editLatency(
  core: StrataCoreApi,
  store: FsIndexStore,
  mini: ReturnType<typeof loadOmni>,
  vaultDir: string,
  edits: number,
): Promise<{ strata: EditFigures; omni: EditFigures; note: string }> {
  const vault = new NodeVault(vaultDir);
  const listing = await vault.list((p) => core.shouldIndex(p));
  const indexed = new Set(core.paths());
  const files = listing.files.filter((f) => indexed.has(f.path)).sort((a, b) => a.size - b.size || (a.path < b.path ? -1 : 1));
  if (files.length === 0) throw new CliError(`no indexed note in ${vaultDir} to edit`, 1);
  const target = files[Math.floor(files.length / 2)];
  const original = await vault.read(target.path);
  const text = new TextDecoder().decode(original);
  const enc = new TextEncoder();
  const strata: EditFigures = { times: [], found: 0, bytesWritten: 0 };
  const omni: EditFigures = { times: [], found: 0, bytesWritten: 0 };
  const written: number[] = [];
  const warmup = 2;
  for (let i = 0; i < edits + warmup; i++) {
    const word = `zqedit${letters(i + 1000)}`;
    const edited = `${text}\n\nEdited: ${word}\n`;
    const mtime = target.mtime + i + 1;

    let t = performance.now();
    core.update({ upserts: [{ path: target.path, bytes: enc.encode(edited), mtime }] });
    const w = await persist(core, store);
    const sHit = core.search({ query: word, k: 5, mode: "lexical" }).hits[0]?.path === target.path;
    const s = performance.now() - t;

    t = performance.now();
    mini.replace(omniDoc(target.path, edited));
    const mHit = omniSearch(mini, word)[0]?.id === target.path;
    const m = performance.now() - t;

    if (i >= warmup) {
      strata.times.push(s);
      omni.times.push(m);
      written.push(w);
      if (sHit) strata.found++;
      if (mHit) omni.found++;
    }
  }
  strata.bytesWritten = percentile(written, 50);
  // Omnisearch keeps its MiniSearch index as one serialized cache: saving it rewrites it whole.
  omni.bytesWritten = Buffer.byteLength(JSON.stringify(mini));
  // Put the note back as it is on disk, so a kept --index-dir matches the vault.
  core.update({ upserts: [{ path: target.path, bytes: original, mtime: target.mtime }] });
  await persist(core, store);
  return { strata, omni, note: target.path };
}

/** Lexical quality against MiniSearch; with a model setting, semantic and hybrid too. */
async function qualityRow(lang: string, file: string, vaultDir: string, setting: string | null): Promise<QualityRow> {
  const queries = loadQueries(file);
  const vault = new NodeVault(vaultDir);
  const core = loadCore().create(CONFIG);
  await reconcile(core, vault);
  const strip = ({ per_query: _, ...rest }: EvalResult): Metrics => rest;
  const s = evalCore(core, queries, "lexical", 10);
  let semantic: Metrics | null = null;
  let hybrid: Metrics | null = null;
  let embedded = 0;
  let embedMs = 0;
  const load = setting ? await loadChosenModel(core, setting, modelReader()) : null;
  if (load?.loaded) {
    const sum = await embedAll(core, vault, null, { maxChunks: 32 });
    embedded = sum.embedded;
    embedMs = round(sum.embedMs, 0);
    const sem = evalCore(core, queries, "semantic", 10);
    const hyb = evalCore(core, queries, "hybrid", 10);
    semantic = strip(sem);
    hybrid = strip(hyb);
  }
  core.free();
  const { ms: mini } = await buildOmni(vault);
  const m = evaluate(queries, 10, (q) => omniSearch(mini, q).map((r) => String(r.id)));
  return { lang, strata: strip(s), minisearch: strip(m), model: load?.loaded ?? null, semantic, hybrid, embedded, embedMs };
}

type BenchResult = {
  vault: string;
  notes: number;
  vaultBytes: number;
  edits: number;
  editNote: string;
  queries: number;
  baselineRssMb: number;
  strata: EngineFigures & { sections: number };
  minisearch: EngineFigures;
  embedding: EmbedComparison | null;
  embedSkipped: string | null;
  models: ModelsComparison | null;
  vectors: VectorBenchRow[] | null;
  quality: QualityRow[];
};

function render(r: BenchResult): string {
  const s = r.strata;
  const m = r.minisearch;
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : "—");
  const mb = (x: number) => `${x.toFixed(0)} MB`;
  const check = (ok: boolean) => (ok ? "ok" : "MISSED");
  const rows = [
    ["", "Strata", "MiniSearch (Omnisearch)", "Strata/MS", "target"],
    ["full index time", ms(s.indexMs), ms(m.indexMs), ratio(s.indexMs, m.indexMs), `≤ 0.3× ${check(s.indexMs <= 0.3 * m.indexMs)}`],
    ["full index peak RSS", mb(s.peakRssMb), mb(m.peakRssMb), ratio(s.peakRssMb, m.peakRssMb), `≤ 0.5× ${check(s.peakRssMb <= 0.5 * m.peakRssMb)}`],
    ["query p50", ms(s.queryP50Ms), ms(m.queryP50Ms), ratio(s.queryP50Ms, m.queryP50Ms), ""],
    ["query p95", ms(s.queryP95Ms), ms(m.queryP95Ms), ratio(s.queryP95Ms, m.queryP95Ms), `≤ 10 ms ${check(s.queryP95Ms <= 10)}`],
    ["edit → searchable p50", ms(s.editP50Ms), ms(m.editP50Ms), ratio(s.editP50Ms, m.editP50Ms), ""],
    ["edit → searchable p95", ms(s.editP95Ms), ms(m.editP95Ms), ratio(s.editP95Ms, m.editP95Ms), `≤ 100 ms ${check(s.editP95Ms <= 100)}`],
    ["edits found by search", `${s.editFound}/${r.edits}`, `${m.editFound}/${r.edits}`, "", ""],
    ["cold open + first query", ms(s.coldTotalMs), ms(m.coldTotalMs), ratio(s.coldTotalMs, m.coldTotalMs), `≤ 300 ms ${check(s.coldTotalMs <= 300)}`],
    ["  (whole process)", ms(s.coldProcessMs), ms(m.coldProcessMs), "", ""],
    ["bytes written per 1-note edit", bytes(s.editBytesWritten), `${bytes(m.editBytesWritten)} (whole cache)`, ratio(s.editBytesWritten, m.editBytesWritten), ""],
    ["index size on disk", bytes(s.indexBytes), bytes(m.indexBytes), ratio(s.indexBytes, m.indexBytes), ""],
  ];
  const out = [
    `Vault ${r.vault}: ${r.notes} notes, ${bytes(r.vaultBytes)} of Markdown, ${s.sections} sections. Node baseline RSS ${mb(r.baselineRssMb)}.`,
    `Queries: ${r.queries} timed (${BENCH_QUERIES.length} fixed queries × ${QUERY_ROUNDS}); Strata's include snippets (the hit notes read from the vault). Edits: ${r.edits} to ${r.editNote} (in memory), update + persist + search (MiniSearch: replace + search, no save).`,
    "",
    table(rows, ["l", "r", "r", "r", "l"]),
    `Full index: the median of ${s.indexRunsMs.length} alternated runs each (Strata ${s.indexRunsMs.map(ms).join(", ")}; MiniSearch ${m.indexRunsMs.map(ms).join(", ")}).`,
  ];
  if (r.embedding) {
    const e = r.embedding;
    const rows2 = [["embedder", "chunks", "model load", "first step", "chunks/s (all)", "chunks/s (steady)"]];
    for (const x of [...e.tract, ...e.ort, ...(e.ortThreaded ? [e.ortThreaded] : [])]) {
      rows2.push([x.engine, String(x.chunks), ms(x.loadMs), ms(x.firstStepMs), x.chunksPerSec.toFixed(1), x.steadyChunksPerSec.toFixed(1)]);
    }
    const refCos = e.ort.map((o) => o.referenceMinCosine).find((c) => c != null);
    out.push(
      "",
      `Embedding ${e.notes} notes of ${e.vault}, same model.onnx, same chunk texts, one thread each, each engine in its own process; steps of 16 chunks, steady = without the first 2 steps.`,
      table(rows2, ["l", "r", "r", "r", "r", "r"]),
      `Strata / onnxruntime-web (the faster configuration of each), steady: ${e.ratio.toFixed(2)}× (target ≥ ${e.target}× ${check(e.ratio >= e.target)})` +
        (refCos != null ? ` · onnxruntime-web harness vs the Python reference vectors: min cosine ${refCos.toFixed(4)}` : ""),
    );
    if (e.ortThreaded) {
      const one = e.ort.find((o) => o.batch === 1)?.steadyChunksPerSec ?? 0;
      out.push(`onnxruntime-web on ${e.ortThreaded.threads} threads: ${ratio(e.ortThreaded.steadyChunksPerSec, one)} its one-thread rate (not part of the comparison; Strata's embedder uses one thread).`);
    }
  } else if (r.embedSkipped) {
    out.push("", `Embedder comparison skipped: ${r.embedSkipped}.`);
  }
  if (r.models) {
    const x = r.models;
    const rows3 = [["model", "chunks", "load", "chunks/s (all)", "chunks/s (steady)", "query p50", "query p95", "wasm core / embedder", "peak RSS"]];
    for (const m of x.results) {
      rows3.push([
        m.model, String(m.chunks), ms(m.loadMs), m.chunksPerSec.toFixed(1), m.steadyChunksPerSec.toFixed(1), ms(m.queryP50Ms), ms(m.queryP95Ms),
        `${m.coreMemMb.toFixed(0)} / ${m.embedderMemMb.toFixed(0)} MB (peak ${m.peakEmbedderMemMb.toFixed(0)})`, mb(m.maxRssMb ?? 0),
      ]);
    }
    out.push(
      "",
      `Embedding models on the same ${x.notes} notes of ${x.vault}, each in its own process, one thread, default batch; steps of 16 chunks, steady = without the first 2 steps; ` +
        `queries: ${x.queries} semantic searches (query embedding + vector search), after a warm-up; wasm memory after the model load.`,
      table(rows3, ["l", "r", "r", "r", "r", "r", "r", "r", "r"]),
    );
    if (x.missing.length) out.push(`Not measured (absent): ${x.missing.join(", ")} (scripts/fetch-model.sh, scripts/fetch-e5.sh).`);
  }
  if (r.vectors?.length) {
    const target: Record<number, number> = { 100_000: 15, 300_000: 40 };
    const v = [["vectors", "query p50", "query p95", "per vector", "recall@10 near / random", "insert", "memory", "snapshot", "write / load", "target"]];
    for (const x of r.vectors) {
      const t = target[x.n];
      const goal = [t ? `≤ ${t} ms ${check(x.queryP95Ms <= t)}` : "", `recall ≥ 0.99 ${check(Math.min(x.recallNear, x.recallRandom) >= 0.99)}`].filter(Boolean).join(", ");
      v.push([
        String(x.n), ms(x.queryP50Ms), ms(x.queryP95Ms), `${(x.usPerVector * 1000).toFixed(0)} ns`, `${x.recallNear.toFixed(3)} / ${x.recallRandom.toFixed(3)}`,
        ms(x.insertMs), bytes(x.memoryBytes), bytes(x.snapshotBytes), `${ms(x.snapshotWriteMs)} / ${ms(x.snapshotLoadMs)}`, goal,
      ]);
    }
    out.push(
      "",
      `Vector index (the core's int8 SIMD128 scan + f16 re-rank, in wasm, one thread): synthetic unit vectors of ${r.vectors[0].dim} dimensions in clusters; ` +
        `${r.vectors[0].queries} timed queries each; recall@10 against an exact f32 scan (20 queries near stored vectors, 20 random); insert = all vectors up to that size.`,
      table(v, ["r", "r", "r", "r", "r", "r", "r", "r", "r", "l"]),
    );
  }
  if (r.quality.length) {
    const f = (a: number, b: number) => `${a.toFixed(3)} / ${b.toFixed(3)}`;
    const q = [["lexical quality", "n", "recall@10 S / MS", "MRR@10 S / MS", "nDCG@10 S / MS"]];
    for (const row of r.quality) {
      q.push([row.lang, String(row.strata.n), f(row.strata.recall10, row.minisearch.recall10), f(row.strata.mrr10, row.minisearch.mrr10), f(row.strata.ndcg10, row.minisearch.ndcg10)]);
    }
    out.push("", table(q, ["l", "r", "r", "r", "r"]));
    if (r.quality.some((row) => row.hybrid)) {
      const m = [["Strata by mode", "n", "mode", "recall@10", "MRR@10", "nDCG@10", "p50", "p95", "embedded", "model"]];
      for (const row of r.quality) {
        const modes: [string, Metrics | null][] = [["lexical", row.strata], ["semantic", row.semantic], ["hybrid", row.hybrid]];
        for (const [name, x] of modes) {
          if (!x) continue;
          const sem = name !== "lexical";
          m.push([row.lang, String(x.n), name, x.recall10.toFixed(3), x.mrr10.toFixed(3), x.ndcg10.toFixed(3), ms(x.p50_ms), ms(x.p95_ms), sem ? `${row.embedded} chunks, ${ms(row.embedMs)}` : "", sem ? (row.model ?? "") : ""]);
        }
      }
      out.push("", table(m, ["l", "r", "l", "r", "r", "r", "r", "r", "l", "l"]));
    }
  }
  return out.join("\n");
}
