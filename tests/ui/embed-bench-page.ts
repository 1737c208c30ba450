// The page half of the embedding bench (`npm run bench:plugin`, tests/ui/embed-bench.ts drives
// it): onnxruntime-web and one embedder wasm on the same chunk texts, in this Chromium page.
// Both load from the bench server's folders by URL at run time (never bundled into the
// harness): /bench/ort/ (onnxruntime-web's dist), /bench/tok/ (@huggingface/tokenizers),
// /bench/model/ (all-MiniLM-L6-v2), and the embedder builds under the prefix the caller names.

import { ortPipeline, timeOrtSteps, type OrtModule, type TokenizerClass } from "../../plugin/bench/ort-pipeline.ts";

export interface StepTimes {
  steps: { n: number; ms: number }[];
  loadMs: number;
  tokens?: number;
}

/** Chunks per timed step, as in `strata bench`. */
const STEP = 16;

async function bytes(url: string): Promise<Uint8Array> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

/** A module by URL, out of the bundler's reach. */
function importUrl<T>(url: string): Promise<T> {
  return import(/* @vite-ignore */ new URL(url, location.href).href) as Promise<T>;
}

/** onnxruntime-web, one wasm thread, one text per run: what a transformers.js plugin gets in Obsidian. */
export async function ortRun(texts: string[]): Promise<StepTimes> {
  const ort = await importUrl<OrtModule>("/bench/ort/ort.wasm.min.mjs");
  ort.env.wasm.wasmPaths = new URL("/bench/ort/", location.href).href;
  const { Tokenizer } = await importUrl<{ Tokenizer: TokenizerClass }>("/bench/tok/tokenizers.mjs");
  const pipe = await ortPipeline(ort, Tokenizer, await bytes("/bench/model/model.onnx"), await bytes("/bench/model/tokenizer.json"), 1);
  const { steps, tokens } = await timeOrtSteps(pipe, texts, STEP, 1);
  return { steps, loadMs: pipe.loadMs, tokens };
}

interface EmbedderGlue {
  default(opts: { module_or_path: string }): Promise<unknown>;
  StrataEmbedder: new (
    model: Uint8Array,
    tokenizer: Uint8Array,
    config: null,
  ) => {
    embed(texts: string[], query: boolean): Float32Array;
    free(): void;
  };
}

/** One embedder wasm (`prefix` holds strata_embedder.js and its _bg.wasm), one text per run, as a pool worker runs it. */
export async function embedderRun(prefix: string, texts: string[]): Promise<StepTimes> {
  const glue = await importUrl<EmbedderGlue>(`${prefix}strata_embedder.js`);
  await glue.default({ module_or_path: `${prefix}strata_embedder_bg.wasm` });
  let t = performance.now();
  const emb = new glue.StrataEmbedder(await bytes("/bench/model/model.onnx"), await bytes("/bench/model/tokenizer.json"), null);
  const loadMs = performance.now() - t;
  const steps: { n: number; ms: number }[] = [];
  try {
    for (let i = 0; i < texts.length; i += STEP) {
      const step = texts.slice(i, i + STEP);
      t = performance.now();
      for (const text of step) emb.embed([text], false);
      steps.push({ n: step.length, ms: performance.now() - t });
    }
  } finally {
    emb.free();
  }
  return { steps, loadMs };
}
