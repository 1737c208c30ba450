// The MCP bridge against the real Obsidian plugin (in the fake-obsidian harness of
// tests/node/plugin-env.ts): the plugin starts its loopback endpoint and writes bridge.json,
// the SDK's Client spawns the bridge, and every tool runs through the plugin's backend.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import * as path from "node:path";
import { after, test } from "node:test";

import { ok, spawnBridge } from "./bridge-helpers.ts";
import { exerciseTools } from "./bridge-scenario.ts";
import { copyFixtureWithVectors } from "./embedded-fixture.ts";
import { cleanupTemps, copyFixture, MODEL } from "./helpers.ts";
import { eventually, installModel, loadPlugin, PLUGIN_DIR, unloadPlugin } from "./plugin-env.ts";

after(cleanupTemps);

test("the real plugin: the bridge forwards every tool call to it", async (t) => {
  // The shared vectors hold the fixture's (the cached copy): the plugin embeds what the tools change.
  const vault = await copyFixtureWithVectors();
  if (MODEL) await installModel(vault);
  const { plugin, app } = await loadPlugin(vault, { settings: { writeToolsEnabled: true, bridgeEnabled: true, semantic: Boolean(MODEL) } });
  try {
    await eventually(async () => existsSync(path.join(vault, PLUGIN_DIR, "bridge.json")), 30_000, "bridge.json");
    // In this harness the plugin's engine shares the test's thread (real Obsidian runs it in a
    // Web Worker): let it finish embedding, so it can answer the bridge's ping promptly.
    await eventually(
      async () => {
        const e = (await plugin.backend.status()).embedding;
        return !e || e.done >= e.total;
      },
      120_000,
      "embedding",
    );
    const bridge = await spawnBridge([vault]);
    try {
      const st = await ok(bridge.client, "status");
      assert.equal(st.data.mode, "plugin");
      assert.match(bridge.stderr(), /forwarding to the Strata plugin/);
      await t.test("the plugin and a headless bridge on the same notes answer the same", async () => {
        const twin = await copyFixture();
        const headless = await spawnBridge([twin, "--headless", "--no-model"]);
        try {
          const calls: [string, Record<string, unknown>][] = [
            ["search", { queries: ["telescope collimation"], mode: "lexical" }],
            ["search", { queries: ["乌龙茶 水温"], mode: "lexical", top_k: 5 }],
            ["search", { queries: ["sourdough"], mode: "lexical", filters: { folder: "Cooking" } }],
            ["read", { path: "Cooking/Sourdough starter.md", heading: "Feeding schedule" }],
            ["read", { path: "Welcome.md", start_line: 1, max_lines: 5 }],
            ["list", { folder: "日本語" }],
          ];
          // Timings, where the answer came from and the copies' file times may differ; nothing else.
          const stable = (v: unknown): unknown =>
            JSON.parse(
              JSON.stringify(v, (k, x: unknown) => {
                if (/ms$|^took|^mode$|^access$|^last_access|^usage|^modified$/i.test(k)) return undefined;
                // The text form names each note's modified day too (the copies straddle midnight).
                return typeof x === "string" ? x.replace(/modified \d{4}-\d{2}-\d{2}/g, "modified <day>") : x;
              }),
            );
          for (const [tool, args] of calls) {
            const a = await ok(bridge.client, tool, args);
            const b = await ok(headless.client, tool, args);
            assert.deepEqual(stable(a.data), stable(b.data), `${tool} ${JSON.stringify(args)}`);
          }
        } finally {
          await headless.close();
        }
      });
      await exerciseTools(t, bridge.client, vault, (rel) => app.vault.externalChange(rel));
    } finally {
      await bridge.close();
    }
  } finally {
    await unloadPlugin(plugin);
  }
  assert.equal(existsSync(path.join(vault, PLUGIN_DIR, "bridge.json")), false, "bridge.json removed on unload");
});
