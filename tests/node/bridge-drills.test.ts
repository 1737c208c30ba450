// Drills on the plugin's loopback endpoint as the plugin runs it (fake Obsidian, the bridge
// setting on, bridge.json in the plugin folder), over raw TCP on 127.0.0.1 so every header is
// exactly what a hostile client sends: no token, a wrong token, a non-loopback Host, an Origin
// (a web page), DNS-rebinding Host names, oversized bodies, slow clients. Each is refused with
// its status, and the endpoint answers a valid request after each one and while slow clients
// hold their connections. The same drills run against the stdio bridge's /v1/call and against
// /mcp, where any MCP client speaks Streamable HTTP.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import * as net from "node:net";
import * as path from "node:path";
import { after, test } from "node:test";

import { cleanupTemps, copyFixture } from "./helpers.ts";
import { eventually, loadPlugin, PLUGIN_DIR, unloadPlugin } from "./plugin-env.ts";
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "../../plugin/bridge/loopback.ts";

after(cleanupTemps);

interface Reply {
  /** The status of the first response, or 0 when the connection closed without one. */
  status: number;
  body: string;
  /** Milliseconds from connecting to the server closing the connection. */
  closedAfterMs: number;
}

/** Sends `parts` (strings written `gapMs` apart) on a fresh connection and reads until the server closes it. */
function raw(port: number, parts: (string | Buffer)[], opts: { gapMs?: number; timeoutMs?: number } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const sock = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const guard = setTimeout(() => {
      sock.destroy();
      reject(new Error(`the server kept the connection open for ${opts.timeoutMs ?? 30_000} ms`));
    }, opts.timeoutMs ?? 30_000);
    const finish = () => {
      clearTimeout(guard);
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("utf8");
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : 0, body: text.slice(text.indexOf("\r\n\r\n") + 4), closedAfterMs: Date.now() - t0 });
    };
    sock.on("data", (c: Buffer) => chunks.push(c));
    sock.on("close", finish);
    // The server may close while the client still writes (a refused body): that is a refusal too.
    sock.on("error", () => undefined);
    let i = 0;
    const next = () => {
      if (i >= parts.length || sock.destroyed) return;
      sock.write(parts[i++]);
      timer = setTimeout(next, opts.gapMs ?? 0);
    };
    sock.on("connect", next);
  });
}

/** A request's head; `Connection: close` so the server ends the connection after answering. */
function head(method: string, target: string, headers: Record<string, string | undefined>): string {
  const lines = [`${method} ${target} HTTP/1.1`];
  for (const [k, v] of Object.entries({ connection: "close", ...headers })) if (v !== undefined) lines.push(`${k}: ${v}`);
  return lines.join("\r\n") + "\r\n\r\n";
}

/** What a valid call to each path of the endpoint sends, and the search result its answer holds. */
const TARGETS = {
  "/v1/call": {
    body: JSON.stringify({ name: "search", arguments: { queries: ["sourdough"], mode: "lexical" } }),
    headers: {} as Record<string, string>,
    topPath: (body: string) =>
      (JSON.parse(body) as { result: { structuredContent: { results: { path: string }[] } } }).result.structuredContent.results[0].path,
  },
  "/mcp": {
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "search", arguments: { queries: ["sourdough"], mode: "lexical" } },
    }),
    headers: { accept: "application/json, text/event-stream" } as Record<string, string>,
    // A server-sent event (in a chunked body): its data line is the JSON-RPC answer.
    topPath: (body: string) =>
      (JSON.parse(/^data: (.+)$/m.exec(body)![1]) as { result: { structuredContent: { results: { path: string }[] } } }).result
        .structuredContent.results[0].path,
  },
};

for (const [target, t] of Object.entries(TARGETS)) {
  test(`the plugin's loopback endpoint refuses hostile requests to ${target} and keeps serving`, async () => {
    const vault = await copyFixture();
    const { plugin } = await loadPlugin(vault, { settings: { bridgeEnabled: true, semantic: false } });
    try {
      const infoFile = path.join(vault, PLUGIN_DIR, "bridge.json");
      const info = await eventually(
        async () => {
          const i = JSON.parse(await readFile(infoFile, "utf8").catch(() => "{}")) as { port?: number; token?: string };
          return i.port && i.token ? (i as { port: number; token: string }) : null;
        },
        30_000,
        "bridge.json",
      );
      const { port, token } = info!;
      assert.equal(plugin.bridge?.port, port);
      const host = `127.0.0.1:${port}`;
      const auth = `Bearer ${token}`;
      const call = (headers: Record<string, string | undefined>, body = t.body) =>
        raw(port, [
          head("POST", target, {
            "content-type": "application/json",
            "content-length": String(Buffer.byteLength(body)),
            ...t.headers,
            ...headers,
          }) + body,
        ]);

      /** A valid call: the endpoint still serves, and answers right. */
      const serves = async (after: string) => {
        const r = await call({ host, authorization: auth });
        assert.equal(r.status, 200, `a valid call after ${after}: ${r.body}`);
        assert.equal(t.topPath(r.body), "Cooking/Sourdough starter.md", after);
      };
      await serves("start-up");

      const refused: [string, Record<string, string | undefined>, number][] = [
        ["no token", { host }, 401],
        ["a wrong token", { host, authorization: `Bearer ${"0".repeat(64)}` }, 401],
        ["a token one character short", { host, authorization: auth.slice(0, -1) }, 401],
        ["the token without Bearer", { host, authorization: token }, 401],
        ["a non-loopback Host", { host: `192.168.1.20:${port}`, authorization: auth }, 403],
        // (Node's HTTP parser answers an HTTP/1.1 request without Host itself.)
        ["no Host", { host: undefined, authorization: auth }, 400],
        ["a Host on another port", { host: `127.0.0.1:${port + 1}`, authorization: auth }, 403],
        ["DNS rebinding: evil.example:PORT", { host: `evil.example:${port}`, authorization: auth }, 403],
        ["DNS rebinding: 127.0.0.1.evil.example", { host: "127.0.0.1.evil.example", authorization: auth }, 403],
        ["DNS rebinding: 127.0.0.1.evil.example:PORT", { host: `127.0.0.1.evil.example:${port}`, authorization: auth }, 403],
        ["DNS rebinding: localhost.evil.example", { host: `localhost.evil.example:${port}`, authorization: auth }, 403],
        ["a Host with credentials", { host: `evil.example@127.0.0.1:${port}`, authorization: auth }, 403],
        ["an Origin (a web page)", { host, authorization: auth, origin: "https://evil.example" }, 403],
        ["Origin: null (a sandboxed page)", { host, authorization: auth, origin: "null" }, 403],
        ["an Origin naming the endpoint itself", { host, authorization: auth, origin: `http://127.0.0.1:${port}` }, 403],
        ["an Origin with no token", { host, origin: "https://evil.example" }, 403],
      ];
      for (const [what, headers, status] of refused) {
        const r = await call(headers);
        assert.equal(r.status, status, `${what}: ${r.body}`);
        assert.doesNotMatch(r.body, /Sourdough/, `${what}: nothing leaks`);
        await serves(what);
      }
      // HTTP/1.0 needs no Host: the endpoint refuses it itself.
      const http10 = await raw(port, [`GET ${target} HTTP/1.0\r\nauthorization: ${auth}\r\n\r\n`]);
      assert.equal(http10.status, 403, http10.body);
      await serves("HTTP/1.0 without Host");
      // A browser's CORS preflight is refused too (it carries an Origin).
      const preflight = await raw(port, [
        head("OPTIONS", target, { host, origin: "https://evil.example", "access-control-request-method": "POST" }),
      ]);
      assert.equal(preflight.status, 403);
      assert.doesNotMatch(preflight.status === 403 ? preflight.body : "", /access-control-allow/i);

      // Oversized bodies: declared too large (refused before a byte of it is read), and streamed
      // in chunks past the limit without a declared length.
      const declared = await raw(port, [
        head("POST", target, {
          host,
          authorization: auth,
          "content-type": "application/json",
          ...t.headers,
          "content-length": String(1 << 30),
        }),
        "x".repeat(64 * 1024),
      ]);
      assert.equal(declared.status, 413, declared.body);
      await serves("a declared 1 GB body");
      const chunk = "x".repeat(256 * 1024);
      const chunked = await raw(
        port,
        [
          head("POST", target, {
            host,
            authorization: auth,
            "content-type": "application/json",
            ...t.headers,
            "transfer-encoding": "chunked",
          }),
          ...Array.from({ length: 8 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`),
          "0\r\n\r\n",
        ],
        { gapMs: 5 },
      );
      assert.equal(chunked.status, 413, chunked.body);
      await serves("a 2 MB chunked body");

      // Slow clients: headers trickled a few bytes at a time, and a body announced and never
      // finished. The endpoint cuts both (408) within its timeouts and serves others meanwhile.
      const request = head("POST", target, {
        host,
        authorization: auth,
        "content-type": "application/json",
        ...t.headers,
        "content-length": "64",
      });
      const trickle = raw(
        port,
        Array.from({ length: 400 }, (_, i) => request.slice(i * 2, i * 2 + 2)).filter((s) => s !== ""),
        { gapMs: 250, timeoutMs: HEADERS_TIMEOUT_MS + 5_000 },
      );
      const unfinished = raw(port, [request, t.body.slice(0, 24)], { timeoutMs: REQUEST_TIMEOUT_MS + 5_000 });
      // And a connection that never sends a byte.
      const silent = raw(port, [], { timeoutMs: REQUEST_TIMEOUT_MS + 5_000 });
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 1000));
        await serves("slow clients connected");
      }
      const [tr, u, q] = await Promise.all([trickle, unfinished, silent]);
      assert.equal(tr.status, 408, `trickled headers: ${tr.body}`);
      assert.ok(tr.closedAfterMs < HEADERS_TIMEOUT_MS + 3_000, `trickled headers cut after ${tr.closedAfterMs} ms`);
      assert.equal(u.status, 408, `an unfinished body: ${u.body}`);
      assert.ok(u.closedAfterMs < REQUEST_TIMEOUT_MS + 3_000, `an unfinished body cut after ${u.closedAfterMs} ms`);
      assert.ok(q.closedAfterMs < REQUEST_TIMEOUT_MS + 3_000, `a silent connection closed after ${q.closedAfterMs} ms`);
      await serves("slow clients cut");
    } finally {
      await unloadPlugin(plugin);
    }
  });
}
