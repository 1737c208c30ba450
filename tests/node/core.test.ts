// The shared client and the core API, against the real wasm build and the fixture vault.

import assert from "node:assert/strict";
import { appendFile, mkdir, readFile, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";

import type { StrataCoreApi } from "../../plugin/core/api.ts";
import { coreErrorCode } from "../../plugin/core/errors.ts";
import { asBytes } from "../../plugin/core/bytes.ts";
import { openIndex } from "../../plugin/core/index-store.ts";
import { readNote, searchWithSnippets } from "../../plugin/core/note-reads.ts";
import { reconcile } from "../../plugin/core/reconcile.ts";
import { FsIndexStore, NodeVault } from "../../plugin/node/host.ts";
import {
  cleanupTemps,
  CONFIG,
  copyFixture,
  Core,
  FIXTURE_NOTES,
  indexDirOf,
  indexVault,
  ownIndexDirOf,
  RecordingStore,
  topPaths,
} from "./helpers.ts";

after(cleanupTemps);

describe("index and search the fixture vault", () => {
  let vault: string;
  let core: StrataCoreApi;

  before(async () => {
    vault = await copyFixture();
    const r = await indexVault(vault);
    core = r.core;
    assert.equal(r.report.fresh, true);
    assert.equal(r.summary.added, FIXTURE_NOTES.length);
    assert.deepEqual(r.summary.warnings, []);
    assert.ok(r.summary.bytesWritten > 0);
  });

  test("every note is indexed, nothing else", () => {
    assert.deepEqual([...core.paths()].sort(), [...FIXTURE_NOTES].sort());
    assert.equal(core.status().notes, FIXTURE_NOTES.length);
  });

  const firsts: [string, string][] = [
    ["sourdough hydration", "Cooking/Sourdough starter.md"],
    ["levain", "Cooking/Sourdough starter.md"], // an alias
    ["collimation", "Astronomy/Telescope care.md"],
    ["drip irrigation emitter", "Garden/Drip irrigation.md"],
    ["derailleur", "Projects/Bicycle rebuild.md"],
    ["乌龙茶", "中文/茶道笔记.md"],
    ["量子比特", "中文/量子计算入门.md"],
    ["自行车道", "中文/城市骑行路线.md"],
    ["味噌", "日本語/味噌汁の作り方.md"],
    ["山小屋", "日本語/登山計画.md"],
    ["楷書", "日本語/書道の練習.md"],
  ];
  for (const [query, expected] of firsts) {
    test(`"${query}" ranks ${expected} first`, () => {
      assert.equal(topPaths(core, query)[0], expected);
    });
  }

  test("long notes are split into sections with heading paths and line ranges", () => {
    for (const p of ["Cooking/Sourdough starter.md", "Astronomy/Telescope care.md", "中文/茶道笔记.md", "日本語/登山計画.md"]) {
      const note = core.note(p);
      assert.ok(note, p);
      const deep = note.sections.filter((s) => s.depth >= 1);
      assert.ok(deep.length >= 2, `${p}: ${note.sections.length} sections`);
      for (const s of note.sections) {
        assert.ok(s.startLine >= 1 && s.endLine >= s.startLine, `${p}: lines ${s.startLine}-${s.endLine}`);
        if (s.depth >= 1) assert.notEqual(s.headingPath, "");
      }
    }
    const short = core.note("Projects/Bicycle rebuild.md");
    assert.ok(short && short.sections.length >= 1);
  });

  test("frontmatter, aliases, tags and links are in the catalog", () => {
    const note = core.note("Cooking/Sourdough starter.md");
    assert.ok(note);
    assert.equal(note.title, "Sourdough starter");
    assert.deepEqual([...note.aliases].sort(), ["levain", "wild yeast culture"]);
    assert.ok(
      note.tags.some((t) => t.replace(/^#/, "") === "cooking/bread"),
      note.tags.join(","),
    );
    assert.equal(note.frontmatter.difficulty, "medium");
    assert.ok(
      note.links.some((l) => l.embed && l.target === "Basic country loaf"),
      JSON.stringify(note.links),
    );
    const welcome = core.note("Welcome.md");
    assert.ok(welcome?.links.some((l) => l.target === "Telescope care" && l.heading === "Collimation"));
    assert.ok(welcome?.tags.some((t) => t.replace(/^#/, "") === "meta/overview"));
    assert.equal(core.note("Missing.md"), null);
  });

  test("folder filter", () => {
    const hits = core.search({ query: "collimation", k: 20, filters: { folder: "Astronomy" } }).hits;
    assert.ok(hits.length > 0);
    assert.ok(hits.every((h) => h.path.startsWith("Astronomy/")));
    const none = core.search({ query: "collimation", k: 20, filters: { folder: "Cooking" } }).hits;
    assert.ok(none.every((h) => h.path.startsWith("Cooking/")));
    assert.ok(!none.some((h) => h.path === "Astronomy/Telescope care.md"));
  });

  test("tag filter matches nested tags", () => {
    const hits = core.search({ query: "fermentation", k: 20, filters: { tag: "cooking" } }).hits;
    assert.ok(hits.length > 0);
    assert.ok(
      hits.every((h) => h.path.startsWith("Cooking/")),
      hits.map((h) => h.path).join(","),
    );
    const astro = core.search({ query: "collimation", k: 20, filters: { tag: "#astronomy" } }).hits;
    assert.ok(astro.some((h) => h.path === "Astronomy/Telescope care.md"));
    const nested = core.search({ query: "Saturn", k: 20, filters: { tag: "astronomy/observing" } }).hits;
    assert.deepEqual([...new Set(nested.map((h) => h.path))], ["Astronomy/Observing log 2024.md"]);
  });

  test("property filter", () => {
    const hits = core.search({ query: "collimation", k: 20, filters: { property: { key: "instrument", value: "8-inch Dobsonian" } } }).hits;
    assert.ok(hits.length > 0);
    assert.ok(hits.every((h) => h.path === "Astronomy/Telescope care.md"));
  });

  test("depth filter", () => {
    const deep = core.search({ query: "collimation", k: 50, filters: { minDepth: 1 } }).hits;
    assert.ok(deep.length > 0);
    assert.ok(deep.every((h) => h.depth >= 1));
    const whole = core.search({ query: "collimation", k: 50, filters: { maxDepth: 0 } }).hits;
    assert.ok(whole.length > 0);
    assert.ok(whole.every((h) => h.depth === 0 && h.headingPath === ""));
  });

  test("snippets highlight the query terms, from the notes read by searchWithSnippets", async () => {
    const reads: string[] = [];
    const vaultReader = new NodeVault(vault);
    const read = (p: string) => (reads.push(p), vaultReader.read(p));
    for (const [query, term] of [
      ["collimation", "collimat"],
      ["乌龙茶", "乌龙"],
      ["山小屋", "小屋"],
    ]) {
      const hit = (await searchWithSnippets(core, read, { query, k: 1 })).hits[0];
      assert.ok(hit.snippet, query);
      assert.ok(hit.snippet.highlights.length > 0, query);
      const marked = hit.snippet.highlights.map(([s, e]) => hit.snippet!.text.slice(s, e).toLowerCase());
      assert.ok(
        marked.some((m) => m.includes(term) || term.includes(m)),
        `${query}: ${JSON.stringify(marked)}`,
      );
    }
    assert.equal(reads.length, 3, "one read per hit note");
    // The core's own search makes none; snippets: false reads nothing.
    assert.equal("snippet" in core.search({ query: "collimation", k: 1 }).hits[0], false);
    const bare = (await searchWithSnippets(core, read, { query: "collimation", k: 1, snippets: false })).hits[0];
    assert.ok(bare.snippet === undefined || bare.snippet === null);
    assert.equal(reads.length, 3);
    // An unreadable note has no snippet; the search still answers.
    const res = await searchWithSnippets(
      core,
      async () => {
        throw new Error("EACCES");
      },
      { query: "collimation", k: 3 },
    );
    assert.ok(res.hits.length > 0 && res.hits.every((h) => h.snippet === null));
  });

  test("hits carry section ids, lines and read() expands them from the note's bytes", async () => {
    const hit = core.search({ query: "collimation", k: 5, filters: { minDepth: 1 } }).hits[0];
    assert.ok(hit.sectionId && hit.startLine >= 1);
    const read = (p: string) => new NodeVault(vault).read(p);
    const r = await readNote(core, read, { path: hit.path, sectionId: hit.sectionId });
    assert.equal(r.path, hit.path);
    assert.equal(r.startLine, hit.startLine);
    assert.match(r.text.toLowerCase(), /collimat/);
    const whole = await readNote(core, read, { path: hit.path, whole: true });
    assert.ok(whole.text.length > r.text.length);
    assert.throws(
      () => core.read({ path: hit.path, whole: true }),
      (err: unknown) => coreErrorCode(err) === "bad-request" && /bytes/.test(String(err)),
    );
    await assert.rejects(readNote(core, read, { path: "Astronomy/No such note.md" }), /not in the index/);
    await assert.rejects(
      readNote(
        core,
        async () => {
          throw new Error("EACCES");
        },
        { path: hit.path },
      ),
      /cannot read .*EACCES/,
    );
  });

  test("without a model: hybrid (the default) answers lexically with a notice; semantic is unavailable", () => {
    const lexical = core.search({ query: "levain", mode: "lexical" });
    for (const req of [{ query: "levain" }, { query: "levain", mode: "hybrid" as const }]) {
      const res = core.search(req);
      assert.equal(res.mode, "lexical");
      assert.ok(res.notice && /fetch-model/.test(res.notice), `notice: ${res.notice}`);
      assert.deepEqual(
        res.hits.map((h) => [h.path, h.sectionId]),
        lexical.hits.map((h) => [h.path, h.sectionId]),
      );
      assert.equal(res.hits[0].path, "Cooking/Sourdough starter.md");
    }
    assert.equal(lexical.notice ?? null, null);
    assert.throws(
      () => core.search({ query: "bread", mode: "semantic" }),
      (err: unknown) => coreErrorCode(err) === "unavailable" && /fetch-model/.test((err as Error).message),
    );
    const st = core.status();
    assert.equal(st.modelLoaded, false);
    assert.equal(st.vectors, 0);
    const p = core.embedProgress();
    assert.equal(p.modelLoaded, false);
    assert.equal(p.done, 0);
    assert.throws(
      () => core.embedStep(8, {}),
      (err: unknown) => coreErrorCode(err) === "unavailable",
    );
    assert.throws(
      () => core.embedNeeds(8),
      (err: unknown) => coreErrorCode(err) === "unavailable",
    );
  });

  test("lexical hits carry the score breakdown fields", () => {
    const res = core.search({ query: "collimation", mode: "lexical", k: 5 });
    assert.equal(res.mode, "lexical");
    for (const h of res.hits) {
      assert.equal(h.finalScore, h.score);
      assert.ok(h.lexScore > 0);
      assert.ok(h.lexNorm > 0 && h.lexNorm <= 1 + 1e-6, `lexNorm ${h.lexNorm}`);
      assert.equal(h.vecScore, 0);
      assert.equal(typeof h.explain, "string");
    }
    assert.ok(Math.abs(res.hits[0].lexNorm - 1) < 1e-6);
  });

  test("a stray quote in a query does not throw", () => {
    assert.doesNotThrow(() => core.search({ query: 'sourdough "starter' }));
    assert.doesNotThrow(() => core.search({ query: "title:" }));
  });
});

describe("persistence", () => {
  test("persist → reopen in a fresh core gives identical results", async () => {
    const vault = await copyFixture();
    const { core } = await indexVault(vault);
    const queries = ["sourdough", "collimation mirror", "乌龙茶 水温", "北アルプス", "fermentation", "chain"];
    const before = queries.map((q) => core.search({ query: q, k: 10 }));
    const st = core.status();
    core.free();

    const { core: again, report } = await openIndex(Core, new FsIndexStore(indexDirOf(vault)), CONFIG);
    assert.equal(report.fresh, false);
    assert.equal(report.rebuilt, false);
    assert.equal(report.notes, FIXTURE_NOTES.length);
    assert.deepEqual(report.orphans, []);
    assert.equal(again.status().sections, st.sections);
    queries.forEach((q, i) => {
      const after = again.search({ query: q, k: 10 });
      assert.deepEqual(
        after.hits.map((h) => [h.sectionId, h.path, h.score]),
        before[i].hits.map((h) => [h.sectionId, h.path, h.score]),
        q,
      );
    });
    // Nothing changed on disk: reconciling finds every note unchanged and reads nothing.
    const sum = await reconcile(again, new NodeVault(vault));
    assert.equal(sum.unchanged, FIXTURE_NOTES.length);
    assert.equal(sum.bytesRead, 0);
  });

  test("the manifest is written last and a one-note edit writes few bytes", async () => {
    const vault = await copyFixture();
    const store = new RecordingStore(new FsIndexStore(indexDirOf(vault)));
    const first = await indexVault(vault, store);
    const full = first.summary.bytesWritten;
    assert.match(store.writes.at(-1)!, /manifest/, `writes: ${store.writes.join(", ")}`);
    store.writes = [];

    await appendFile(path.join(vault, "Garden/Drip irrigation.md"), "\nAdded a zqmoisture sensor on bed one.\n");
    const sum = await reconcile(first.core, new NodeVault(vault), { store });
    assert.equal(sum.updated, 1);
    assert.equal(sum.added, 0);
    assert.equal(sum.unchanged, FIXTURE_NOTES.length - 1);
    assert.match(store.writes.at(-1)!, /manifest/, `writes: ${store.writes.join(", ")}`);
    assert.ok(store.writes.slice(0, -1).every((n) => !/manifest/.test(n)));
    assert.ok(sum.bytesWritten > 0);
    assert.ok(sum.bytesWritten < full / 3, `edit wrote ${sum.bytesWritten} B, full index ${full} B`);
    assert.equal(topPaths(first.core, "zqmoisture")[0], "Garden/Drip irrigation.md");

    const { core: again } = await openIndex(Core, new FsIndexStore(indexDirOf(vault)), CONFIG);
    assert.equal(topPaths(again, "zqmoisture")[0], "Garden/Drip irrigation.md");
  });

  test("a long index persists every persistEveryMs: searchable, and reopened whole, in steps", async () => {
    const vault = await copyFixture();
    const store = new RecordingStore(new FsIndexStore(indexDirOf(vault)));
    const { core } = await openIndex(Core, store, CONFIG);
    // After each persist the index on disk opens with the notes indexed so far.
    const seen: number[] = [];
    const inner = store.write.bind(store);
    store.write = async (name: string, bytes: Uint8Array) => {
      await inner(name, bytes);
      if (/manifest/.test(name)) seen.push((await openIndex(Core, new FsIndexStore(indexDirOf(vault)), CONFIG)).core.status().notes);
    };
    const sum = await reconcile(core, new NodeVault(vault), { store, batchNotes: 3, persistEveryMs: 0 });
    assert.equal(sum.added, FIXTURE_NOTES.length);
    const steps = Math.ceil(FIXTURE_NOTES.length / 3);
    assert.equal(seen.length, steps, `persists: ${seen.join(", ")}`);
    assert.deepEqual(
      seen,
      Array.from({ length: steps }, (_, i) => Math.min(3 * (i + 1), FIXTURE_NOTES.length)),
    );

    // The default (every 10 s) persists a small vault once, at the end.
    const vault2 = await copyFixture();
    const store2 = new RecordingStore(new FsIndexStore(indexDirOf(vault2)));
    const { core: core2 } = await openIndex(Core, store2, CONFIG);
    await reconcile(core2, new NodeVault(vault2), { store: store2, batchNotes: 3 });
    assert.equal(store2.writes.filter((n) => /manifest/.test(n)).length, 1, store2.writes.join(", "));
  });

  test("a rename is a move, not a re-add", async () => {
    const vault = await copyFixture();
    const { core, store } = await indexVault(vault);
    await rename(path.join(vault, "Cooking/Fermented hot sauce.md"), path.join(vault, "Garden/Hot sauce.md"));
    const sum = await reconcile(core, new NodeVault(vault), { store });
    assert.equal(sum.moved, 1, JSON.stringify(sum));
    assert.equal(sum.added, 0);
    assert.equal(sum.deleted, 0);
    assert.ok(!core.paths().includes("Cooking/Fermented hot sauce.md"));
    assert.equal(topPaths(core, "habaneros")[0], "Garden/Hot sauce.md");
    const { core: again } = await openIndex(Core, new FsIndexStore(indexDirOf(vault)), CONFIG);
    assert.equal(topPaths(again, "habaneros")[0], "Garden/Hot sauce.md");
    assert.equal(again.note("Cooking/Fermented hot sauce.md"), null);
  });

  test("a plan in parts (a search can run between them) does what one plan does", async () => {
    const vault = await copyFixture();
    const { core, store } = await indexVault(vault);
    await unlink(path.join(vault, "日本語/書道の練習.md"));
    await appendFile(path.join(vault, "Garden/Drip irrigation.md"), "\nzqpartsword\n");
    await writeFile(path.join(vault, "New note.md"), "# New\n\nzqbrandnew text\n");
    const listing = await new NodeVault(vault).list((p) => core.shouldIndex(p));
    const whole = core.plan(listing.files);
    assert.equal(whole.delete.length, 1);
    assert.equal(whole.read.length, 2);
    // Parts of 2 files, with a search between two of them.
    const parts = core.planChunk(listing.files.slice(0, 2), true);
    assert.deepEqual(parts.delete, []);
    assert.equal(topPaths(core, "habaneros")[0], "Cooking/Fermented hot sauce.md");
    const read = [...parts.read];
    let unchanged = parts.unchanged;
    for (let i = 2; i < listing.files.length; i += 2) {
      const p = core.planChunk(listing.files.slice(i, i + 2), false);
      read.push(...p.read);
      unchanged += p.unchanged;
    }
    assert.deepEqual(read, whole.read);
    assert.equal(unchanged, whole.unchanged);
    assert.deepEqual(core.planDeletes(), whole.delete);
    // reconcile() planning in parts of 3 applies the same changes.
    const sum = await reconcile(core, new NodeVault(vault), { store, planChunk: 3 });
    assert.equal(sum.added, 1, JSON.stringify(sum));
    assert.equal(sum.updated, 1);
    assert.equal(sum.deleted, 1);
    assert.equal(sum.unchanged, whole.unchanged);
    assert.equal(topPaths(core, "zqpartsword")[0], "Garden/Drip irrigation.md");
    assert.equal(topPaths(core, "zqbrandnew")[0], "New note.md");
    assert.equal(core.note("日本語/書道の練習.md"), null);
  });

  test("a deleted note leaves the index", async () => {
    const vault = await copyFixture();
    const { core, store } = await indexVault(vault);
    assert.equal(topPaths(core, "楷書")[0], "日本語/書道の練習.md");
    await unlink(path.join(vault, "日本語/書道の練習.md"));
    const sum = await reconcile(core, new NodeVault(vault), { store });
    assert.equal(sum.deleted, 1);
    assert.ok(!topPaths(core, "楷書").includes("日本語/書道の練習.md"));
    assert.equal(core.note("日本語/書道の練習.md"), null);
    const { core: again, report } = await openIndex(Core, new FsIndexStore(indexDirOf(vault)), CONFIG);
    assert.equal(report.notes, FIXTURE_NOTES.length - 1);
    assert.ok(!topPaths(again, "楷書").includes("日本語/書道の練習.md"));
  });

  test("a crash before the manifest write leaves the previous state; leftovers are orphans", async () => {
    const vault = await copyFixture();
    const dir = indexDirOf(vault);
    const { core } = await indexVault(vault);
    const generation = core.status().generation;

    await appendFile(path.join(vault, "Welcome.md"), "\nzqcrashword\n");
    await reconcile(core, new NodeVault(vault));
    const out = core.flush();
    assert.ok(out.writes.length >= 2);
    const fs = new FsIndexStore(dir);
    for (const w of out.writes.slice(0, -1)) await fs.write(w.name, asBytes(w.bytes)); // the manifest never lands

    const reopened = await openIndex(Core, new FsIndexStore(dir), CONFIG);
    assert.equal(reopened.report.rebuilt, false);
    assert.equal(reopened.report.generation, generation);
    assert.deepEqual(
      [...reopened.removedOrphans].sort(),
      out.writes
        .slice(0, -1)
        .map((w) => w.name)
        .sort(),
    );
    assert.deepEqual(topPaths(reopened.core, "zqcrashword"), []);
    assert.equal(topPaths(reopened.core, "levain")[0], "Cooking/Sourdough starter.md");
    for (const name of reopened.removedOrphans) await assert.rejects(stat(path.join(dir, name)));
  });

  test("this device's leftover files are removed; files it did not write are left alone", async () => {
    const vault = await copyFixture();
    const dir = indexDirOf(vault);
    await indexVault(vault);
    const own = path.relative(dir, ownIndexDirOf(vault)).split(path.sep).join("/");
    // A catalog file of a flush that crashed before its manifest: this device's, removed.
    const leftover = `${own}/cat/00000099-0a0b0c0d.bin`;
    await writeFile(path.join(dir, leftover), "junk");
    // A sync service's conflict copies, another device's folder, a partial download: kept.
    const strangers = [`${own}/manifest-a (conflicted copy).json`, "stray (conflict copy).bin", "devices/phone.v16/manifest-a.json"];
    for (const f of strangers) {
      await mkdir(path.dirname(path.join(dir, f)), { recursive: true });
      await writeFile(path.join(dir, f), "junk");
    }
    const { report, removedOrphans, core } = await openIndex(Core, new FsIndexStore(dir), CONFIG);
    assert.equal(report.rebuilt, false);
    assert.deepEqual(removedOrphans, [leftover]);
    await assert.rejects(stat(path.join(dir, leftover)));
    for (const f of strangers) assert.equal(await readFile(path.join(dir, f), "utf8"), "junk", f);
    assert.equal(topPaths(core, "levain")[0], "Cooking/Sourdough starter.md");
  });
});

describe("corrupt or partial index → rebuilt", () => {
  type Damage = (dir: string, manifest: string, files: string[]) => Promise<void>;
  const largest = async (dir: string, files: string[]) => {
    let best = files[0];
    let size = -1;
    for (const f of files) {
      const s = (await stat(path.join(dir, f))).size;
      if (s > size) [best, size] = [f, s];
    }
    return best;
  };
  const cases: [string, Damage][] = [
    ["truncated manifest", async (dir, m) => writeFile(path.join(dir, m), (await readFile(path.join(dir, m))).subarray(0, 7))],
    ["garbage manifest", async (dir, m) => writeFile(path.join(dir, m), Buffer.from("\x00\x01not a manifest\xff"))],
    [
      "missing segment file",
      async (dir, m, files) =>
        rm(
          path.join(
            dir,
            await largest(
              dir,
              files.filter((f) => f !== m),
            ),
          ),
        ),
    ],
    [
      "flipped bytes in a segment file",
      async (dir, m, files) => {
        const f = path.join(
          dir,
          await largest(
            dir,
            files.filter((x) => x !== m),
          ),
        );
        const b = await readFile(f);
        for (let i = Math.floor(b.length / 3); i < Math.floor(b.length / 3) + 16 && i < b.length; i++) b[i] ^= 0x5a;
        await writeFile(f, b);
      },
    ],
    [
      "truncated segment file",
      async (dir, m, files) => {
        const f = path.join(
          dir,
          await largest(
            dir,
            files.filter((x) => x !== m),
          ),
        );
        await writeFile(f, (await readFile(f)).subarray(0, 10));
      },
    ],
  ];
  for (const [name, damage] of cases) {
    test(name, async () => {
      const vault = await copyFixture();
      const dir = indexDirOf(vault);
      const store = new RecordingStore(new FsIndexStore(dir));
      await indexVault(vault, store);
      const manifest = store.writes.at(-1)!;
      await damage(dir, manifest, await new FsIndexStore(dir).list());

      const { core, report } = await openIndex(Core, new FsIndexStore(dir), CONFIG);
      assert.equal(report.rebuilt, true, JSON.stringify(report));
      assert.ok(report.reason && report.reason.length > 0);
      assert.equal(core.status().notes, 0);
      const sum = await reconcile(core, new NodeVault(vault), { store: new FsIndexStore(dir) });
      assert.equal(sum.added, FIXTURE_NOTES.length);
      assert.equal(topPaths(core, "levain")[0], "Cooking/Sourdough starter.md");
      const again = await openIndex(Core, new FsIndexStore(dir), CONFIG);
      assert.equal(again.report.rebuilt, false);
      assert.equal(again.report.notes, FIXTURE_NOTES.length);
    });
  }
});
