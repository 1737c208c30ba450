// Helpers for the MCP bridge tests: spawning the bridge over stdio with the SDK's Client,
// connecting the SDK's Client to the plugin's /mcp over Streamable HTTP, calling tools, and
// the tool checks both modes (headless; plugin running) share.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import * as path from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { ROOT } from "./helpers.ts";

export const BRIDGE = path.join(ROOT, "dist", "mcp-bridge.js");

export interface Bridge {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

/** Spawns `node dist/mcp-bridge.js <args>` and connects the SDK's Client to it over stdio. */
export async function spawnBridge(args: string[], env: Record<string, string> = {}, script = BRIDGE): Promise<Bridge> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script, ...args],
    env: { ...(process.env as Record<string, string>), STRATA_WRITE_TOOLS: "", ...env },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const client = new Client({ name: "strata-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

/** The SDK's Client over Streamable HTTP to `url` (the plugin's /mcp), sending the token as Claude Code does. */
export async function connectHttp(url: string, token: string, name = "strata-http-test"): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(transport);
  return client;
}

export interface Called {
  text: string;
  data: Record<string, any>;
  isError: boolean;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Called> {
  const res = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
  const content = res.content as { type: string; text: string }[];
  return {
    text: content.map((c) => c.text).join("\n"),
    data: (res.structuredContent ?? {}) as Record<string, any>,
    isError: res.isError === true,
  };
}

export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Called> {
  const r = await call(client, name, args);
  assert.equal(r.isError, false, `${name} failed: ${r.text}`);
  return r;
}

export async function refused(client: Client, name: string, args: Record<string, unknown>, pattern: RegExp): Promise<Called> {
  const r = await call(client, name, args);
  assert.equal(r.isError, true, `${name} should have been refused: ${r.text}`);
  assert.match(r.text, pattern);
  return r;
}

export const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

export async function fileHash(file: string): Promise<string> {
  return sha256(await readFile(file));
}

/** Polls status until every chunk has a vector (the bridge embeds in the background). */
export async function waitEmbedded(client: Client, timeoutMs = 120_000): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    const st = await ok(client, "status");
    const e = st.data.embedding;
    if (e && e.total > 0 && e.done >= e.total) return;
    if (Date.now() - t0 > timeoutMs) throw new Error(`embedding did not finish: ${JSON.stringify(e)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

export const TOOL_NAMES = [
  "apply_patch",
  "list",
  "log",
  "memory_save",
  "memory_search",
  "outline",
  "project_snapshot",
  "query",
  "read",
  "search",
  "session_compact",
  "session_diff",
  "session_save",
  "similar",
  "status",
  "tasks",
];
