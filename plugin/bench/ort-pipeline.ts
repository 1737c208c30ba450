// The competitor's embedding pipeline, shared by `strata bench` (Node, embed-bench.ts) and
// `npm run bench:plugin` (headless Chromium, tests/ui/embed-bench-page.ts): onnxruntime-web's
// wasm backend runs the model; @huggingface/tokenizers (a pure-JS reader of the same
// tokenizer.json) tokenizes; the text is truncated to the model's 256 tokens keeping [SEP],
// padded per batch and mean-pooled over the attention mask, then L2-normalised: the pipeline
// our core runs. No Node or DOM API here, so both hosts import it.

/** all-MiniLM-L6-v2's window, the model the comparison runs on. */
export const ORT_MAX_TOKENS = 256;

/* The little of onnxruntime-web's and @huggingface/tokenizers' APIs the harness uses. */
interface OrtTensor {
  data: Float32Array;
  dims: readonly number[];
}
interface OrtSession {
  inputNames: readonly string[];
  outputNames: readonly string[];
  run(feeds: Record<string, unknown>): Promise<Record<string, OrtTensor>>;
}
export interface OrtModule {
  env: { wasm: { numThreads?: number; simd?: boolean; wasmPaths?: string } };
  Tensor: new (type: string, data: BigInt64Array, dims: number[]) => unknown;
  InferenceSession: { create(model: Uint8Array, opts: object): Promise<OrtSession> };
}
export interface JsTokenizer {
  encode(text: string): { ids: number[] };
}
export type TokenizerClass = new (json: object, config: object) => JsTokenizer;

export interface OrtPipeline {
  /** Token ids as the model sees them (special tokens in, truncated keeping [SEP]). */
  tokenize: (text: string) => number[];
  /** Unit vectors of tokenized texts, one model run (padded to the longest). */
  embedBatch: (idsList: number[][]) => Promise<Float32Array[]>;
  loadMs: number;
}

/** A session on `model` with `threads` wasm threads, and the tokenizer of `tokenizerJson`. */
export async function ortPipeline(
  ort: OrtModule,
  Tokenizer: TokenizerClass,
  model: Uint8Array,
  tokenizerJson: Uint8Array,
  threads: number,
): Promise<OrtPipeline> {
  const tokenizer = new Tokenizer(JSON.parse(new TextDecoder().decode(tokenizerJson)) as object, {});
  const sepId = tokenizer.encode("").ids.at(-1) ?? 102;
  const tokenize = (text: string): number[] => {
    const ids = tokenizer.encode(text).ids;
    return ids.length > ORT_MAX_TOKENS ? [...ids.slice(0, ORT_MAX_TOKENS - 1), sepId] : ids;
  };
  ort.env.wasm.numThreads = threads;
  const t = performance.now();
  const session = await ort.InferenceSession.create(model, { executionProviders: ["wasm"], graphOptimizationLevel: "all" });
  const loadMs = performance.now() - t;
  const hasTypeIds = session.inputNames.includes("token_type_ids");

  const embedBatch = async (idsList: number[][]): Promise<Float32Array[]> => {
    const n = idsList.length;
    const len = Math.max(...idsList.map((x) => x.length));
    const ids = new BigInt64Array(n * len);
    const mask = new BigInt64Array(n * len);
    idsList.forEach((x, i) => x.forEach((id, j) => ((ids[i * len + j] = BigInt(id)), (mask[i * len + j] = 1n))));
    const feeds: Record<string, unknown> = {
      input_ids: new ort.Tensor("int64", ids, [n, len]),
      attention_mask: new ort.Tensor("int64", mask, [n, len]),
    };
    if (hasTypeIds) feeds.token_type_ids = new ort.Tensor("int64", new BigInt64Array(n * len), [n, len]);
    const out = (await session.run(feeds))[session.outputNames[0]];
    const dim = out.dims[2];
    const data = out.data;
    return idsList.map((x, i) => {
      const v = new Float32Array(dim);
      for (let j = 0; j < x.length; j++) {
        const off = (i * len + j) * dim;
        for (let d = 0; d < dim; d++) v[d] += data[off + d];
      }
      let norm = 0;
      for (let d = 0; d < dim; d++) norm += (v[d] /= x.length) ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < dim; d++) v[d] /= norm;
      return v;
    });
  };
  return { tokenize, embedBatch, loadMs };
}

/** One timed step per `stepChunks` texts, `batch` texts per model run, tokenizing inside the step. */
export async function timeOrtSteps(
  pipe: OrtPipeline,
  texts: string[],
  stepChunks: number,
  batch: number,
): Promise<{ steps: { n: number; ms: number }[]; tokens: number }> {
  const steps: { n: number; ms: number }[] = [];
  let tokens = 0;
  for (let i = 0; i < texts.length; i += stepChunks) {
    const step = texts.slice(i, i + stepChunks);
    const t = performance.now();
    for (let b = 0; b < step.length; b += batch) {
      const idsList = step.slice(b, b + batch).map(pipe.tokenize);
      tokens += idsList.reduce((a, x) => a + x.length, 0);
      await pipe.embedBatch(idsList);
    }
    steps.push({ n: step.length, ms: performance.now() - t });
  }
  return { steps, tokens };
}
