// The MCP bridge without Obsidian: the SDK's Client spawns dist/mcp-bridge.js over stdio; the
// bridge opens the persisted index, catches up with notes changed on disk, and serves the tools.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { EMBEDDER_WASM_NAME, findWasm } from "../../plugin/node/host.ts";
import { ok, spawnBridge, TOOL_NAMES } from "./bridge-helpers.ts";
import { exerciseTools } from "./bridge-scenario.ts";
import { copyIndexedFixture } from "./embedded-fixture.ts";
import { cleanupTemps, copyFixture, indexDirOf, indexVault, ROOT } from "./helpers.ts";

after(cleanupTemps);

test("headless bridge: catches up with the disk and serves every tool", async (t) => {
  // Indexed and embedded with MiniLM (the cached copy), the model the plugin's settings name (auto
  // would choose e5 for the fixture and embed it all again): the bridge embeds what changes below.
  const vault = await copyIndexedFixture();
  await writeFile(path.join(vault, ".obsidian/plugins/strata-search/data.json"), JSON.stringify({ embeddingModel: "all-MiniLM-L6-v2" }));
  // Changed after the index was persisted: the bridge must notice.
  await appendFile(path.join(vault, "Welcome.md"), "\nA note about the platypuslantern festival.\n");
  const bridge = await spawnBridge([vault, "--write-tools"]);
  try {
    await t.test("a note changed on disk since the last index is found", async () => {
      const r = await ok(bridge.client, "search", { queries: ["platypuslantern"], mode: "lexical" });
      assert.equal(r.data.results[0]?.path, "Welcome.md");
      const st = await ok(bridge.client, "status");
      assert.equal(st.data.mode, "headless");
    });
    await exerciseTools(t, bridge.client, vault);
    await t.test("a note written on disk while the bridge runs is found", async () => {
      await writeFile(path.join(vault, "Inbox/New idea.md"), "# New idea\n\nThe echidnaviolin concept.\n");
      await new Promise((r) => setTimeout(r, 2100)); // the disk check is throttled to one per 2 s
      const r = await ok(bridge.client, "search", { queries: ["echidnaviolin"], mode: "lexical" });
      assert.equal(r.data.results[0]?.path, "Inbox/New idea.md");
    });
  } finally {
    await bridge.close();
  }
  // The index was persisted on exit: the edits are in it.
  const again = await indexVault(vault);
  assert.equal(again.summary.added + again.summary.updated, 0, "nothing left to index after the bridge persisted");
  again.core.free();
});

test("the headless bridge and the CLI never write one index together (its writer lock)", async () => {
  const vault = await copyFixture();
  const { core } = await indexVault(vault);
  core.free();
  const idx = indexDirOf(vault);
  const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  await writeFile(
    `${idx}.lock`,
    JSON.stringify({ pid: other.pid, host: hostname(), what: "strata index", since: "2026-11-25T04:00:00.000Z" }),
  );
  const bridge = await spawnBridge([vault, "--no-model"]);
  try {
    const busy = await bridge.client.callTool({ name: "search", arguments: { queries: ["telescope"] } });
    assert.equal(busy.isError, true);
    assert.match((busy.content as any)[0].text, new RegExp(`strata index \\(pid ${other.pid}.*is writing it; try again when it is done`));
    other.kill();
    await new Promise((r) => other.once("exit", r));
    // The writer gone, the next call opens the index (taking the lock over) and answers.
    const r = await ok(bridge.client, "search", { queries: ["telescope"], mode: "lexical" });
    assert.ok(r.data.results.length > 0);
    // While the bridge serves the index, the CLI does not write it.
    const cli = spawnSync(process.execPath, [path.join(ROOT, "dist", "strata.js"), "index", vault], { encoding: "utf8" });
    assert.equal(cli.status, 1, cli.stderr);
    assert.match(cli.stderr, /the Strata MCP bridge \(pid \d+.*is writing the index/);
  } finally {
    other.kill();
    await bridge.close();
  }
  assert.ok(!existsSync(`${idx}.lock`), "the bridge released the lock when it closed");
});

test("strata mcp <vault> serves the same tools (CLI)", async () => {
  const vault = await copyFixture();
  const bridge = await spawnBridge(["mcp", vault, "--no-model"], {}, path.join(ROOT, "dist", "strata.js"));
  try {
    const { tools } = await bridge.client.listTools();
    assert.deepEqual(tools.map((x) => x.name).sort(), TOOL_NAMES);
    const r = await ok(bridge.client, "search", { queries: ["telescope collimation"] });
    assert.ok(r.data.results.length > 0);
    // Write tools are off unless turned on.
    const before = await readFile(path.join(vault, "Welcome.md"), "utf8");
    const res = await bridge.client.callTool({ name: "session_save", arguments: { overview: "x" } });
    assert.equal(res.isError, true);
    assert.match((res.content as any)[0].text, /turned off/);
    assert.equal(await readFile(path.join(vault, "Welcome.md"), "utf8"), before);
  } finally {
    await bridge.close();
  }
});

test("mcp-bridge.js installed beside main.js finds its vault and the .wasm next to it", async () => {
  const vault = await copyFixture();
  const dir = path.join(vault, ".obsidian/plugins/strata-search");
  await mkdir(dir, { recursive: true });
  await copyFile(path.join(ROOT, "mcp-bridge.js"), path.join(dir, "mcp-bridge.js"));
  await copyFile(findWasm(), path.join(dir, "strata_core_bg.wasm"));
  await copyFile(findWasm(EMBEDDER_WASM_NAME), path.join(dir, EMBEDDER_WASM_NAME));
  const bridge = await spawnBridge(["--no-model"], {}, path.join(dir, "mcp-bridge.js"));
  try {
    const r = await ok(bridge.client, "search", { queries: ["telescope collimation"], mode: "lexical" });
    assert.equal(r.data.results[0]?.path, "Astronomy/Telescope care.md");
    const st = await ok(bridge.client, "status");
    assert.equal(st.data.vault, "vault");
  } finally {
    await bridge.close();
  }
});
