// End-to-end: the bundled `strata` CLI (dist/strata.js) on temp copies of the fixture vault.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import {
  cleanupTemps,
  copyFixture,
  FIXTURE,
  FIXTURE_NOTES,
  hashTree,
  indexDirOf,
  MODEL,
  NEEDS_BOTH,
  NEEDS_E5,
  NEEDS_MODEL,
  ROOT,
  tempDir,
} from "./helpers.ts";

after(cleanupTemps);

const CLI = path.join(ROOT, "dist", "strata.js");
/** A model folder that holds no model (nor a models folder: no model folders in it). */
const NO_MODEL_DIR = path.join(ROOT, "tests", "fixtures", "no-such-model");
/** The CLI as on a machine without any model. */
const NO_MODELS = { STRATA_MODEL_DIR: NO_MODEL_DIR, STRATA_MODELS: NO_MODEL_DIR };

function run(env: Record<string, string>, args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...env },
    timeout: 300_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The CLI without an embedding model (lexical behaviour, fast). */
function strata(...args: string[]) {
  return run(NO_MODELS, args);
}

/** The CLI with all-MiniLM-L6-v2, chosen explicitly (tests that use it need NEEDS_MODEL). */
function strataModel(...args: string[]) {
  return run({ STRATA_MODEL_DIR: MODEL?.dir ?? NO_MODEL_DIR }, [...args, "--model", "all-MiniLM-L6-v2"]);
}

/** The CLI with the models it finds (models/ in the repository), --model as given. */
function strataModels(...args: string[]) {
  return run({}, args);
}

describe("strata CLI", () => {
  test("the bundle exists and starts with a node shebang", async () => {
    assert.ok(existsSync(CLI), "run `node esbuild.config.mjs` first");
    const { readFile } = await import("node:fs/promises");
    assert.match(await readFile(CLI, "utf8"), /^#!\/usr\/bin\/env node\n/);
  });

  test("usage errors exit 2", () => {
    const none = strata();
    assert.equal(none.code, 2);
    assert.match(none.out, /usage:/);
    const unknown = strata("frobnicate");
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /unknown command/);
    const badOpt = strata("index", FIXTURE, "--no-such-option");
    assert.equal(badOpt.code, 2);
    assert.match(badOpt.err, /no-such-option/);
  });

  test("every command's --help and -h print its usage and exit 0, touching nothing", async () => {
    const vault = await copyFixture();
    const before = await hashTree(vault);
    const cases: [string[], RegExp][] = [
      [["index", vault], /usage: strata index <vault>/],
      [["search", vault, "sourdough"], /usage: strata search <vault> "<query>".*\n.*\n.*--group note\|section/],
      [["similar", vault, "Welcome.md"], /usage: strata similar <vault> <note path>/],
      [["eval", vault, "queries.jsonl"], /usage: strata eval <vault> <queries.jsonl>/],
      [["mcp", vault], /usage: mcp <vault>[^]*--write-tools/],
      [["model"], /strata model list[^]*strata model verify/],
      [["model", "list"], /strata model list/],
      [["model", "download"], /strata model download \[--model M\] \[--from URL\]/],
      [["model", "import"], /strata model import --folder DIR/],
      [["model", "verify"], /strata model verify/],
    ];
    for (const [args, usage] of cases) {
      for (const flag of ["--help", "-h"]) {
        const r = strata(...args, flag);
        const what = [...args, flag].join(" ");
        assert.equal(r.code, 0, `${what}: ${r.err}`);
        assert.match(r.out, usage, what);
        assert.equal(r.err, "", what);
      }
      // `strata help <command>` says the same.
      if (args.length === 1 || args[0] !== "model") assert.equal(strata("help", args[0]).out, strata(args[0], "--help").out);
    }
    // An unknown option still exits 2.
    assert.equal(strata("search", vault, "x", "--helpme").code, 2);
    assert.deepEqual(await hashTree(vault), before, "--help wrote nothing (no index)");
  });

  test("search --group: by note for humans (the plugin's grouping), by section on request and in --json", async () => {
    const vault = await copyFixture();
    assert.equal(strata("index", vault, "--no-embed").code, 0);
    const query = ["search", vault, "sourdough", "--mode", "lexical"];
    // A result's line: its rank padded to two (a snippet's own numbered list is indented).
    const ranked = (out: string) => out.split("\n").filter((l) => /^[ \d]\d\. /.test(l));
    const SOURDOUGH = "Cooking/Sourdough starter.md";

    const bySection = strata(...query, "--group", "section");
    assert.equal(bySection.code, 0, bySection.err);
    const sectionLines = ranked(bySection.out);
    assert.ok(sectionLines.filter((l) => l.includes(SOURDOUGH)).length >= 3, bySection.out);

    // The default: each note once, its sections under it.
    const byNote = strata(...query);
    assert.equal(byNote.code, 0, byNote.err);
    const noteLines = ranked(byNote.out);
    assert.equal(noteLines.filter((l) => l.includes(SOURDOUGH)).length, 1, byNote.out);
    const n = sectionLines.filter((l) => l.includes(SOURDOUGH)).length;
    assert.match(noteLines[0], new RegExp(`^ 1\\. ${SOURDOUGH}  \\(${n} sections\\)$`));
    assert.equal(byNote.out.split("\n").filter((l) => /^ {4}› Sourdough starter > /.test(l)).length, n);
    const paths = noteLines.map((l) => /^[ \d]\d\. (.+?\.md)/.exec(l)![1]);
    assert.equal(new Set(paths).size, paths.length, "no note twice");
    assert.match(byNote.out, new RegExp(`${sectionLines.length} results in ${paths.length} notes · lexical`));

    // --json: the core's flat hits by default; with --group note, notes holding their hits.
    type H = { path: string; sectionId: string };
    const flat = JSON.parse(strata(...query, "--json").out) as { group: string; hits: H[]; notes?: unknown };
    assert.equal(flat.group, "section");
    assert.equal(flat.notes, undefined);
    assert.equal(flat.hits.length, sectionLines.length);
    const grouped = JSON.parse(strata(...query, "--json", "--group", "note").out) as {
      group: string;
      hits?: unknown;
      notes: { path: string; title: string; hits: H[] }[];
    };
    assert.equal(grouped.group, "note");
    assert.equal(grouped.hits, undefined);
    assert.deepEqual(
      grouped.notes.map((x) => x.path),
      paths,
    );
    for (const note of grouped.notes) assert.ok(note.hits.every((h) => h.path === note.path) && note.title);
    // The same hits, each note where its best hit ranked.
    assert.deepEqual(grouped.notes.flatMap((x) => x.hits.map((h) => h.sectionId)).sort(), flat.hits.map((h) => h.sectionId).sort());
    assert.deepEqual(paths, [...new Set(flat.hits.map((h) => h.path))]);

    const bad = strata(...query, "--group", "folder");
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--group must be note or section/);
  });

  test("bench is not in the shipped CLI: it says how to run the bench bundle", () => {
    const r = strata("bench", FIXTURE);
    assert.equal(r.code, 2);
    assert.match(r.err, /npm run bench -- \[vault\]/);
    assert.doesNotMatch(strata("--help").out, /bench/);
  });

  test("a missing vault exits 2 with a clear message", () => {
    const missing = path.join(ROOT, "no", "such", "vault");
    for (const cmd of [
      ["index", missing],
      ["search", missing, "x"],
      ["eval", missing, path.join(ROOT, "tests/fixtures/eval.jsonl")],
    ]) {
      const r = strata(...cmd);
      assert.equal(r.code, 2, cmd.join(" "));
      assert.ok(r.err.includes(`vault not found: ${missing}`), r.err);
    }
  });

  test("a file instead of a folder exits 2", () => {
    const r = strata("index", path.join(FIXTURE, "Welcome.md"));
    assert.equal(r.code, 2);
    assert.match(r.err, /not a folder/);
  });

  test("index, re-index, search: human and --json output", async () => {
    const vault = await copyFixture();
    const notes = await hashTree(vault);

    const first = strata("index", vault, "--json");
    assert.equal(first.code, 0, first.err);
    const j = JSON.parse(first.out);
    assert.equal(j.added, FIXTURE_NOTES.length);
    // No model: lexical only, and the user is told once how to get the model.
    assert.equal(j.embedding.modelLoaded, false);
    assert.equal(j.embedding.vectors, 0);
    assert.equal(first.err.match(/scripts\/fetch-(model|e5)\.sh/g)?.length, 1, first.err);
    assert.equal(j.fresh, true);
    assert.ok(j.bytesWritten > 0 && j.indexBytes > 0);
    assert.equal(j.indexDir, indexDirOf(vault));
    assert.ok(existsSync(indexDirOf(vault)));

    const again = strata("index", vault);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /added 0 · updated 0 · unchanged 14 · moved 0 · deleted 0/);
    assert.match(again.out, /semantic search off/);

    const hits = strata("search", vault, "levain");
    assert.equal(hits.code, 0, hits.err);
    assert.match(hits.out.split("\n")[0], /^ 1\. Cooking\/Sourdough starter\.md/);
    assert.match(hits.out, /«levain»/i);
    assert.match(hits.out, /lines \d+–\d+, score \d/);

    const ja = strata("search", vault, "山小屋", "--json", "--k", "3");
    assert.equal(ja.code, 0, ja.err);
    const res = JSON.parse(ja.out);
    assert.equal(res.hits[0].path, "日本語/登山計画.md");
    assert.ok(res.hits.length <= 3);
    // hybrid (the default) without a model answers lexically, with the core's notice on stderr.
    assert.equal(res.mode, "lexical");
    assert.ok(res.notice && /fetch-model/.test(res.notice));
    assert.match(ja.err, /fetch-model/);

    const folder = JSON.parse(strata("search", vault, "collimation", "--folder", "Astronomy", "--json").out);
    assert.ok(folder.hits.length > 0 && folder.hits.every((h: { path: string }) => h.path.startsWith("Astronomy/")));
    const deep = JSON.parse(strata("search", vault, "collimation", "--depth-min", "1", "--depth-max", "3", "--json").out);
    assert.ok(deep.hits.length > 0 && deep.hits.every((h: { depth: number }) => h.depth >= 1 && h.depth <= 3));
    const tagged = JSON.parse(strata("search", vault, "fermentation", "--tag", "cooking", "--json").out);
    assert.ok(tagged.hits.length > 0 && tagged.hits.every((h: { path: string }) => h.path.startsWith("Cooking/")));

    // The notes themselves were never written.
    const after_ = await hashTree(vault, [".obsidian"]);
    assert.deepEqual(after_, notes);
  });

  test("search indexes first when there is no index, and --refresh picks up edits", async () => {
    const vault = await copyFixture();
    const r = strata("search", vault, "乌龙茶");
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /no index yet/);
    assert.match(r.out, /中文\/茶道笔记\.md/);

    await writeFile(path.join(vault, "Inbox/New.md"), "# New\n\nzqfreshword arrived\n");
    const stale = JSON.parse(strata("search", vault, "zqfreshword", "--json").out);
    assert.equal(stale.hits.length, 0);
    const fresh = JSON.parse(strata("search", vault, "zqfreshword", "--json", "--refresh").out);
    assert.equal(fresh.hits[0].path, "Inbox/New.md");
  });

  test("without a model: semantic search and similar exit 2 with the fetch-model hint", async () => {
    const vault = await copyFixture();
    const r = strata("search", vault, "bread", "--mode", "semantic");
    assert.equal(r.code, 2);
    assert.match(r.err, /\[unavailable\]/);
    assert.match(r.err, /scripts\/fetch-(model|e5)\.sh/);
    const sim = strata("similar", vault, "Cooking/Sourdough starter.md");
    assert.equal(sim.code, 2);
    assert.match(sim.err, /\[unavailable\].*scripts\/fetch-(model|e5)\.sh/);
    const hybrid = strata("search", vault, "sourdough", "--mode", "hybrid");
    assert.equal(hybrid.code, 0, hybrid.err);
    assert.match(hybrid.out, /Cooking\/Sourdough starter\.md/);
    assert.match(hybrid.err, /fetch-model/);
    const bad = strata("search", vault, "bread", "--mode", "fuzzy");
    assert.equal(bad.code, 2);
    const badFusion = strata("search", vault, "bread", "--fusion", "max");
    assert.equal(badFusion.code, 2);
    assert.match(badFusion.err, /--fusion/);
  });

  test("--index-dir keeps the index outside the vault", async () => {
    const vault = await copyFixture();
    const dir = path.join(await tempDir(), "idx");
    const r = strata("index", vault, "--index-dir", dir, "--json");
    assert.equal(r.code, 0, r.err);
    assert.ok(existsSync(dir));
    assert.ok(!existsSync(path.join(vault, ".obsidian")));
    const s = JSON.parse(strata("search", vault, "derailleur", "--index-dir", dir, "--json").out);
    assert.equal(s.hits[0].path, "Projects/Bicycle rebuild.md");
  });

  test("one writer per index: beside a live writer, index refuses and search answers without writing", async () => {
    const vault = await copyFixture();
    const idx = indexDirOf(vault);
    assert.equal(strata("index", vault).code, 0);
    // Another process on this machine holds the index's writer lock.
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      await writeFile(
        `${idx}.lock`,
        JSON.stringify({ pid: other.pid, host: hostname(), what: "strata index", since: "2026-11-25T04:00:00.000Z" }),
      );
      const before = await hashTree(idx);
      const refused = strata("index", vault);
      assert.equal(refused.code, 1, refused.err);
      assert.match(refused.err, new RegExp(`strata index \\(pid ${other.pid}.*is writing the index`));
      assert.equal(
        strata("eval", vault, path.join(ROOT, "tests", "fixtures", "eval.jsonl"), "--index-dir", idx).code,
        1,
        "eval refreshes: a writer",
      );
      const s = strata("search", vault, "derailleur", "--refresh");
      assert.equal(s.code, 0, s.err);
      assert.match(s.out, /Projects\/Bicycle rebuild\.md/);
      assert.match(s.err, /is updating this index: answering from it as it is \(not refreshed\), writing nothing/);
      assert.deepEqual(await hashTree(idx), before, "the reader wrote nothing, deleted nothing");
      // Obsidian with the plugin on this vault counts as a writer too (bridge.json, live pid).
      await writeFile(
        path.join(vault, ".obsidian/plugins/strata-search/bridge.json"),
        JSON.stringify({ port: 0, token: "", pid: other.pid, vault }),
      );
      assert.match(
        strata("index", vault).err,
        new RegExp(`Obsidian \\(pid ${other.pid}, with the Strata plugin on this vault\\) is writing the index`),
      );
    } finally {
      other.kill();
      await new Promise((r) => other.once("exit", r));
    }
    // Its process gone, the lock is stale (and bridge.json left over): taken over, then released.
    const r = strata("index", vault);
    assert.equal(r.code, 0, r.err);
    assert.ok(!existsSync(`${idx}.lock`), "released at exit");
  });

  test("eval: note-level metrics as JSON, index in a temp folder", async () => {
    const vault = await copyFixture();
    const r = strata("eval", vault, path.join(ROOT, "tests/fixtures/eval.jsonl"), "--json");
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.n, 10);
    assert.ok(j.recall10 > 0.5, `recall10 ${j.recall10}`);
    for (const key of ["mrr10", "ndcg10", "p50_ms", "p95_ms"]) assert.equal(typeof j[key], "number", key);
    assert.equal(j.per_query.length, 10);
    const f08 = j.per_query.find((q: { id: string }) => q.id === "f08");
    assert.equal(f08.top[0], "日本語/登山計画.md");
    assert.equal(new Set(f08.top).size, f08.top.length); // deduplicated by note
    assert.ok(!existsSync(path.join(vault, ".obsidian")), "eval wrote into the vault");

    const human = strata("eval", vault, path.join(ROOT, "tests/fixtures/eval.jsonl"));
    assert.equal(human.code, 0, human.err);
    assert.match(human.out, /recall@10 \d\.\d{3}/);

    const missing = strata("eval", vault, path.join(ROOT, "tests/fixtures/none.jsonl"));
    assert.equal(missing.code, 2);
  });
});

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
    const fresh = await copyFixture();
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
    // Under the default limit (the fixture has fewer chunks) search embeds them first, once.
    const after = JSON.parse(strataModel("search", fresh, "sourdough starter", "--json").out);
    assert.equal(after.semanticCoverage, 1);
    assert.ok(after.hits[0].vecScore > 0.3, JSON.stringify(after.hits[0]));
    const bad = strataModel("search", fresh, "x", "--embed-limit", "-1");
    assert.equal(bad.code, 2);
  });

  test("similar embeds first when the index has no vectors yet", async () => {
    const fresh = await copyFixture();
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
    const sem = JSON.parse(strataModel("eval", fresh, evalFile, "--mode", "semantic", "--json").out);
    assert.equal(sem.answeredMode, "semantic");
    assert.ok(!existsSync(path.join(fresh, ".obsidian")), "eval wrote into the vault");
  });
});

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
    const vault = await copyFixture();
    const r = run({ STRATA_MODEL_DIR: MODEL!.dir, STRATA_MODELS: NO_MODEL_DIR }, ["index", vault, "--json"]);
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.deepEqual([j.model.chosen, j.model.loaded, j.model.fallback], ["multilingual-e5-small", "all-MiniLM-L6-v2", true]);
    assert.equal(j.embedding.model, "all-MiniLM-L6-v2");
    assert.equal(j.embedding.done, j.embedding.total);
    assert.match(r.err, /multilingual-e5-small is missing: .*; all-MiniLM-L6-v2 is used meanwhile/);
  });

  test("index and search with multilingual-e5-small, chosen by auto", NEEDS_E5, async () => {
    const vault = await copyFixture();
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
    const vault = await copyFixture();
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
