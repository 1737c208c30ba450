// Kill -9 drill: `strata index` (dist/strata.js) on a generated vault, killed with SIGKILL at
// seeded random points over several rounds, the vault changed between rounds. After each kill
// the index must open (a search answers, exit 0, nothing "unusable" rebuilt); after a final
// complete run it must hold exactly the vault's notes, and no note may have been written.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import { cleanupTemps, hashTree, ROOT, tempDir } from "./helpers.ts";

after(cleanupTemps);

const CLI = path.join(ROOT, "dist", "strata.js");
const NO_MODEL_DIR = path.join(ROOT, "tests", "fixtures", "no-such-model");
const ENV = { ...process.env, NO_COLOR: "1", STRATA_MODEL_DIR: NO_MODEL_DIR, STRATA_MODELS: NO_MODEL_DIR };
const SEED = Number(process.env.STRATA_DRILL_SEED ?? 0x5eed);
/** Rounds end once this many runs were killed before they ended (at most `MAX_ROUNDS`). */
const KILLS = 8;
const MAX_ROUNDS = 24;
const NOTES = 300;

/** xorshift32: the same kill points on every run of a seed. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

const WORDS = "river stone lantern meadow copper harbor violet thunder orchard velvet glacier pepper".split(" ");

/** A note of a few sections, with a word only it has (`uniq<id>x<version>`). */
function noteText(id: number, version: number, rand: () => number): string {
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)];
  const para = (n: number) => Array.from({ length: n }, pick).join(" ");
  const sections = Array.from({ length: 3 + Math.floor(rand() * 4) }, (_, i) => `## Part ${i}\n\n${para(40)}\n\n${para(30)}\n`);
  return `---\nid: ${id}\n---\n# Note ${id}\n\nuniq${id}x${version} ${para(20)}\n\n${sections.join("\n")}`;
}

/** The CLI, to completion. */
function strata(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: ENV, timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** `strata index`, killed with SIGKILL after `ms` (or when it ends first). */
function indexKilledAfter(args: string[], ms: number): Promise<{ killed: boolean; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "index", ...args], { env: ENV, stdio: "ignore" });
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ killed: signal === "SIGKILL", code });
    });
  });
}

describe("kill -9 drill", () => {
  test(
    `strata index killed at random points in ${KILLS} rounds: the index reopens and converges, no note written`,
    { timeout: 120_000 },
    async (t) => {
      assert.ok(existsSync(CLI), "run `node esbuild.config.mjs` first");
      const rand = rng(SEED);
      const dir = await tempDir("strata-kill-");
      const vault = path.join(dir, "vault");
      const indexDir = path.join(dir, "index");
      // id → version of each note in the vault, and its path.
      const notes = new Map<number, { version: number; file: string }>();
      const write = async (id: number, version: number, file = notes.get(id)?.file ?? `f${id % 10}/n${id}.md`) => {
        await mkdir(path.dirname(path.join(vault, file)), { recursive: true });
        await writeFile(path.join(vault, file), noteText(id, version, rand));
        notes.set(id, { version, file });
      };
      for (let id = 0; id < NOTES; id++) await write(id, 0);
      let nextId = NOTES;
      const removed: string[] = [];

      // The time of a complete index of the vault (elsewhere): the kill points of the first round
      // spread over it, those of later rounds over the last run that ended by itself.
      const t0 = performance.now();
      const full = strata("index", vault, "--index-dir", path.join(dir, "probe"), "--no-embed", "--json");
      const fullMs = performance.now() - t0;
      let spanMs = fullMs;
      assert.equal(full.code, 0, full.err);
      assert.equal(JSON.parse(full.out).notes, NOTES);

      let kills = 0;
      let round = 0;
      for (; kills < KILLS && round < MAX_ROUNDS; round++) {
        if (round > 0) {
          // Changes since the last run: edits, an added, a deleted and a renamed note.
          const ids = [...notes.keys()];
          for (let i = 0; i < 20; i++) {
            const id = ids[Math.floor(rand() * ids.length)];
            await write(id, notes.get(id)!.version + 1);
          }
          await write(nextId++, 0);
          const gone = ids[Math.floor(rand() * ids.length)];
          await rm(path.join(vault, notes.get(gone)!.file));
          removed.push(`uniq${gone}x${notes.get(gone)!.version}`);
          notes.delete(gone);
          const moved = ids.find((id) => notes.has(id) && !notes.get(id)!.file.startsWith("moved/"))!;
          const to = `moved/m${moved}.md`;
          await mkdir(path.join(vault, "moved"), { recursive: true });
          await rename(path.join(vault, notes.get(moved)!.file), path.join(vault, to));
          notes.get(moved)!.file = to;
        }
        const at = Math.round(spanMs * (0.05 + 0.9 * rand()));
        const started = performance.now();
        const run = await indexKilledAfter([vault, "--index-dir", indexDir, "--no-embed"], at);
        if (run.killed) kills++;
        else {
          assert.equal(run.code, 0, `round ${round}: the index run failed`);
          spanMs = performance.now() - started;
        }
        // The index opens and answers; it was not found unusable.
        const s = strata("search", vault, "lantern meadow", "--index-dir", indexDir, "--no-embed", "--json");
        assert.equal(s.code, 0, `round ${round} (killed after ${at} ms): ${s.err}`);
        assert.doesNotMatch(s.err, /unusable/, `round ${round} (killed after ${at} ms)`);
        assert.ok(JSON.parse(s.out).hits.length > 0, `round ${round}: no hits`);
      }
      t.diagnostic(`complete index ${Math.round(fullMs)} ms; ${kills} of ${round} runs killed (seed ${SEED})`);
      assert.equal(kills, KILLS, `only ${kills} of ${round} runs were killed before they ended`);

      const before = await hashTree(vault);
      const last = strata("index", vault, "--index-dir", indexDir, "--no-embed", "--json");
      assert.equal(last.code, 0, last.err);
      const summary = JSON.parse(last.out);
      assert.equal(summary.rebuilt, false, summary.rebuildReason);
      assert.equal(summary.notes, notes.size, "the index holds exactly the vault's notes");
      assert.deepEqual(await hashTree(vault), before, "the indexer wrote no note");
      // Each note's current unique word finds it; a deleted note's or an edited note's old word finds nothing.
      const sample = [...notes.entries()].filter(() => rand() < 0.03).slice(0, 8);
      const stale = [...notes.entries()].filter(([, n]) => n.version > 0).slice(0, 2);
      const words = [
        ...sample.map(([id, n]) => ({ word: `uniq${id}x${n.version}`, path: n.file })),
        ...removed.slice(0, 3).map((word) => ({ word, path: undefined })),
        ...stale.map(([id]) => ({ word: `uniq${id}x0`, path: undefined })),
      ];
      const query = words.map((w) => w.word).join(" OR ");
      const r = strata("search", vault, query, "--index-dir", indexDir, "--no-embed", "--json", "--k", "50");
      assert.equal(r.code, 0, r.err);
      const paths = new Set<string>(JSON.parse(r.out).hits.map((h: { path: string }) => h.path));
      assert.deepEqual(paths, new Set(words.flatMap((w) => (w.path ? [w.path] : []))));
    },
  );
});
