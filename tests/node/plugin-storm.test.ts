// An edit storm through the plugin's event path (fake Obsidian, the real worker and wasm): a
// few thousand modify, rename, delete and create events on notes and code files, fed to the
// plugin's ChangeQueue by the vault's events and applied by the worker in bursts. Afterwards the
// index must equal a rebuild of the final vault (the catalog, every note's sections, the hits of
// a set of queries), and memory must stay flat: the core's and the code chunker's wasm memory
// and the process's heap and RSS, sampled after every burst, may grow only a little over the
// storm's second half. STRATA_STORM_SEED picks another storm; STRATA_STORM_ROUNDS a longer one.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { gzipSync } from "node:zlib";

import initCode from "../../build/wasm/strata_chunker.js";
import initCore from "../../build/wasm/strata_core.js";
import { CODE_WASM_NAME } from "../../plugin/core/code-hook.ts";
import { findWasm } from "../../plugin/node/host.ts";
import { CODE_FILES } from "./code-vault.ts";
import { cleanupTemps, copyFixture } from "./helpers.ts";
import { eventually, loadPlugin, StrataPlugin, TFile, unloadPlugin, type StrataPluginT } from "./plugin-env.ts";

after(cleanupTemps);

const SEED = Number(process.env.STRATA_STORM_SEED ?? 7);
const ROUNDS = Number(process.env.STRATA_STORM_ROUNDS ?? 60);
const EVENTS_PER_ROUND = 50;
const MB = 1024 * 1024;
/** The most hits a search returns (the core's MAX_K). */
const MAX_HITS = 200;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** A small seeded generator (mulberry32). */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: T[]) => xs[Math.floor(next() * xs.length)] };
}

/** A word unique to a version: letters only, so no analyzer splits it. */
function uniqueWord(n: number): string {
  let w = "";
  do {
    w += String.fromCharCode(97 + (n % 26));
    n = Math.floor(n / 26);
  } while (n > 0);
  return `zq${w}`;
}

const WORDS = "river lantern copper meadow falcon ember quartz willow harbor saffron cobalt thistle orchard glacier".split(" ");

/** A note of a few sections; `word` is unique to this version of it. */
function noteText(r: ReturnType<typeof rng>, word: string): string {
  const sections = 1 + r.int(4);
  let text = `---\ntags: [storm, ${r.pick(WORDS)}]\n---\n# ${r.pick(WORDS)} ${word}\n\nThe ${word} note about ${r.pick(WORDS)}.\n`;
  for (let s = 0; s < sections; s++) {
    text += `\n## ${r.pick(WORDS)} ${s}\n\n`;
    for (let l = 0; l < 1 + r.int(6); l++) text += `${r.pick(WORDS)} ${r.pick(WORDS)} ${r.pick(WORDS)} ${s === 0 ? word : ""}\n`;
  }
  return text;
}

/** A Python file whose functions change with the version. */
function codeText(r: ReturnType<typeof rng>, word: string): string {
  let text = `"""The ${word} module."""\nimport os\n\n`;
  for (let f = 0; f < 1 + r.int(4); f++) {
    text += `\ndef ${r.pick(WORDS)}_${word}_${f}(x):\n    """Turns ${r.pick(WORDS)} into ${r.pick(WORDS)}."""\n    return x + ${f}\n`;
  }
  return text;
}

interface Sample {
  round: number;
  coreWasm: number;
  codeWasm: number;
  heap: number;
  rss: number;
}

async function sample(round: number): Promise<Sample> {
  gc();
  // The modules the worker instantiated (init returns the existing instance).
  const core = (await initCore()).memory.buffer.byteLength;
  const code = (await initCode()).memory.buffer.byteLength;
  const m = process.memoryUsage();
  return { round, coreWasm: core, codeWasm: code, heap: m.heapUsed, rss: m.rss };
}

/** What the index answers: its catalog, each note's sections, and the hits of `queries`. */
async function snapshot(plugin: StrataPluginT, queries: string[]) {
  const worker = plugin.worker!;
  // A bulk index (the rebuild, a burst of events) leaves new code files in line windows until
  // the worker's code pass gives them their definitions: compare once no file is left.
  await eventually(async () => ((await worker.call("state", {})).codePass?.left ?? 0) === 0, 60_000, "the code pass");
  const list = await worker.call("list", { limit: 100_000 });
  const paths = list.entries.map((e: { path: string }) => e.path).sort();
  const notes: Record<string, unknown> = {};
  for (const p of paths) {
    const n = await worker.call("note", { path: p });
    notes[p] = n && { title: n.title, tags: n.tags, sections: n.sections.map((s) => [s.headingPath, s.startLine, s.endLine, s.hash]) };
  }
  const hits: Record<string, string[]> = {};
  for (const q of queries) {
    // Every match: ranks drift with replaced documents (docs/hardening.md), the matching sets
    // may not. A query matching more than the core's limit of hits (200) is compared by that.
    const res = await plugin.search({ query: q, k: MAX_HITS, mode: "lexical" });
    const matches = res.hits.map((h) => `${h.path}:${h.startLine}-${h.endLine}`).sort();
    hits[q] = matches.length < MAX_HITS ? matches : [`${MAX_HITS} or more`];
  }
  return { paths, notes, hits };
}

test("an edit storm through the vault events: the index equals a rebuild and memory stays flat", async (t) => {
  const r = rng(SEED);
  const vault = await copyFixture();
  await mkdir(path.join(vault, "Storm/sub"), { recursive: true });
  await mkdir(path.join(vault, "src"));
  let version = 0;
  const live: string[] = [];
  const current = new Map<string, string>();
  const replaced: string[] = [];
  for (let i = 0; i < 40; i++) {
    const word = uniqueWord(version++);
    const p = `Storm/n${i}.md`;
    await writeFile(path.join(vault, p), noteText(r, word));
    live.push(p);
    current.set(p, word);
  }
  for (let i = 0; i < 4; i++) {
    const word = uniqueWord(version++);
    const p = `src/mod${i}.py`;
    await writeFile(path.join(vault, p), codeText(r, word));
    live.push(p);
    current.set(p, word);
  }
  for (const [p, text] of Object.entries(CODE_FILES).slice(0, 3)) {
    await mkdir(path.dirname(path.join(vault, p)), { recursive: true });
    await writeFile(path.join(vault, p), text);
  }
  StrataPlugin.codeWasm = () => gzipSync(readFileSync(findWasm(CODE_WASM_NAME))).toString("base64");
  const { app, plugin } = await loadPlugin(vault, { settings: { semantic: false } });
  try {
    const file = (p: string) => app.vault.getFileByPath(p) as InstanceType<typeof TFile>;
    const counts = { modify: 0, rename: 0, delete: 0, create: 0 };
    const samples: Sample[] = [await sample(0)];
    const t0 = Date.now();
    for (let round = 1; round <= ROUNDS; round++) {
      for (let e = 0; e < EVENTS_PER_ROUND; e++) {
        const roll = r.next();
        const word = uniqueWord(version++);
        if (roll < 0.6 && live.length > 0) {
          const p = r.pick(live);
          await app.vault.modify(file(p), p.endsWith(".py") ? codeText(r, word) : noteText(r, word));
          replaced.push(current.get(p)!);
          current.set(p, word);
          counts.modify++;
        } else if (roll < 0.78 && live.length > 0) {
          const p = r.pick(live);
          const ext = path.extname(p);
          const to = `${r.pick(["Storm", "Storm/sub", "src"])}/r${version}${ext}`;
          await app.vault.rename(file(p), to);
          live.splice(live.indexOf(p), 1, to);
          current.set(to, current.get(p)!);
          current.delete(p);
          counts.rename++;
        } else if (roll < 0.88 && live.length > 10) {
          const p = r.pick(live);
          await app.vault.delete(file(p));
          live.splice(live.indexOf(p), 1);
          replaced.push(current.get(p)!);
          current.delete(p);
          counts.delete++;
        } else {
          const code = r.next() < 0.15;
          const p = code ? `src/c${version}.py` : `Storm/c${version}.md`;
          await app.vault.create(p, code ? codeText(r, word) : noteText(r, word));
          live.push(p);
          current.set(p, word);
          counts.create++;
        }
      }
      // The burst goes through the debounced queue as the events left it; applied now rather
      // than after the 500 ms quiet period.
      await plugin.queue!.flush();
      samples.push(await sample(round));
    }
    const stormMs = Date.now() - t0;

    // Each live file's current word finds it; a sample of replaced words finds nothing.
    const queries = [...new Set([...current.values()].slice(0, 40).concat(["storm", "river lantern", "def", "sourdough"]))];
    const afterStorm = await snapshot(plugin, queries);
    assert.ok(afterStorm.paths.length >= live.length, `${afterStorm.paths.length} indexed, ${live.length} live`);
    for (const p of live) assert.ok(afterStorm.paths.includes(p), `${p} is indexed`);
    for (const [p, w] of [...current].slice(0, 40))
      assert.ok(
        afterStorm.hits[w]?.some((h) => h.startsWith(`${p}:`)),
        `${w} finds ${p}`,
      );
    for (const w of replaced.slice(-20))
      assert.equal((await plugin.search({ query: w, k: 5, mode: "lexical" })).hits.length, 0, `replaced ${w}`);

    await plugin.rebuild();
    const rebuilt = await snapshot(plugin, queries);
    assert.deepEqual(afterStorm.paths, rebuilt.paths, "the catalog equals a rebuild's");
    assert.deepEqual(afterStorm.notes, rebuilt.notes, "every note's sections equal a rebuild's");
    assert.deepEqual(afterStorm.hits, rebuilt.hits, "the queries' hits equal a rebuild's");

    const mid = samples[Math.floor(ROUNDS / 2)];
    const end = samples[samples.length - 1];
    const first = samples[0];
    const fmt = (s: Sample) =>
      `core wasm ${(s.coreWasm / MB).toFixed(1)} MB, code wasm ${(s.codeWasm / MB).toFixed(1)} MB, heap ${(s.heap / MB).toFixed(1)} MB, rss ${(s.rss / MB).toFixed(1)} MB`;
    const events = ROUNDS * EVENTS_PER_ROUND;
    t.diagnostic(
      `${events} events (${JSON.stringify(counts)}) in ${ROUNDS} bursts, ${stormMs} ms; ${afterStorm.paths.length} files indexed`,
    );
    t.diagnostic(`start: ${fmt(first)}`);
    t.diagnostic(`round ${mid.round}: ${fmt(mid)}`);
    t.diagnostic(`round ${end.round}: ${fmt(end)}`);
    const peak = (k: keyof Sample) => Math.max(...samples.map((s) => s[k]));
    t.diagnostic(
      `peaks: core wasm ${(peak("coreWasm") / MB).toFixed(1)} MB, heap ${(peak("heap") / MB).toFixed(1)} MB, rss ${(peak("rss") / MB).toFixed(1)} MB`,
    );
    // Flat over the second half (generous bounds: a leak of a note's text or sections per event
    // would grow by far more over 1,500 events).
    assert.ok(end.coreWasm - mid.coreWasm <= 16 * MB, `core wasm grew: ${fmt(mid)} → ${fmt(end)}`);
    assert.ok(end.codeWasm - mid.codeWasm <= 8 * MB, `code wasm grew: ${fmt(mid)} → ${fmt(end)}`);
    assert.ok(end.heap - mid.heap <= 24 * MB, `heap grew: ${fmt(mid)} → ${fmt(end)}`);
    assert.ok(end.rss - mid.rss <= 96 * MB, `rss grew: ${fmt(mid)} → ${fmt(end)}`);
  } finally {
    await unloadPlugin(plugin);
  }
});
