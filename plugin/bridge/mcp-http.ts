// MCP over Streamable HTTP at /mcp on the plugin's loopback server (loopback.ts checks the
// token, Host and Origin and reads the body within its limits before a request gets here).
//
// Stateless: each POST is served by a fresh transport and server of the official SDK
// (WebStandardStreamableHTTPServerTransport without a session id generator, mcp-server.ts),
// so requests never wait for one another, nothing a call needs is kept between requests, and
// an Obsidian restart never strands a connected client (no session to lose, no 404).
//
// The Mcp-Session-Id handed out at `initialize` serves two things only, and is never required:
//   - cancellation: a client's `notifications/cancelled` arrives in a request of its own; the
//     id routes it to that client's call in flight (same id and request id), never to another
//     client's. A client that closes the connection of a call in flight cancels it too.
//   - the client's name (from `initialize`) for the audit log of the write tools.
// What an id names is bounded (MAX_CLIENTS) and forgotten after CLIENT_IDLE_MS; an unknown or
// forgotten id is served like any request.

import { randomUUID } from "node:crypto";
import type * as http from "node:http";

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

import { globalScope } from "../core/global-scope.ts";
import { MCP_PATH } from "./loopback-protocol.ts";
import { createMcpServer, type ToolCaller } from "./mcp-server.ts";
import { clientLabel } from "./writes.ts";

/** Clients whose name and id are remembered at most; the least recently seen goes first. */
export const MAX_CLIENTS = 64;
/** A client not seen for this long is forgotten (its id still works; its name is no longer known). */
export const CLIENT_IDLE_MS = 24 * 60 * 60 * 1000;

/** The request headers the SDK's transport reads (the loopback server checked the others). */
const FORWARDED_HEADERS = ["accept", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id"];

interface JsonRpcLike {
  jsonrpc?: unknown;
  method?: unknown;
  id?: unknown;
  params?: Record<string, unknown>;
}

interface Call {
  transport: WebStandardStreamableHTTPServerTransport;
  id: unknown;
}

export interface McpHttpStats {
  /** Tool calls and other requests being answered now. */
  inFlight: number;
  /** Calls cancelled by their client (a cancel notification or a closed connection; the bridge's /v1/call too). */
  cancelled: number;
  /** Clients remembered (their id and name). */
  clients: number;
}

function jsonRpcError(res: http.ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}) {
  const text = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    ...headers,
  });
  res.end(text);
}

const asMessage = (m: unknown): JsonRpcLike | null => (m !== null && typeof m === "object" && !Array.isArray(m) ? m : null);

/** A session id as the spec allows it (visible ASCII), or undefined. */
function sessionHeader(req: http.IncomingMessage): string | undefined {
  const v = req.headers["mcp-session-id"];
  return typeof v === "string" && /^[\x21-\x7e]{1,200}$/.test(v) ? v : undefined;
}

export class McpHttpEndpoint {
  /** Session id → the client's name and when it was last seen (oldest first). */
  private readonly clients = new Map<string, { name: string | undefined; seen: number }>();
  /** `<session id>\n<request id>` → the call in flight. */
  private readonly calls = new Map<string, Call>();
  private cancelled = 0;
  private open = 0;

  constructor(
    private readonly call: ToolCaller,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts a call cancelled elsewhere on the loopback server (the stdio bridge's /v1/call). */
  countCancelled(): void {
    this.cancelled++;
  }

  stats(): McpHttpStats {
    return { inFlight: this.open, cancelled: this.cancelled, clients: this.clients.size };
  }

  /** Answers one request to /mcp; `raw` is its body (POST), read by the loopback server. */
  async handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const session = sessionHeader(req);
    if (req.method === "DELETE") {
      // The client ends its session: its name is forgotten and its calls in flight stop.
      if (session) this.forget(session);
      res.writeHead(200, { "cache-control": "no-store" }).end();
      return;
    }
    if (req.method !== "POST") {
      // No stream of the server's own (GET): Strata sends nothing unasked.
      jsonRpcError(res, 405, -32000, "Method not allowed: POST a JSON-RPC message (Strata opens no server-sent stream)", {
        allow: "POST, DELETE",
      });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      jsonRpcError(res, 400, -32700, "Parse error: Invalid JSON");
      return;
    }
    const messages = (Array.isArray(body) ? body : [body]).map(asMessage);
    const init = messages.find((m) => m?.method === "initialize");
    let id = session;
    if (init) {
      id = randomUUID();
      const info = init.params?.clientInfo as { name?: unknown; version?: unknown } | undefined;
      this.remember(id, clientLabel(info));
    } else if (id) this.touch(id);

    // A client's cancellations reach its own calls only (the same session id).
    for (const m of messages) {
      if (m?.method !== "notifications/cancelled" || !id) continue;
      const target = this.calls.get(callKey(id, m.params?.requestId));
      if (target) this.cancel(target, m);
    }

    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = createMcpServer(
      async (name, args, caller, signal) => {
        try {
          return await this.call(name, args, caller, signal);
        } finally {
          // A cancelled call is answered with nothing (the SDK sends no response to it): end its stream.
          if (signal.aborted) {
            this.cancelled++;
            globalScope.setTimeout(() => void transport.close(), 0);
          }
        }
      },
      { client: () => (id ? this.clients.get(id)?.name : undefined) },
    );
    server.onerror = () => undefined;
    transport.onerror = () => undefined;

    // The requests of this POST, cancellable by their client until answered.
    const keys: string[] = [];
    for (const m of messages) {
      if (!m || m.id === undefined || typeof m.method !== "string") continue;
      let key = id ? callKey(id, m.id) : `anonymous\n${randomUUID()}`;
      if (this.calls.has(key)) key = `duplicate\n${randomUUID()}`;
      this.calls.set(key, { transport, id: m.id });
      keys.push(key);
    }
    const finished = () => {
      for (const k of keys) this.calls.delete(k);
      keys.length = 0;
    };
    this.open++;
    res.once("close", () => {
      this.open--;
      // The client went away before its answer: its calls stop.
      if (!res.writableFinished) for (const k of keys) this.cancel(this.calls.get(k), undefined, "the client closed the connection");
      finished();
      void transport.close();
      void server.close();
    });

    await server.connect(transport);
    const headers = new Headers();
    for (const h of FORWARDED_HEADERS) {
      const v = req.headers[h];
      if (typeof v === "string") headers.set(h, v);
    }
    const webReq = new Request(`http://127.0.0.1${MCP_PATH}`, { method: "POST", headers });
    const answer = await transport.handleRequest(webReq, { parsedBody: body });
    await this.send(res, answer, init && id && answer.ok ? id : undefined);
    finished();
  }

  /** Stops every call in flight (the loopback server is closing). */
  close(): void {
    for (const c of [...this.calls.values()]) this.cancel(c, undefined, "the server is closing");
    this.calls.clear();
    this.clients.clear();
  }

  private cancel(c: Call | undefined, notice?: JsonRpcLike, reason?: string): void {
    if (!c || !c.transport.onmessage) return;
    // Into the call's own server, which aborts the call's signal (the SDK's cancellation).
    const msg = notice ?? { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: c.id, reason } };
    c.transport.onmessage({
      ...msg,
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { ...msg.params, requestId: c.id },
    } as never);
  }

  private remember(id: string, name: string | undefined): void {
    const now = this.now();
    for (const [k, c] of this.clients) if (now - c.seen > CLIENT_IDLE_MS) this.clients.delete(k);
    while (this.clients.size >= MAX_CLIENTS) this.clients.delete(this.clients.keys().next().value as string);
    this.clients.set(id, { name, seen: now });
  }

  private touch(id: string): void {
    const c = this.clients.get(id);
    if (!c) return;
    if (this.now() - c.seen > CLIENT_IDLE_MS) {
      this.clients.delete(id);
      return;
    }
    this.clients.delete(id);
    this.clients.set(id, { ...c, seen: this.now() });
  }

  private forget(id: string): void {
    this.clients.delete(id);
    const prefix = `${id}\n`;
    for (const [k, c] of [...this.calls]) if (k.startsWith(prefix)) this.cancel(c, undefined, "the client ended its session");
  }

  /** The SDK's answer (a JSON error, or a server-sent event stream) onto Node's response. */
  private async send(res: http.ServerResponse, answer: Response, session: string | undefined): Promise<void> {
    const headers: Record<string, string> = { "cache-control": "no-store" };
    answer.headers.forEach((v, k) => {
      if (k !== "connection") headers[k] = v;
    });
    if (session) headers["mcp-session-id"] = session;
    res.writeHead(answer.status, headers);
    if (!answer.body) {
      res.end();
      return;
    }
    const reader = answer.body.getReader();
    res.once("close", () => void reader.cancel().catch(() => undefined));
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch {
      // the stream was cancelled: the client is gone
    }
    res.end();
  }
}

const callKey = (session: string, requestId: unknown) => `${session}\n${JSON.stringify(requestId ?? null)}`;
