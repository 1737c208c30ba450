// The Obsidian plugin end to end in Node: the fake `obsidian` module over a temporary copy of
// the fixture vault, the real worker engine and wasm core behind the real message protocol.

import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import type { EmbedProgress } from "../../plugin/core/api.ts";
import { StatusBar } from "../../plugin/obsidian/status.ts";
import { relaxedSimdSupported } from "../../plugin/core/embedding/builds.ts";
import { copyFixtureWithVectors } from "./embedded-fixture.ts";
import { cleanupTemps, copyFixture, FIXTURE_NOTES, hashTree, NEEDS_BOTH, NEEDS_MODEL, onlyDeviceDirOf } from "./helpers.ts";
import {
  workerState,
  eventually,
  installModel,
  loadPlugin,
  Notice,
  PLUGIN_DIR,
  settingRow,
  TFile,
  unloadPlugin,
  type StrataPluginT,
} from "./plugin-env.ts";
import { all, type El } from "./settings-rows.ts";

after(cleanupTemps);

const { newEl } = await import("../obsidian-fake/dom.ts");
const results = await import("../../plugin/obsidian/results.ts");

const INDEX = `${PLUGIN_DIR}/index`;
const topPath = async (plugin: StrataPluginT, query: string, mode: "lexical" | "hybrid" = "lexical") =>
  (await plugin.search({ query, k: 5, mode })).hits[0]?.path;

describe("plugin", () => {
  test("load indexes the fixture vault through the worker, persists the index, never writes notes", async () => {
    const vault = await copyFixture();
    const before = await hashTree(vault, [".obsidian"]);
    const { plugin, app } = await loadPlugin(vault, { settings: { semantic: false } });
    try {
      assert.equal(plugin.openResult?.fresh, true);
      assert.equal(plugin.lastReconcile?.added, FIXTURE_NOTES.length);
      const st = await plugin.indexStatus();
      assert.equal(st?.notes, FIXTURE_NOTES.length);
      assert.equal(await topPath(plugin, "sourdough starter"), "Cooking/Sourdough starter.md");
      assert.equal(await topPath(plugin, "茶道"), "中文/茶道笔记.md");
      const hit = (await plugin.search({ query: "hydration flour", k: 1, mode: "lexical" })).hits[0];
      assert.ok(hit.snippet && hit.snippet.highlights.length > 0, "a highlighted snippet");
      // The index lives in the plugin folder, written through the adapter.
      const files = await readdir(onlyDeviceDirOf(vault));
      assert.ok(
        files.some((f) => f.startsWith("manifest-")),
        `manifest in ${files}`,
      );
      assert.ok(plugin.statusBar?.text().includes(`${FIXTURE_NOTES.length} notes`), plugin.statusBar?.text());
      // Commands are registered.
      for (const id of ["search-vault", "open-search-sidebar", "similar-notes", "show-open-tasks", "rebuild-index", "show-index-status"]) {
        assert.ok(app.commands.has(`strata-search:${id}`), id);
      }
    } finally {
      await unloadPlugin(plugin);
    }
    assert.deepEqual(await hashTree(vault, [".obsidian"]), before, "no note was written");
  });

  test("vault events: a modify makes new text searchable, create and delete too (debounced)", async () => {
    const vault = await copyFixture();
    const { plugin, app } = await loadPlugin(vault, { settings: { semantic: false } });
    try {
      const file = app.vault.getFileByPath("Garden/Drip irrigation.md")!;
      const text = await app.vault.read(file);
      await app.vault.modify(file, `${text}\n\n## Emitters\nThe quixotic zanzibar emitter clogs in winter.\n`);
      assert.equal((await plugin.search({ query: "zanzibar", mode: "lexical" })).hits.length, 0, "not before the debounce");
      assert.equal(await eventually(() => topPath(plugin, "quixotic zanzibar"), 5000, "the modified text"), "Garden/Drip irrigation.md");
      const created = await app.vault.create("Inbox/New idea.md", "# New idea\nA marmalade sundial for the balcony.\n");
      assert.ok(created instanceof TFile);
      assert.equal(await eventually(() => topPath(plugin, "marmalade sundial"), 5000, "the created note"), "Inbox/New idea.md");
      await app.vault.delete(created);
      await eventually(async () => (await topPath(plugin, "marmalade sundial")) === undefined, 5000, "the deleted note to go");
      const st = await workerState(plugin);
      assert.equal(st.counters.reindexed, FIXTURE_NOTES.length, "events did not trigger a re-index of the vault");
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("a rename is a move: the note is read once at its new path (checked against the index), not re-indexed", async () => {
    const vault = await copyFixture();
    const { plugin, app, adapter } = await loadPlugin(vault, { settings: { semantic: false } });
    try {
      const before = (await workerState(plugin)).counters;
      const reads = adapter.log.length;
      const moved = new Promise<number>((resolve) => {
        const apply = plugin.applyChanges.bind(plugin);
        plugin.applyChanges = async (cs) => {
          const r = await apply(cs);
          resolve(r?.moved ?? -1);
          return r;
        };
      });
      await app.vault.rename(app.vault.getFileByPath("Cooking/Sourdough starter.md")!, "Baking/Sourdough starter.md");
      assert.equal(await moved, 1, "the core moved it");
      const after = (await workerState(plugin)).counters;
      assert.equal(after.notesRead, before.notesRead, "not read as a changed note");
      assert.equal(after.renamesRead - before.renamesRead, 1, "read once, for the content check");
      assert.deepEqual(
        adapter.log
          .slice(reads)
          .filter((e) => e.op === "readBinary" && e.path.endsWith("Sourdough starter.md"))
          .map((e) => e.path),
        ["Baking/Sourdough starter.md"],
      );
      assert.equal(await topPath(plugin, "sourdough starter"), "Baking/Sourdough starter.md");
      assert.equal(await plugin.worker!.call("note", { path: "Cooking/Sourdough starter.md" }), null);
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("a note renamed and edited before the event is applied is re-indexed at its new path", async () => {
    const vault = await copyFixture();
    const { plugin, app } = await loadPlugin(vault, { settings: { semantic: false } });
    try {
      const file = app.vault.getFileByPath("Garden/Drip irrigation.md")!;
      await app.vault.rename(file, "Garden/Watering.md");
      // Written on disk by another program: no modify event, only the rename's.
      await writeFile(path.join(vault, "Garden/Watering.md"), "# Watering\nThe tangerine cistern feeds the beds.\n");
      await eventually(
        async () => (await topPath(plugin, "tangerine cistern")) === "Garden/Watering.md",
        5000,
        "the new text at the new path",
      );
      const old = await plugin.search({ query: "emitter", k: 20, mode: "lexical" });
      assert.ok(!old.hits.some((h) => h.path.startsWith("Garden/")), "the old text is gone");
      assert.equal(await plugin.worker!.call("note", { path: "Garden/Drip irrigation.md" }), null);
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("snippets and the bridge's read come from the note files, as they are now", async () => {
    const vault = await copyFixture();
    const { plugin, app } = await loadPlugin(vault, { settings: { semantic: false } });
    try {
      const hit = (await plugin.search({ query: "collimation", k: 5, mode: "lexical", filters: { minDepth: 1 } })).hits[0];
      assert.equal(hit.path, "Astronomy/Telescope care.md");
      const marked = hit.snippet!.highlights.map(([a, b]) => hit.snippet!.text.slice(a, b).toLowerCase());
      assert.ok(
        marked.some((m) => m.startsWith("collimat")),
        JSON.stringify(hit.snippet),
      );
      const r = await plugin.backend.read({ path: hit.path, sectionId: hit.sectionId });
      assert.equal(r.startLine, hit.startLine);
      assert.match(r.text, /collimat/i);
      // Edited, and read before the debounced event re-indexes it: the current lines.
      const next = (await plugin.backend.note(hit.path))!.sections.find((s) => s.depth === hit.depth && s.startLine > hit.endLine)!;
      const before = await plugin.backend.read({ path: hit.path, sectionId: next.id });
      const file = app.vault.getFileByPath(hit.path)!;
      const lines = (await app.vault.read(file)).split("\n");
      lines.splice(lines.indexOf("---", 1) + 1, 0, "", "Two new lines after the frontmatter.");
      await app.vault.modify(file, lines.join("\n"));
      const now = await plugin.backend.read({ path: hit.path, sectionId: next.id });
      assert.equal(now.startLine, next.startLine + 2, "the section's lines in the note as it is now");
      assert.equal(now.text, before.text);
      assert.equal(now.sectionId, next.id);
      assert.notEqual(now.contentHash, before.contentHash);
      await assert.rejects(plugin.backend.read({ path: "Nope/Missing.md" }), /not in the index|cannot read/);
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("a rename does not re-embed the note's sections (embed counters)", NEEDS_MODEL, async () => {
    // Three notes (a quarter of the fixture's chunks): the pool embeds them all first.
    const vault = await copyFixture(["Cooking/Fermented hot sauce.md", "Cooking/Sourdough starter.md", "Garden/Drip irrigation.md"]);
    await installModel(vault);
    const { plugin, app } = await loadPlugin(vault);
    try {
      assert.equal(plugin.modelState, "loaded");
      const done = await plugin.worker!.call("embedIdle", {});
      assert.ok(done && done.done === done.total && done.total > 0, JSON.stringify(done));
      const embeddedBefore = (await workerState(plugin)).counters.embedded;
      // Embedded by the pool: Auto gives at least one embedder worker on a desktop.
      // The built-in embedder: a development build's table has no relaxed-SIMD build to install.
      const why = relaxedSimdSupported() ? "the relaxed-SIMD build is not installed" : "this engine has no relaxed SIMD";
      assert.deepEqual((await workerState(plugin)).embedWorkers, {
        workers: plugin.embedWorkers.workers,
        restarts: 0,
        fallback: null,
        build: { build: "simd128", why },
      });
      assert.ok(plugin.embedWorkers.workers >= 1, plugin.embedWorkers.reason);
      const note = await plugin.worker!.call("note", { path: "Cooking/Sourdough starter.md" });
      assert.ok(note && note.sections.length > 2, "the note has several sections");
      await app.vault.rename(app.vault.getFileByPath("Cooking/Sourdough starter.md")!, "Baking/Sourdough starter.md");
      await eventually(async () => (await plugin.worker!.call("note", { path: "Baking/Sourdough starter.md" })) !== null, 5000, "the move");
      const after = await plugin.worker!.call("embedIdle", {});
      assert.equal(after!.done, after!.total);
      const embedded = (await workerState(plugin)).counters.embedded - embeddedBefore;
      // Only the note's lead vector ("Baking > Sourdough starter", then its opening lines) is new; no section is embedded again.
      assert.equal(embedded, 1, `embedded ${embedded} chunks after the rename`);
      const sim = await plugin.similar("Baking/Sourdough starter.md", 3);
      assert.ok(sim.hits.length > 0);
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("index files over 1 MiB are written in parts (writeBinary + appendBinary) and read back whole", async () => {
    const vault = await copyFixture();
    const { plugin, adapter } = await loadPlugin(vault, { settings: { semantic: false } });
    try {
      const bytes = new Uint8Array(2.5 * 1024 * 1024 + 7);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
      const ops = (name: string) => adapter.log.filter((e) => e.path === `${INDEX}/${name}`).map((e) => e.op);
      await plugin.host.indexWrite({ name: "lex/big-test.bin", bytes });
      assert.deepEqual(ops("lex/big-test.bin"), ["writeBinary", "appendBinary", "appendBinary"]);
      assert.ok(Buffer.from(bytes).equals(await readFile(path.join(vault, INDEX, "lex/big-test.bin"))), "the same bytes");
      // Small files, and adapters without appendBinary (Obsidian before 1.12.3): one write.
      await plugin.host.indexWrite({ name: "lex/small-test.bin", bytes: bytes.subarray(5, 1000) });
      assert.deepEqual(ops("lex/small-test.bin"), ["writeBinary"]);
      (adapter as unknown as { appendBinary: undefined }).appendBinary = undefined;
      await plugin.host.indexWrite({ name: "lex/old-app.bin", bytes });
      assert.deepEqual(ops("lex/old-app.bin"), ["writeBinary"]);
      assert.ok(Buffer.from(bytes).equals(await readFile(path.join(vault, INDEX, "lex/old-app.bin"))), "the same bytes");
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("unload + load again opens the persisted index: nothing re-indexed, read or re-embedded", async () => {
    // The shared vectors hold the fixture's (the cached copy): the first load embeds what changes.
    const vault = await copyFixtureWithVectors();
    const withModel = await installModel(vault);
    const first = await loadPlugin(vault);
    if (withModel) await first.plugin.worker!.call("embedIdle", {});
    // A change made just before unloading is persisted by the shutdown.
    const file = first.app.vault.getFileByPath("Inbox/Reading list.md")!;
    await first.app.vault.modify(file, (await first.app.vault.read(file)) + "\nLast entry: the velvet cartographer.\n");
    await first.plugin.queue!.flush();
    if (withModel) await first.plugin.worker!.call("embedIdle", {});
    const status1 = await first.plugin.indexStatus();
    await unloadPlugin(first.plugin);

    const second = await loadPlugin(vault);
    try {
      assert.equal(second.plugin.openResult?.fresh, false);
      assert.equal(second.plugin.openResult?.rebuilt, false);
      assert.equal(second.plugin.openResult?.notes, FIXTURE_NOTES.length);
      if (withModel) await second.plugin.worker!.call("embedIdle", {});
      const st = await workerState(second.plugin);
      assert.equal(st.counters.reindexed, 0, "no note re-indexed");
      assert.equal(st.counters.notesRead, 0, "no note read");
      assert.equal(st.counters.embedded, 0, "nothing re-embedded");
      assert.ok(!second.adapter.log.some((e) => e.op === "readBinary" && !e.path.startsWith(".obsidian/")), "no note file was read");
      const status2 = await second.plugin.indexStatus();
      assert.equal(status2?.vectors, status1?.vectors);
      assert.equal(await topPath(second.plugin, "velvet cartographer"), "Inbox/Reading list.md");
      assert.equal(second.plugin.modelState, withModel ? "loaded" : "absent");
    } finally {
      await unloadPlugin(second.plugin);
    }
  });

  test("notes changed while Obsidian was closed are picked up by the reconcile", async () => {
    const vault = await copyFixture();
    const first = await loadPlugin(vault, { settings: { semantic: false } });
    await unloadPlugin(first.plugin);
    await writeFile(path.join(vault, "Projects/Outside.md"), "# Outside\nWritten by another editor: periwinkle gearbox.\n");
    const second = await loadPlugin(vault);
    try {
      assert.equal(second.plugin.lastReconcile?.added, 1);
      assert.equal(await topPath(second.plugin, "periwinkle gearbox"), "Projects/Outside.md");
    } finally {
      await unloadPlugin(second.plugin);
    }
  });

  test("a search sent at start-up is answered before the background reconcile lists the vault", async () => {
    const vault = await copyFixture();
    const first = await loadPlugin(vault, { settings: { semantic: false } });
    await unloadPlugin(first.plugin);
    await writeFile(path.join(vault, "Projects/Outside.md"), "# Outside\nWritten by another editor: periwinkle gearbox.\n");
    const { plugin } = await loadPlugin(vault, { waitIndexed: false });
    try {
      const order: string[] = [];
      const bar = plugin.statusBar!;
      const setReconcile = bar.setReconcile.bind(bar);
      bar.setReconcile = (p) => {
        if (p) order.push(`reconcile ${p.phase}`);
        setReconcile(p);
      };
      const hits = (await plugin.search({ query: "sourdough starter", k: 3, mode: "lexical" })).hits;
      order.push("search");
      await plugin.indexed;
      assert.equal(hits[0]?.path, "Cooking/Sourdough starter.md");
      assert.equal(order[0], "search", order.join(" → "));
      assert.equal(plugin.lastReconcile?.added, 1, "the reconcile ran after it");
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("corrupt index files trigger a rebuild with a Notice", async () => {
    const vault = await copyFixture();
    const first = await loadPlugin(vault, { settings: { semantic: false } });
    await unloadPlugin(first.plugin);
    const dir = onlyDeviceDirOf(vault);
    for (const m of (await readdir(dir)).filter((f) => f.startsWith("manifest-"))) {
      const p = path.join(dir, m);
      const text = await readFile(p, "utf8");
      await writeFile(p, text.slice(0, Math.floor(text.length / 2)));
    }
    const notices = Notice.log.length;
    const second = await loadPlugin(vault);
    try {
      assert.equal(second.plugin.openResult?.rebuilt, true);
      const shown = Notice.log.slice(notices);
      assert.ok(
        shown.some((n) => /rebuilt/i.test(n)),
        `a notice says so: ${JSON.stringify(shown)}`,
      );
      assert.equal(second.plugin.lastReconcile?.added, FIXTURE_NOTES.length);
      assert.equal(await topPath(second.plugin, "telescope collimation"), "Astronomy/Telescope care.md");
    } finally {
      await unloadPlugin(second.plugin);
    }
    // The rebuilt index opens cleanly next time.
    const third = await loadPlugin(vault);
    try {
      assert.equal(third.plugin.openResult?.rebuilt, false);
      assert.equal(third.plugin.lastReconcile?.added, 0);
    } finally {
      await unloadPlugin(third.plugin);
    }
  });

  test("sync-conflict copies in the index folder are left alone and never read", async () => {
    const vault = await copyFixture();
    const first = await loadPlugin(vault, { settings: { semantic: false } });
    await unloadPlugin(first.plugin);
    const dir = onlyDeviceDirOf(vault);
    const manifest = (await readdir(dir)).find((f) => f.startsWith("manifest-"))!;
    const copies = [
      manifest.replace(".json", " (conflicted copy 2024-05-01).json"),
      manifest.replace(".json", ".sync-conflict-20240501-101010-ABCDEFG.json"),
      manifest.replace(".json", " 2.json"),
    ];
    for (const c of copies) await writeFile(path.join(dir, c), "{ not a manifest");
    const second = await loadPlugin(vault);
    try {
      assert.equal(second.plugin.openResult?.rebuilt, false);
      const own = path.relative(path.join(vault, INDEX), dir).split(path.sep).join("/");
      assert.deepEqual(second.plugin.host.conflictsIgnored.sort(), copies.map((c) => `${own}/${c}`).sort());
      for (const c of copies) assert.equal(await readFile(path.join(dir, c), "utf8"), "{ not a manifest", c);
      assert.ok(!second.adapter.log.some((e) => e.op === "readBinary" && /conflict| 2\.json/.test(e.path)));
      assert.equal(second.plugin.lastReconcile?.added, 0);
    } finally {
      await unloadPlugin(second.plugin);
    }
  });

  test("the bridge backend: writeText is searchable at once; reads, path refusals, audit log", async () => {
    const vault = await copyFixture();
    const { plugin, app } = await loadPlugin(vault, { settings: { semantic: false } });
    try {
      const b = plugin.backend;
      await b.writeText("Strata/Memory/Ferns.md", "# Ferns\nThe ostrich fern unfurls its fiddleheads in May.\n");
      // No waiting for the debounced event: the write pushed the change to the worker.
      assert.equal(await topPath(plugin, "ostrich fern fiddleheads"), "Strata/Memory/Ferns.md");
      assert.ok(app.vault.getFileByPath("Strata/Memory/Ferns.md"));
      assert.match((await b.readText("Strata/Memory/Ferns.md"))!, /ostrich fern/);
      assert.equal(await b.readText("Nope/Missing.md"), null);
      await b.writeText("Strata/Memory/Ferns.md", "# Ferns\nReplaced: maidenhair.\n");
      assert.equal(await topPath(plugin, "maidenhair"), "Strata/Memory/Ferns.md");
      // Compare-and-swap: a note that is not what the caller read is left alone.
      const ferns = path.join(vault, "Strata/Memory/Ferns.md");
      await assert.rejects(b.writeText("Strata/Memory/Ferns.md", "lost", "# Ferns\nstale text\n"), /\[conflict\]/);
      await assert.rejects(b.writeText("Strata/Memory/Ferns.md", "lost", null), /\[conflict\]/);
      await assert.rejects(b.writeText("Strata/Memory/Gone.md", "lost", "text that was read"), /\[conflict\]/);
      assert.equal(await readFile(ferns, "utf8"), "# Ferns\nReplaced: maidenhair.\n");
      await b.writeText("Strata/Memory/Ferns.md", "# Ferns\nThird: royal fern.\n", "# Ferns\nReplaced: maidenhair.\n");
      assert.equal(await readFile(ferns, "utf8"), "# Ferns\nThird: royal fern.\n");
      for (const bad of ["../outside.md", ".obsidian/plugins/x.md", "/etc/passwd", "a/./b.md", ".git/config"]) {
        await assert.rejects(b.writeText(bad, "x"), /refused/, bad);
        await assert.rejects(b.readText(bad), /refused/, bad);
      }
      await b.appendPluginFile("audit.jsonl", '{"a":1}\n');
      await b.appendPluginFile("audit.jsonl", '{"a":2}\n');
      assert.equal(await readFile(path.join(vault, PLUGIN_DIR, "audit.jsonl"), "utf8"), '{"a":1}\n{"a":2}\n');
      await assert.rejects(b.appendPluginFile("../x", "y"), /refused/);
      const st = await b.status();
      assert.equal(st.mode, "plugin");
      assert.equal(st.index.notes, FIXTURE_NOTES.length + 1);
      assert.equal(b.settings().writeToolsEnabled, false);
      const listed = await b.coreRead("list", { folder: "Strata" });
      assert.deepEqual(
        listed.entries.map((e) => e.path),
        ["Strata/Memory/Ferns.md"],
      );
      await b.recordAccess(["Strata/Memory/Ferns.md"]);
      assert.equal((await b.coreRead("list", { folder: "Strata" })).entries[0].access?.count, 1);
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("results in more than one language carry each note's language; results in one do not", async () => {
    const { plugin } = await loadPlugin(await copyFixture(), { settings: { semantic: false } });
    try {
      const resp = await plugin.search({ query: "泡茶 sourdough", k: 10, mode: "lexical" });
      const zh = resp.hits.find((h) => h.path === "中文/茶道笔记.md");
      const en = resp.hits.find((h) => h.path === "Cooking/Sourdough starter.md");
      assert.deepEqual([zh?.lang, en?.lang], ["zh", "en"]);
      assert.equal(results.mixedLanguages(resp.hits), true);
      assert.equal(results.mixedLanguages(resp.hits.filter((h) => h.lang === "en")), false);
      const badge = (el: unknown) =>
        all(el as El)
          .find((e) => e.classList.contains("strata-lang-badge"))
          ?.getText();
      assert.equal(badge(results.renderHit(newEl(), zh!, resp, { language: true })), "zh");
      assert.equal(badge(results.renderHit(newEl(), zh!, resp)), undefined);
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("searches are cancellable: a newer request supersedes an older one", async () => {
    const vault = await copyFixture();
    const { plugin } = await loadPlugin(vault, { settings: { semantic: false } });
    try {
      const ctl = new AbortController();
      const old = plugin.search({ query: "telescope", mode: "lexical" }, ctl.signal);
      ctl.abort();
      await assert.rejects(old, /cancelled/);
      const fresh = await plugin.search({ query: "telescope", mode: "lexical" });
      assert.ok(fresh.hits.length > 0);
      // Bad input never crashes the worker.
      await assert.rejects(plugin.search({ query: "x", k: -5, mode: "nonsense" as never }), /./);
      assert.ok((await plugin.search({ query: '"unbalanced (((', mode: "lexical" })).hits.length >= 0);
      assert.ok((await plugin.search({ query: "telescope", mode: "lexical" })).hits.length > 0, "still answering");
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("a missing model: a notice says how to get it, search stays lexical, the setting says what auto chose", async () => {
    const vault = await copyFixture();
    const notices = Notice.log.length;
    const { plugin, app } = await loadPlugin(vault);
    try {
      assert.equal(plugin.modelState, "absent");
      const shown = Notice.log.slice(notices);
      const how =
        /multilingual-e5-small is missing: download it in Settings → Strata → Semantic search \(license MIT\), or import its model\.onnx and tokenizer\.json from a folder there \(they go to \.obsidian\/plugins\/strata-search\/models\/multilingual-e5-small\/\)/;
      assert.ok(
        shown.some((n) => how.test(n)),
        JSON.stringify(shown),
      );
      const res = await plugin.search({ query: "sourdough starter", mode: "hybrid" });
      assert.equal(res.mode, "lexical");
      assert.equal(res.hits[0]?.path, "Cooking/Sourdough starter.md");
      assert.match(
        settingRow(app, "Embedding model").desc,
        /^Auto chose multilingual-e5-small: \d+% of the vault's text is not in English\./,
      );
      assert.match(settingRow(app, "Model").desc, how);
      assert.ok((await plugin.statusLines()).some((l) => l.startsWith("semantic: off")));
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("the status bar shows a switch's re-embedding and the code pass", () => {
    const el = new (class {
      addClass() {}
      setText() {}
    })() as unknown as HTMLElement;
    const bar = new StatusBar(el);
    const p: EmbedProgress = {
      done: 1234,
      total: 5678,
      embedded: 8,
      dropped: 0,
      rate: 20,
      etaSeconds: 222,
      model: "multilingual-e5-small",
      modelLoaded: true,
    };
    bar.setEmbed({ ...p, switching: { from: "all-MiniLM-L6-v2", to: "multilingual-e5-small", fromLoaded: true } });
    assert.equal(bar.text(), "Strata: re-embedding for multilingual-e5-small: 1,234 / 5,678 · ETA 4m");
    bar.setEmbed(p);
    assert.equal(bar.text(), "Strata: embedding 1,234/5,678 · ETA 4m");
    // The code pass runs before embedding and is shown until no file is left.
    bar.setCodePass({ left: 1200, defined: 400, dropped: 0, done: 1241 });
    assert.equal(bar.text(), "Strata: indexing code definitions 1,241/2,441");
    bar.setCodePass({ left: 0, defined: 1200, dropped: 0, done: 2441 });
    assert.equal(bar.text(), "Strata: embedding 1,234/5,678 · ETA 4m");
    bar.destroy();
  });

  test("the Embedding model setting switches models in the background; the old vectors answer meanwhile", NEEDS_BOTH, async () => {
    // Four notes, a third of the fixture's chunks, half their text Chinese (auto chooses e5).
    const vault = await copyFixture([
      "Astronomy/Observing log 2024.md",
      "Astronomy/Telescope care.md",
      "中文/茶道笔记.md",
      "中文/量子计算入门.md",
    ]);
    assert.ok(await installModel(vault, ["all-MiniLM-L6-v2", "multilingual-e5-small"]));
    const notices = Notice.log.length;
    const { plugin, app } = await loadPlugin(vault, { settings: { embeddingModel: "all-MiniLM-L6-v2" } });
    try {
      await plugin.worker!.call("embedIdle", {});
      assert.equal(plugin.modelLoad?.loaded, "all-MiniLM-L6-v2");
      assert.match(settingRow(app, "Embedding model").desc, /^all-MiniLM-L6-v2, chosen here\./);
      const events: EmbedProgress[] = [];
      const bar: string[] = [];
      plugin.worker!.on("embed", (p) => {
        events.push(p as EmbedProgress);
        bar.push(plugin.statusBar!.text());
      });

      const { select } = settingRow(app, "Embedding model");
      select!.value = "auto";
      select!.dispatch("change");
      // The change returns at once: the model loads in the worker.
      assert.equal(plugin.modelLoad?.choice.setting, "all-MiniLM-L6-v2");
      await eventually(async () => plugin.modelLoad?.choice.setting === "auto", 60_000, "the new model");
      assert.equal(plugin.modelLoad?.loaded, "multilingual-e5-small");
      assert.deepEqual(plugin.modelLoad?.switching, { from: "all-MiniLM-L6-v2", to: "multilingual-e5-small", fromLoaded: true });
      // MiniLM's complete vectors answer while e5 embeds.
      const during = await plugin.search({ query: "looking after the optics of my stargazing instrument", mode: "semantic", k: 3 });
      assert.equal(during.semanticCoverage, 1);
      assert.equal(during.hits[0]?.path, "Astronomy/Telescope care.md");

      const done = await plugin.worker!.call("embedIdle", {});
      assert.ok(done && done.done === done.total, JSON.stringify(done));
      const st = await plugin.indexStatus();
      assert.equal(st?.model, "multilingual-e5-small");
      assert.equal(st?.switching, undefined, "the switch is over");
      assert.ok(
        events.some((e) => e.switching?.to === "multilingual-e5-small" && e.switching.fromLoaded && e.done < e.total),
        "progress during the switch",
      );
      assert.ok(
        bar.some((t) => /^Strata: re-embedding for multilingual-e5-small: [\d,]+ \/ [\d,]+/.test(t)),
        JSON.stringify(bar.slice(0, 3)),
      );
      assert.match(
        settingRow(app, "Embedding model").desc,
        /^Auto chose multilingual-e5-small: \d+% of the vault's text is not in English\.$/,
      );
      assert.equal(JSON.parse(await readFile(path.join(vault, PLUGIN_DIR, "data.json"), "utf8")).embeddingModel, "auto");
      assert.deepEqual(Notice.log.slice(notices), [], "no notice");
      const after = await plugin.search({ query: "泡乌龙茶的水温", mode: "semantic", k: 3 });
      assert.equal(after.hits[0]?.path, "中文/茶道笔记.md");
    } finally {
      await unloadPlugin(plugin);
    }
  });
});
