// The bridge's side of the loopback protocol: finds a running Obsidian plugin through
// bridge.json in the plugin folder, checks that it answers, and forwards tool calls to it.

import * as fs from "node:fs/promises";
import * as http from "node:http";
import * as path from "node:path";

import { BRIDGE_INFO_FILE, type BridgeInfo, CALL_PATH, PING_PATH, pluginDirOf, type ToolResult } from "./loopback-protocol.ts";
import type { Caller } from "./writes.ts";

/** A transport failure (the plugin is gone): the caller falls back to headless. */
export class PluginUnreachable extends Error {}

interface HttpAnswer {
  status: number;
  body: unknown;
}

/** The forwarded call was cancelled by the bridge's client: the connection is closed, which stops it in the plugin. */
export class ForwardCancelled extends Error {}

function request(
  info: BridgeInfo,
  method: "GET" | "POST",
  urlPath: string,
  body: unknown,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ForwardCancelled(String(signal.reason)));
      return;
    }
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      {
        host: "127.0.0.1",
        port: info.port,
        method,
        path: urlPath,
        headers: {
          host: `127.0.0.1:${info.port}`,
          authorization: `Bearer ${info.token}`,
          ...(payload ? { "content-type": "application/json", "content-length": payload.length } : {}),
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // leave as text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on("error", (err) => reject(new PluginUnreachable(err.message)));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    const cancel = () => req.destroy(new ForwardCancelled(String(signal?.reason)));
    signal?.addEventListener("abort", cancel, { once: true });
    req.on("close", () => signal?.removeEventListener("abort", cancel));
    req.on("error", (err) => reject(err instanceof ForwardCancelled ? err : new PluginUnreachable(err.message)));
    if (payload) req.write(payload);
    req.end();
  });
}

function errorText(body: unknown): string {
  if (body && typeof body === "object" && typeof (body as { error?: unknown }).error === "string") return (body as { error: string }).error;
  return typeof body === "string" ? body.slice(0, 300) : JSON.stringify(body).slice(0, 300);
}

/** Reads and checks bridge.json; null when absent, not a regular file, or malformed. */
export async function readBridgeInfo(vaultDir: string, configDir: string): Promise<{ info: BridgeInfo; stamp: string } | null> {
  const file = path.join(vaultDir, pluginDirOf(configDir), BRIDGE_INFO_FILE);
  try {
    const st = await fs.lstat(file);
    if (!st.isFile()) return null;
    const raw = JSON.parse(await fs.readFile(file, "utf8")) as Partial<BridgeInfo>;
    if (!Number.isInteger(raw.port) || (raw.port as number) < 0 || (raw.port as number) > 65535) return null;
    // Port 0: Obsidian has the index open with its bridge off (no endpoint, no token).
    if (raw.port !== 0 && (typeof raw.token !== "string" || raw.token.length < 16)) return null;
    if (raw.port === 0) raw.token = "";
    const info: BridgeInfo = {
      port: raw.port as number,
      token: raw.token ?? "",
      pid: Number(raw.pid) || 0,
      vault: String(raw.vault ?? ""),
    };
    return { info, stamp: `${st.mtimeMs}:${st.size}:${info.port}` };
  } catch {
    return null;
  }
}

export class PluginClient {
  constructor(readonly info: BridgeInfo) {}

  /** True when the plugin answers the ping with this token. */
  async ping(timeoutMs = 1500): Promise<boolean> {
    try {
      const res = await request(this.info, "GET", PING_PATH, undefined, timeoutMs);
      return res.status === 200 && (res.body as { server?: unknown })?.server === "strata";
    } catch {
      return false;
    }
  }

  /** Forwards one tool call. Throws PluginUnreachable when the plugin is gone, ForwardCancelled when `signal` aborts it. */
  async call(name: string, args: unknown, caller: Caller = {}, timeoutMs = 120_000, signal?: AbortSignal): Promise<ToolResult> {
    const body = { name, arguments: args ?? {}, ...(caller.client ? { client: caller.client } : {}) };
    const res = await request(this.info, "POST", CALL_PATH, body, timeoutMs, signal);
    if (res.status === 200 && res.body && typeof res.body === "object" && "result" in res.body) {
      return (res.body as { result: ToolResult }).result;
    }
    return {
      content: [{ type: "text", text: `the Strata plugin in Obsidian refused the call (HTTP ${res.status}): ${errorText(res.body)}` }],
      isError: true,
    };
  }
}
