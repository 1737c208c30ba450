// The MCP bridge while "Obsidian is running": the test process plays the plugin (the loopback
// endpoint of plugin/bridge/loopback.ts over a VaultBackend, bridge.json in the plugin folder);
// the SDK's Client spawns the bridge, which must discover the plugin and forward every call
// over HTTP (token and all) — then fall back to headless when the plugin goes away.

import assert from "node:assert/strict";
import * as path from "node:path";
import { after, test } from "node:test";

import type { BackendStatus, VaultBackend } from "../../plugin/core/vault-backend.ts";
import { HeadlessBackend } from "../../plugin/bridge/headless.ts";
import { newBridgeToken, removeBridgeInfo, startLoopbackServer, writeBridgeInfo } from "../../plugin/bridge/loopback.ts";
import { call, ok, spawnBridge } from "./bridge-helpers.ts";
import { exerciseTools } from "./bridge-scenario.ts";
import { copyFixtureWithVectors } from "./embedded-fixture.ts";
import { cleanupTemps, copyFixture } from "./helpers.ts";

after(cleanupTemps);

/** The in-process backend, reporting itself as the plugin (what the bridge forwards to). */
function asPlugin(b: HeadlessBackend): VaultBackend {
  return {
    status: async (): Promise<BackendStatus> => ({ ...(await b.status()), mode: "plugin" }),
    settings: () => b.settings(),
    search: (r) => b.search(r),
    read: (r) => b.read(r),
    coreRead: (read, r) => b.coreRead(read, r),
    note: (p) => b.note(p),
    recordAccess: (p) => b.recordAccess(p),
    readText: (p) => b.readText(p),
    writeText: (p, t, e) => b.writeText(p, t, e),
    outline: (t) => b.outline(t),
    appendPluginFile: (n, t) => b.appendPluginFile(n, t),
    readPluginFile: (n) => b.readPluginFile(n),
  };
}

test("plugin running: the bridge forwards every tool call to the loopback endpoint", async (t) => {
  // Every chunk has a vector already (the cached copy): the backend embeds only what the tools change.
  const vault = await copyFixtureWithVectors();
  // MiniLM: this test is about forwarding; the fixture vault would get the slower e5 under auto.
  const backend = await HeadlessBackend.open({ vaultDir: vault, settings: { writeToolsEnabled: true }, modelSetting: "all-MiniLM-L6-v2" });
  const token = newBridgeToken();
  const server = await startLoopbackServer({ backend: asPlugin(backend), token, port: 0 });
  await writeBridgeInfo(path.join(vault, ".obsidian/plugins/strata-search"), {
    port: server.port,
    token,
    pid: process.pid,
    vault: "vault",
  });
  // No --write-tools: the plugin's settings (write tools on) decide. --no-model: when it serves
  // headless below, lexical search answers (auto would load e5 and embed in the background).
  const bridge = await spawnBridge([vault, "--no-model"]);
  let closed = false;
  try {
    await t.test("status answers from the plugin", async () => {
      const st = await ok(bridge.client, "status");
      assert.equal(st.data.mode, "plugin");
      assert.match(bridge.stderr(), /forwarding to the Strata plugin in Obsidian/);
      assert.doesNotMatch(bridge.stderr(), /opening the index/);
    });
    await exerciseTools(t, bridge.client, vault);
    await t.test("Obsidian running but the plugin not answering: an error, not a second index writer", async () => {
      await server.close();
      closed = true;
      await backend.close();
      // bridge.json still names a live process (this one): the bridge must not open the index.
      const r = await call(bridge.client, "search", { queries: ["sourdough"] });
      assert.equal(r.isError, true);
      assert.match(r.text, /Obsidian is running \(pid \d+\) but the Strata plugin did not answer/);
      assert.doesNotMatch(bridge.stderr(), /opening the index/);
    });
    await t.test("when the plugin goes away (bridge.json removed), the bridge serves headless", async () => {
      await removeBridgeInfo(path.join(vault, ".obsidian/plugins/strata-search"));
      const r = await ok(bridge.client, "search", { queries: ["sourdough"], mode: "lexical" });
      assert.equal(r.data.results[0]?.path, "Cooking/Sourdough starter.md");
      const st = await ok(bridge.client, "status");
      assert.equal(st.data.mode, "headless");
      // Headless, the write tools follow the bridge's own settings: off here.
      assert.equal(st.data.write_tools_enabled, false);
    });
  } finally {
    await bridge.close();
    if (!closed) {
      await server.close();
      await backend.close();
    }
  }
});

test("Obsidian running with the bridge turned off: an error that names the setting, never a second index writer", async () => {
  const vault = await copyFixture();
  const pluginDir = path.join(vault, ".obsidian/plugins/strata-search");
  // What the plugin writes when its bridge is off (plugin/obsidian/bridge-endpoint.ts markPresence).
  await writeBridgeInfo(pluginDir, { port: 0, token: "", pid: process.pid, vault: "vault" });
  // --no-model: headless below, lexical search answers (auto would load e5 and embed meanwhile).
  const bridge = await spawnBridge([vault, "--no-model"]);
  try {
    const r = await call(bridge.client, "search", { queries: ["sourdough"] });
    assert.equal(r.isError, true);
    assert.match(r.text, /Claude bridge is off/);
    assert.doesNotMatch(bridge.stderr(), /opening the index/);
    // Left over by an Obsidian that is gone (a pid that no longer runs): headless.
    await writeBridgeInfo(pluginDir, { port: 0, token: "", pid: 2 ** 22 + 12345, vault: "vault" });
    const ok2 = await ok(bridge.client, "search", { queries: ["sourdough"], mode: "lexical" });
    assert.equal(ok2.data.results[0]?.path, "Cooking/Sourdough starter.md");
  } finally {
    await bridge.close();
  }
});

test("headless writes are compare-and-swap: a note changed since it was read is left alone", async () => {
  const vault = await copyFixture();
  // MiniLM: this test is about forwarding; the fixture vault would get the slower e5 under auto.
  const backend = await HeadlessBackend.open({ vaultDir: vault, settings: { writeToolsEnabled: true }, modelSetting: "all-MiniLM-L6-v2" });
  try {
    const p = "Garden/Drip irrigation.md";
    const before = (await backend.readText(p))!;
    await assert.rejects(backend.writeText(p, "lost", before + "an edit made meanwhile"), /\[conflict\]/);
    await assert.rejects(backend.writeText(p, "lost", null), /\[conflict\]/);
    assert.equal(await backend.readText(p), before);
    await backend.writeText(p, before + "\nadded line\n", before);
    assert.equal(await backend.readText(p), before + "\nadded line\n");
  } finally {
    await backend.close();
  }
});
