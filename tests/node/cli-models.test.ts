// End-to-end: the bundled `strata` CLI (dist/strata.js) with the embedding models: embedding,
// semantic search, similar notes, --model and switching models (cli.test.ts: without a model).
// Its own file so that it runs beside the other CLI tests (node --test runs files in parallel).

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import { NO_MODEL_DIR, run, strata, strataModel, strataModels } from "./cli-run.ts";
import { cleanupTemps, copyFixture, FIXTURE_NOTES, indexDirOf, MODEL, NEEDS_BOTH, NEEDS_E5, NEEDS_MODEL, ROOT } from "./helpers.ts";

after(cleanupTemps);

/** Three notes of the fixture vault, for the --embed-limit test (it embeds with MiniLM to reach
 *  a code path): the one its query names, with more chunks than the limit, and two more. */
const FEW_NOTES = ["Cooking/Fermented hot sauce.md", "Cooking/Sourdough starter.md", "Welcome.md"];

describe("strata CLI with the embedding model", NEEDS_MODEL, () => {
  let vault: string;

  test("index embeds every chunk; a second run embeds nothing; --no-embed skips", async () => {
    vault = await copyFixture();
    const first = strataModel("index", vault, "--json");
    assert.equal(first.code, 0, first.err);
    const j = JSON.parse(first.out);
    assert.equal(j.embedding.modelLoaded, true);
    assert.equal(j.embedding.model, "all-MiniLM-L6-v2");
    assert.ok(j.embedding.total > FIXTURE_NOTES.length, JSON.stringify(j.embedding));
    assert.equal(j.embedding.done, j.embedding.total);
    assert.equal(j.embedding.embedded, j.embedding.total);
    assert.equal(j.embedding.vectors, j.embedding.total);
    assert.ok(j.embedding.rate > 0);

    const again = strataModel("index", vault);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /embedded 0 chunks .* (\d+)\/\1 chunks have a vector/);

    const other = await copyFixture();
    const skipped = strataModel("index", other, "--no-embed", "--json");
    assert.equal(skipped.code, 0, skipped.err);
    const s = JSON.parse(skipped.out);
    assert.equal(s.embedding.skipped, true);
    assert.equal(s.embedding.vectors, 0);
  });

  test("search: semantic and hybrid with the score breakdown, --queries, --fusion", () => {
    const q = "looking after the optics of my stargazing instrument";
    const sem = strataModel("search", vault, q, "--mode", "semantic", "--json");
    assert.equal(sem.code, 0, sem.err);
    const s = JSON.parse(sem.out);
    assert.equal(s.mode, "semantic");
    assert.equal(s.hits[0].path, "Astronomy/Telescope care.md");
    assert.ok(s.hits[0].vecScore > 0.3);
    for (const key of ["finalScore", "lexNorm", "vecScore", "vecNorm", "rrfScore", "explain"]) assert.ok(key in s.hits[0], key);

    const human = strataModel("search", vault, "how do I keep a sourdough starter alive");
    assert.equal(human.code, 0, human.err);
    assert.match(human.out.split("\n")[0], /^ 1\. Cooking\/Sourdough starter\.md/);
    assert.match(human.out, /score \d\.\d+ · lex \d\.\d\d \(bm25 [\d.]+\) · vec \d\.\d{3}/);
    assert.match(human.out, /results · hybrid · rrf lex/);

    const multi = JSON.parse(strataModel("search", vault, "collimation", "--queries", "levain", "--k", "3", "--json").out);
    assert.deepEqual(multi.queries, ["levain"]);
    assert.ok(multi.hits.some((h: { path: string }) => h.path === "Cooking/Sourdough starter.md"));
    const linear = JSON.parse(strataModel("search", vault, "sourdough", "--fusion", "linear", "--json").out);
    assert.equal(linear.weights.method, "linear");

    // A query the vault cannot answer: its weaker matches are left out unless --weak, kept in --json.
    const noise = "rules of the offside position in football";
    const all = JSON.parse(strataModel("search", vault, noise, "--json").out).hits as { path: string; weak?: boolean }[];
    const weak = all.filter((h) => h.weak).length;
    assert.ok(weak > 0, "out-of-vault hits are weaker matches");
    const plain = strataModel("search", vault, noise);
    assert.equal(plain.code, 0, plain.err);
    assert.match(plain.out, new RegExp(`${weak} weaker match(es)? not shown \\(--weak lists them\\)`));
    assert.doesNotMatch(plain.out, /^weaker matches/m);
    const listed = strataModel("search", vault, noise, "--weak");
    assert.match(listed.out, /^weaker matches \(few of the query's words/m);
    assert.equal((listed.out.match(/^ ?\d+\. /gm) ?? []).length, all.length, "--weak lists every hit");
  });

  test("similar: nearest notes with their sections", () => {
    const r = strataModel("similar", vault, "Cooking/Sourdough starter.md", "--k", "3", "--json");
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.note, "Cooking/Sourdough starter.md");
    assert.equal(j.hits.length, 3);
    assert.equal(j.hits[0].path, "Cooking/Fermented hot sauce.md");
    const human = strataModel("similar", vault, path.join(vault, "Cooking/Sourdough starter.md"));
    assert.equal(human.code, 0, human.err);
    assert.match(
      human.out,
      /^Notes similar to Cooking\/Sourdough starter\.md:\n 1\. Cooking\/Fermented hot sauce\.md {2}\(cosine 0\.\d{3}\)/,
    );
    const missing = strataModel("similar", vault, "Nope.md");
    assert.equal(missing.code, 2);
    assert.match(missing.err, /not in the index/);
  });

  test("search and similar embed first up to --embed-limit chunks; past it, they answer at once and say so", async () => {
    const fresh = await copyFixture(FEW_NOTES);
    assert.equal(strataModel("index", fresh, "--no-embed").code, 0);
    const over = strataModel("search", fresh, "sourdough starter", "--embed-limit", "3", "--k", "1");
    assert.equal(over.code, 0, over.err);
    assert.match(over.out, /^ 1\. Cooking\/Sourdough starter\.md/);
    assert.match(over.out, /vec —/, "no vector yet");
    assert.match(over.err, /^strata: \d+ chunks have no vector yet \(more than --embed-limit 3\): .*`strata index` embeds the rest\n$/);
    const before = JSON.parse(strataModel("search", fresh, "sourdough starter", "--embed-limit", "3", "--json").out);
    assert.equal(before.semanticCoverage, 0);
    // similar embeds the note's own chunks (up to the limit) and answers from what is embedded.
    const sim = strataModel("similar", fresh, "Cooking/Sourdough starter.md", "--embed-limit", "3", "--json");
    assert.equal(sim.code, 0, sim.err);
    assert.deepEqual(JSON.parse(sim.out).hits, [], "no other note has a vector yet");
    const partial = JSON.parse(strataModel("search", fresh, "sourdough starter", "--embed-limit", "3", "--json").out);
    assert.ok(partial.semanticCoverage > 0 && partial.semanticCoverage < 1, `coverage ${partial.semanticCoverage}`);
    // Under the default limit (the notes have fewer chunks) search embeds them first, once.
    const after = JSON.parse(strataModel("search", fresh, "sourdough starter", "--json").out);
    assert.equal(after.semanticCoverage, 1);
    assert.ok(after.hits[0].vecScore > 0.3, JSON.stringify(after.hits[0]));
    const bad = strataModel("search", fresh, "x", "--embed-limit", "-1");
    assert.equal(bad.code, 2);
  });

  test("similar embeds first when the index has no vectors yet", async () => {
    // The note and one other: similar embeds both before it answers.
    const fresh = await copyFixture(["Garden/Drip irrigation.md", "Welcome.md"]);
    assert.equal(strataModel("index", fresh, "--no-embed").code, 0);
    const r = strataModel("similar", fresh, "Garden/Drip irrigation.md", "--json");
    assert.equal(r.code, 0, r.err);
    assert.ok(JSON.parse(r.out).hits.length > 0);
  });

  test("eval embeds its temporary index: hybrid is at least as good as lexical", async () => {
    const fresh = await copyFixture();
    const evalFile = path.join(ROOT, "tests/fixtures/eval.jsonl");
    const lex = JSON.parse(strataModel("eval", fresh, evalFile, "--mode", "lexical", "--json").out);
    const hyb = strataModel("eval", fresh, evalFile, "--json");
    assert.equal(hyb.code, 0, hyb.err);
    const h = JSON.parse(hyb.out);
    assert.equal(h.mode, "hybrid");
    assert.equal(h.answeredMode, "hybrid");
    assert.ok(h.recall10 >= lex.recall10 && h.mrr10 >= lex.mrr10, `hybrid ${h.recall10}/${h.mrr10} lexical ${lex.recall10}/${lex.mrr10}`);
    // Semantic mode on the index the first test embedded (the temporary index is proven above).
    const sem = JSON.parse(strataModel("eval", vault, evalFile, "--mode", "semantic", "--index-dir", indexDirOf(vault), "--json").out);
    assert.equal(sem.answeredMode, "semantic");
    assert.ok(!existsSync(path.join(fresh, ".obsidian")), "eval wrote into the vault");
  });
});

/** Five notes of the fixture vault, most of their text not English (so auto chooses
 *  multilingual-e5-small): about a third of its chunks, for the tests that embed with e5, the
 *  slower model. */
const E5_NOTES = ["中文/茶道笔记.md", "中文/量子计算入门.md", "日本語/書道の練習.md", "Cooking/Fermented hot sauce.md", "Welcome.md"];

describe("strata --model", () => {
  test("auto names the model it chose and why; a missing one is explained; a bad one exits 2", async () => {
    const vault = await copyFixture();
    const r = strata("index", vault, "--json");
    assert.equal(r.code, 0, r.err);
    const m = JSON.parse(r.out).model;
    assert.equal(m.setting, "auto");
    assert.equal(m.chosen, "multilingual-e5-small");
    assert.match(m.reason, /^auto: \d+% of the vault's text is not in English$/);
    assert.ok(m.nonEnglishShare >= 0.1);
    assert.equal(m.loaded, null);
    assert.deepEqual(
      m.missing.map((x: { model: string }) => x.model),
      ["multilingual-e5-small"],
    );
    assert.match(
      r.err,
      /the embedding model multilingual-e5-small is missing: download it with `strata model download --model multilingual-e5-small`/,
    );
    const s = JSON.parse(strata("search", vault, "sourdough", "--json").out);
    assert.equal(s.model.chosen, "multilingual-e5-small");
    assert.equal(JSON.parse(strata("search", vault, "sourdough", "--mode", "lexical", "--json").out).model, null);
    const human = strata("search", vault, "sourdough", "--model", "all-MiniLM-L6-v2");
    assert.match(human.out, /model no model loaded \(all-MiniLM-L6-v2 chosen: chosen in the settings\)/);
    for (const cmd of [
      ["index", vault],
      ["search", vault, "x"],
      ["eval", vault, path.join(ROOT, "tests/fixtures/eval.jsonl")],
    ]) {
      const bad = strata(...cmd, "--model", "gpt-9");
      assert.equal(bad.code, 2, cmd[0]);
      assert.match(bad.err, /--model must be one of auto, all-MiniLM-L6-v2, multilingual-e5-small/);
    }
  });

  test("auto falls back to all-MiniLM-L6-v2 when multilingual-e5-small is missing", NEEDS_MODEL, async () => {
    // A Chinese and a Japanese note (four chunks): auto chooses e5, MiniLM embeds them all.
    const vault = await copyFixture(E5_NOTES.slice(1, 3));
    const r = run({ STRATA_MODEL_DIR: MODEL!.dir, STRATA_MODELS: NO_MODEL_DIR }, ["index", vault, "--json"]);
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.deepEqual([j.model.chosen, j.model.loaded, j.model.fallback], ["multilingual-e5-small", "all-MiniLM-L6-v2", true]);
    assert.equal(j.embedding.model, "all-MiniLM-L6-v2");
    assert.equal(j.embedding.done, j.embedding.total);
    assert.match(r.err, /multilingual-e5-small is missing: .*; all-MiniLM-L6-v2 is used meanwhile/);
  });

  test("index and search with multilingual-e5-small, chosen by auto", NEEDS_E5, async () => {
    const vault = await copyFixture(E5_NOTES);
    const r = strataModels("index", vault, "--json");
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.deepEqual(
      [j.model.chosen, j.model.loaded, j.model.fallback, j.model.notice],
      ["multilingual-e5-small", "multilingual-e5-small", false, null],
    );
    assert.equal(j.embedding.done, j.embedding.total);
    assert.equal(j.model.switching, null);
    const human = strataModels("index", vault);
    assert.match(human.out, /model multilingual-e5-small \(auto: \d+% of the vault's text is not in English\) loaded/);
    const s = strataModels("search", vault, "泡乌龙茶的水温", "--mode", "semantic", "--json");
    assert.equal(s.code, 0, s.err);
    const res = JSON.parse(s.out);
    assert.equal(res.model.loaded, "multilingual-e5-small");
    assert.equal(res.hits[0].path, "中文/茶道笔记.md");
    const e = strataModels("eval", vault, path.join(ROOT, "tests/fixtures/eval.jsonl"), "--index-dir", indexDirOf(vault), "--json");
    assert.equal(e.code, 0, e.err);
    assert.equal(JSON.parse(e.out).model.loaded, "multilingual-e5-small");
  });

  test("index switches models: every chunk embedded again with the new one, and the switch is over", NEEDS_BOTH, async () => {
    // Two of those notes (four chunks): each model embeds them all.
    const vault = await copyFixture(E5_NOTES.slice(1, 3));
    const mini = JSON.parse(strataModels("index", vault, "--model", "all-MiniLM-L6-v2", "--json").out);
    assert.equal(mini.embedding.model, "all-MiniLM-L6-v2");
    const r = strataModels("index", vault, "--model", "multilingual-e5-small", "--json");
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.embedding.model, "multilingual-e5-small");
    assert.equal(j.embedding.embedded, j.embedding.total, "everything embedded again");
    assert.equal(j.model.switching, null, "the switch is over");
    const again = strataModels("index", vault, "--model", "multilingual-e5-small");
    assert.match(again.out, /embedded 0 chunks .* model multilingual-e5-small \(chosen in the settings\) loaded/);
  });
});
