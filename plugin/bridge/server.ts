// The stdio MCP server Claude starts. Given a vault, it forwards every tool call to the
// running Obsidian plugin when bridge.json names one that answers, and otherwise serves the
// same tools itself over the headless backend. It switches either way between calls:
// Obsidian started → forward (the headless index is let go unpersisted, the plugin owns
// the index now); Obsidian quit → headless.

import * as fs from "node:fs/promises";
import * as path from "node:path";

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

import type { ToolSettings } from "../core/backend.ts";
import { errorMessage } from "../core/client.ts";
import { PluginClient, PluginUnreachable, readBridgeInfo } from "./forward.ts";
import { HeadlessBackend } from "./headless.ts";
import type { ToolResult } from "./protocol.ts";
import { callTool, TOOLS, toolError } from "./tools.ts";

export const SERVER_NAME = "strata";
export const SERVER_VERSION = "0.1.0";

export interface BridgeOptions {
  vaultDir: string;
  configDir?: string;
  /** Overrides for headless mode (flags/env); the plugin uses its own settings. */
  settings?: Partial<ToolSettings>;
  modelDir?: string | null;
  /** Never forward to the plugin (tests, `--headless`). */
  headlessOnly?: boolean;
  log?: (msg: string) => void;
}

/** Routes tool calls to the plugin (when it answers) or to the headless backend. */
export class ToolRouter {
  private plugin: { client: PluginClient; stamp: string } | null = null;
  private lastStamp: string | null = null;
  private headless: Promise<HeadlessBackend> | null = null;
  private readonly configDir: string;

  constructor(private readonly opts: BridgeOptions) {
    this.configDir = opts.configDir ?? ".obsidian";
  }

  private log(msg: string) {
    this.opts.log?.(msg);
  }

  /** Which way the next call goes: "plugin" or "headless". */
  async mode(): Promise<"plugin" | "headless"> {
    return (await this.discover()) ? "plugin" : "headless";
  }

  /** Looks at bridge.json (cheap); pings only when it changed. */
  private async discover(): Promise<PluginClient | null> {
    if (this.opts.headlessOnly) return null;
    const found = await readBridgeInfo(this.opts.vaultDir, this.configDir);
    if (!found) {
      this.plugin = null;
      this.lastStamp = null;
      return null;
    }
    if (this.plugin && this.plugin.stamp === found.stamp) return this.plugin.client;
    if (this.lastStamp === found.stamp) return null; // same file, and it did not answer before
    this.lastStamp = found.stamp;
    const client = new PluginClient(found.info);
    if (!(await client.ping())) {
      this.log(`bridge.json names port ${found.info.port}, but the plugin does not answer: serving headless`);
      this.plugin = null;
      return null;
    }
    this.log(`forwarding to the Strata plugin in Obsidian (port ${found.info.port})`);
    this.plugin = { client, stamp: found.stamp };
    await this.dropHeadless();
    return client;
  }

  private async dropHeadless() {
    const h = this.headless;
    this.headless = null;
    if (h) {
      const backend = await h.catch(() => null);
      await backend?.abandon();
    }
  }

  /** The headless backend, opened on first use. */
  headlessBackend(): Promise<HeadlessBackend> {
    if (!this.headless) {
      this.log(`opening the index of ${this.opts.vaultDir} (headless: Obsidian is not running)`);
      const p = HeadlessBackend.open({
        vaultDir: this.opts.vaultDir,
        configDir: this.configDir,
        settings: this.opts.settings,
        modelDir: this.opts.modelDir,
        log: this.opts.log,
      });
      this.headless = p;
      p.catch(() => {
        if (this.headless === p) this.headless = null; // retried on the next call
      });
    }
    return this.headless;
  }

  async call(name: string, args: unknown): Promise<ToolResult> {
    const client = await this.discover();
    if (client) {
      try {
        return await client.call(name, args);
      } catch (err) {
        if (!(err instanceof PluginUnreachable)) throw err;
        this.log(`the plugin stopped answering (${err.message}): serving headless`);
        this.plugin = null;
      }
    }
    let backend: HeadlessBackend;
    try {
      backend = await this.headlessBackend();
    } catch (err) {
      return toolError(`the vault's index could not be opened: ${errorMessage(err)}`);
    }
    return callTool(backend, name, args);
  }

  async close(): Promise<void> {
    const h = this.headless;
    this.headless = null;
    if (h) await (await h.catch(() => null))?.close();
  }
}

/** Serves MCP on stdin/stdout until stdin closes; then persists and resolves. */
export async function serveStdio(opts: BridgeOptions): Promise<void> {
  const st = await fs.stat(opts.vaultDir).catch(() => null);
  if (!st?.isDirectory()) throw new Error(`vault not found (or not a folder): ${opts.vaultDir}`);
  const router = new ToolRouter({ ...opts, vaultDir: path.resolve(opts.vaultDir) });
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        "Strata searches and reads the user's Obsidian vault. Search with the user's words plus 2–3 rephrasings (unless a strong signal is reported), " +
        "read the sections you need before whole notes, cite note paths, and at the end of substantial work save a session summary (session_save) when writing is enabled.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    try {
      return (await router.call(req.params.name, req.params.arguments ?? {})) as unknown as Record<string, unknown>;
    } catch (err) {
      return toolError(`${req.params.name} failed: ${errorMessage(err)}`) as unknown as Record<string, unknown>;
    }
  });
  // Open the index early when Obsidian is not running, so the first call is fast.
  if ((await router.mode()) === "headless") void router.headlessBackend().catch((err) => opts.log?.(`could not open the index: ${errorMessage(err)}`));

  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
    process.stdin.once("close", () => resolve());
  });
  await server.connect(transport);
  const stop = () => void router.close().finally(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  await closed;
  await router.close();
  await server.close().catch(() => undefined);
}
