// A DataAdapter over a real folder (Node): what the fake app's vault reads and writes.

import * as fs from "node:fs/promises";
import * as path from "node:path";
import type { FakeAdapter, FakeStat, ScannedFile } from "./adapter.ts";

export class FsAdapter implements FakeAdapter {
  /** Every call, for tests that assert what was (not) touched. */
  readonly log: { op: string; path: string }[] = [];

  constructor(readonly root: string) {}

  getName(): string {
    return path.basename(this.root);
  }

  getBasePath(): string {
    return this.root;
  }

  private full(p: string): string {
    const norm = p.replace(/^\/+/, "");
    if (norm.split("/").includes("..")) throw new Error(`path leaves the vault: ${p}`);
    return path.join(this.root, norm);
  }

  async exists(p: string): Promise<boolean> {
    try {
      await fs.stat(this.full(p));
      return true;
    } catch {
      return false;
    }
  }

  async stat(p: string): Promise<FakeStat | null> {
    try {
      const st = await fs.stat(this.full(p));
      return { type: st.isDirectory() ? "folder" : "file", ctime: Math.trunc(st.ctimeMs), mtime: Math.trunc(st.mtimeMs), size: st.size };
    } catch {
      return null;
    }
  }

  async list(p: string): Promise<{ files: string[]; folders: string[] }> {
    const entries = await fs.readdir(this.full(p), { withFileTypes: true });
    const base = p.replace(/^\/+|\/+$/g, "");
    const join = (n: string) => (base ? `${base}/${n}` : n);
    return {
      files: entries.filter((e) => e.isFile()).map((e) => join(e.name)),
      folders: entries.filter((e) => e.isDirectory()).map((e) => join(e.name)),
    };
  }

  async read(p: string): Promise<string> {
    this.log.push({ op: "read", path: p });
    return fs.readFile(this.full(p), "utf8");
  }

  async readBinary(p: string): Promise<ArrayBuffer> {
    this.log.push({ op: "readBinary", path: p });
    const b = await fs.readFile(this.full(p));
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  }

  async write(p: string, data: string): Promise<void> {
    this.log.push({ op: "write", path: p });
    await fs.writeFile(this.full(p), data);
  }

  async writeBinary(p: string, data: ArrayBuffer): Promise<void> {
    this.log.push({ op: "writeBinary", path: p });
    await fs.writeFile(this.full(p), new Uint8Array(data));
  }

  async append(p: string, data: string): Promise<void> {
    this.log.push({ op: "append", path: p });
    await fs.appendFile(this.full(p), data);
  }

  async appendBinary(p: string, data: ArrayBuffer): Promise<void> {
    this.log.push({ op: "appendBinary", path: p });
    await fs.appendFile(this.full(p), new Uint8Array(data));
  }

  async mkdir(p: string): Promise<void> {
    await fs.mkdir(this.full(p), { recursive: true });
  }

  async remove(p: string): Promise<void> {
    this.log.push({ op: "remove", path: p });
    await fs.rm(this.full(p));
  }

  async rmdir(p: string, recursive: boolean): Promise<void> {
    await fs.rm(this.full(p), { recursive, force: false });
  }

  async rename(from: string, to: string): Promise<void> {
    this.log.push({ op: "rename", path: `${from} -> ${to}` });
    await fs.mkdir(path.dirname(this.full(to)), { recursive: true });
    await fs.rename(this.full(from), this.full(to));
  }

  async scan(): Promise<{ files: ScannedFile[]; folders: string[] }> {
    const files: ScannedFile[] = [];
    const folders: string[] = [];
    const walk = async (rel: string) => {
      const entries = await fs.readdir(rel ? this.full(rel) : this.root, { withFileTypes: true });
      for (const e of entries) {
        if (e.name.startsWith(".")) continue;
        const p = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) {
          folders.push(p);
          await walk(p);
        } else if (e.isFile()) {
          const st = await fs.stat(this.full(p));
          files.push({ path: p, stat: { type: "file", ctime: Math.trunc(st.ctimeMs), mtime: Math.trunc(st.mtimeMs), size: st.size } });
        }
      }
    };
    await walk("");
    return { files, folders };
  }
}

/** Serves an FsAdapter over HTTP for the browser harness: POST /fs {op, args} → result. */
export async function serveAdapterCall(
  adapter: FsAdapter,
  op: string,
  args: unknown[],
  body?: Uint8Array,
): Promise<{ json?: unknown; bytes?: Uint8Array }> {
  const a = adapter as unknown as Record<string, (...x: unknown[]) => Promise<unknown>>;
  const allowed = [
    "exists",
    "stat",
    "list",
    "read",
    "readBinary",
    "write",
    "writeBinary",
    "append",
    "appendBinary",
    "mkdir",
    "remove",
    "rmdir",
    "rename",
    "scan",
  ];
  if (!allowed.includes(op)) throw new Error(`unknown adapter op ${op}`);
  if (op === "writeBinary" || op === "appendBinary") {
    await adapter[op](String(args[0]), (body ?? new Uint8Array()).slice().buffer);
    return { json: null };
  }
  if (op === "write" || op === "append") args = [args[0], new TextDecoder().decode(body ?? new Uint8Array())];
  if (op === "readBinary") return { bytes: new Uint8Array(await adapter.readBinary(String(args[0]))) };
  return { json: (await a[op].apply(adapter, args)) ?? null };
}
