// MCP over HTTP beside the plugin's own work (the fake-obsidian harness): a long MCP call
// (project_snapshot of a project whose session notes are long) runs while the sidebar searches
// and another client calls, and neither waits for it; the long call is cancelled by its client
// (notifications/cancelled) and stops at its next step, with no answer sent; so does one the
// stdio bridge forwards. And hostile paths
// get the same refusals over HTTP as through the stdio bridge forwarding to the same plugin.

import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, test } from "node:test";

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

import type { StrataView } from "../../plugin/obsidian/sidebar.ts";
import { call, connectHttp, ok, spawnBridge } from "./bridge-helpers.ts";
import { cleanupTemps, copyFixture, hashTree } from "./helpers.ts";
import { eventually, loadPlugin, unloadPlugin, type StrataPluginT } from "./plugin-env.ts";

after(cleanupTemps);

/** Session notes of the project Projects/Alpha, each with `entries` entries: what makes its snapshot long. */
async function longSessions(vault: string, sessions = 30, entries = 400): Promise<void> {
  await mkdir(path.join(vault, "Strata/Sessions"), { recursive: true });
  await mkdir(path.join(vault, "Projects/Alpha"), { recursive: true });
  await writeFile(
    path.join(vault, "Projects/Alpha/Alpha.md"),
    "# Alpha\n\nThe alpha project: a larkspur pipeline.\n\n- [ ] Ship the spec\n",
  );
  for (let i = 0; i < sessions; i++) {
    const body = Array.from(
      { length: entries },
      (_, j) =>
        `## Entry ${j + 1}\n\n### Overview\n\nWorked on [[Projects/Alpha/Alpha]], step ${j}: the larkspur pipeline's stages and their tests.\n\n` +
        `### Decisions\n\n- Decision ${j} of session ${i}\n\n### Sources\n\n- Projects/Alpha/Alpha.md\n`,
    ).join("\n");
    const id = `s-202601${String((i % 28) + 1).padStart(2, "0")}-1200${String(i).padStart(2, "0")}-a${String(i).padStart(3, "0")}`;
    await writeFile(
      path.join(vault, `Strata/Sessions/${id}.md`),
      `---\ntype: strata-session\nid: ${id}\nstatus: active\nupdated: 2026-01-01T12:00:00Z\n---\n\n# Session ${i}\n\n${body}`,
    );
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const stats = (plugin: StrataPluginT) => plugin.bridge!.mcpStats!();

test("a long MCP call neither holds up the sidebar nor another client, and its client can cancel it", async (t) => {
  const vault = await copyFixture();
  await longSessions(vault);
  const { plugin, app } = await loadPlugin(vault, { settings: { bridgeEnabled: true, semantic: false } });
  const clients: Client[] = [];
  try {
    await eventually(async () => plugin.bridge?.port, 10_000, "the endpoint");
    const url = `http://127.0.0.1:${plugin.bridge!.port}/mcp`;
    const [client, other] = await Promise.all([
      connectHttp(url, plugin.settings.bridgeToken, "long"),
      connectHttp(url, plugin.settings.bridgeToken, "other"),
    ]);
    clients.push(client, other);
    const errors: Error[] = [];
    client.onerror = (err) => errors.push(err);
    assert.ok(app.runCommand("strata-search:open-search-sidebar"));
    await eventually(async () => app.workspace.getLeavesOfType("strata-search").length > 0, 5000, "the sidebar");
    const view = app.workspace.getLeavesOfType("strata-search")[0].view as unknown as StrataView;
    const queries = ["sourdough starter", "telescope mirror", "drip irrigation", "bicycle chain", "hot sauce", "reading list"];
    const sidebarSearch = async (i: number) => {
      const t0 = performance.now();
      await view.setQuery(queries[i % queries.length]);
      return performance.now() - t0;
    };
    const snapshot = { folder: "Projects/Alpha" };

    // Each alone: the sidebar's search, and the long call (warm).
    for (let i = 0; i < 3; i++) await sidebarSearch(i);
    const idle: number[] = [];
    for (let i = 0; i < 7; i++) idle.push(await sidebarSearch(i));
    let t0 = performance.now();
    const alone = await ok(client, "project_snapshot", snapshot);
    const longMs = performance.now() - t0;
    assert.match(alone.text, /Sessions about Projects\/Alpha \(30\)/);
    t.diagnostic(`alone: sidebar search median ${median(idle).toFixed(1)} ms, the long call ${longMs.toFixed(0)} ms`);
    assert.ok(longMs > 5 * median(idle), `the long call (${longMs.toFixed(0)} ms) is long beside a search (${median(idle).toFixed(1)} ms)`);

    await t.test("the sidebar and another client search while the long call runs", async () => {
      let done = 0;
      t0 = performance.now();
      const long = ok(client, "project_snapshot", snapshot).then((r) => ((done = performance.now() - t0), r));
      await eventually(async () => stats(plugin).inFlight >= 1, 5000, "the long call under way");
      const during: { ms: number; whileInFlight: boolean }[] = [];
      for (let i = 0; i < 3; i++) {
        const ms = await sidebarSearch(i);
        during.push({ ms, whileInFlight: done === 0 });
        const s0 = performance.now();
        const r = await ok(other, "search", { queries: [queries[i]], mode: "lexical", top_k: 3 });
        during.push({ ms: performance.now() - s0, whileInFlight: done === 0 });
        assert.ok(r.data.results.length > 0);
      }
      await long;
      t.diagnostic(
        `during the long call (${done.toFixed(0)} ms): ${during.map((d) => `${d.ms.toFixed(1)}${d.whileInFlight ? "" : " (after)"}`).join(", ")} ms`,
      );
      // Neither the first sidebar search nor the other client's first search waited for the long call's end.
      assert.ok(during[0].whileInFlight, `the sidebar search answered before the long call ended (${done.toFixed(0)} ms)`);
      assert.ok(during[1].whileInFlight, "the other client's search answered before the long call ended");
      assert.ok(during[0].ms < done / 2, `sidebar search ${during[0].ms.toFixed(1)} ms while the long call took ${done.toFixed(0)} ms`);
    });

    await t.test("the client cancels the long call: it stops at its next step, and no answer is sent", async () => {
      const before = stats(plugin).cancelled;
      const abort = new AbortController();
      const started = performance.now();
      const pending = client.callTool({ name: "project_snapshot", arguments: snapshot }, undefined, { signal: abort.signal });
      await eventually(async () => stats(plugin).inFlight >= 1, 5000, "the long call under way");
      await new Promise((r) => setTimeout(r, 20));
      abort.abort("the user pressed Esc");
      await assert.rejects(pending, /abort|cancel|Esc/i);
      await eventually(async () => stats(plugin).inFlight === 0, 5000, "the call stopped");
      const stoppedMs = performance.now() - started;
      assert.equal(stats(plugin).cancelled, before + 1);
      t.diagnostic(`cancelled: stopped after ${stoppedMs.toFixed(0)} ms (the call takes ${longMs.toFixed(0)} ms)`);
      assert.ok(stoppedMs < longMs, `stopped after ${stoppedMs.toFixed(0)} ms, before the call's ${longMs.toFixed(0)} ms`);
      // No late answer reached the client (the SDK reports one for a request it no longer knows).
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(
        errors.map((e) => e.message),
        [],
      );
      // Both clients go on.
      await ok(client, "status");
      await ok(other, "search", { queries: ["sourdough"], mode: "lexical" });
    });

    await t.test(
      "through the stdio bridge too: its client cancels, the bridge closes the forwarded call, the plugin stops it",
      async () => {
        const bridge = await spawnBridge([vault]);
        try {
          await ok(bridge.client, "status"); // the bridge found the plugin
          const before = stats(plugin).cancelled;
          const abort = new AbortController();
          const started = performance.now();
          const pending = bridge.client.callTool({ name: "project_snapshot", arguments: snapshot }, undefined, { signal: abort.signal });
          await new Promise((r) => setTimeout(r, 200));
          abort.abort("the user pressed Esc");
          await assert.rejects(pending, /abort|cancel|Esc/i);
          await eventually(async () => stats(plugin).cancelled === before + 1, 5000, "the plugin's call stopped");
          const stoppedMs = performance.now() - started;
          t.diagnostic(`through the bridge: stopped after ${stoppedMs.toFixed(0)} ms (the call takes ${longMs.toFixed(0)} ms)`);
          assert.ok(stoppedMs < longMs, `stopped after ${stoppedMs.toFixed(0)} ms, before the call's ${longMs.toFixed(0)} ms`);
          await ok(bridge.client, "status");
        } finally {
          await bridge.close();
        }
      },
    );

    await t.test("a client's cancellation never reaches another client's call of the same request id", async () => {
      // The two clients number their requests alike; `other` cancels its own (finished) request
      // ids while `client` runs the long call: the long call is answered.
      const long = ok(client, "project_snapshot", snapshot);
      await eventually(async () => stats(plugin).inFlight >= 1, 5000, "the long call under way");
      const before = stats(plugin).cancelled;
      for (let id = 0; id < 40; id++)
        await other.notification({ method: "notifications/cancelled", params: { requestId: id, reason: "test" } });
      const r = await long;
      assert.match(r.text, /Sessions about Projects\/Alpha \(30\)/);
      assert.equal(stats(plugin).cancelled, before);
    });
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    await unloadPlugin(plugin);
  }
});

test("hostile paths: refused over HTTP exactly as through the stdio bridge forwarding to the same plugin; writes off until allowed", async () => {
  const vault = await copyFixture();
  const { plugin } = await loadPlugin(vault, { settings: { bridgeEnabled: true, semantic: false, writeToolsEnabled: false } });
  let http: Client | undefined;
  let bridge: Awaited<ReturnType<typeof spawnBridge>> | undefined;
  try {
    await eventually(async () => plugin.bridge?.port, 10_000, "the endpoint");
    http = await connectHttp(`http://127.0.0.1:${plugin.bridge!.port}/mcp`, plugin.settings.bridgeToken);
    bridge = await spawnBridge([vault]);
    const secret = path.join(path.dirname(vault), "secret.md");
    await writeFile(secret, "# Secret\n\nThe outside secret.\n");
    const edit = { type: "replace_section", heading: "Secret", content: "overwritten" };
    const hash = "0".repeat(64);
    const cases: [string, Record<string, unknown>][] = [
      ["read", { path: "../secret.md" }],
      ["read", { path: "Cooking/../../secret.md" }],
      ["read", { path: secret }],
      ["read", { path: "C:\\Windows\\win.ini" }],
      ["read", { path: ".obsidian/plugins/strata-search/bridge.json" }],
      ["read", { path: ".obsidian/plugins/strata-search/data.json" }],
      ["read", { path: "Welcome.md\u0000.md" }],
      ["similar", { path: "../secret.md" }],
      ["outline", { path: "../secret.md" }],
      ["list", { folder: "../" }],
      ["tasks", { path: "/etc/passwd" }],
      ["search", { queries: ["secret"], filters: { folder: "/etc" } }],
      ["apply_patch", { path: "../secret.md", expected_hash: hash, edit, reason: "attack" }],
      ["apply_patch", { path: ".obsidian/app.json", expected_hash: hash, edit, reason: "attack" }],
      ["apply_patch", { path: "Welcome.md", expected_hash: hash, edit, reason: "writes are off" }],
      ["session_save", { overview: "writes are off" }],
      ["memory_save", { level: "project", text: "writes are off" }],
    ];
    const vaultBefore = await hashTree(vault, [".obsidian"]);
    const secretBefore = await readFile(secret, "utf8");
    for (const [name, args] of cases) {
      const h = await call(http, name, args);
      const s = await call(bridge.client, name, args);
      assert.equal(h.isError, true, `${name} ${JSON.stringify(args)} over HTTP: ${h.text}`);
      assert.deepEqual({ isError: h.isError, text: h.text }, { isError: s.isError, text: s.text }, `${name} ${JSON.stringify(args)}`);
    }
    // With the write tools on, the hostile writes are still refused, alike.
    plugin.settings.writeToolsEnabled = true;
    for (const [name, args] of cases.filter(([, a]) => a.reason === "attack")) {
      const h = await call(http, name, args);
      const s = await call(bridge.client, name, args);
      assert.equal(h.isError, true, `${name} ${JSON.stringify(args)} over HTTP: ${h.text}`);
      assert.equal(h.text, s.text);
      assert.match(h.text, /leave the vault|config folder/);
    }
    assert.deepEqual(await hashTree(vault, [".obsidian"]), vaultBefore, "nothing written in the vault");
    assert.equal(await readFile(secret, "utf8"), secretBefore, "nothing written outside it");
  } finally {
    await http?.close();
    await bridge?.close();
    await unloadPlugin(plugin);
  }
});
