// Semantic and hybrid search through the real wasm core and the real model (scripts/fetch-model.sh).
// Every test here needs the model and is skipped, with the reason printed, when it is absent.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { appendFile, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";

import type { SearchMode, StrataCoreApi } from "../../plugin/core/api.ts";
import { openIndex, persist, type IndexStore } from "../../plugin/core/index-store.ts";
import { reconcile } from "../../plugin/core/reconcile.ts";
import { embedAll, embedStepFrom } from "../../plugin/core/embedding/loop.ts";
import { FsIndexStore, NodeVault } from "../../plugin/node/host.ts";
import { evaluate, loadQueries } from "../../plugin/cli/metrics.ts";
import {
  cleanupTemps,
  CONFIG,
  cosine,
  copyFixture,
  Core,
  indexDirOf,
  indexVault,
  loadModelInto,
  NEEDS_MODEL,
  ROOT,
  tempDir,
} from "./helpers.ts";

after(cleanupTemps);

interface RefSentence {
  lang: string;
  text: string;
  ids: number[];
  vector: number[];
}
const REF = JSON.parse(readFileSync(path.join(ROOT, "tests/fixtures/embeddings/reference.json"), "utf8")) as { sentences: RefSentence[] };

/** Indexes the vault, loads the model and embeds everything, persisting to the index folder. */
async function semanticVault(vault: string) {
  const r = await indexVault(vault);
  const loaded = loadModelInto(r.core);
  assert.equal(loaded.modelLoaded, true);
  const sum = await embedAll(r.core, new NodeVault(vault), r.store, { maxChunks: 16 });
  return { ...r, sum };
}

describe("embedding fidelity through the wasm core", NEEDS_MODEL, () => {
  // One note per reference sentence, no heading: each note is one leaf whose embedded text
  // is the sentence itself (plus the note's lead vector, "s07" and the sentence).
  let core: StrataCoreApi;
  const noteOf = (i: number) => `s${String(i).padStart(2, "0")}.md`;
  const leafOf = (i: number) => {
    const sections = core.note(noteOf(i))!.sections;
    assert.equal(sections.length, 1, `${noteOf(i)} is one section`);
    return sections[0].id;
  };

  before(async () => {
    const vault = path.join(await tempDir(), "ref-vault");
    await mkdir(vault);
    await Promise.all(REF.sentences.map((s, i) => writeFile(path.join(vault, noteOf(i)), `${s.text}\n`)));
    const r = await semanticVault(vault);
    core = r.core;
    // A vector per sentence and one per note's lead.
    assert.equal(r.sum.total, 2 * REF.sentences.length);
    assert.equal(r.sum.done, r.sum.total);
    assert.equal(r.sum.embedded, r.sum.total);
  });

  test("each sentence, as a semantic query, finds its own note first with cosine ≥ 0.999", () => {
    REF.sentences.forEach((s, i) => {
      const res = core.search({ query: s.text, mode: "semantic", k: 3 });
      assert.equal(res.mode, "semantic");
      const top = res.hits[0];
      assert.equal(top.path, noteOf(i), `${s.lang}: ${s.text.slice(0, 40)}`);
      // The note's score weighs its lead ("s07" + the sentence) with its section (the sentence).
      const section = Number(/section (-?[\d.]+)/.exec(top.explain)?.[1]);
      assert.ok(section >= 0.999, `${noteOf(i)}: section cosine ${section} (${top.explain})`);
    });
  });

  test("cosines between the core's vectors match those between the Python reference vectors", () => {
    // similar() from a section scores the other notes' sections by the cosine between the
    // stored vectors: if our tokenizer, padding, truncation or pooling were off, they would
    // not match onnxruntime's (seen: .23–.57). Only pairs whose reference cosine is ≥ 0.25
    // are compared.
    let worst = 0;
    let compared = 0;
    REF.sentences.forEach((s, i) => {
      const res = core.similar({ sectionId: leafOf(i), k: REF.sentences.length });
      assert.ok(
        res.hits.every((h) => h.path !== noteOf(i)),
        "the source note is not its own neighbour",
      );
      for (const h of res.hits) {
        const j = Number(h.path.slice(1, 3));
        const want = cosine(s.vector, REF.sentences[j].vector);
        if (want < 0.25) continue;
        const sec = h.sections.find((x) => x.sectionId === leafOf(j));
        assert.ok(sec, `${h.path}: no matching section`);
        worst = Math.max(worst, Math.abs(sec.score - want));
        compared++;
      }
    });
    assert.ok(compared >= 100, `only ${compared} pairs compared`);
    assert.ok(worst <= 0.01, `largest cosine difference from the reference: ${worst}`);
  });
});

describe("hybrid search on the fixture vault", NEEDS_MODEL, () => {
  let vault: string;
  let core: StrataCoreApi;
  let store: IndexStore;

  before(async () => {
    vault = await copyFixture();
    const r = await semanticVault(vault);
    core = r.core;
    store = r.store;
    assert.ok(r.sum.total > 14, `chunks: ${r.sum.total}`);
    assert.equal(r.sum.done, r.sum.total);
    assert.equal(r.sum.aborted, false);
    assert.equal(core.status().vectors, r.sum.total);
  });

  test("a question sharing no word with the note finds it semantically", () => {
    const cases: [string, string][] = [
      ["stargazing gear upkeep", "Astronomy/Telescope care.md"],
      ["thirsty veggies", "Garden/Drip irrigation.md"],
      ["fiery chili condiment", "Cooking/Fermented hot sauce.md"],
    ];
    for (const [query, expected] of cases) {
      assert.deepEqual(core.search({ query, mode: "lexical" }).hits, [], `"${query}" must share no indexed word with the vault`);
      const sem = core.search({ query, mode: "semantic", k: 5 });
      assert.equal(sem.hits[0]?.path, expected, `semantic: ${sem.hits.map((h) => h.path).join(", ")}`);
      const hyb = core.search({ query, mode: "hybrid", k: 5 });
      assert.equal(hyb.mode, "hybrid");
      assert.equal(hyb.hits[0]?.path, expected, `hybrid: ${hyb.hits.map((h) => h.path).join(", ")}`);
    }
  });

  test("weaker matches (hybrid): a query the vault cannot answer lists its notes as weak, after the matches", () => {
    for (const query of ["stargazing gear upkeep", "thirsty veggies"]) {
      for (const mode of ["semantic", "hybrid"] as const) {
        const hits = core.search({ query, mode, k: 5 }).hits;
        assert.equal(hits[0]?.weak, undefined, `${mode} "${query}": the answer is a match`);
      }
    }
    for (const query of [
      "rules of the offside position in football",
      "symptoms of vitamin D deficiency in winter",
      "tuning a guitar without a tuner",
    ]) {
      const sem = core.search({ query, mode: "semantic", k: 10 }).hits;
      assert.ok(sem.length > 0 && sem.every((h) => !h.weak), "semantic mode lists its notes as they rank");
      const hyb = core.search({ query, mode: "hybrid", k: 10 }).hits;
      const firstWeak = hyb.findIndex((h) => h.weak);
      assert.ok(firstWeak >= 0, `hybrid "${query}" has weaker matches`);
      assert.ok(
        hyb.slice(firstWeak).every((h) => h.weak),
        "weaker matches come last",
      );
      // A note the lexical side found for a common word of the query holds little of it.
      const held = (h: { explain: string }) => Number(/holds ([\d.]+) of the query/.exec(h.explain)?.[1] ?? "0");
      for (const h of hyb.filter((x) => x.weak && x.lexScore > 0)) assert.ok(held(h) < 0.3, h.explain);
      const shown = hyb.filter((h) => !h.weak);
      assert.ok(shown.length <= 2, `hybrid "${query}" shows ${shown.map((h) => `${h.path} (${h.explain})`).join("; ")}`);
    }
  });

  test("hybrid is never worse than lexical on tests/fixtures/eval.jsonl", () => {
    const queries = loadQueries(path.join(ROOT, "tests/fixtures/eval.jsonl"));
    const run = (mode: SearchMode) => evaluate(queries, 10, (q) => core.search({ query: q, mode, k: 50 }).hits.map((h) => h.path));
    const lex = run("lexical");
    const hyb = run("hybrid");
    const sem = run("semantic");
    const fmt = (x: typeof lex) => `recall ${x.recall10} mrr ${x.mrr10} ndcg ${x.ndcg10}`;
    const msg = `lexical ${fmt(lex)} · semantic ${fmt(sem)} · hybrid ${fmt(hyb)}`;
    assert.ok(hyb.recall10 >= lex.recall10, msg);
    assert.ok(hyb.mrr10 >= lex.mrr10, msg);
    assert.ok(hyb.ndcg10 >= lex.ndcg10, msg);
    assert.ok(lex.n === 10 && hyb.n === 10);
  });

  test("hybrid hits are one per note and carry the score breakdown", () => {
    const res = core.search({ query: "how do I keep a sourdough starter alive", mode: "hybrid", k: 10 });
    assert.equal(res.mode, "hybrid");
    assert.ok(res.weights && res.weights.lex > 0 && res.weights.vec > 0, JSON.stringify(res.weights));
    assert.equal(res.weights.method, "rrf");
    assert.equal(res.semanticCoverage, 1);
    const paths = res.hits.map((h) => h.path);
    assert.equal(new Set(paths).size, paths.length);
    assert.equal(paths[0], "Cooking/Sourdough starter.md");
    for (let i = 0; i < res.hits.length; i++) {
      const h = res.hits[i];
      assert.equal(h.score, h.finalScore);
      assert.ok(h.explain.length > 0);
      assert.ok(h.lexNorm >= 0 && h.lexNorm <= 1 + 1e-6);
      assert.ok(h.vecScore >= -1 && h.vecScore <= 1 + 1e-6);
      const prev = res.hits[i - 1];
      if (prev) assert.ok(!prev.weak || h.weak, "weaker matches last");
      if (prev && !prev.weak === !h.weak) assert.ok(h.finalScore <= prev.finalScore + 1e-9, "each group sorted by finalScore");
    }
    const top = res.hits[0];
    assert.ok(top.lexScore > 0 && top.vecScore > 0.3 && top.rrfScore > 0, JSON.stringify(top));
    const linear = core.search({ query: "how do I keep a sourdough starter alive", mode: "hybrid", fusion: "linear" });
    assert.equal(linear.weights?.method, "linear");
    assert.equal(linear.hits[0].path, "Cooking/Sourdough starter.md");
  });

  test("a quoted exact phrase leans lexical", () => {
    const res = core.search({ query: '"drip line"', mode: "hybrid" });
    assert.ok(res.weights && res.weights.lex > res.weights.vec, JSON.stringify(res.weights));
    assert.equal(res.hits[0].path, "Garden/Drip irrigation.md");
  });

  test("multi-query: an expansion brings its own note into the results", () => {
    const plain = core.search({ query: "collimation", mode: "hybrid", k: 3 }).hits.map((h) => h.path);
    assert.equal(plain[0], "Astronomy/Telescope care.md");
    assert.ok(!plain.includes("Cooking/Sourdough starter.md"), plain.join(", "));
    const multi = core.search({ query: "collimation", queries: ["levain"], mode: "hybrid", k: 3 }).hits.map((h) => h.path);
    assert.equal(multi[0], "Astronomy/Telescope care.md", "the original query weighs twice an expansion");
    assert.ok(multi.includes("Cooking/Sourdough starter.md"), multi.join(", "));
  });

  test("similar notes: nearest by vector, the source excluded, with matching sections", () => {
    const res = core.similar({ path: "Cooking/Sourdough starter.md", k: 5 });
    assert.equal(res.hits.length, 5);
    assert.ok(res.hits.every((h) => h.path !== "Cooking/Sourdough starter.md"));
    assert.equal(res.hits[0].path, "Cooking/Fermented hot sauce.md", res.hits.map((h) => `${h.path} ${h.score}`).join(", "));
    for (let i = 0; i < res.hits.length; i++) {
      const h = res.hits[i];
      assert.ok(h.sections.length >= 1);
      assert.ok(h.sections.every((s) => s.startLine >= 1 && s.endLine >= s.startLine));
      if (i > 0) assert.ok(h.score <= res.hits[i - 1].score + 1e-9);
    }
    assert.throws(() => core.similar({ path: "No/Such note.md" }));
  });

  test("an edit re-embeds only the section whose text changed", async () => {
    const before_ = core.embedProgress();
    await appendFile(path.join(vault, "Cooking/Sourdough starter.md"), "\nA zqnewline at the very end of the last section.\n");
    const sum = await reconcile(core, new NodeVault(vault), { store });
    assert.equal(sum.updated, 1);
    const p = core.embedProgress();
    assert.equal(p.total - p.done, 1, `pending after the edit: ${p.total - p.done}`);
    const step = await embedStepFrom(core, new NodeVault(vault), 16);
    assert.equal(step.embedded, 1);
    assert.equal(step.done, step.total);
    assert.equal(step.total, before_.total);
  });

  test("a rename re-embeds no section, only the note's lead vector", async () => {
    const before_ = core.embedProgress();
    assert.equal(before_.done, before_.total);
    const note = "Cooking/Fermented hot sauce.md";
    const sections = core.note(note)!.sections;
    const leaves = sections.filter((s) => !sections.some((c) => c.parentId === s.id)).length;
    assert.ok(leaves >= 1);
    await rename(path.join(vault, note), path.join(vault, "Garden/Hot sauce.md"));
    const sum = await reconcile(core, new NodeVault(vault), { store });
    assert.equal(sum.moved, 1);
    const p = core.embedProgress();
    assert.equal(p.total, before_.total);
    assert.equal(p.total - p.done, 1, 'pending after the rename: the lead vector ("Garden > Fermented hot sauce", then its opening lines)');
    assert.deepEqual(core.embedNeeds(16), ["Garden/Hot sauce.md"], "the lead is read from the note");
    const step = core.embedStep(16, { "Garden/Hot sauce.md": await readFile(path.join(vault, "Garden/Hot sauce.md")) });
    assert.equal(step.embedded, 1);
    assert.equal(step.done, step.total);
    assert.equal(core.embedStep(16, {}).embedded, 0);
    const res = core.search({ query: "fiery chili condiment", mode: "semantic", k: 3 });
    assert.equal(res.hits[0].path, "Garden/Hot sauce.md");
  });

  test("persisted vectors survive a reopen: nothing is embedded again", async () => {
    // The steps above called embedStep() directly: persist what they embedded.
    await persist(core, store);
    const expected = core
      .search({ query: "looking after the optics of my stargazing instrument", mode: "semantic", k: 5 })
      .hits.map((h) => h.path);
    const vectors = core.status().vectors;
    const { core: again, report } = await openIndex(Core, new FsIndexStore(indexDirOf(vault)), CONFIG);
    assert.equal(report.rebuilt, false, report.reason);
    assert.equal(again.status().vectors, vectors);
    const loaded = loadModelInto(again);
    assert.equal(loaded.done, loaded.total, "every chunk still has its vector after the reopen");
    assert.equal((await embedStepFrom(again, new NodeVault(vault), 16)).embedded, 0);
    const hits = again
      .search({ query: "looking after the optics of my stargazing instrument", mode: "semantic", k: 5 })
      .hits.map((h) => h.path);
    assert.deepEqual(hits, expected);
    // Similar notes work from the persisted vectors alone, before any model is loaded.
    const { core: noModel } = await openIndex(Core, new FsIndexStore(indexDirOf(vault)), CONFIG);
    assert.equal(noModel.status().modelLoaded, false);
    assert.ok(noModel.similar({ path: "Cooking/Sourdough starter.md", k: 3 }).hits.length > 0);
    again.free();
    noModel.free();
  });
});

/** Four notes of the fixture vault (a quarter of its chunks, English and Chinese), for the
 *  cancelled run below: it embeds every chunk. */
const LOOP_NOTES = ["Cooking/Fermented hot sauce.md", "Garden/Drip irrigation.md", "Welcome.md", "中文/茶道笔记.md"];

describe("the embedding queue", NEEDS_MODEL, () => {
  test("cancelled by an AbortSignal, resumed after a reopen from what was persisted", async () => {
    const vault = await copyFixture(LOOP_NOTES);
    const { core, store } = await indexVault(vault);
    loadModelInto(core);
    const ctl = new AbortController();
    const seen: number[] = [];
    const first = await embedAll(core, new NodeVault(vault), store, {
      maxChunks: 4,
      onProgress: (p) => {
        seen.push(p.done);
        if (p.embedded > 0) ctl.abort();
      },
      signal: ctl.signal,
    });
    assert.equal(first.aborted, true);
    assert.equal(first.embedded, 4);
    assert.ok(first.done < first.total);
    assert.ok(first.bytesWritten > 0, "the embedded chunks were persisted on the way out");
    assert.deepEqual(seen, [0, 4]);
    core.free();

    const { core: again } = await openIndex(Core, new FsIndexStore(indexDirOf(vault)), CONFIG);
    const resumed = loadModelInto(again);
    assert.equal(resumed.done, 4, "the persisted vectors count as done");
    const rest = await embedAll(again, new NodeVault(vault), store, { maxChunks: 16 });
    assert.equal(rest.aborted, false);
    assert.equal(rest.embedded, first.total - 4);
    assert.equal(rest.done, rest.total);
  });

  test("prioritize() moves a note to the front of the queue", async () => {
    const vault = await copyFixture();
    const { core } = await indexVault(vault);
    loadModelInto(core);
    const target = "日本語/書道の練習.md";
    const leaves = core.note(target)!.sections.filter((s) => !core.note(target)!.sections.some((c) => c.parentId === s.id)).length;
    core.prioritize([target]);
    assert.deepEqual(core.embedNeeds(leaves + 1), [target], "its leaves need its text");
    await embedStepFrom(core, new NodeVault(vault), leaves + 1); // its lead vector and its leaves
    // With the note's chunks embedded first, it is the only note semantic search can find yet.
    const res = core.search({ query: "書道の練習", mode: "semantic", k: 5 });
    assert.deepEqual([...new Set(res.hits.map((h) => h.path))], [target]);
    assert.ok(res.semanticCoverage != null && res.semanticCoverage < 1);
  });
});

describe("embedding reads the notes it needs", NEEDS_MODEL, () => {
  test("a note edited on disk or gone since indexing has its chunks dropped; embedAll ends; the next update queues them", async () => {
    const vault = await copyFixture();
    const { core, store } = await indexVault(vault);
    loadModelInto(core);
    const chunks = (p: string) => {
      const s = core.note(p)!.sections;
      return 1 + s.filter((x) => !s.some((c) => c.parentId === x.id)).length; // lead + leaves
    };
    const edited = "Garden/Drip irrigation.md";
    const gone = "Cooking/Fermented hot sauce.md";
    const [editedChunks, goneChunks] = [chunks(edited), chunks(gone)];
    // Changed on disk, not yet reconciled: the index still holds the old version.
    await appendFile(path.join(vault, edited), "\nA zqvalve was added.\n");
    await rm(path.join(vault, gone));
    const total = core.embedProgress().total;
    const sum = await embedAll(core, new NodeVault(vault), store, { maxChunks: 8 });
    assert.equal(sum.aborted, false);
    assert.equal(sum.done, sum.total, "the loop ended with the queue empty");
    // Their leads and leaves were dropped.
    assert.equal(sum.embedded, total - editedChunks - goneChunks);
    // The next update queues the edited note's chunks (and drops the gone note's).
    await reconcile(core, new NodeVault(vault), { store });
    const p = core.embedProgress();
    assert.ok(p.done < p.total, JSON.stringify(p));
    const rest = await embedAll(core, new NodeVault(vault), store);
    assert.equal(rest.done, rest.total);
    assert.ok(rest.embedded >= editedChunks - 1, `${rest.embedded} embedded`);
    const res = core.search({ query: "zqvalve", mode: "hybrid", k: 1 });
    assert.equal(res.hits[0]?.path, edited);
    core.free();
  });
});

describe("without a model", () => {
  test("embedAll refuses to run", async () => {
    const core = Core.create(CONFIG);
    await assert.rejects(embedAll(core, new NodeVault(await copyFixture()), null), /\[unavailable\]/);
    core.free();
  });
});
