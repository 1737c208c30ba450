// The harness's HTTP server (127.0.0.1, random port): the page, its bundle, styles.css,
// manifest.json, and the fake adapter's calls on a real vault folder (POST /fs?op=…&args=…);
// with `release`, a release folder's files at /releases/download/<version>/<name> (GitHub's
// layout, where the plugin's Download fetches them), each answered after `delayMs`; with
// `folders`, read-only files under a URL prefix (the bench's competitor and wasm builds).

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

export interface ServedRelease {
  dir: string;
  version: string;
  delayMs?: number;
}

/** Files of `dir` served at `prefix` (no subfolders, no dot files). */
export interface ServedFolder {
  prefix: string;
  dir: string;
}

const TYPES: Record<string, string> = {
  ".mjs": "text/javascript",
  ".js": "text/javascript",
  ".wasm": "application/wasm",
  ".json": "application/json",
};

export async function startServer(
  root: string,
  vault: string,
  bundle: string,
  release?: ServedRelease,
  folders: ServedFolder[] = [],
): Promise<HarnessServer> {
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
      const prefix = release ? `/releases/download/${release.version}/` : null;
      if (release && prefix && url.pathname.startsWith(prefix)) {
        const name = decodeURIComponent(url.pathname.slice(prefix.length));
        if (name.includes("/") || name.startsWith(".")) {
          res.writeHead(404).end("not found");
          return;
        }
        const bytes = await readFile(path.join(release.dir, name)).catch(() => null);
        await new Promise((r) => setTimeout(r, release.delayMs ?? 0));
        if (!bytes) res.writeHead(404).end("not found");
        else res.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length }).end(bytes);
        return;
      }
      const folder = folders.find((f) => url.pathname.startsWith(f.prefix));
      if (folder) {
        const name = decodeURIComponent(url.pathname.slice(folder.prefix.length));
        const bytes = name.includes("/") || name.startsWith(".") ? null : await readFile(path.join(folder.dir, name)).catch(() => null);
        if (!bytes) res.writeHead(404).end("not found");
        else res.writeHead(200, { "content-type": TYPES[path.extname(name)] ?? "application/octet-stream" }).end(bytes);
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
