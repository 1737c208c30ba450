// End-to-end: the bundled `strata` CLI (dist/strata.js) on temp copies of the fixture vault.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import { cleanupTemps, copyFixture, FIXTURE, FIXTURE_NOTES, hashTree, indexDirOf, ROOT, tempDir } from "./helpers.ts";

after(cleanupTemps);

const CLI = path.join(ROOT, "dist", "strata.js");

function strata(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
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

  test("a missing vault exits 2 with a clear message", () => {
    const missing = path.join(ROOT, "no", "such", "vault");
    for (const cmd of [["index", missing], ["search", missing, "x"], ["eval", missing, path.join(ROOT, "tests/fixtures/eval.jsonl")]]) {
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
    assert.equal(j.fresh, true);
    assert.ok(j.bytesWritten > 0 && j.indexBytes > 0);
    assert.equal(j.indexDir, indexDirOf(vault));
    assert.ok(existsSync(indexDirOf(vault)));

    const again = strata("index", vault);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /added 0 · updated 0 · unchanged 14 · moved 0 · deleted 0/);

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
    assert.equal(res.mode, "lexical");

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

  test("semantic mode is unavailable for now: exit 2 with the core's message", async () => {
    const vault = await copyFixture();
    const r = strata("search", vault, "bread", "--mode", "semantic");
    assert.equal(r.code, 2);
    assert.match(r.err, /\[unavailable\]/);
    const bad = strata("search", vault, "bread", "--mode", "fuzzy");
    assert.equal(bad.code, 2);
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

  test("bench runs both engines on the fixture vault and writes nothing into it", async () => {
    const vault = await copyFixture();
    const before_ = await hashTree(vault);
    const r = strata("bench", vault, "--edits", "3", "--no-eval", "--json");
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.notes, FIXTURE_NOTES.length);
    for (const engine of [j.strata, j.minisearch]) {
      assert.ok(engine.indexMs > 0 && engine.peakRssMb > 0 && engine.indexBytes > 0);
      assert.ok(engine.queryP95Ms >= engine.queryP50Ms);
    }
    assert.equal(j.strata.editFound, 3);
    assert.ok(j.strata.editBytesWritten > 0 && j.strata.editBytesWritten < j.strata.indexBytes);
    assert.deepEqual(await hashTree(vault), before_);
  });
});
