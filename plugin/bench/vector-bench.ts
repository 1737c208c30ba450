// The vector index benchmark. Its code lives in a wasm of its own (build/wasm/strata_bench.js,
// built by scripts/build-bench-wasm.sh only for benchmarks), so the shipped core carries none:
// it runs the core's int8 scan and f16 re-rank on synthetic vectors and measures them.

import { readFileSync } from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";

import { CliError } from "../cli/common.ts";
import { findWasm } from "../node/host.ts";

/** One size of `benchVectors`: the int8 scan's query latency and recall@10 against exact f32. */
export interface VectorBenchRow {
  n: number;
  dim: number;
  queries: number;
  queryP50Ms: number;
  queryP95Ms: number;
  queryMeanMs: number;
  usPerVector: number;
  recallNear: number;
  recallRandom: number;
  insertMs: number;
  memoryBytes: number;
  snapshotBytes: number;
  snapshotWriteMs: number;
  snapshotLoadMs: number;
}

const BENCH_WASM_NAME = "strata_bench_bg.wasm";
const BENCH_GLUE_NAME = "strata_bench.js";

/** The bench wasm's JS glue (wasm-bindgen --target web), the part of it this file uses. */
interface BenchModule {
  initSync(arg: { module: BufferSource }): unknown;
  benchVectors(sizes: Uint32Array, dim: number): VectorBenchRow[];
}

/** The bench wasm's files (found as the core's are: see findWasm), or why they are absent. */
export function findBenchWasm(): { wasm: string; glue: string } | { missing: string } {
  let wasm: string;
  try {
    wasm = findWasm(BENCH_WASM_NAME);
  } catch {
    return { missing: `${BENCH_WASM_NAME} is not built (run scripts/build-bench-wasm.sh)` };
  }
  return { wasm, glue: path.join(path.dirname(wasm), BENCH_GLUE_NAME) };
}

/** Runs the vector index benchmark at each of `sizes` (vectors of `dim` dimensions). */
export async function benchVectors(sizes: number[], dim: number): Promise<VectorBenchRow[]> {
  const found = findBenchWasm();
  if ("missing" in found) throw new CliError(found.missing, 2);
  const mod = (await import(pathToFileURL(found.glue).href)) as BenchModule;
  mod.initSync({ module: readFileSync(found.wasm) });
  return mod.benchVectors(Uint32Array.from(sizes), dim);
}
