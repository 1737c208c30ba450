// A release on 127.0.0.1: serves a release folder's files at /releases/download/<version>/<name>
// (GitHub's layout, so the plugin derives the URL as it does for the real repository), with
// faults a test switches on: a missing file, a short body, a flipped byte, a connection that
// stalls, a server that dies after some parts.

import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";

export type Fault =
  | { kind: "404"; name: string }
  | { kind: "truncate"; name: string }
  | { kind: "flip"; name: string }
  | { kind: "stall"; name: string }
  /** Every request after `after` files were served is cut (the connection destroyed). */
  | { kind: "die"; after: number };

export interface ReleaseServer {
  /** http://127.0.0.1:<port> (the "repository" URL). */
  url: string;
  version: string;
  /** Names served in full, in order. */
  served: string[];
  fault: Fault | null;
  close(): Promise<void>;
}

export async function serveRelease(dir: string, version: string): Promise<ReleaseServer> {
  const prefix = `/releases/download/${version}/`;
  const state: ReleaseServer = { url: "", version, served: [], fault: null, close: async () => undefined };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const name = url.startsWith(prefix) ? url.slice(prefix.length) : null;
    if (!name || name.includes("/") || name.startsWith(".")) {
      res.writeHead(404).end("not found");
      return;
    }
    const f = state.fault;
    if (f?.kind === "die" && state.served.length >= f.after) {
      req.socket.destroy();
      return;
    }
    if (f && "name" in f && f.name === name && f.kind === "404") {
      res.writeHead(404).end("not found");
      return;
    }
    let bytes: Buffer;
    try {
      bytes = await readFile(path.join(dir, name));
    } catch {
      res.writeHead(404).end("not found");
      return;
    }
    if (f && "name" in f && f.name === name) {
      if (f.kind === "stall") {
        res.writeHead(200, { "content-length": bytes.length });
        res.flushHeaders();
        return; // never a body
      }
      if (f.kind === "truncate") bytes = bytes.subarray(0, Math.floor(bytes.length / 2));
      if (f.kind === "flip") {
        bytes = Buffer.from(bytes);
        bytes[Math.floor(bytes.length / 3)] ^= 0x01;
      }
    }
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length });
    res.end(bytes);
    state.served.push(name);
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
