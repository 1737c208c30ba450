// Code files in the Obsidian plugin (fake Obsidian, the real worker and wasm): the code wasm
// travels as the bundle carries it (gzip + base64, asked for by the worker) and only when the
// listing or a vault event holds a code file; without it, a notice and code as line windows;
// the code settings (sanitised, drawn, validated, reaching the core and the event filter); a code
// hit's badge and signature, and what opening it does when Obsidian has no view for the file.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, describe, test } from "node:test";
import { gzipSync } from "node:zlib";

import { CODE_WASM_NAME, codeHookInstalled } from "../../plugin/core/code-hook.ts";
import { findWasm } from "../../plugin/node/host.ts";
import { coreConfig, DEFAULT_SETTINGS, listedExtensions, sanitizeSettings } from "../../plugin/obsidian/settings.ts";
import { CODE_FILES, makeVault, NOTES } from "./code-vault.ts";
import { cleanupTemps, copyFixture } from "./helpers.ts";
import { all, savedSettings, settingRow, typeInto, type El } from "./settings-rows.ts";
import { eventually, loadPlugin, Notice, StrataPlugin, unloadPlugin } from "./plugin-env.ts";

after(cleanupTemps);

const { newEl } = await import("../obsidian-fake/dom.ts");
const results = await import("../../plugin/obsidian/results.ts");

const CODE_WASM = gzipSync(readFileSync(findWasm(CODE_WASM_NAME))).toString("base64");
/** How often the worker asked the UI thread for the code wasm. */
let asked = 0;
const offerCodeWasm = () => {
  StrataPlugin.codeWasm = () => {
    asked++;
    return CODE_WASM;
  };
};

const row = settingRow;
const type = typeInto;
const saved = savedSettings;

describe("plugin: code files", () => {
  test("settings: defaults, sanitised values, the core config and the listed extensions", () => {
    const d = sanitizeSettings({});
    assert.equal(d.codeEnabled, true);
    assert.ok(d.codeExtensions.includes("py") && d.codeExtensions.includes("yml"));
    assert.ok(d.codeExcludeFolders.includes("node_modules"));
    assert.equal(d.maxCodeKB, 1024);
    assert.notEqual(d.codeExtensions, DEFAULT_SETTINGS.codeExtensions, "a copy, never the defaults themselves");
    const s = sanitizeSettings({
      codeEnabled: false,
      codeExtensions: [".PY", "b@d", "ts", 3, "py"],
      codeExcludeFolders: ["/vendor/", " ", "gen/out"],
      maxCodeKB: 0,
    });
    assert.deepEqual([s.codeEnabled, s.codeExtensions, s.codeExcludeFolders, s.maxCodeKB], [false, ["py", "ts"], ["vendor", "gen/out"], 1]);
    assert.deepEqual(sanitizeSettings(JSON.parse(JSON.stringify(s))), s, "a round trip through data.json");
    assert.equal(sanitizeSettings({ maxCodeKB: 1e9 }).maxCodeKB, 65536);
    assert.equal(sanitizeSettings({ codeEnabled: "yes" }).codeEnabled, true);
    const c = coreConfig({ ...d, maxCodeKB: 2 }, ".obsidian", "this-device");
    assert.deepEqual(
      [c.codeEnabled, c.codeExtensions, c.codeExcludeFolders, c.maxCodeBytes],
      [true, d.codeExtensions, d.codeExcludeFolders, 2048],
    );
    assert.ok(listedExtensions(d).has("md") && listedExtensions(d).has("go"));
    assert.deepEqual([...listedExtensions(s)], ["md"], "code off: notes only");
  });

  test("a vault of notes never loads the code chunker", async () => {
    offerCodeWasm();
    const { plugin } = await loadPlugin(await copyFixture(), { settings: { semantic: false } });
    try {
      assert.ok((plugin.lastReconcile?.added ?? 0) > 0);
      assert.equal(asked, 0);
      assert.equal(codeHookInstalled(), false);
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("without the code wasm: a notice, the notes indexed, code files as line windows", async () => {
    StrataPlugin.codeWasm = null;
    const { plugin } = await loadPlugin(await makeVault(), { settings: { semantic: false } });
    try {
      // The code pass, after the reconcile, asks for the code wasm.
      await eventually(
        async () =>
          plugin.notices.some((n) => /loading the code chunker failed: .*no code chunker wasm.*Notes are indexed as usual/.test(n)),
        10_000,
        "the notice",
      );
      assert.equal(plugin.lastReconcile?.added, Object.keys(NOTES).length + Object.keys(CODE_FILES).length - 1);
      assert.equal(codeHookInstalled(), false);
      const note = (await plugin.search({ query: "starter flour", k: 3, mode: "lexical" })).hits[0];
      assert.equal(note?.path, "Notes/Sourdough.md");
      const code = (await plugin.search({ query: "liveness probe", k: 3, mode: "lexical" })).hits[0];
      assert.equal(code?.path, "cmd/server/main.go");
      assert.equal(code?.code?.kind, "lines");
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("a vault with code: the code pass after the reconcile loads the code wasm once and brings the definitions", async () => {
    offerCodeWasm();
    asked = 0;
    const { plugin } = await loadPlugin(await makeVault(), { settings: { semantic: false } });
    try {
      // Searchable at once, by a word of the code (in line windows until the pass reaches it).
      const first = (await plugin.search({ query: "liveness probe", k: 3, mode: "lexical" })).hits[0];
      assert.equal(first?.path, "cmd/server/main.go");
      const hit = await eventually(
        async () => {
          const h = (await plugin.search({ query: "liveness probe", k: 3, mode: "lexical" })).hits[0];
          return h?.code?.kind === "function" ? h : null;
        },
        15_000,
        "the definitions",
      );
      assert.equal(hit?.code?.name, "healthHandler");
      assert.equal(asked, 1);
    } finally {
      await unloadPlugin(plugin);
      // The worker runs in this thread here: the next test starts without the hook, as a new worker would.
      delete (globalThis as Record<string, unknown>).__strataChunkCode;
    }
  });

  test("a new .py file: its event indexes it, the code pass loads the code wasm, then its definitions are found", async () => {
    offerCodeWasm();
    asked = 0;
    const { plugin, app } = await loadPlugin(await copyFixture(), { settings: { semantic: false } });
    try {
      assert.equal(asked, 0);
      for (const folder of ["src", "src/auth", "node_modules", "node_modules/left-pad"]) await app.vault.createFolder(folder);
      await app.vault.create("src/auth/session.py", CODE_FILES["src/auth/session.py"]);
      await app.vault.create("node_modules/left-pad/index.js", CODE_FILES["node_modules/left-pad/index.js"]);
      const hit = await eventually(
        async () => {
          const query = "strip authentication so credentials do not leak to another host";
          const h = (await plugin.search({ query, k: 3, mode: "lexical", filters: { lang: "python" } })).hits[0];
          return h?.code?.kind === "method" ? h : null;
        },
        10_000,
        "the new file's definition",
      );
      assert.ok(hit);
      assert.deepEqual([hit.path, hit.code?.kind, hit.code?.name], ["src/auth/session.py", "method", "rebuild_auth"]);
      assert.equal(asked, 1);
      assert.equal(codeHookInstalled(), true);
      assert.equal((await plugin.indexStatus())?.notes, 15, "the fixture's 14 notes and the .py file; node_modules skipped");

      // A code hit: the language and kind badge, the signature as its title, path:line beside it.
      const el = results.renderHit(newEl(), hit, null) as unknown as El;
      const byClass = (c: string) =>
        all(el)
          .find((e) => e.classList.contains(c))
          ?.getText();
      assert.equal(byClass("strata-code-badge"), "python · method");
      assert.equal(byClass("strata-code-signature"), "def rebuild_auth(self, prepared_request, response):");
      assert.equal(byClass("strata-hit-folder"), `src/auth/session.py:${hit.startLine}`);
      // Obsidian has no view for .py here: a notice names path:line (nothing opened, no error).
      const opened = app.workspace.opened.length;
      await results.openAtLine(app as never, hit.path, hit.startLine, false);
      assert.match(Notice.log.at(-1) ?? "", new RegExp(`no view for \\.py files; the result is at src/auth/session\\.py:${hit.startLine}`));
      assert.equal(app.workspace.opened.length, opened);
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("the settings tab's code rows: validated, saved, and turning code off re-indexes without it", async () => {
    offerCodeWasm();
    const vault = await makeVault();
    const { plugin, app } = await loadPlugin(vault, { settings: { semantic: false } });
    try {
      assert.equal((await plugin.indexStatus())?.notes, Object.keys(NOTES).length + Object.keys(CODE_FILES).length - 1);
      app.openSettingTab(app.settingTabs[0]);
      type(app, "Code extensions", "py, b@d");
      await eventually(async () => row(app, "Code extensions")?.invalid === true, 15_000, "the error");
      assert.ok(plugin.settings.codeExtensions.includes("go"), "not stored");
      type(app, "Largest code file (KB)", "0");
      await eventually(async () => row(app, "Largest code file (KB)")?.invalid === true, 15_000, "the error");
      type(app, "Largest code file (KB)", "2048");
      type(app, "Skipped code folders", "vendor\n/gen/");
      await eventually(async () => (await saved(vault)).maxCodeKB === 2048, 15_000, "data.json");
      assert.deepEqual((await saved(vault)).codeExcludeFolders, ["vendor", "gen"]);

      row(app, "Index code files")!.toggle!.dispatch("click");
      await eventually(async () => (await saved(vault)).codeEnabled === false, 15_000, "data.json");
      app.openSettingTab(app.settingTabs[0]);
      assert.equal(row(app, "Code extensions"), undefined, "the code rows hide with it");
      assert.ok(row(app, "Index code files"));
      // While the index reopens, its status is unavailable: keep asking.
      await eventually(
        async () => (await plugin.indexStatus().catch(() => null))?.notes === Object.keys(NOTES).length,
        30_000,
        "the re-index without code",
      );
    } finally {
      await unloadPlugin(plugin);
    }
  });
});
