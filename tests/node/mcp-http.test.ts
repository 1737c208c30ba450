// MCP over Streamable HTTP against the real plugin (the fake-obsidian harness of
// tests/node/plugin-env.ts): the official SDK client connects to /mcp with the address and
// token Settings → Claude shows, lists the tools (the stdio bridge's, from the one table), runs
// every tool as the stdio bridge's tests do, is refused a write while write tools are off and
// has it applied once they are on; every protocol version the SDK knows is negotiated; two
// clients at once get their own answers and their own names in the audit log; the "Turn on"
// and "Rotate token" buttons do what they say (rotating cuts off the old token's clients).

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import * as path from "node:path";
import { after, test } from "node:test";

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";

import { TOOLS } from "../../plugin/bridge/tools.ts";
import { call, connectHttp, ok, refused, sha256 } from "./bridge-helpers.ts";
import { exerciseTools } from "./bridge-scenario.ts";
import { copyFixtureWithVectors } from "./embedded-fixture.ts";
import { cleanupTemps, copyFixture, MODEL } from "./helpers.ts";
import { eventually, installModel, loadPlugin, PLUGIN_DIR, unloadPlugin, type AppT } from "./plugin-env.ts";
import { all, settingRow, type El } from "./settings-rows.ts";

after(cleanupTemps);

/** The address and token of the `claude mcp add --transport http` command Settings → Claude shows. */
function shownCommand(app: AppT): { url: string; token: string } | null {
  app.openSettingTab(app.settingTabs[0]);
  const desc = settingRow(app, "Connect over HTTP")?.desc ?? "";
  const m = /claude mcp add --transport http strata (\S+) --header "Authorization: Bearer ([0-9a-f]+)"/.exec(desc);
  return m ? { url: m[1], token: m[2] } : null;
}

/** Clicks the shown settings tab's button labelled `text`. */
function click(app: AppT, text: string): void {
  const button = all(app.settingTabs[0].containerEl as unknown as El).find((e) => e.tagName === "button" && e.getText() === text);
  if (!button) throw new Error(`no button ${text}`);
  button.dispatch("click");
}

/** A raw JSON-RPC POST to /mcp: the status, the session id and the messages of its answer (JSON or server-sent events). */
async function post(url: string, token: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const messages = (res.headers.get("content-type") ?? "").includes("text/event-stream")
    ? text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => JSON.parse(l.slice(6)) as Record<string, any>)
    : text
      ? [JSON.parse(text) as Record<string, any>]
      : [];
  return { status: res.status, session: res.headers.get("mcp-session-id"), messages };
}

const initialize = (version: string, name = "raw-client") => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name, version: "0.0.1" } },
});

test("MCP over HTTP: the plugin serves the SDK's client every tool, at the address and with the token the settings show", async (t) => {
  // The shared vectors hold the fixture's (the cached copy): the plugin embeds what the tools change.
  const vault = await copyFixtureWithVectors();
  if (MODEL) await installModel(vault);
  const { plugin, app } = await loadPlugin(vault, { settings: { bridgeEnabled: true, semantic: Boolean(MODEL) } });
  const clients: Client[] = [];
  try {
    // In this harness the engine shares the test's thread: let it finish embedding first.
    await eventually(
      async () => {
        const e = (await plugin.backend.status()).embedding;
        return !e || e.done >= e.total;
      },
      120_000,
      "embedding",
    );
    const shown = (await eventually(async () => shownCommand(app), 10_000, "the HTTP command"))!;
    assert.equal(shown.url, `http://127.0.0.1:${plugin.bridge!.port}/mcp`);
    assert.equal(shown.token, plugin.settings.bridgeToken);
    const config = JSON.parse(settingRow(app, "MCP client configuration")!.desc.replace(/^[^{]*/, "")) as Record<string, any>;
    assert.deepEqual(config, {
      mcpServers: { strata: { type: "http", url: shown.url, headers: { Authorization: `Bearer ${shown.token}` } } },
    });
    const client = await connectHttp(shown.url, shown.token);
    clients.push(client);

    await t.test("the same tools, schemas and annotations as the stdio bridge (one table)", async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(JSON.parse(JSON.stringify(tools)), JSON.parse(JSON.stringify(TOOLS)));
      assert.match(client.getInstructions() ?? "", /Strata searches and reads the user's Obsidian vault/);
    });

    await t.test("a write is refused while write tools are off, and applied with expected_hash once they are on", async () => {
      const rel = "Astronomy/Telescope care.md";
      const file = path.join(vault, rel);
      const before = await readFile(file, "utf8");
      const r = await ok(client, "read", { path: rel, whole: true, max_chars: 20_000 });
      assert.equal(r.data.content_hash, sha256(before));
      const heading = /^## (.+)$/m.exec(before)![1];
      const edit = { type: "replace_section", heading, content: "Kestrelwhistle cleaning, written over HTTP." };
      plugin.settings.writeToolsEnabled = false;
      await refused(client, "apply_patch", { path: rel, expected_hash: r.data.content_hash, edit, reason: "test" }, /turned off/);
      await refused(client, "session_save", { overview: "nothing" }, /turned off/);
      assert.equal(await readFile(file, "utf8"), before, "nothing written");
      // The toggle "Allow write tools", as the settings tab sets it.
      plugin.settings.writeToolsEnabled = true;
      await plugin.saveSettings();
      await refused(
        client,
        "apply_patch",
        { path: rel, expected_hash: sha256("another text"), edit, reason: "stale" },
        /changed since you read it/,
      );
      const p = await ok(client, "apply_patch", { path: rel, expected_hash: r.data.content_hash, edit, reason: "test: over HTTP" });
      const after = await readFile(file, "utf8");
      assert.equal(p.data.new_hash, sha256(after));
      assert.match(after, /Kestrelwhistle cleaning, written over HTTP\./);
      const s = await ok(client, "search", { queries: ["kestrelwhistle"], mode: "lexical" });
      assert.equal(s.data.results[0]?.path, rel);
      // The audit log names the client from its handshake.
      const audit = (await readFile(path.join(vault, PLUGIN_DIR, "audit.jsonl"), "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      assert.equal(audit.at(-1).actor, "strata-http-test 1.0.0");
    });

    await exerciseTools(t, client, vault, (rel) => app.vault.externalChange(rel));

    await t.test("every protocol version the SDK supports is negotiated; an unknown one gets the latest", async () => {
      for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
        const init = await post(shown.url, shown.token, initialize(version));
        assert.equal(init.status, 200, version);
        assert.equal(init.messages[0].result.protocolVersion, version);
        assert.equal(init.messages[0].result.serverInfo.name, "strata");
        assert.match(init.session ?? "", /^[0-9a-f-]{36}$/);
        const list = await post(
          shown.url,
          shown.token,
          { jsonrpc: "2.0", id: 2, method: "tools/list" },
          { "mcp-protocol-version": version, "mcp-session-id": init.session! },
        );
        assert.equal(list.status, 200, version);
        assert.equal(list.messages[0].result.tools.length, TOOLS.length);
      }
      const future = await post(shown.url, shown.token, initialize("2099-01-01"));
      assert.equal(future.messages[0].result.protocolVersion, LATEST_PROTOCOL_VERSION);
      const bad = await post(
        shown.url,
        shown.token,
        { jsonrpc: "2.0", id: 3, method: "tools/list" },
        { "mcp-protocol-version": "1999-01-01" },
      );
      assert.equal(bad.status, 400);
      // Stateless: a request without the session id, or with one the server never gave (an
      // Obsidian restarted since), is served.
      const extras: Record<string, string>[] = [{}, { "mcp-session-id": "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0" }];
      for (const extra of extras) {
        const res = await post(shown.url, shown.token, { jsonrpc: "2.0", id: 4, method: "tools/list" }, extra);
        assert.equal(res.status, 200);
        assert.equal(res.messages[0].result.tools.length, TOOLS.length);
      }
      // No server-sent stream of the server's own.
      const get = await fetch(shown.url, { headers: { authorization: `Bearer ${shown.token}`, accept: "text/event-stream" } });
      assert.equal(get.status, 405);
      await get.body?.cancel();
    });

    await t.test("two clients at once: each gets its own answers and its own name in the audit log", async () => {
      const [alpha, beta] = await Promise.all([connectHttp(shown.url, shown.token, "alpha"), connectHttp(shown.url, shown.token, "beta")]);
      clients.push(alpha, beta);
      const asks: [Client, string, string][] = [
        [alpha, "sourdough starter", "Cooking/Sourdough starter.md"],
        [beta, "telescope collimation", "Astronomy/Telescope care.md"],
        [alpha, "drip irrigation emitters", "Garden/Drip irrigation.md"],
        [beta, "泡茶 水温", "中文/茶道笔记.md"],
      ];
      const answers = await Promise.all([...asks, ...asks].map(([c, q]) => ok(c, "search", { queries: [q], mode: "lexical", top_k: 3 })));
      answers.forEach((a, i) => assert.equal(a.data.results[0]?.path, asks[i % asks.length][2], asks[i % asks.length][1]));
      const [a, b] = await Promise.all([
        ok(alpha, "memory_save", { level: "project", text: "Alpha's memory of the owlfinch project." }),
        ok(beta, "memory_save", { level: "project", text: "Beta's memory of the owlfinch project." }),
      ]);
      const audit = (await readFile(path.join(vault, PLUGIN_DIR, "audit.jsonl"), "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      assert.equal(audit.find((e) => e.path === a.data.path).actor, "alpha 1.0.0");
      assert.equal(audit.find((e) => e.path === b.data.path).actor, "beta 1.0.0");
    });
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    await unloadPlugin(plugin);
  }
});

test("Settings → Claude: Turn on starts the endpoint; Rotate token cuts off the clients of the old token", async () => {
  const vault = await copyFixture();
  const { plugin, app } = await loadPlugin(vault, { settings: { bridgeEnabled: false, semantic: false } });
  const clients: Client[] = [];
  try {
    app.openSettingTab(app.settingTabs[0]);
    assert.equal(shownCommand(app), null);
    assert.match(settingRow(app, "Connect over HTTP")!.desc, /once the endpoint is on/);
    assert.equal(settingRow(app, "MCP client configuration"), undefined, "no configuration to copy while off");
    click(app, "Turn on");
    const first = (await eventually(async () => shownCommand(app), 10_000, "the HTTP command"))!;
    assert.equal(plugin.settings.bridgeEnabled, true);
    const info = JSON.parse(await readFile(path.join(vault, PLUGIN_DIR, "bridge.json"), "utf8")) as { port: number; token: string };
    assert.equal(first.url, `http://127.0.0.1:${info.port}/mcp`);
    assert.equal(first.token, info.token);

    // The port would change at the next start: keep it.
    assert.ok(settingRow(app, "Keep this port"));
    click(app, `Keep port ${info.port}`);
    await eventually(async () => plugin.settings.bridgePort === info.port, 3000, "the kept port");
    await eventually(async () => !settingRow(app, "Keep this port"), 3000, "the row gone");

    const old = await connectHttp(first.url, first.token, "old");
    clients.push(old);
    assert.equal(
      (await ok(old, "search", { queries: ["sourdough"], mode: "lexical" })).data.results[0].path,
      "Cooking/Sourdough starter.md",
    );
    click(app, "Rotate token");
    const second = (await eventually(
      async () => {
        const s = shownCommand(app);
        return s && s.token !== first.token ? s : null;
      },
      10_000,
      "the new token",
    ))!;
    assert.equal(second.url, first.url, "the kept port stays");
    // (The endpoint restarts with the new token: serving once the button's work is done.)
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    await eventually(
      async () => (await post(second.url, second.token, list).catch(() => ({ status: 0 }))).status === 200,
      10_000,
      "the restart",
    );
    // The old token's client is cut off: its open connection was closed, and its calls are refused (401), not answered.
    await assert.rejects(() => call(old, "search", { queries: ["sourdough"], mode: "lexical" }));
    await assert.rejects(
      () => call(old, "search", { queries: ["sourdough"], mode: "lexical" }),
      (err: { code?: unknown; message?: string }) => err.code === 401 && /wrong token/.test(err.message ?? ""),
    );
    const oldRaw = await post(first.url, first.token, list);
    assert.equal(oldRaw.status, 401);
    const fresh = await connectHttp(second.url, second.token, "new");
    clients.push(fresh);
    assert.equal(
      (await ok(fresh, "search", { queries: ["sourdough"], mode: "lexical" })).data.results[0].path,
      "Cooking/Sourdough starter.md",
    );
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    await unloadPlugin(plugin);
  }
  assert.equal(existsSync(path.join(vault, PLUGIN_DIR, "bridge.json")), false, "bridge.json removed on unload");
});
