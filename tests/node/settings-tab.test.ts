// The settings tab's declarative definitions (Obsidian 1.13+): every user-facing setting is
// defined with its name and description and is found by the settings search; a value changed
// through the row drawn from its definition reaches the plugin's settings, data.json and the
// index; validation refuses bad values. And the display() fallback of Obsidian before 1.13
// draws the same rows from the same definitions.

import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import { cleanupTemps, copyFixture } from "./helpers.ts";
import { all, savedSettings, settingRow, typeInto, type El } from "./settings-rows.ts";
import { eventually, loadPlugin, PLUGIN_DIR, unloadPlugin, type AppT } from "./plugin-env.ts";

after(cleanupTemps);

const fake = await import("../obsidian-fake/index.ts");

/** Every user-facing setting: its key in data.json and its row's name. */
const CONTROLS: Record<string, string> = {
  excludeFolders: "Excluded folders",
  extensions: "Indexed extensions",
  chunkBudget: "Chunk budget",
  codeEnabled: "Index code files",
  codeExtensions: "Code extensions",
  codeExcludeFolders: "Skipped code folders",
  maxCodeKB: "Largest code file (KB)",
  mode: "Default mode",
  fusion: "Fusion",
  resultCount: "Results",
  embeddingModel: "Embedding model",
  semantic: "Embed notes",
  embedWorkers: "Embedding workers",
  modelDownloadUrl: "Download address",
  bridgeEnabled: "Serve the index to the MCP bridge",
  bridgePort: "Port",
  writeToolsEnabled: "Allow write tools",
  sessionsFolder: "Sessions folder",
  memoryFolder: "Memory folder",
  changelogFolder: "Changelog folder",
};
/** Rows without a stored value (actions, status, Claude's setup). */
const OTHER_ROWS = ["Model", "Claude Desktop extension", "Claude Code", "Token", "Index", "Rebuild index", "Clear index"];

type Def = { name: string; desc?: string; control?: { key: string; type: string }; render?: unknown };
type Item = Def | { type: string; heading?: string; items?: Item[] };

function flatten(items: Item[], heading: string | null = null, out: { heading: string | null; def: Def }[] = []) {
  for (const it of items) {
    if ("type" in it) flatten(it.items ?? [], it.heading ?? heading, out);
    else out.push({ heading, def: it });
  }
  return out;
}

/** The shown tab's row named `name` (it must be shown). */
function row(app: AppT, name: string) {
  const r = settingRow(app, name);
  if (!r) throw new Error(`no row ${name}`);
  return r;
}
const type = typeInto;
const saved = savedSettings;

describe("settings tab", () => {
  test("Obsidian 1.13+: every setting is defined, found by the settings search, and changed through its definition", async () => {
    const vault = await copyFixture();
    const { plugin, app } = await loadPlugin(vault, { settings: { semantic: false } });
    try {
      // Read when the tab was added (the search indexes them before the tab is ever opened).
      const tab = app.settingTabs[0];
      const defs = flatten(tab.settingItems);
      for (const [key, name] of Object.entries(CONTROLS)) {
        const d = defs.find((x) => x.def.control?.key === key);
        assert.ok(d, `no definition for ${key}`);
        assert.equal(d.def.name, name);
        assert.ok(typeof d.def.desc === "string" && d.def.desc.length > 10, `${name} has a description`);
        assert.ok(d.heading, `${name} is in a group`);
      }
      for (const name of OTHER_ROWS)
        assert.ok(
          defs.some((x) => x.def.name === name && x.def.desc),
          `row ${name}`,
        );
      assert.deepEqual(
        (tab.settingItems as { heading?: string }[]).map((g) => g.heading),
        ["Indexing", "Search", "Semantic search", "Claude", "MCP bridge", "Index"],
      );

      // The settings search finds rows by name, description and alias.
      const found = (q: string) => app.searchSettings(q).map((h) => h.def.name);
      assert.deepEqual(found("excluded folders"), ["Excluded folders"]);
      assert.ok(found("chunk").includes("Chunk budget"));
      assert.ok(found("rrf").includes("Fusion"), "by alias");
      assert.ok(found("write tools").includes("Allow write tools"));
      assert.ok(found("regenerate token").includes("Token"));
      assert.deepEqual(found("no such setting anywhere"), []);
      // The model's download rows are hidden (and not found) while no model is missing.
      assert.ok(!found("download the model").includes("Download the model"));

      // Opened: drawn from the definitions, values from the settings.
      app.openSettingTab(tab);
      assert.equal(row(app, "Chunk budget").input!.value, "512");
      assert.equal(row(app, "Default mode").input!.value, "hybrid");
      assert.equal(row(app, "Embed notes").toggle!.classList.contains("is-enabled"), false);
      assert.match(row(app, "Embedding workers").desc, /Auto gives \d+: /);
      await eventually(
        async () => /\d+ notes, \d+ sections/.test(row(app, "Index").desc),
        5000,
        `the index row (${row(app, "Index").desc})`,
      );
      assert.deepEqual(row(app, "Clear index").buttons, ["Clear"]);

      // Changed through the rows: the plugin's settings and data.json follow.
      type(app, "Default mode", "lexical");
      type(app, "Results", "50");
      type(app, "Sessions folder", "/Work/Sessions/");
      row(app, "Allow write tools").toggle!.dispatch("click");
      const s = (await eventually(
        async () => {
          const d = await saved(vault);
          return d.sessionsFolder === "Work/Sessions" && d.writeToolsEnabled === true && d;
        },
        3000,
        "data.json",
      )) as Record<string, unknown>;
      assert.equal(plugin.settings.mode, "lexical");
      assert.equal(s.mode, "lexical");
      assert.equal(s.resultCount, 50);
      assert.equal(s.writeToolsEnabled, true);

      // Validation: a bad value is shown as an error and not stored.
      type(app, "Chunk budget", "10");
      await eventually(async () => row(app, "Chunk budget").invalid, 3000, "the error");
      assert.equal(plugin.settings.chunkBudget, 512);
      type(app, "Memory folder", "  ");
      await eventually(async () => row(app, "Memory folder").invalid, 3000, "the error");
      assert.equal(plugin.settings.memoryFolder, "Strata/Memory");
      type(app, "Download address", "ftp://mirror");
      await eventually(async () => row(app, "Download address").invalid, 3000, "the error");
      assert.equal(plugin.settings.modelDownloadUrl, "");
      type(app, "Chunk budget", "1024");
      await eventually(async () => plugin.settings.chunkBudget === 1024, 3000, "a valid value");
      assert.equal(row(app, "Chunk budget").invalid, false);

      // Excluding a folder re-indexes the vault without it (once the user stops typing).
      assert.ok(
        (await plugin.search({ query: "sourdough starter", k: 5, mode: "lexical" })).hits.some((h) => h.path.startsWith("Cooking/")),
      );
      type(app, "Excluded folders", "Cooking\n/Garden/");
      await eventually(async () => plugin.settings.excludeFolders.join() === "Cooking,Garden", 3000, "the setting");
      await eventually(
        // (A search while the index reopens with the new folders is refused: asked again.)
        async () =>
          !(await plugin.search({ query: "sourdough starter", k: 5, mode: "lexical" }).then(
            (r) => r.hits.some((h) => h.path.startsWith("Cooking/")),
            () => true,
          )),
        10_000,
        "the re-index without Cooking/",
      );
      await eventually(async () => JSON.stringify((await saved(vault)).excludeFolders) === '["Cooking","Garden"]', 3000, "data.json");

      // Claude Code: without the bridge in the plugin folder, how to get it and no config entry;
      // once it is there (an installed release's bridge/), the tab redraws with the command.
      assert.match(row(app, "Claude Code").desc, /install Strata from a release/);
      assert.ok(!app.searchSettings("claude_desktop_config").length, "the config row is hidden");
      await mkdir(path.join(vault, PLUGIN_DIR, "bridge"), { recursive: true });
      await writeFile(path.join(vault, PLUGIN_DIR, "bridge", "mcp-bridge.js"), "// the bridge\n");
      app.openSettingTab(tab);
      const command = `claude mcp add strata -- node ${vault}/${PLUGIN_DIR}/bridge/mcp-bridge.js ${vault} --config-dir .obsidian`;
      await eventually(async () => row(app, "Claude Code").desc.includes(command), 3000, "the command");
      assert.deepEqual(row(app, "Claude Code").buttons, ["Copy"]);
      assert.match(row(app, "claude_desktop_config.json").desc, /"mcpServers": \{/);
      assert.deepEqual(
        app.searchSettings("claude_desktop_config").map((h) => h.def.name),
        ["claude_desktop_config.json"],
      );
      tab.hide();
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("Obsidian before 1.13: display() draws the same rows from the same definitions", async () => {
    const vault = await copyFixture();
    fake.fakeApi.version = "1.12.7";
    try {
      const { plugin, app } = await loadPlugin(vault, { settings: { semantic: false } });
      try {
        const tab = app.settingTabs[0];
        assert.deepEqual(tab.settingItems, [], "an older Obsidian never reads the definitions");
        app.openSettingTab(tab);
        const names = all(tab.containerEl as unknown as El)
          .filter((e) => e.classList.contains("setting-item-name"))
          .map((e) => e.getText());
        for (const name of [...Object.values(CONTROLS), ...OTHER_ROWS]) assert.ok(names.includes(name), `row ${name}`);
        for (const heading of ["Indexing", "Search", "Semantic search", "Claude", "MCP bridge"]) assert.ok(names.includes(heading));
        assert.equal(row(app, "Chunk budget").input!.value, "512");
        // The warning style before 1.13 (setDestructive does not exist there).
        assert.ok(all(row(app, "Clear index").el).some((e) => e.classList.contains("mod-warning")));
        type(app, "Fusion", "linear");
        type(app, "Port", "70000");
        await eventually(async () => row(app, "Port").invalid, 3000, "the error");
        type(app, "Indexed extensions", ".MD, txt, b@d");
        const s = (await eventually(
          async () => {
            const d = await saved(vault);
            return (d.extensions as string[] | undefined)?.length === 2 && d.fusion === "linear" && d;
          },
          3000,
          "data.json",
        )) as Record<string, unknown>;
        assert.equal(s.fusion, "linear");
        assert.deepEqual(s.extensions, ["md", "txt"]);
        assert.equal(plugin.settings.bridgePort, 0);
        assert.ok(!("bridgePort" in s), "the port is this device's, not in data.json");
        tab.hide();
      } finally {
        await unloadPlugin(plugin);
      }
    } finally {
      fake.fakeApi.version = "1.13.1";
    }
  });
});
