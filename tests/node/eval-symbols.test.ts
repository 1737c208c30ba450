// Symbol-level hit@5 of `strata eval` (plugin/cli/metrics.ts) on synthetic rankings, and the
// bundled CLI's eval on a small code vault with syntax chunks and whole files.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import { evaluate, loadQueries, scoreSymbols, type EvalQuery, type RankedHit } from "../../plugin/cli/metrics.ts";
import { ROOT } from "./helpers.ts";

const tmp = mkdtempSync(path.join(os.tmpdir(), "strata-eval-symbols-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

const hit = (p: string, startLine: number, endLine: number): RankedHit => ({ path: p, startLine, endLine });

describe("scoreSymbols", () => {
  const label = [{ path: "src/a.ts", start: 10, end: 20 }];

  test("the first of the top 5 hits overlapping the definition", () => {
    const hits = [hit("src/b.ts", 10, 20), hit("src/a.ts", 1, 9), hit("src/a.ts", 18, 30), hit("src/a.ts", 12, 14)];
    assert.deepEqual(scoreSymbols(hits, label), { rank: 3, preciseRank: 4 });
  });

  test("a hit at rank 6 is not counted", () => {
    const hits = [...Array.from({ length: 5 }, (_, i) => hit(`src/o${i}.ts`, 1, 50)), hit("src/a.ts", 10, 20)];
    assert.deepEqual(scoreSymbols(hits, label), { rank: null, preciseRank: null });
  });

  test("a whole file overlaps without being precise; a hit half inside is precise", () => {
    assert.deepEqual(scoreSymbols([hit("src/a.ts", 1, 400)], label), { rank: 1, preciseRank: null });
    assert.deepEqual(scoreSymbols([hit("src/a.ts", 15, 25)], label), { rank: 1, preciseRank: 1 });
    assert.deepEqual(scoreSymbols([hit("src/a.ts", 20, 40)], label), { rank: 1, preciseRank: null });
  });

  test("any of several labelled definitions counts", () => {
    const two = [...label, { path: "src/c.ts", start: 1, end: 5 }];
    assert.deepEqual(scoreSymbols([hit("src/x.ts", 1, 5), hit("src/c.ts", 5, 8)], two), { rank: 2, preciseRank: null });
  });
});

describe("evaluate with symbols", () => {
  const queries: EvalQuery[] = [
    { id: "s1", query: "alpha", relevant: { "a.rs": 2 }, symbols: [{ path: "a.rs", start: 3, end: 8 }] },
    { id: "s2", query: "beta", relevant: { "b.rs": 2 }, symbols: [{ path: "b.rs", start: 40, end: 60 }] },
    { id: "n1", query: "gamma", relevant: { "c.md": 2 } },
    { id: "s3", query: "delta", relevant: { "d.rs": 2 }, symbols: [{ path: "d.rs", start: 10, end: 20 }] },
  ];
  const ranked: Record<string, RankedHit[]> = {
    alpha: [hit("z.rs", 1, 2), hit("a.rs", 1, 100)],
    beta: [hit("b.rs", 1, 10), hit("b.rs", 45, 50)],
    gamma: [hit("c.md", 1, 3)],
    delta: [hit("d.rs", 12, 18), hit("z.rs", 1, 2)],
  };

  test("symbol hit@5 over the labelled queries; note-level metrics as with paths", () => {
    const res = evaluate(queries, 10, (q) => ranked[q]);
    assert.equal(res.symbol_n, 3);
    assert.equal(res.symbol_hit1, 0.3333, "only delta's first hit is inside its definition");
    assert.equal(res.symbol_hit5, 1);
    assert.equal(res.symbol_precise_hit5, 0.6667);
    const byId = Object.fromEntries(res.per_query.map((q) => [q.id, q]));
    assert.equal(byId.s1.symbol_rank, 2);
    assert.equal(byId.s1.symbol_precise_rank, null);
    assert.equal(byId.s2.symbol_precise_rank, 2);
    assert.equal(byId.n1.symbol_rank, undefined);
    assert.equal(byId.s3.symbol_rank, 1);
    const paths = evaluate(queries, 10, (q) => ranked[q].map((h) => h.path));
    assert.deepEqual([res.recall10, res.mrr10, res.ndcg10], [paths.recall10, paths.mrr10, paths.ndcg10]);
    assert.equal(res.mrr10, 0.875);
  });

  test("hits without lines are not scored at symbol level", () => {
    const res = evaluate(queries, 10, (q) => ranked[q].map((h) => h.path));
    assert.equal(res.symbol_n, 0);
    assert.equal(res.symbol_hit5, null);
    assert.ok(res.per_query.every((q) => q.symbol_rank === undefined));
  });

  test("no hit at all is a miss", () => {
    const res = evaluate(queries, 10, () => []);
    assert.equal(res.symbol_n, 3);
    assert.equal(res.symbol_hit1, 0);
    assert.equal(res.symbol_hit5, 0);
  });
});

describe("loadQueries", () => {
  test("reads symbols and rejects malformed ones", () => {
    const ok = path.join(tmp, "ok.jsonl");
    writeFileSync(
      ok,
      JSON.stringify({ id: "q", query: "x", relevant: { "a.rs": 2 }, symbols: [{ path: "a.rs", start: 1, end: 2 }] }) +
        "\n" +
        JSON.stringify({ id: "p", query: "y", relevant: { "b.md": 1 } }) +
        "\n",
    );
    const qs = loadQueries(ok);
    assert.deepEqual(qs[0].symbols, [{ path: "a.rs", start: 1, end: 2 }]);
    assert.equal(qs[1].symbols, undefined);
    for (const bad of [[{ path: "a.rs", start: 0, end: 2 }], [{ path: "a.rs", start: 5, end: 2 }], [{ start: 1, end: 2 }], "a.rs:1-2"]) {
      const f = path.join(tmp, "bad.jsonl");
      writeFileSync(f, JSON.stringify({ id: "q", query: "x", relevant: { "a.rs": 2 }, symbols: bad }) + "\n");
      assert.throws(() => loadQueries(f), /"symbols" expects/);
    }
  });
});

describe("strata eval on code", () => {
  // Three functions of 7 lines in a 23-line file: the labelled one is under half of it.
  const source = ["celsius", "fahrenheit", "kelvin"]
    .map((unit, i) =>
      [
        `/** Converts a reading to ${unit}. */`,
        `export function to${unit[0].toUpperCase()}${unit.slice(1)}(value: number): number {`,
        `  const offset = ${i * 100};`,
        `  const scaled = value * ${i + 2};`,
        `  // ${unit} readings are rounded`,
        `  return Math.round(scaled + offset);`,
        "}",
      ].join("\n"),
    )
    .join("\n\n");
  const vault = path.join(tmp, "code-vault");
  mkdirSync(path.join(vault, "src"), { recursive: true });
  writeFileSync(path.join(vault, "src", "units.ts"), source + "\n");
  writeFileSync(path.join(vault, "Readme.md"), "# Readme\n\nA note beside the code.\n");
  const queries = path.join(tmp, "code-queries.jsonl");
  const label = { id: "k", query: "convert a reading to kelvin", relevant: { "src/units.ts": 2 } };
  writeFileSync(queries, JSON.stringify({ ...label, symbols: [{ path: "src/units.ts", start: 17, end: 23 }] }) + "\n");

  const evalJson = (...args: string[]) => {
    const r = spawnSync(
      process.execPath,
      [path.join(ROOT, "dist", "strata.js"), "eval", vault, queries, "--mode", "lexical", "--json", ...args],
      {
        encoding: "utf8",
        timeout: 120_000,
      },
    );
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as ReturnType<typeof evaluate> & { code_chunks: string };
  };

  test("syntax chunks land on the definition; a whole file only overlaps it", () => {
    const syntax = evalJson();
    assert.equal(syntax.code_chunks, "syntax");
    assert.deepEqual([syntax.recall10, syntax.symbol_n, syntax.symbol_hit5, syntax.symbol_precise_hit5], [1, 1, 1, 1]);
    const whole = evalJson("--code-chunks", "whole");
    assert.equal(whole.code_chunks, "whole");
    assert.deepEqual([whole.recall10, whole.symbol_n, whole.symbol_hit5, whole.symbol_precise_hit5], [1, 1, 1, 0]);
  });

  test("--code-chunks takes syntax or whole", () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, "dist", "strata.js"), "eval", vault, queries, "--code-chunks", "lines"], {
      encoding: "utf8",
    });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--code-chunks must be syntax or whole/);
  });
});
