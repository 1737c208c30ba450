// Security of the bridge and the loopback endpoint: token, Host and Origin checks, body cap,
// bridge.json permissions; paths leaving the vault (.., absolute, config folder, symlinks)
// refused with nothing written; garbage arguments answered with clear errors.

import assert from "node:assert/strict";
import { chmod, mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import * as http from "node:http";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { HeadlessBackend } from "../../plugin/bridge/headless.ts";
import { newBridgeToken, startLoopbackServer, writeBridgeInfo, type LoopbackServer } from "../../plugin/bridge/loopback.ts";
import { type Bridge, call, ok, refused, sha256, spawnBridge } from "./bridge-helpers.ts";
import { cleanupTemps, copyFixture, hashTree, tempDir } from "./helpers.ts";

after(cleanupTemps);

function httpRequest(port: number, opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer }) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, method: opts.method ?? "GET", path: opts.path ?? "/v1/ping", headers: opts.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString();
          let body: any = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on("error", (err) => {
      // The server may cut an oversized upload short.
      if ((err as NodeJS.ErrnoException).code === "EPIPE" || (err as NodeJS.ErrnoException).code === "ECONNRESET")
        resolve({ status: 413, body: "reset" });
      else reject(err);
    });
    if (opts.body) req.write(opts.body);
    req.end();
  });
}

test("loopback endpoint: token, Host, Origin, body size, methods", async () => {
  const vault = await copyFixture();
  const backend = await HeadlessBackend.open({ vaultDir: vault, modelsDir: null });
  const token = newBridgeToken();
  let server: LoopbackServer | undefined;
  try {
    server = await startLoopbackServer({ backend, token });
    const port = server.port;
    const auth = { authorization: `Bearer ${token}` };
    const callBody = JSON.stringify({ name: "search", arguments: { queries: ["sourdough"] } });
    const post = (headers: Record<string, string>, body = callBody) =>
      httpRequest(port, { method: "POST", path: "/v1/call", headers: { "content-type": "application/json", ...headers }, body });

    const ping = await httpRequest(port, { headers: auth });
    assert.equal(ping.status, 200);
    assert.equal(ping.body.server, "strata");
    const good = await post(auth);
    assert.equal(good.status, 200);
    assert.equal(good.body.result.structuredContent.results[0].path, "Cooking/Sourdough starter.md");

    assert.equal((await post({})).status, 401, "missing token");
    assert.equal((await post({ authorization: `Bearer ${"0".repeat(64)}` })).status, 401, "wrong token");
    assert.equal((await post({ authorization: token })).status, 401, "token without Bearer");
    assert.equal((await post({ ...auth, origin: "https://evil.example" })).status, 403, "Origin header");
    assert.equal((await post({ ...auth, origin: "null" })).status, 403, "Origin: null");
    assert.equal((await post({ ...auth, host: `evil.example:${port}` })).status, 403, "rebound Host");
    assert.equal((await post({ ...auth, host: `127.0.0.1:${port + 1}` })).status, 403, "other port in Host");
    assert.equal((await post({ ...auth, host: `localhost:${port}` })).status, 200, "localhost is loopback");
    assert.equal((await post(auth, "{not json")).status, 400);
    assert.equal((await post(auth, JSON.stringify({ arguments: {} }))).status, 400);
    assert.equal((await post(auth, "x".repeat(1024 * 1024 + 10))).status, 413);
    assert.equal((await httpRequest(port, { path: "/v1/call", headers: auth })).status, 405);
    assert.equal((await httpRequest(port, { path: "/v2/whatever", headers: auth })).status, 404);
    // A write tool over HTTP with the right token: refused while the user has not enabled them.
    const w = await post(auth, JSON.stringify({ name: "session_save", arguments: { overview: "x" } }));
    assert.equal(w.status, 200);
    assert.equal(w.body.result.isError, true);
    assert.match(w.body.result.content[0].text, /turned off/);
    assert.equal(await stat(path.join(vault, "Strata")).catch(() => null), null, "nothing written");
    // Unknown tools and garbage arguments: clear errors, the server keeps serving.
    const junk = await post(auth, JSON.stringify({ name: "read", arguments: [1, 2, 3] }));
    assert.equal(junk.body.result.isError, true);
    assert.match(junk.body.result.content[0].text, /arguments must be an object/);
    assert.equal((await httpRequest(port, { headers: auth })).status, 200);
  } finally {
    await server?.close();
    await backend.close();
  }
  await assert.rejects(() => startLoopbackServer({ backend, token: "short" }), /at least 16 characters/);
});

test("bridge.json is written with mode 0600, also over a wider existing file", async () => {
  const dir = path.join(await tempDir(), "plugins", "strata-search");
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "bridge.json"), "{}", { mode: 0o644 });
  await chmod(path.join(dir, "bridge.json"), 0o644);
  const file = await writeBridgeInfo(dir, { port: 1234, token: "t".repeat(32), pid: 42, vault: "v" });
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  const info = JSON.parse(await readFile(file, "utf8"));
  assert.deepEqual(
    { port: info.port, token: info.token, pid: info.pid, vault: info.vault },
    { port: 1234, token: "t".repeat(32), pid: 42, vault: "v" },
  );
});

let bridge: Bridge;
let vault: string;
let outside: string;

before(async () => {
  vault = await copyFixture();
  outside = path.join(await tempDir(), "outside");
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.md"), "# Secret\n\nThe outside secret.\n");
  await symlink(path.join(outside, "secret.md"), path.join(vault, "Linked.md"));
  await symlink(outside, path.join(vault, "Out"));
  // The sessions/memory/changelog folder "Strata" is a symlink that leaves the vault.
  await symlink(outside, path.join(vault, "Strata"));
  bridge = await spawnBridge([vault, "--write-tools", "--no-model", "--headless"]);
});

after(async () => {
  await bridge?.close();
});

test("paths that leave the vault are refused and nothing is written", async () => {
  const c = bridge.client;
  await ok(c, "status");
  const outsideBefore = await hashTree(outside);
  const vaultBefore = await hashTree(vault, [".obsidian"]);
  const secretHash = sha256(await readFile(path.join(outside, "secret.md")));

  await refused(c, "read", { path: "../outside/secret.md" }, /may not leave the vault/);
  await refused(c, "read", { path: "Cooking/../../outside/secret.md" }, /may not leave the vault/);
  await refused(c, "read", { path: path.join(outside, "secret.md") }, /absolute paths are not accepted/);
  await refused(c, "read", { path: "C:\\Windows\\win.ini" }, /absolute paths/);
  await refused(c, "read", { path: ".obsidian/plugins/strata-search/audit.jsonl" }, /config folder/);
  await refused(c, "read", { path: "Linked.md" }, /symbolic link/);
  await refused(c, "read", { path: "Out/secret.md" }, /symbolic link/);
  await refused(c, "similar", { path: "../outside/secret.md" }, /may not leave the vault/);
  await refused(c, "list", { folder: "../outside" }, /may not leave the vault/);
  await refused(c, "search", { queries: ["secret"], filters: { folder: "/etc" } }, /absolute/);
  const edit = { type: "replace_section", heading: "Secret", content: "overwritten" };
  await refused(c, "apply_patch", { path: "Linked.md", expected_hash: secretHash, edit, reason: "attack" }, /symbolic link/);
  await refused(c, "apply_patch", { path: "Out/secret.md", expected_hash: secretHash, edit, reason: "attack" }, /symbolic link/);
  await refused(c, "apply_patch", { path: "../outside/secret.md", expected_hash: secretHash, edit, reason: "attack" }, /leave the vault/);
  await refused(c, "apply_patch", { path: ".obsidian/app.json", expected_hash: secretHash, edit, reason: "attack" }, /config folder/);
  // The sessions and memory folders sit under the symlinked "Strata": refused.
  await refused(c, "session_save", { overview: "attack through a symlinked folder" }, /symbolic link/);
  await refused(c, "memory_save", { level: "project", text: "attack" }, /symbolic link/);
  // The symlinked note was never indexed, so search does not leak it.
  const s = await ok(c, "search", { queries: ["outside secret"], mode: "lexical" });
  assert.ok(s.data.results.every((h: any) => !["Linked.md", "Out/secret.md"].includes(h.path)));

  assert.deepEqual(await hashTree(outside), outsideBefore, "nothing written outside the vault");
  assert.deepEqual(await hashTree(vault, [".obsidian"]), vaultBefore, "nothing written in the vault");
});

test("garbage arguments get clear errors and the bridge keeps serving", async () => {
  const c = bridge.client;
  const cases: [string, unknown, RegExp][] = [
    ["search", { queries: [42] }, /queries\[0\] must be a string/],
    ["search", { queries: ["x".repeat(600)] }, /limit is 500/],
    ["search", { queries: ["a"], mode: "psychic" }, /mode must be one of/],
    ["search", { queries: ["a"], filters: { property: { key: "a" } } }, /value is required/],
    ["read", {}, /path is required/],
    ["read", { path: "Welcome.md", start_line: -3 }, /start_line must be between/],
    ["read", { path: "Welcome.md", heading: "x", start_line: 2 }, /only one of/],
    ["read", { path: "Welcome.md\u0000.md" }, /NUL/],
    ["similar", {}, /exactly one of path or section_id/],
    ["list", { limit: 100000 }, /limit must be between/],
    ["memory_search", { level: "galaxy" }, /level must be one of/],
    ["memory_save", { level: "task", text: "x", metadata: { "bad key!": 1 } }, /metadata key/],
    ["session_compact", { session_id: "../x" }, /not an id/],
    ["apply_patch", { path: "Welcome.md" }, /expected_hash is required/],
    ["no_such_tool", {}, /unknown tool/],
  ];
  for (const [name, args, pattern] of cases) {
    const r = await call(c, name, args as Record<string, unknown>);
    assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} → ${r.text}`);
    assert.match(r.text, pattern, `${name} ${JSON.stringify(args)}`);
  }
  const st = await ok(c, "status");
  assert.equal(st.data.notes, 14);
});
