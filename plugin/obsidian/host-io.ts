// The UI thread's side of the worker protocol: the file I/O the worker asks for (HostApi).
// The index folder lives in <configDir>/plugins/strata-search/index/ and is read and written
// through app.vault.adapter, so it works on desktop and mobile alike. Writes are plain
// adapter writes: the core's files are immutable and named once, and the two checksummed
// manifest slots make a torn write fall back to the previous generation.

import type { App, DataAdapter } from "obsidian";
import type { FileStat } from "../core/api.ts";
import type { RelaxedEmbedderFile } from "../core/embedding/builds.ts";
import { MODEL_FILE, TOKENIZER_FILE } from "../core/models.ts";
import { transfer, type Handlers, type Transfer } from "./rpc.ts";
import type { HostApi } from "./worker-protocol.ts";

/**
 * Names that sync tools give to conflicting copies: Dropbox/Nextcloud "x (conflicted copy …)",
 * Syncthing "x.sync-conflict-…", Obsidian Sync/Google Drive/iCloud/OneDrive "x (1).bin",
 * "x 2.json". The core never writes a name with a space or "conflict". Such copies are never
 * read and never deleted (they may hold another device's work); the core ignores any other
 * name it did not write too (crate/src/layout.rs).
 */
export function isConflictCopy(name: string): boolean {
  const base = name.slice(name.lastIndexOf("/") + 1);
  return /conflict/i.test(base) || /\s/.test(base);
}

export interface HostOptions {
  app: App;
  /** Vault-relative index folder. */
  indexDir: string;
  /** Extensions to list (without dot), lower case: the notes' and, when code is indexed, the code's. */
  extensions: () => string[];
  /** The embedder's inlined wasm (gzip + base64), when the bundle carries it. */
  embedderWasm?: () => string | null;
  /** The installed relaxed-SIMD embedder build, if any (relaxed-embedder.ts). */
  relaxedEmbedder?: () => Promise<RelaxedEmbedderFile | null>;
  /** The code chunker's inlined wasm (gzip + base64), when the bundle carries it. */
  codeWasm?: () => string | null;
}

type ModelBuffers = { model: ArrayBuffer; tokenizer: ArrayBuffer };

/** Index files larger than this are written in parts (writeBinary, then appendBinary, Obsidian
 *  1.12.3+): whatever an adapter does with the bytes on the UI thread — Capacitor on mobile
 *  base64-encodes them, a Blob copies them — is then bounded per task (measured in the
 *  Chromium harness: one 5.5 MB segment written at once was a 51–59 ms task). */
const WRITE_PART = 1 << 20;

export class HostIO implements Handlers<HostApi> {
  /** Conflicted copies found in the index folder: left alone, never read. */
  conflictsIgnored: string[] = [];
  private readonly adapter: DataAdapter;

  constructor(private readonly opts: HostOptions) {
    this.adapter = opts.app.vault.adapter;
  }

  get indexDir(): string {
    return this.opts.indexDir;
  }

  /** The index folder's files, or (`prefix`, a folder's, ending in "/") those under that folder. */
  async indexList(arg: { prefix?: string } = {}): Promise<string[]> {
    const root = this.opts.indexDir;
    const prefix = arg.prefix?.replace(/\/+$/, "");
    const start = prefix ? this.full(prefix) : root;
    if (!(await this.adapter.exists(start))) return [];
    const out: string[] = [];
    const walk = async (dir: string) => {
      const listed = await this.adapter.list(dir);
      for (const f of listed.files) {
        const name = f.slice(root.length + 1);
        if (isConflictCopy(name)) {
          // A sync tool's copy of one of the index's files: never read, left alone.
          if (!this.conflictsIgnored.includes(name)) this.conflictsIgnored.push(name);
        } else out.push(name);
      }
      for (const d of listed.folders) await walk(d);
    };
    await walk(start);
    return out.sort();
  }

  async indexRead(arg: { name: string }): Promise<Transfer<ArrayBuffer>> {
    const buf = await this.adapter.readBinary(this.full(arg.name));
    return transfer(buf, [buf]);
  }

  async indexWrite(arg: { name: string; bytes: Uint8Array }): Promise<void> {
    const path = this.full(arg.name);
    await this.ensureFolder(path.slice(0, path.lastIndexOf("/")));
    const b = arg.bytes;
    const append = (this.adapter as { appendBinary?: DataAdapter["appendBinary"] }).appendBinary;
    if (b.byteLength <= WRITE_PART || typeof append !== "function") {
      const buf = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? (b.buffer as ArrayBuffer) : b.slice().buffer;
      await this.adapter.writeBinary(path, buf);
      return;
    }
    // A large file (a merged segment: up to a third of the index) in parts, each its own task
    // on this thread (see WRITE_PART). Until the manifest names it, a partly written file is
    // never read.
    const part = (at: number) => b.slice(at, Math.min(at + WRITE_PART, b.byteLength)).buffer;
    await this.adapter.writeBinary(path, part(0));
    for (let at = WRITE_PART; at < b.byteLength; at += WRITE_PART) await append.call(this.adapter, path, part(at));
  }

  async indexDelete(arg: { name: string }): Promise<void> {
    const path = this.full(arg.name);
    if (await this.adapter.exists(path)) await this.adapter.remove(path);
  }

  vaultList(): FileStat[] {
    const exts = new Set(this.opts.extensions().map((e) => e.toLowerCase()));
    const out: FileStat[] = [];
    for (const f of this.opts.app.vault.getFiles()) {
      if (exts.has(f.extension.toLowerCase())) out.push({ path: f.path, size: f.stat.size, mtime: f.stat.mtime, ctime: f.stat.ctime });
    }
    return out;
  }

  async vaultRead(arg: { path: string }): Promise<Transfer<ArrayBuffer>> {
    const buf = await this.adapter.readBinary(arg.path);
    return transfer(buf, [buf]);
  }

  async modelFiles(arg: { modelsDir: string; id: string }): Promise<Transfer<ModelBuffers | null>> {
    if (!/^[A-Za-z0-9._-]+$/.test(arg.id) || arg.id.startsWith("."))
      throw new Error(`[bad-request] not a model id: ${JSON.stringify(arg.id)}`);
    const [model, tokenizer] = [MODEL_FILE, TOKENIZER_FILE].map((f) => `${arg.modelsDir}/${arg.id}/${f}`);
    if (!(await this.adapter.exists(model)) || !(await this.adapter.exists(tokenizer))) return transfer(null, []);
    const files = { model: await this.adapter.readBinary(model), tokenizer: await this.adapter.readBinary(tokenizer) };
    return transfer(files, [files.model, files.tokenizer]);
  }

  embedderWasm(): string {
    const wasm = this.opts.embedderWasm?.();
    if (!wasm) throw new Error("[unavailable] this build carries no embedder wasm");
    return wasm;
  }

  async relaxedEmbedder(): Promise<Transfer<RelaxedEmbedderFile | null>> {
    const file = (await this.opts.relaxedEmbedder?.()) ?? null;
    return transfer(file, file ? [file.gz.buffer as ArrayBuffer] : []);
  }

  codeWasm(): string {
    const wasm = this.opts.codeWasm?.();
    if (!wasm) throw new Error("[unavailable] this build carries no code chunker wasm");
    return wasm;
  }

  /** Total bytes of the index folder. */
  async indexBytes(): Promise<number> {
    let total = 0;
    for (const name of await this.indexList()) {
      const st = await this.adapter.stat(this.full(name));
      total += st?.size ?? 0;
    }
    return total;
  }

  private full(name: string): string {
    if (!name || name.startsWith("/") || name.split("/").some((s) => s === ".." || s === "" || s === ".")) {
      throw new Error(`[bad-request] refusing an index file name outside the index folder: ${JSON.stringify(name)}`);
    }
    return `${this.opts.indexDir}/${name}`;
  }

  private readonly madeFolders = new Set<string>();
  private async ensureFolder(dir: string): Promise<void> {
    if (!dir || this.madeFolders.has(dir)) return;
    if (!(await this.adapter.exists(dir))) {
      await this.ensureFolder(dir.slice(0, Math.max(0, dir.lastIndexOf("/"))));
      if (!(await this.adapter.exists(dir))) await this.adapter.mkdir(dir);
    }
    this.madeFolders.add(dir);
  }

  /** Forget cached folders (after the index folder was deleted). */
  forgetFolders(): void {
    this.madeFolders.clear();
  }
}
