// The harness's HTTP server (127.0.0.1, random port): the page, its bundle, styles.css,
// manifest.json, and the fake adapter's calls on a real vault folder (POST /fs?op=…&args=…).

import { readFile } from "node:fs/promises";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";

import { FsAdapter, serveAdapterCall } from "../obsidian-fake/fs-adapter.ts";

export interface HarnessServer {
  url: string;
  adapter: FsAdapter;
  close(): Promise<void>;
}

export async function startServer(root: string, vault: string, bundle: string): Promise<HarnessServer> {
  const adapter = new FsAdapter(vault);
  const statics: Record<string, [string, string]> = {
    "/": [path.join(root, "tests/ui/harness.html"), "text/html; charset=utf-8"],
    "/styles.css": [path.join(root, "styles.css"), "text/css"],
    "/manifest.json": [path.join(root, "manifest.json"), "application/json"],
  };
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (url.pathname === "/harness.js") {
        res.writeHead(200, { "content-type": "text/javascript" });
        res.end(bundle);
        return;
      }
      const st = statics[url.pathname];
      if (st) {
        res.writeHead(200, { "content-type": st[1] });
        res.end(await readFile(st[0]));
        return;
      }
      if (url.pathname === "/fs" && req.method === "POST") {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const body = new Uint8Array(Buffer.concat(chunks));
        const op = url.searchParams.get("op") ?? "";
        const args = JSON.parse(url.searchParams.get("args") ?? "[]") as unknown[];
        const out = await serveAdapterCall(adapter, op, args, body);
        if (out.bytes) {
          res.writeHead(200, { "content-type": "application/octet-stream" });
          res.end(out.bytes);
        } else {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify(out.json ?? null));
        }
        return;
      }
      res.writeHead(404).end("not found");
    } catch (err) {
      res.writeHead(500, { "content-type": "text/plain" }).end((err as Error).message);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    adapter,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
