// End-to-end: the bundled `strata` CLI (dist/strata.js) on temp copies of the fixture vault,
// without an embedding model (cli-models.test.ts: with the models).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import { CLI, strata } from "./cli-run.ts";
import { cleanupTemps, copyFixture, FIXTURE, FIXTURE_NOTES, hashTree, indexDirOf, ROOT, tempDir } from "./helpers.ts";

after(cleanupTemps);

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
