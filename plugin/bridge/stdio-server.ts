// The stdio MCP server Claude starts. Given a vault, it forwards every tool call to the
// running Obsidian plugin when bridge.json names one that answers, and otherwise serves the
// same tools itself over the headless backend. It switches either way between calls:
// Obsidian started → forward (the headless index is let go unpersisted, the plugin owns
// the index now); Obsidian quit → headless.

import * as fs from "node:fs/promises";
import * as path from "node:path";

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

import type { ToolSettings } from "../core/vault-backend.ts";
import { errorMessage } from "../core/errors.ts";
import { processAlive } from "../node/host.ts";
import { ForwardCancelled, PluginClient, PluginUnreachable, readBridgeInfo } from "./forward.ts";
import { HeadlessBackend } from "./headless.ts";
import type { ToolResult } from "./loopback-protocol.ts";
import { createMcpServer } from "./mcp-server.ts";
import { callTool, toolError } from "./tools.ts";
import type { Caller } from "./writes.ts";

export interface BridgeOptions {
  vaultDir: string;
  configDir?: string;
  /** Overrides for headless mode (flags/env); the plugin uses its own settings. */
  settings?: Partial<ToolSettings>;
  /** The models folder (see HeadlessOptions.modelsDir); null = no model. */
  modelsDir?: string | null;
  /** Never forward to the plugin (tests, `--headless`). */
  headlessOnly?: boolean;
  /** How long the plugin may take to answer the ping. Default 5000 ms. */
  pingTimeoutMs?: number;
  log?: (msg: string) => void;
}

type Route = { kind: "plugin"; client: PluginClient } | { kind: "headless" } | { kind: "busy"; message: string };

/**
 * Routes tool calls to the plugin (when it answers) or to the headless backend. While
 * bridge.json names a live Obsidian process that does not answer (busy), calls get an error
 * rather than a headless index: two writers must never share the index folder.
 */
export class ToolRouter {
  private plugin: { client: PluginClient; stamp: string } | null = null;
  private headless: Promise<HeadlessBackend> | null = null;
  private readonly configDir: string;

  constructor(private readonly opts: BridgeOptions) {
    this.configDir = opts.configDir ?? ".obsidian";
  }

  private log(msg: string) {
    this.opts.log?.(msg);
  }

  /** Where the next call goes. */
  async route(): Promise<Route> {
    if (this.opts.headlessOnly) return { kind: "headless" };
    const found = await readBridgeInfo(this.opts.vaultDir, this.configDir);
    if (!found) {
      this.plugin = null;
      return { kind: "headless" };
    }
    if (this.plugin && this.plugin.stamp === found.stamp) return { kind: "plugin", client: this.plugin.client };
    if (found.info.port === 0) {
      // Obsidian has the index open with the bridge turned off (plugin/obsidian/bridge-endpoint.ts).
      if (processAlive(found.info.pid)) {
        this.plugin = null;
        await this.dropHeadless();
        return {
          kind: "busy",
          message:
            `Obsidian is running (pid ${found.info.pid}) with this vault's Strata index open, and its Claude bridge is off. ` +
            'Turn on "Serve the index to the MCP bridge" in Settings → Strata (or quit Obsidian) so that only one program writes the index.',
        };
      }
      this.log(`bridge.json is left over from an Obsidian that is no longer running: serving headless`);
      return { kind: "headless" };
    }
    const client = new PluginClient(found.info);
    if (!(await client.ping(this.opts.pingTimeoutMs ?? 5000))) {
      this.plugin = null;
      if (processAlive(found.info.pid)) {
        return {
          kind: "busy",
          message:
            `Obsidian is running (pid ${found.info.pid}) but the Strata plugin did not answer on port ${found.info.port}. ` +
            "Try again in a moment; if it keeps failing, turn the Claude bridge off and on in Strata's settings, or quit Obsidian.",
        };
      }
      this.log(`bridge.json is left over from an Obsidian that is no longer running: serving headless`);
      return { kind: "headless" };
    }
    this.log(`forwarding to the Strata plugin in Obsidian (port ${found.info.port})`);
    this.plugin = { client, stamp: found.stamp };
    await this.dropHeadless();
    return { kind: "plugin", client };
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
        modelsDir: this.opts.modelsDir,
        log: this.opts.log,
      });
      this.headless = p;
      p.catch(() => {
        if (this.headless === p) this.headless = null; // retried on the next call
      });
    }
    return this.headless;
  }

  /** Runs one call where the route says; `signal` (the client cancelled it) stops it, forwarded or headless. */
  async call(name: string, args: unknown, caller: Caller = {}, signal?: AbortSignal): Promise<ToolResult> {
    let route = await this.route();
    if (route.kind === "plugin") {
      try {
        return await route.client.call(name, args, caller, undefined, signal);
      } catch (err) {
        if (err instanceof ForwardCancelled) return toolError(`${name} stopped: cancelled by the client`);
        if (!(err instanceof PluginUnreachable)) throw err;
        this.log(`the plugin stopped answering (${err.message})`);
        this.plugin = null;
        route = await this.route();
        if (route.kind === "plugin") return route.client.call(name, args, caller, undefined, signal);
      }
    }
    if (route.kind === "busy") return toolError(route.message);
    let backend: HeadlessBackend;
    try {
      backend = await this.headlessBackend();
    } catch (err) {
      return toolError(`the vault's index could not be opened: ${errorMessage(err)}`);
    }
    return callTool(backend, name, args, caller, signal);
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
  const server = createMcpServer((name, args, caller, signal) => router.call(name, args, caller, signal));
  // Open the index early when Obsidian is not running, so the first call is fast.
  if ((await router.route()).kind === "headless")
    void router.headlessBackend().catch((err) => opts.log?.(`could not open the index: ${errorMessage(err)}`));

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
