// The pool of embedder workers (plugin/core/embedding/pool.ts) with the real wasm core, the real
// embedder wasm in worker_threads and the real model (scripts/fetch-model.sh; skipped without
// it): the same keys and bit-identical vectors with 1 and 2 workers as the core's own embedder,
// a cancelled run leaves a consistent index, a worker that dies is replaced and its batch
// redone, one that always dies ends the run with a clear error, and a run killed mid-batch
// (the CLI, `--threads 2`) resumes.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import type { StrataCoreApi } from "../../plugin/core/api.ts";
import { embedAll } from "../../plugin/core/embedding/loop.ts";
import { chooseWorkers, EmbedPool, type SpawnEmbedWorker } from "../../plugin/core/embedding/pool.ts";
import { nodeEmbedSpawner } from "../../plugin/node/pool-workers.ts";
import type { EmbedWorker, ModelSource } from "../../plugin/core/embedding/pool-worker.ts";
import { openIndex, persist } from "../../plugin/core/index-store.ts";
import { FsIndexStore, loadModelFiles, NodeVault } from "../../plugin/node/host.ts";
import { loadedModel } from "../../plugin/core/wasm-classes.ts";
import { initSync, StrataEmbedder } from "../../build/wasm/strata_embedder.js";
import { newestManifest } from "../index-manifest.ts";
import { CLI } from "./cli-run.ts";
import { cleanupTemps, CONFIG, copyFixture, Core, indexDirOf, indexVault, loadModelInto, NEEDS_MODEL, ROOT } from "./helpers.ts";

after(cleanupTemps);

const FAILING = new URL("./workers/failing-embed-worker.ts", import.meta.url);

/** A spawner that records every batch's texts and vectors (what the pool stored, by text). */
function recording(inner: SpawnEmbedWorker, seen: Map<string, Float32Array>, sent: string[] = []): SpawnEmbedWorker {
  return async (model) => {
    const w = await inner(model);
    return {
      ...w,
      embed: async (texts) => {
        sent.push(...texts);
        const v = await w.embed(texts);
        const dim = v.length / texts.length;
        texts.forEach((t, i) => seen.set(t, v.slice(i * dim, (i + 1) * dim)));
        return v;
      },
    } satisfies EmbedWorker;
  };
}

/** Four notes of the fixture vault (English, Chinese, Japanese; a lead and several leaves each,
 *  several batches at `maxChunks` 2 and 4): each run embeds every chunk, so the pool's tests
 *  use these rather than the whole vault. The kill test below takes two more (18 chunks): it
 *  needs embedding to go on after the first persist. */
const POOL_NOTES = ["Astronomy/Observing log 2024.md", "Cooking/Fermented hot sauce.md", "中文/城市骑行路线.md", "日本語/登山計画.md"];

async function modelVault() {
  const vault = await copyFixture(POOL_NOTES);
  const r = await indexVault(vault);
  assert.equal(loadModelInto(r.core).modelLoaded, true);
  return { vault, ...r };
}

function model(core: StrataCoreApi): ModelSource {
  const m = loadedModel(core.embedProgress().model!);
  assert.ok(m, "the core's model is recorded for the pool");
  return m;
}

const QUERIES = ["how to care for a telescope mirror", "fermentation of chili peppers", "登山の準備", "城市骑行"];

function semanticScores(core: StrataCoreApi): string[] {
  return QUERIES.flatMap((q) => core.search({ query: q, mode: "semantic", k: 5 }).hits.map((h) => `${h.sectionId} ${h.score}`));
}

describe("the pool of embedder workers", NEEDS_MODEL, () => {
  test("1 and 2 workers store the keys and bit-identical vectors of the core's own embedder", async () => {
    const today = await modelVault();
    const sum0 = await embedAll(today.core, new NodeVault(today.vault), today.store);
    assert.equal(sum0.done, sum0.total);
    assert.ok(sum0.total > 8, `${sum0.total} chunks: several batches of 4 for 2 workers`);

    const runs: { seen: Map<string, Float32Array>; scores: string[]; vectors: number }[] = [];
    for (const n of [1, 2]) {
      const r = await modelVault();
      const seen = new Map<string, Float32Array>();
      const sent: string[] = [];
      const pool = new EmbedPool(recording(nodeEmbedSpawner(), seen, sent), n);
      try {
        const sum = await pool.run(r.core, new NodeVault(r.vault), r.store, { maxChunks: 4 });
        assert.deepEqual([sum.done, sum.embedded, sum.aborted], [sum.total, sum.total, false], `${n} worker(s)`);
        assert.equal(sum.total, sum0.total);
        assert.equal(sent.length, sum.total, "every chunk is sent to one worker, once");
        assert.ok(pool.wasmBytes().every((b) => b > 0));
      } finally {
        pool.close();
      }
      runs.push({ seen, scores: semanticScores(r.core), vectors: r.core.status().vectors });
    }
    // The same texts, bit for bit the same vectors, with 1 and 2 workers.
    const [one, two] = runs;
    assert.deepEqual([...two.seen.keys()].sort(), [...one.seen.keys()].sort());
    for (const [text, v] of one.seen)
      assert.deepEqual(new Uint32Array(two.seen.get(text)!.buffer), new Uint32Array(v.buffer), text.slice(0, 40));
    // …and as the core's own embedder makes them (today's embedStep): the same class, config and bytes.
    const m = model(today.core);
    initSync({ module: await import("node:fs").then((fs) => fs.readFileSync(path.join(ROOT, "build/wasm/strata_embedder_bg.wasm"))) });
    const files = (await loadModelFiles())!;
    const own = new StrataEmbedder(m.model, files.tokenizer, m.config);
    try {
      for (const [text, v] of [...one.seen].slice(0, 12)) {
        assert.deepEqual(new Uint32Array(own.embed([text], false).buffer), new Uint32Array(v.buffer), text.slice(0, 40));
      }
    } finally {
      own.free();
    }
    // The same vector index: the same semantic answers with the same scores.
    const scores = semanticScores(today.core);
    assert.ok(scores.length > 0);
    assert.deepEqual(one.scores, scores);
    assert.deepEqual(two.scores, scores);
    assert.equal(one.vectors, today.core.status().vectors);
  });

  test("a cancelled run leaves a consistent index, and the next run finishes it", async () => {
    const r = await modelVault();
    const pool = new EmbedPool(nodeEmbedSpawner(), 2);
    const ctl = new AbortController();
    try {
      const sum = await pool.run(r.core, new NodeVault(r.vault), r.store, {
        maxChunks: 2,
        signal: ctl.signal,
        onProgress: (p) => p.embedded > 0 && ctl.abort(),
      });
      assert.equal(sum.aborted, true);
      assert.ok(sum.done > 0 && sum.done < sum.total, `${sum.done}/${sum.total}`);
      // Nothing is left in flight: what was not stored is pending again, and was persisted as is.
      const reopened = await openIndex(Core, new FsIndexStore(indexDirOf(r.vault)), CONFIG);
      assert.equal(reopened.report.rebuilt, false);
      loadModelInto(reopened.core);
      assert.equal(reopened.core.embedProgress().done, sum.done);
      const rest = await pool.run(reopened.core, new NodeVault(r.vault), new FsIndexStore(indexDirOf(r.vault)));
      assert.equal(rest.embedded, sum.total - sum.done);
      assert.equal(rest.done, rest.total);
    } finally {
      pool.close();
    }
  });

  for (const fail of ["exit", "throw"] as const) {
    test(`a worker that dies on its first batch (${fail}) is replaced and its batch redone`, async () => {
      const r = await modelVault();
      let spawned = 0;
      const good = nodeEmbedSpawner();
      const bad = nodeEmbedSpawner(FAILING, { fail });
      const failures: string[] = [];
      const pool = new EmbedPool((m) => (spawned++ === 0 ? bad(m) : good(m)), 2);
      try {
        const sum = await pool.run(r.core, new NodeVault(r.vault), r.store, { maxChunks: 4, onWorkerFailure: (msg) => failures.push(msg) });
        assert.equal(sum.done, sum.total);
        assert.equal(sum.embedded, sum.total);
        assert.equal(pool.restarts, 1);
        assert.equal(failures.length, 1);
        assert.match(failures[0], fail === "exit" ? /exit code 3/ : /simulated crash/);
      } finally {
        pool.close();
      }
    });
  }

  test("a worker that always dies ends the run with a clear error and a consistent index", async () => {
    const r = await modelVault();
    const before = r.core.embedProgress();
    const pool = new EmbedPool(nodeEmbedSpawner(FAILING, { fail: "exit" }), 2);
    try {
      await assert.rejects(
        pool.run(r.core, new NodeVault(r.vault), r.store, { maxChunks: 4, maxAttempts: 2 }),
        /\[internal\] embedding failed 2 times on a batch of \d+ chunks .*exit code 3/,
      );
    } finally {
      pool.close();
    }
    const p = r.core.embedProgress();
    assert.deepEqual([p.done, p.total], [before.done, before.total], "nothing stored, nothing left in flight");
    // The core's own embedder still embeds everything.
    const sum = await embedAll(r.core, new NodeVault(r.vault), r.store);
    assert.equal(sum.done, sum.total);
    await persist(r.core, r.store);
  });

  test("strata index --threads 2 killed mid-run resumes where its last persist left it", async () => {
    const vault = await copyFixture([...POOL_NOTES, "Cooking/Sourdough starter.md", "中文/茶道笔记.md"]);
    // The bundled CLI (as cli.test.ts runs it): its main thread and workers start without tsx.
    const env = { ...process.env, STRATA_EMBED_FLUSH_MS: "300" };
    const killed = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [CLI, "index", vault, "--threads", "2", "--model", "all-MiniLM-L6-v2"], {
        env,
        stdio: "ignore",
      });
      // Kill once a persist with vectors is complete (a manifest lists a segment: the manifest is
      // its last write) while embedding goes on. A segment file alone is not that persist: a kill
      // between it and the manifest leaves the persist before it, with no vector.
      const store = new FsIndexStore(indexDirOf(vault));
      const poll = setInterval(() => {
        void store
          .list()
          .then(async (names) => {
            const manifests = names.filter((n) => /^devices\/[^/]+\/manifest-[ab]\.json$/.test(n));
            const texts = await Promise.all(manifests.map(async (n) => new TextDecoder().decode(await store.read(n))));
            if ((newestManifest(texts)?.segments ?? []).length > 0) child.kill("SIGKILL");
          })
          .catch(() => undefined);
      }, 20);
      child.on("exit", () => clearInterval(poll));
      child.on("exit", (code) => resolve(code));
    });
    assert.equal(killed, null, "killed by the signal");
    const opened = await openIndex(Core, new FsIndexStore(indexDirOf(vault)), CONFIG);
    assert.equal(opened.report.rebuilt, false, opened.report.reason ?? "");
    loadModelInto(opened.core);
    const mid = opened.core.embedProgress();
    assert.ok(mid.done > 0 && mid.done < mid.total, `resumes from ${mid.done}/${mid.total}`);
    const pool = new EmbedPool(nodeEmbedSpawner(), 2);
    try {
      const rest = await pool.run(opened.core, new NodeVault(vault), new FsIndexStore(indexDirOf(vault)));
      assert.equal(rest.embedded, mid.total - mid.done);
      assert.equal(rest.done, rest.total);
    } finally {
      pool.close();
    }
  });
});

test("Auto workers: cores − 1, capped by the memory budget beside the core; 1 on mobile", () => {
  assert.equal(chooseWorkers("auto", { cores: 2, model: "all-MiniLM-L6-v2" }).workers, 1);
  // 8 GB, 8 cores: (2048 − 350) / 210 = 8 with MiniLM, so 7 cores − 1 bind; (2048 − 800) / 590 = 2 with e5.
  assert.equal(chooseWorkers("auto", { cores: 8, totalMemoryMB: 8192, model: "all-MiniLM-L6-v2" }).workers, 7);
  const e5 = chooseWorkers("auto", { cores: 8, totalMemoryMB: 8192, model: "multilingual-e5-small" });
  assert.equal(e5.workers, 2);
  assert.match(e5.reason, /2048 MB budget − 800 MB for the search core\) \/ 590 MB per worker/);
  assert.equal(chooseWorkers("auto", { cores: 4, totalMemoryMB: 32768, model: "all-MiniLM-L6-v2" }).workers, 3);
  // 4 GB: a quarter is 1 GB, (1024 − 350) / 210 = 3.
  assert.equal(chooseWorkers("auto", { cores: 8, totalMemoryMB: 4096, model: "all-MiniLM-L6-v2" }).workers, 3);
  assert.equal(chooseWorkers(4, { cores: 2, mobile: true }).workers, 1);
  assert.equal(chooseWorkers(40, { cores: 2 }).workers, 16);
});
