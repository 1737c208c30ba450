// The bench (dist/strata-bench.js, `npm run bench -- [vault]`): this engine and MiniSearch
// configured as Omnisearch configures it, side by side in one run; then our embedder against
// onnxruntime-web (embed-bench.ts), the embedding models side by side (throughput, query
// latency, memory), the vector index at 10k/100k/300k vectors (vector-bench.ts, the bench wasm)
// and the quality of the lexical, semantic and hybrid modes on the shared dev queries. Full
// index runs and cold opens run in child processes (workers.ts) so that peak memory and
// start-up of one engine do not pollute the other. Nothing is written into the vault: edits
// are fed to the engines in memory and every index lives in a temporary folder (or --index-dir).

import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";

import type { StrataCoreApi } from "../core/api.ts";
import { openIndex, persist } from "../core/index-store.ts";
import { searchWithSnippets } from "../core/note-reads.ts";
import { reconcile } from "../core/reconcile.ts";
import { embedAll } from "../core/embedding/loop.ts";
import { loadChosenModel } from "../core/models.ts";
import { FsIndexStore, loadCore, NodeVault, checkVaultDir, findModelDir, modelCatalog, modelPresent, modelReader } from "../node/host.ts";
import { CliError, intOption, MODEL_USAGE, modelOptions, parse, parseModelSetting, repoRoot } from "../cli/common.ts";
import { evalCore } from "../cli/eval-cmd.ts";
import { evaluate, loadQueries, percentile, round, type EvalResult } from "../cli/metrics.ts";
import { loadOrt, MODEL_QUERIES, sampleNotes, type EmbedEngineResult, type ModelBenchResult } from "./embed-bench.ts";
import { buildOmni, loadOmni, omniDoc, omniSearch } from "./omnisearch.ts";
import {
  render,
  type BenchResult,
  type EmbedComparison,
  type EngineFigures,
  type Metrics,
  type ModelsComparison,
  type QualityRow,
} from "./report.ts";
import { BENCH_QUERIES, CONFIG, QUERY_ROUNDS } from "./settings.ts";
import { findBenchWasm, type VectorBenchRow } from "./vector-bench.ts";
import { runWorker, type WorkerResult } from "./workers.ts";

export const BENCH_USAGE = `npm run bench -- [vault] [--index-dir DIR] [--index-runs 3] [--edits 20] [--embed-chunks 200] [--ort-threads 1] [--model-chunks 96] ${MODEL_USAGE}
              [--vector-sizes 10000,100000,300000] [--eval DIR] [--eval-vaults DIR] [--no-eval] [--json] [--json-out FILE]
              (default vault: ../shared/vaults/obsidian-help beside the repository, else the fixture vault;
              --embed-chunks 0 skips the embedder comparison, --model-chunks 0 the models' side by side,
              --ort-threads N > 1 adds onnxruntime-web on N threads (for scale; the comparison is one thread each),
              --vector-sizes 0 the vector index;
              --json-out FILE writes the --json report to FILE as well, beside the table;
              --model is the model of the semantic quality part)`;

function letters(i: number): string {
  let s = "";
  do {
    s = String.fromCharCode(97 + (i % 26)) + s;
    i = Math.floor(i / 26);
  } while (i > 0);
  return s;
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
    "json-out": { type: "string" },
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
  const catalog = modelCatalog();
  const present = catalog.ids.filter(modelPresent);
  const miniLmPresent = present.includes(catalog.defaultId);
  if (present.length === 0)
    log(
      `strata bench: no embedding model in ${path.dirname(findModelDir())} (scripts/fetch-model.sh, scripts/fetch-e5.sh): embedder, model and semantic parts skipped`,
    );
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
    else if (!miniLmPresent) embedSkipped = `no ${catalog.defaultId} model`;
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
        const pool: EmbedEngineResult[] = [];
        for (const workers of [1, 2]) {
          log(`  embedding: strata pool, ${workers} worker thread(s)…`);
          pool.push((await runWorker(["embed-pool", vaultDir, sampleFile, String(workers)])) as unknown as EmbedEngineResult);
        }
        const best = (xs: EmbedEngineResult[]) => Math.max(...xs.map((o) => o.steadyChunksPerSec));
        embedding = {
          pool,
          vault: vaultDir,
          notes: sample.length,
          tract,
          ort,
          ortThreaded,
          ratio: round(best(tract) / best(ort), 3),
          target: 1.2,
        };
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
      models = {
        vault: vaultDir,
        notes: sample.length,
        queries: MODEL_QUERIES.length,
        results,
        missing: catalog.ids.filter((id) => !present.includes(id)),
      };
    }
    core.free();

    // 7. The vector index at 10k/100k/300k synthetic 384-d vectors, in the bench wasm (its own
    //    process: 300k vectors and their f32 originals for the exact recall take ~1.7 GB).
    let vectors: VectorBenchRow[] | null = null;
    let vectorsSkipped: string | null = null;
    const benchWasm = findBenchWasm();
    if (vectorSizes.length === 0) vectorsSkipped = "--vector-sizes 0";
    else if ("missing" in benchWasm) vectorsSkipped = benchWasm.missing;
    else {
      log(`  vector index: ${vectorSizes.join(", ")} vectors…`);
      vectors = JSON.parse(String((await runWorker(["vectors", vectorSizes.join(",")])).rows)) as VectorBenchRow[];
    }
    if (vectorsSkipped) log(`  vector index skipped: ${vectorsSkipped}`);

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

    const figures = (
      runs: WorkerResult[],
      idx: WorkerResult,
      times: number[],
      e: EditFigures,
      c: WorkerResult & { wallMs: number },
      size: number,
    ): EngineFigures => ({
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
    const result: BenchResult = {
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
      vectorsSkipped,
      quality,
    };

    if (values["json-out"]) await writeFile(path.resolve(values["json-out"]), JSON.stringify(result, null, 2) + "\n");
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
  const load = setting ? await loadChosenModel(core, setting, modelReader(), modelCatalog()) : null;
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
