// The bench bundle (dist/strata-bench.js, `npm run bench`) end to end on temp copies of the
// fixture vault, and the shipped bundles without it: no bench code, no competitor.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cp, readFile } from "node:fs/promises";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import { findBenchWasm } from "../../plugin/bench/vector-bench.ts";
import { cleanupTemps, copyFixture, FIXTURE_NOTES, hashTree, MODEL, NEEDS_BOTH, NEEDS_MODEL, ROOT, tempDir } from "./helpers.ts";

after(cleanupTemps);

const BENCH = path.join(ROOT, "dist", "strata-bench.js");
const NO_MODEL_DIR = path.join(ROOT, "tests", "fixtures", "no-such-model");

function run(env: Record<string, string>, args: string[]) {
  const r = spawnSync(process.execPath, [BENCH, ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...env },
    timeout: 600_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The bench without an embedding model. */
const bench = (...args: string[]) => run({ STRATA_MODEL_DIR: NO_MODEL_DIR, STRATA_MODELS: NO_MODEL_DIR }, args);
/** The bench with all-MiniLM-L6-v2 only. */
const benchModel = (...args: string[]) =>
  run({ STRATA_MODEL_DIR: MODEL?.dir ?? NO_MODEL_DIR, STRATA_MODELS: NO_MODEL_DIR }, [...args, "--model", "all-MiniLM-L6-v2"]);
/** The bench with the models it finds (models/ in the repository). */
const benchModels = (...args: string[]) => run({}, args);

/** One run of `runner` with only the parts a test reads (one index run, no eval, no embedder
 *  comparison, no vector index; `args` add to them): its output, and the --json report it wrote
 *  with --json-out beside the table. */
async function benchReport(runner: typeof bench, vault: string, ...args: string[]) {
  const out = path.join(await tempDir(), "bench.json");
  const r = runner(vault, "--index-runs", "1", "--no-eval", "--embed-chunks", "0", "--vector-sizes", "0", ...args, "--json-out", out);
  assert.equal(r.code, 0, r.err);
  return { r, report: JSON.parse(await readFile(out, "utf8")) };
}

const benchWasm = findBenchWasm();
/** The vector index part needs the bench wasm (scripts/build-bench-wasm.sh, not built by the tests). */
const NEEDS_BENCH_WASM: { skip?: string } = "missing" in benchWasm ? { skip: benchWasm.missing } : {};

/** The core's wasm glue (build/wasm/strata_core.js) while it still carries the vector bench. */
const CORE_GLUE_HAS_BENCH = readFileSync(path.join(ROOT, "build", "wasm", "strata_core.js"), "utf8").includes("benchVectors");

describe("the shipped bundles", () => {
  // What only the bench has: the competitors and its own entry point.
  const BENCH_MARKERS = [/minisearch/i, /onnxruntime/i, /__bench-worker/, /Omnisearch/];
  for (const bundle of ["dist/strata.js", "main.js", "dist/mcp-bridge.js", "mcp-bridge.js"]) {
    test(`${bundle} carries no bench code`, async () => {
      const file = path.join(ROOT, bundle);
      assert.ok(existsSync(file), "run `node esbuild.config.mjs` first");
      const text = await readFile(file, "utf8");
      // assert.ok, not doesNotMatch: a failure names the marker without printing the bundle.
      for (const marker of BENCH_MARKERS) assert.ok(!marker.test(text), `${bundle} holds ${marker}`);
    });
    test(
      `${bundle} carries no vector bench`,
      CORE_GLUE_HAS_BENCH ? { skip: "the core wasm (build/wasm) still exports benchVectors" } : {},
      async () => {
        assert.ok(!/benchVectors/.test(await readFile(path.join(ROOT, bundle), "utf8")), `${bundle} holds benchVectors`);
      },
    );
  }

  test("the bench bundle does hold them (the markers above can match)", async () => {
    const text = await readFile(BENCH, "utf8");
    for (const marker of [...BENCH_MARKERS.slice(0, 3), /benchVectors/]) assert.ok(marker.test(text), `the bench bundle lacks ${marker}`);
  });
});

describe("strata-bench", () => {
  test("usage, and a bad model exits 2", () => {
    const help = bench("--help");
    assert.equal(help.code, 0, help.err);
    assert.match(help.out, /^usage: npm run bench -- \[vault\]/);
    const bad = bench(path.join(ROOT, "tests", "fixtures", "vault"), "--model", "gpt-9");
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--model must be one of auto, all-MiniLM-L6-v2, multilingual-e5-small/);
  });

  test("runs both engines on the fixture vault and writes nothing into it", async () => {
    const vault = await copyFixture();
    const before = await hashTree(vault);
    // One run: the table on stdout, the --json report in a file (--json-out).
    const { r, report: j } = await benchReport(bench, vault, "--edits", "3");
    assert.equal(j.notes, FIXTURE_NOTES.length);
    for (const engine of [j.strata, j.minisearch]) {
      assert.ok(engine.indexMs > 0 && engine.peakRssMb > 0 && engine.indexBytes > 0);
      assert.ok(engine.queryP95Ms >= engine.queryP50Ms);
    }
    assert.equal(j.strata.editFound, 3);
    assert.equal(j.embedding, null);
    assert.equal(j.vectors, null);
    assert.equal(j.vectorsSkipped, "--vector-sizes 0");
    assert.ok(j.strata.editBytesWritten > 0 && j.strata.editBytesWritten < j.strata.indexBytes);
    assert.deepEqual(await hashTree(vault), before);
    assert.match(r.out, /\n\s*Strata\s+MiniSearch \(Omnisearch\)\s+Strata\/MS\s+target\n/);
    assert.match(r.out, /\nfull index time\s+\S+ m?s\s+\S+ m?s\s+\d+\.\d\d×\s+≤ 0\.3× (ok|MISSED)\n/);
  });

  test("the vector index, from the bench wasm: sizes ascending, against an exact f32 scan", NEEDS_BENCH_WASM, async () => {
    const vault = await copyFixture();
    const r = bench(
      vault,
      "--edits",
      "1",
      "--index-runs",
      "1",
      "--no-eval",
      "--embed-chunks",
      "0",
      "--vector-sizes",
      "5000,2000",
      "--json",
    );
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.vectorsSkipped, null);
    assert.deepEqual(
      j.vectors.map((v: { n: number }) => v.n),
      [2000, 5000],
    );
    for (const v of j.vectors) {
      assert.ok(v.queryP50Ms > 0 && v.queryP95Ms >= v.queryP50Ms && v.insertMs > 0, JSON.stringify(v));
      assert.ok(v.recallNear >= 0.99 && v.recallRandom >= 0.9, JSON.stringify(v));
      assert.ok(v.snapshotBytes >= v.n * 384 && v.memoryBytes > v.snapshotBytes, JSON.stringify(v));
    }
  });
});

describe("strata-bench with the embedding model", NEEDS_MODEL, () => {
  test("compares our embedder with onnxruntime-web on the same chunks", async () => {
    const fresh = await copyFixture();
    // Few chunks: six processes each load the model and embed them (tract and onnxruntime-web,
    // batch 8 and 1; the pool with 1 and 2 workers).
    const r = benchModel(
      fresh,
      "--edits",
      "2",
      "--index-runs",
      "1",
      "--no-eval",
      "--embed-chunks",
      "4",
      "--vector-sizes",
      "0",
      "--model-chunks",
      "0",
      "--json",
    );
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    const e = j.embedding;
    assert.ok(e, `embedding comparison missing: ${j.embedSkipped}`);
    // A sample of the fixture vault's notes: at least the chunks asked for, from several notes.
    assert.ok(e.notes > 1 && e.notes <= FIXTURE_NOTES.length, `notes ${e.notes}`);
    assert.equal(e.tract.length, 2);
    assert.equal(e.ort.length, 2);
    const chunks = e.tract[0].chunks;
    assert.ok(chunks >= 4, `chunks ${chunks}`);
    for (const t of e.tract) {
      assert.equal(t.chunks, chunks);
      assert.ok(t.steadyChunksPerSec > 0);
    }
    for (const o of e.ort) {
      assert.equal(o.chunks, chunks, "both engines embed the same chunks");
      assert.ok(o.steadyChunksPerSec > 0);
      assert.ok(o.referenceMinCosine >= 0.999, `onnxruntime-web harness vs reference: ${o.referenceMinCosine}`);
    }
    assert.ok(e.ratio > 0);
    // The pool of embedder workers, with 1 and 2 worker threads, on the same chunks.
    assert.deepEqual(
      e.pool.map((x: { threads: number }) => x.threads),
      [1, 2],
    );
    for (const x of e.pool) {
      assert.equal(x.chunks, chunks, "the pool embeds the same chunks");
      assert.ok(x.chunksPerSec > 0 && x.workerWasmMb > 0, JSON.stringify(x));
    }
  });
});

describe("strata-bench tokens", NEEDS_MODEL, () => {
  test("counts the embedded tokens of leads and leaves, and texts shared by notes once", async () => {
    const vault = await copyFixture();
    // One text in two notes: one key, embedded once.
    await cp(path.join(vault, "Welcome.md"), path.join(vault, "Inbox", "Welcome copy.md"));
    const r = benchModel("tokens", vault, "--json");
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.notes, FIXTURE_NOTES.length + 1);
    assert.equal(j.leads.count, j.notes, "a lead per note (the copy's differs: its path)");
    assert.equal(j.distinct, j.coreTotal, "the core embeds each distinct text once");
    assert.ok(j.sharedTexts >= 1 && j.chunks > j.distinct, JSON.stringify(j));
    assert.ok(j.leaves.tokens > 0 && j.leaves.max <= j.maxTokens);
    // Notes of one section (a lead and one leaf), and the leaf tokens a 256-token cap leaves.
    assert.ok(j.oneSection.notes > 0 && j.oneSection.notes < j.notes, JSON.stringify(j.oneSection));
    assert.ok(j.oneSection.leafTokens > 0 && j.oneSection.leafTokens <= j.leaves.tokens);
    assert.ok(j.leafTokensAt256 > 0 && j.leafTokensAt256 <= j.leaves.tokens);
  });
});

describe("strata-bench with both models", NEEDS_BOTH, () => {
  test("measures both models side by side on the same chunks", async () => {
    const vault = await copyFixture();
    // The models' comparison only, on 4 chunks; one run: the table on stdout, the report in a file.
    const { r, report } = await benchReport(benchModels, vault, "--edits", "2", "--model-chunks", "4");
    const m = report.models;
    assert.ok(m, "models comparison missing");
    assert.deepEqual(
      m.results.map((x: { model: string }) => x.model),
      ["all-MiniLM-L6-v2", "multilingual-e5-small"],
    );
    assert.deepEqual(m.missing, []);
    assert.equal(m.queries, 20);
    const [mini, e5] = m.results;
    assert.equal(mini.chunks, e5.chunks, "the same sample");
    for (const x of m.results) {
      assert.ok(x.chunks >= 4 && x.steadyChunksPerSec > 0 && x.queryP95Ms >= x.queryP50Ms && x.queryP50Ms > 0, JSON.stringify(x));
      assert.ok(x.embedderMemMb > 0 && x.peakEmbedderMemMb >= x.embedderMemMb && x.coreMemMb > 0, JSON.stringify(x));
    }
    assert.match(r.out, /Embedding models on the same \d+ notes/);
    assert.match(r.out, /\n\s*multilingual-e5-small\s+\d+/);
  });
});
