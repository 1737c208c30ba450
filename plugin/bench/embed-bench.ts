// The embedding half of `strata bench`: our embedder (tract-onnx compiled into the wasm core,
// timed through embedStep) against onnxruntime-web (npm, its wasm backend, one thread) on the
// same model file and the same chunk texts, each engine in its own process.
//
// onnxruntime-web has no tokenizer and the core exposes none, so the competitor's harness
// tokenizes with @huggingface/tokenizers (a pure-JS reader of the same tokenizer.json),
// truncates to the model's 256 tokens keeping [SEP], pads per batch and mean-pools over the
// attention mask: the pipeline our core runs. The harness checks itself against the reference
// vectors (tests/fixtures/embeddings/reference.json, computed with onnxruntime in Python)
// and reports the lowest cosine. Timing covers the whole pipeline on both sides (tokenize,
// run, pool, normalise; our side also stores the vector).
//
// Then each embedding model Strata knows, on its own: chunks/s through the core, semantic
// query latency and wasm memory (embedModelWorker), so the models can be compared.

import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import * as path from "node:path";

import type { CoreConfig, NoteInfo, NoteTexts, SectionInfo, StrataCoreApi } from "../core/api.ts";
import { loadCore, loadModelFiles, modelCatalog, modelReader, NodeVault, wasmMemory } from "../node/host.ts";
import { CliError, repoRoot } from "../cli/common.ts";
import { EmbedPool } from "../core/embedding/pool.ts";
import { nodeEmbedSpawner } from "../node/pool-workers.ts";
import { percentile, round } from "../cli/metrics.ts";
import { ortPipeline, timeOrtSteps, type OrtModule, type TokenizerClass } from "./ort-pipeline.ts";

const CONFIG: CoreConfig = { configDir: ".obsidian" };
/** Chunks per timed step, on both sides (our embedStep(16) runs two model batches of 8). */
export const STEP_CHUNKS = 16;
/** Steps left out of the steady-state rate (plan building, JIT warm-up). */
const WARMUP_STEPS = 2;

export interface EmbedEngineResult {
  engine: string;
  chunks: number;
  loadMs: number;
  /** Whole run, first step included. */
  totalMs: number;
  chunksPerSec: number;
  /** Without the first WARMUP_STEPS steps. */
  steadyChunksPerSec: number;
  firstStepMs: number;
  tokens?: number;
  batch?: number;
  /** Threads the engine ran on (onnxruntime-web; ours always uses one). */
  threads?: number;
  /** The pool's rows: the largest wasm memory of one worker (MB). */
  workerWasmMb?: number;
  /** The worker process's peak RSS (MB), added by the bench worker. */
  maxRssMb?: number;
  /** Harness self-check: lowest cosine against the reference vectors (null without the fixture). */
  referenceMinCosine?: number | null;
}

/** Picks notes spread over the vault (deterministic shuffle) until they hold `target` leaf sections. */
export function sampleNotes(core: StrataCoreApi, target: number): string[] {
  const paths = [...core.paths()].sort();
  let seed = 0x9e3779b9;
  const rand = () => {
    seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return seed / 2 ** 32;
  };
  for (let i = paths.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [paths[i], paths[j]] = [paths[j], paths[i]];
  }
  const out: string[] = [];
  let leaves = 0;
  for (const p of paths) {
    if (leaves >= target) break;
    const note = core.note(p);
    if (!note) continue;
    const n = leafSections(note).length;
    if (n === 0) continue;
    out.push(p);
    leaves += n;
  }
  return out.sort();
}

/** Sections without children: the ones the core embeds. */
export function leafSections(note: NoteInfo): SectionInfo[] {
  const parents = new Set(note.sections.map((s) => s.parentId).filter((x): x is string => x != null));
  return note.sections.filter((s) => !parents.has(s.id)).sort((a, b) => a.order - b.order);
}

/** The bytes of the sample notes a step needs (embedNeeds). */
function textsFor(notes: { path: string; bytes: Uint8Array }[], needs: string[]): NoteTexts {
  const texts: NoteTexts = {};
  for (const p of needs) texts[p] = notes.find((n) => n.path === p)?.bytes ?? null;
  return texts;
}

async function sampleInputs(vaultDir: string, sampleFile: string) {
  const paths = JSON.parse(await readFile(sampleFile, "utf8")) as string[];
  const vault = new NodeVault(vaultDir);
  const notes = await Promise.all(paths.map(async (p) => ({ path: p, bytes: await vault.read(p) })));
  return notes;
}

async function modelFiles() {
  const files = await loadModelFiles();
  if (!files) throw new CliError("no embedding model: run scripts/fetch-model.sh", 2);
  return files;
}

function summarize(
  engine: string,
  steps: { n: number; ms: number }[],
  loadMs: number,
  extra: Partial<EmbedEngineResult> = {},
): EmbedEngineResult {
  const chunks = steps.reduce((a, s) => a + s.n, 0);
  const totalMs = steps.reduce((a, s) => a + s.ms, 0);
  const steady = steps.length > WARMUP_STEPS ? steps.slice(WARMUP_STEPS) : steps;
  const sN = steady.reduce((a, s) => a + s.n, 0);
  const sMs = steady.reduce((a, s) => a + s.ms, 0);
  return {
    engine,
    chunks,
    loadMs: round(loadMs, 1),
    totalMs: round(totalMs, 1),
    chunksPerSec: round(chunks / (totalMs / 1000), 2),
    steadyChunksPerSec: round(sN / (sMs / 1000), 2),
    firstStepMs: round(steps[0]?.ms ?? 0, 1),
    ...extra,
  };
}

/**
 * Worker: our embedder, through the core's embedding queue (embedStep), on the sample notes,
 * `batch` texts per model run (the model config's batch_size; not part of the vector space).
 */
export async function embedTractWorker(vaultDir: string, sampleFile: string, batch: number): Promise<EmbedEngineResult> {
  const notes = await sampleInputs(vaultDir, sampleFile);
  const core = loadCore().create(CONFIG);
  // mtime 0 for all: the queue then takes notes in path order, sections in order (as the harness).
  core.update({ upserts: notes.map((n) => ({ path: n.path, bytes: n.bytes, mtime: 0 })) });
  const files = await modelFiles();
  let t = performance.now();
  core.loadModel(files.model, files.tokenizer, { batch_size: batch });
  const loadMs = performance.now() - t;
  const steps: { n: number; ms: number }[] = [];
  for (;;) {
    // The notes a step needs, from memory (not timed): the index stores no note text.
    const texts = textsFor(notes, core.embedNeeds(STEP_CHUNKS));
    t = performance.now();
    const p = core.embedStep(STEP_CHUNKS, texts);
    const ms = performance.now() - t;
    if (p.embedded === 0) break;
    steps.push({ n: p.embedded, ms });
    if (p.done >= p.total) break;
  }
  const p = core.embedProgress();
  if (p.done !== p.total) throw new Error(`embedding stopped at ${p.done}/${p.total}`);
  core.free();
  return summarize(`tract-onnx (Strata core, wasm, batch ${batch})`, steps, loadMs, { batch });
}

/**
 * Worker: the pool of embedder workers (plugin/core/embedding/pool.ts) with `workers` worker threads,
 * through embedTake/embedPut, on the same sample notes and model. The rate is over the wall
 * time of the whole run (the workers start with it: their model load is in it, as a user sees
 * it); "steady" leaves out the time to the first stored batch. Peak RSS is the process's, the
 * workers included (worker_threads share it).
 */
export async function embedPoolWorker(vaultDir: string, sampleFile: string, workers: number): Promise<EmbedEngineResult> {
  const notes = await sampleInputs(vaultDir, sampleFile);
  const core = loadCore().create(CONFIG);
  core.update({ upserts: notes.map((n) => ({ path: n.path, bytes: n.bytes, mtime: 0 })) });
  const files = await modelFiles();
  let t = performance.now();
  core.loadModel(files.model, files.tokenizer, null);
  const loadMs = performance.now() - t;
  const byPath = new Map(notes.map((n) => [n.path, n.bytes]));
  const vault = { list: () => Promise.reject(new Error("not listed")), read: (p: string) => Promise.resolve(byPath.get(p)!) };
  const pool = new EmbedPool(nodeEmbedSpawner(), workers);
  let first: { at: number; done: number } | null = null;
  t = performance.now();
  try {
    const sum = await pool.run(core, vault, null, {
      maxChunks: 4,
      onProgress: (p) => {
        if (!first && p.done > 0) first = { at: performance.now(), done: p.done };
      },
    });
    const totalMs = performance.now() - t;
    if (sum.done !== sum.total) throw new Error(`embedding stopped at ${sum.done}/${sum.total}`);
    const f = first ?? { at: t, done: 0 };
    const wasm = pool.wasmBytes();
    return {
      engine: `Strata pool, ${workers} worker${workers > 1 ? "s" : ""} (tract, wasm, batch 1)`,
      chunks: sum.embedded,
      loadMs: round(loadMs, 1),
      totalMs: round(totalMs, 1),
      chunksPerSec: round(sum.embedded / (totalMs / 1000), 2),
      steadyChunksPerSec: round((sum.embedded - f.done) / ((performance.now() - f.at) / 1000), 2),
      firstStepMs: round(f.at - t, 1),
      threads: workers,
      workerWasmMb: round(Math.max(...wasm) / 2 ** 20, 1),
    };
  } finally {
    pool.close();
    core.free();
  }
}

/** Queries timed per model: the kinds of questions semantic search gets, in the three languages. */
export const MODEL_QUERIES = [
  "how do I sync my notes between devices",
  "link to a heading in another note",
  "keyboard shortcuts for navigation",
  "show a graph of connected notes",
  "write a daily journal entry",
  "use templates for new notes",
  "embed an image in a note",
  "change the look with a theme",
  "find notes that mention a tag",
  "recover a deleted file",
  "publish notes as a website",
  "organise notes into folders",
  "format text as bold or italic",
  "move notes from another app",
  "如何在设备之间同步笔记",
  "插件的安装方法",
  "用标签整理笔记",
  "ノートを別の端末と同期する方法",
  "テンプレートの使い方",
  "リンクの貼り方",
];

export interface ModelBenchResult extends EmbedEngineResult {
  model: string;
  /** Semantic queries (query embedding + vector search over the sample), after one warm-up. */
  queries: number;
  queryP50Ms: number;
  queryP95Ms: number;
  /** Wasm linear memory (MB) after the model load and after embedding + queries (it only grows). */
  coreMemMb: number;
  embedderMemMb: number;
  peakEmbedderMemMb: number;
  /** The worker process's peak RSS (MB), added by the bench worker. */
  maxRssMb?: number;
}

/**
 * Worker: one embedding model through the core (loadModel by id, embedStep) on the sample
 * notes, then MODEL_QUERIES in semantic mode. Run once per model, each in its own process,
 * so that memory figures are the model's own.
 */
export async function embedModelWorker(vaultDir: string, sampleFile: string, id: string): Promise<ModelBenchResult> {
  const notes = await sampleInputs(vaultDir, sampleFile);
  const core = loadCore().create(CONFIG);
  core.update({ upserts: notes.map((n) => ({ path: n.path, bytes: n.bytes, mtime: 0 })) });
  const files = await modelReader()(id);
  if (!files) throw new CliError(`no ${id} model: ${modelCatalog().howTo(id)}`, 2);
  let t = performance.now();
  core.loadModel(files.model, files.tokenizer, id);
  const loadMs = performance.now() - t;
  const mb = (bytes: number) => round(bytes / 1048576, 1);
  const afterLoad = wasmMemory();
  const steps: { n: number; ms: number }[] = [];
  for (;;) {
    const texts = textsFor(notes, core.embedNeeds(STEP_CHUNKS));
    t = performance.now();
    const p = core.embedStep(STEP_CHUNKS, texts);
    if (p.embedded === 0) break;
    steps.push({ n: p.embedded, ms: performance.now() - t });
    if (p.done >= p.total) break;
  }
  core.search({ query: "warm-up", mode: "semantic", k: 10 });
  const times = MODEL_QUERIES.map((query) => {
    t = performance.now();
    core.search({ query, mode: "semantic", k: 10 });
    return performance.now() - t;
  });
  core.free();
  return {
    ...summarize(id, steps, loadMs),
    model: id,
    queries: times.length,
    queryP50Ms: round(percentile(times, 50), 2),
    queryP95Ms: round(percentile(times, 95), 2),
    coreMemMb: mb(afterLoad.core),
    embedderMemMb: mb(afterLoad.embedder),
    peakEmbedderMemMb: mb(wasmMemory().embedder),
  };
}

/** The notes' chunk texts, in the order the core's queue takes them, duplicates once (vectors are keyed by text). */
export function chunkTexts(notes: { path: string; bytes: Uint8Array }[]): string[] {
  const core = loadCore().create(CONFIG);
  try {
    core.update({ upserts: notes.map((n) => ({ path: n.path, bytes: n.bytes, mtime: 0 })) });
    const seen = new Set<string>();
    const texts: string[] = [];
    for (const n of [...notes].sort((a, b) => (a.path < b.path ? -1 : 1))) {
      for (const t of core.embedTexts(n.path, n.bytes)) {
        if (!seen.has(t)) {
          seen.add(t);
          texts.push(t);
        }
      }
    }
    return texts;
  } finally {
    core.free();
  }
}

/** Loads the competitor's packages; null with a reason when they are not installed. */
export async function loadOrt(): Promise<{ ort: OrtModule; Tokenizer: TokenizerClass } | string> {
  try {
    const ort = (await import("onnxruntime-web")) as unknown as OrtModule;
    const { Tokenizer } = (await import("@huggingface/tokenizers")) as unknown as { Tokenizer: TokenizerClass };
    return { ort, Tokenizer };
  } catch (err) {
    return `onnxruntime-web or @huggingface/tokenizers is not installed (npm ci): ${(err as Error).message}`;
  }
}

/** Worker: onnxruntime-web (wasm backend, `threads` threads) on the same chunk texts, `batch` texts per run. */
export async function embedOrtWorker(vaultDir: string, sampleFile: string, batch: number, threads = 1): Promise<EmbedEngineResult> {
  const libs = await loadOrt();
  if (typeof libs === "string") throw new CliError(libs, 2);
  const { ort, Tokenizer } = libs;
  const texts = chunkTexts(await sampleInputs(vaultDir, sampleFile));

  const files = await modelFiles();
  const pipe = await ortPipeline(ort, Tokenizer, files.model, files.tokenizer, threads);
  const { tokenize, embedBatch, loadMs } = pipe;

  // Self-check against the reference vectors.
  let referenceMinCosine: number | null = null;
  const refFile = path.join(repoRoot() ?? process.cwd(), "tests", "fixtures", "embeddings", "reference.json");
  if (existsSync(refFile)) {
    const ref = JSON.parse(readFileSync(refFile, "utf8")) as { sentences: { text: string; vector: number[] }[] };
    referenceMinCosine = 1;
    for (const s of ref.sentences) {
      const [v] = await embedBatch([tokenize(s.text)]);
      const cos = s.vector.reduce((a, x, d) => a + x * v[d], 0) / Math.hypot(...s.vector);
      referenceMinCosine = Math.min(referenceMinCosine, cos);
    }
    referenceMinCosine = round(referenceMinCosine, 5);
  }

  const { steps, tokens } = await timeOrtSteps(pipe, texts, STEP_CHUNKS, batch);
  return summarize(`onnxruntime-web (wasm, ${threads} thread${threads > 1 ? "s" : ""}, batch ${batch})`, steps, loadMs, {
    tokens,
    batch,
    threads,
    referenceMinCosine,
  });
}
