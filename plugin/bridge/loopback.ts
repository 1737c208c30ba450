// The plugin's loopback endpoint (desktop only): an HTTP server on 127.0.0.1 that runs the
// MCP tools (tools.ts) over the plugin's VaultBackend, for two kinds of client: the stdio
// bridge Claude starts forwards every call to the running Obsidian (/v1/…, the protocol of
// loopback-protocol.ts), and any MCP client speaks Streamable HTTP to it (/mcp, mcp-http.ts).
// Every request is refused without the token, with a Host header that is not loopback (DNS
// rebinding), with any Origin header (a web page), with a body over MAX_BODY_BYTES, and when
// the client is too slow to send it (slowloris).

import { randomBytes, timingSafeEqual } from "node:crypto";
import * as fs from "node:fs/promises";
import * as http from "node:http";
import type { Socket } from "node:net";
import * as path from "node:path";

import type { VaultBackend } from "../core/vault-backend.ts";
import {
  BRIDGE_INFO_FILE,
  type BridgeInfo,
  CALL_PATH,
  MAX_BODY_BYTES,
  MCP_PATH,
  PING_PATH,
  PROTOCOL_VERSION,
} from "./loopback-protocol.ts";
import { McpHttpEndpoint, type McpHttpStats } from "./mcp-http.ts";
import { callTool } from "./tools.ts";
import { clientLabel } from "./writes.ts";

export interface LoopbackOptions {
  backend: VaultBackend;
  /** The shared secret the bridge sends as `Authorization: Bearer <token>`. */
  token: string;
  /** 0 (default) = a random free port. */
  port?: number;
  /** Largest accepted request body. Default MAX_BODY_BYTES (1 MB). */
  maxBodyBytes?: number;
}

export interface LoopbackServer {
  port: number;
  /** The /mcp endpoint's calls in flight and clients; the calls cancelled by their client, on /mcp and /v1/call. */
  mcpStats(): McpHttpStats;
  close(): Promise<void>;
}

/** A random token for bridge.json (256 bits, hex). */
export function newBridgeToken(): string {
  return randomBytes(32).toString("hex");
}

/** A client must send its request's headers within this, and the whole request within
 *  REQUEST_TIMEOUT_MS (the bridge sends small requests at once): a slow client (headers
 *  trickled, a body never finished) is answered 408 and cut off. */
export const HEADERS_TIMEOUT_MS = 5_000;
export const REQUEST_TIMEOUT_MS = 10_000;

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** True when the Host header names this loopback server (any port form the client used). */
function loopbackHost(host: string | undefined, port: number): boolean {
  if (!host) return false;
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  if (!m) return false;
  if (!LOOPBACK_HOSTS.has(m[1])) return false;
  return m[2] === undefined || Number(m[2]) === port;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  if (!header) return false;
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  if (!m) return false;
  const got = Buffer.from(m[1]);
  const want = Buffer.from(token);
  return got.length === want.length && timingSafeEqual(got, want);
}

/** Answers with a JSON body; `close` ends the connection after it (a request body left unread). */
function send(res: http.ServerResponse, status: number, body: unknown, close = false): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    ...(close ? { connection: "close" } : {}),
  });
  res.end(text);
}

class BodyTooLarge extends Error {}

/** What a refused body may still send, read and dropped, before the connection is closed. */
const DRAIN_BYTES = 4 * MAX_BODY_BYTES;

/**
 * Reads and drops what a client whose body is refused still sends, up to DRAIN_BYTES (the
 * request timeout cuts a slow one): closing a socket with unread bytes makes the kernel send a
 * reset, which can reach the client before it reads the 413, so that it sees a dropped
 * connection instead of the answer. Past DRAIN_BYTES the reading stops.
 */
function drain(req: http.IncomingMessage): void {
  let dropped = 0;
  const sink = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_BYTES) {
      req.off("data", sink);
      req.pause();
    }
  };
  req.on("data", sink);
  req.resume();
}

function readBody(req: http.IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > max) {
      // Refused before a byte of it is kept; the 413 goes out with `connection: close`.
      drain(req);
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        // Keep no more of it: the 413 goes out with `connection: close`, which ends the connection.
        req.off("data", onData);
        drain(req);
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/**
 * Starts the endpoint on 127.0.0.1 (never another interface). Resolves once it listens, with
 * the port it got; `close()` stops it and ends open connections.
 */
export async function startLoopbackServer(opts: LoopbackOptions): Promise<LoopbackServer> {
  const { backend, token } = opts;
  if (typeof token !== "string" || token.length < 16) throw new Error("the loopback token must be a string of at least 16 characters");
  const maxBody = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  let port = opts.port ?? 0;
  const mcp = new McpHttpEndpoint((name, args, caller, signal) => callTool(backend, name, args, caller, signal));

  // Slow clients are answered 408 and cut off (Node checks the deadlines every second here).
  const server = http.createServer(
    { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1_000 },
    (req, res) => {
      // The request is in: its answer may take as long as the tool needs.
      req.socket.setTimeout(0);
      void handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) send(res, 500, { error: `internal error: ${err instanceof Error ? err.message : String(err)}` });
        else res.destroy();
      });
    },
  );
  // A connection that never starts a request is closed too (the deadlines above start with one).
  server.on("connection", (socket: Socket) => {
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
  });

  /** The request's body, or null once a body over the limit has been answered 413. */
  const bodyOr413 = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<string | null> => {
    try {
      return await readBody(req, maxBody);
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) throw err;
      send(res, 413, { error: `request body larger than ${maxBody} bytes` }, true);
      return null;
    }
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    // Order matters: a web page (Origin) or a rebound name (Host) learns nothing, not even
    // whether its token guess was right.
    if (req.headers.origin !== undefined) {
      send(res, 403, { error: "requests with an Origin header are refused (the Strata bridge does not serve web pages)" });
      return;
    }
    if (!loopbackHost(req.headers.host, port)) {
      send(res, 403, { error: "the Host header must name the loopback address" });
      return;
    }
    if (!tokenMatches(req.headers.authorization, token)) {
      send(res, 401, { error: "missing or wrong token (see bridge.json in the plugin folder)" });
      return;
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === MCP_PATH) {
      let raw = "";
      if (req.method === "POST") {
        const body = await bodyOr413(req, res);
        if (body === null) return;
        raw = body;
      }
      await mcp.handle(req, res, raw);
      return;
    }
    if (url.pathname === PING_PATH) {
      if (req.method !== "GET") {
        send(res, 405, { error: "use GET" });
        return;
      }
      const st = await backend.status();
      send(res, 200, { server: "strata", protocol: PROTOCOL_VERSION, mode: st.mode, vault: st.vault });
      return;
    }
    if (url.pathname !== CALL_PATH) {
      send(res, 404, { error: `unknown path ${url.pathname}` });
      return;
    }
    if (req.method !== "POST") {
      send(res, 405, { error: "use POST" });
      return;
    }
    const raw = await bodyOr413(req, res);
    if (raw === null) return;
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      send(res, 400, { error: "the body is not JSON" });
      return;
    }
    if (!body || typeof body !== "object" || typeof (body as { name?: unknown }).name !== "string") {
      send(res, 400, { error: 'the body must be {"name": string, "arguments": object}' });
      return;
    }
    const { name, arguments: args, client } = body as { name: string; arguments?: unknown; client?: unknown };
    const caller = typeof client === "string" ? { client: clientLabel({ name: client }) } : {};
    // The bridge closes the connection when its client cancels the call: the call stops at its next step.
    const abort = new AbortController();
    res.once("close", () => {
      if (res.writableFinished) return;
      abort.abort("the bridge closed the connection");
      mcp.countCancelled();
    });
    const result = await callTool(backend, name, args ?? {}, caller, abort.signal);
    if (!abort.signal.aborted) send(res, 200, { result });
  };

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("the loopback server has no port");
  port = addr.port;
  return {
    port,
    mcpStats: () => mcp.stats(),
    close: () =>
      new Promise<void>((resolve) => {
        mcp.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Writes `bridge.json` (port, token, pid, vault) into the plugin folder, readable by the user
 * only (mode 0600, also when the file existed with wider permissions). Atomic: temp + rename.
 * The pid is this process's unless given. Returns the file's path.
 */
export async function writeBridgeInfo(pluginDirAbsolute: string, info: Omit<BridgeInfo, "pid"> & { pid?: number }): Promise<string> {
  await fs.mkdir(pluginDirAbsolute, { recursive: true });
  const file = path.join(pluginDirAbsolute, BRIDGE_INFO_FILE);
  const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
  const text = JSON.stringify({ protocol: PROTOCOL_VERSION, ...info, pid: info.pid ?? process.pid }, null, 2) + "\n";
  await fs.writeFile(tmp, text, { mode: 0o600, flag: "wx" });
  try {
    await fs.chmod(tmp, 0o600);
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  return file;
}

/** Removes bridge.json when it still names this process (the plugin calls it on unload). */
export async function removeBridgeInfo(pluginDirAbsolute: string, pid = process.pid): Promise<void> {
  const file = path.join(pluginDirAbsolute, BRIDGE_INFO_FILE);
  try {
    const info = JSON.parse(await fs.readFile(file, "utf8")) as Partial<BridgeInfo>;
    if (info.pid === pid) await fs.rm(file, { force: true });
  } catch {
    // absent or unreadable: nothing to remove
  }
}
