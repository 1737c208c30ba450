// Getting an embedding model onto the device: downloading it from a release (or importing it
// from a folder) and checking it, for every host — the plugin (Obsidian's requestUrl and vault
// adapter), the CLI and the headless bridge (Node's fetch and file system).
//
// A release publishes each model file in parts of at most ~16 MB (models.json, the table the
// release script writes and compiles into the bundles, gives every part's and every file's
// size and SHA-256). Parts go to a hidden folder beside the model folders, each checked as it
// arrives; an interrupted download resumes from the parts already there. Once every part is
// in, the files are assembled in a second hidden folder, checked whole, and the model's folder
// appears by one rename. A failure says what happened and leaves no model folder behind.

import { globalScope } from "./global-scope.ts";
import { Sha256, sha256Hex } from "./sha256.ts";

/** One asset of a release: a part of a model file. */
export interface TablePart {
  name: string;
  size: number;
  sha256: string;
}

export interface TableFile {
  /** File name in the model's folder (model.onnx, tokenizer.json). */
  name: string;
  size: number;
  sha256: string;
  parts: TablePart[];
}

export interface TableModel {
  id: string;
  /** SPDX identifier. */
  license: string;
  /** Bytes of all its files. */
  size: number;
  files: TableFile[];
}

/** models.json: what a release publishes of each model. */
export interface ModelTable {
  /** The plugin version of the release. */
  version: string;
  /** Largest part, bytes. */
  partSize: number;
  models: TableModel[];
  /** The MCP bridge for Claude Code (mcp-bridge.js and the two .wasm), installed like a model
   *  into the plugin folder's `bridge/`; absent from a development build's table. */
  bridge?: TableModel;
  /** The embedder's relaxed-SIMD build (embedding/builds.ts), installed like a model into the
   *  plugin folder's `embedder-relaxed-simd/` where the engine runs it; absent from a development
   *  build's table unless build/wasm-relaxed holds one. */
  embedder?: TableModel;
}

/** Where a build's downloads come from: its version, its table and the repository it was built for. */
export interface ReleaseInfo {
  version: string;
  /** e.g. https://github.com/owner/strata; "" when the build was not told. */
  repository: string;
  table: ModelTable;
}

/** The folder of a release's assets: `<repository>/releases/download/<version>` (GitHub's layout). */
export function releaseBaseUrl(release: ReleaseInfo): string | null {
  const repo = release.repository.replace(/\/+$/, "");
  return repo ? `${repo}/releases/download/${release.version}` : null;
}

/** The release's URL of an asset (strata.mcpb, a model part), or null without a repository. */
export function releaseAssetUrl(release: ReleaseInfo, asset: string): string | null {
  const base = releaseBaseUrl(release);
  return base ? `${base}/${asset}` : null;
}

export type DownloadErrorKind = "offline" | "http" | "timeout" | "truncated" | "hash" | "disk" | "cancelled" | "unknown-model" | "source";

/** A download or import that failed, with what the user can do about it. */
export class ModelDownloadError extends Error {
  constructor(
    readonly kind: DownloadErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "ModelDownloadError";
  }
}

/** Fetches a URL's whole body. Throws ModelDownloadError ("http" with the status, "offline")
 *  or anything else for a network failure. `signal` aborts (a host that cannot abort may ignore it). */
export type Fetcher = (url: string, signal: AbortSignal) => Promise<Uint8Array>;

/** The file operations a download needs, on host paths ("/" separated). */
export interface ModelFs {
  exists(path: string): Promise<boolean>;
  /** Bytes of a file, or null when absent. */
  size(path: string): Promise<number | null>;
  read(path: string): Promise<Uint8Array>;
  write(path: string, bytes: Uint8Array): Promise<void>;
  append(path: string, bytes: Uint8Array): Promise<void>;
  mkdir(path: string): Promise<void>;
  /** Removes a folder and what it holds; nothing when absent. */
  removeDir(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
}

export interface DownloadProgress {
  model: string;
  /** "download": fetching parts; "install": assembling and checking the files. */
  phase: "download" | "install";
  doneBytes: number;
  totalBytes: number;
  /** Parts present (downloaded now or kept from an earlier attempt) of `parts`. */
  partsDone: number;
  parts: number;
}

export interface DownloadOptions {
  table: ModelTable;
  id: string;
  /** The folder of the release's assets (releaseBaseUrl, or a mirror). */
  baseUrl: string;
  /** The folder holding `<id>/` (host path). */
  modelsDir: string;
  fs: ModelFs;
  fetch: Fetcher;
  onProgress?: (p: DownloadProgress) => void;
  signal?: AbortSignal;
  /** A part that takes longer fails as "timeout" (default: partTimeout, by its size). */
  partTimeoutMs?: number;
  /** What a failure leaves working, for its message (default: "lexical search works as before"). */
  meanwhile?: string;
}

export interface InstallResult {
  model: string;
  dir: string;
  bytes: number;
  /** Parts kept from an earlier attempt (0 for a fresh download or an import). */
  resumedParts: number;
  /** Parts fetched now. */
  fetchedParts: number;
}

const partsDir = (modelsDir: string, id: string) => `${modelsDir}/.${id}.parts`;
const stagingDir = (modelsDir: string, id: string) => `${modelsDir}/.${id}.staging`;

export function tableModel(table: ModelTable, id: string): TableModel {
  const m = table.models.find((x) => x.id === id);
  if (!m) {
    const known = table.models.map((x) => x.id).join(", ");
    throw new ModelDownloadError(
      "unknown-model",
      known
        ? `${id} is not in this release's model table (it has ${known})`
        : `this build carries no model table, so ${id} cannot be downloaded`,
    );
  }
  return m;
}

/** "22.9 MB". */
export function formatBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  return `${n > 0 ? Math.max(1, Math.round(n / 1e3)) : 0} kB`;
}

/** Part hashes: Web Crypto when the host has it (fast), else the incremental hasher. */
async function digestHex(bytes: Uint8Array): Promise<string> {
  const subtle = globalScope.crypto?.subtle;
  if (!subtle) return sha256Hex(bytes);
  const buf = await subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(buf), (x) => x.toString(16).padStart(2, "0")).join("");
}

function isDiskFull(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return e?.code === "ENOSPC" || e?.code === "EDQUOT" || /ENOSPC|no space left|quota/i.test(String(e?.message ?? err));
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Runs `fetch` for one URL with a timeout and the caller's cancel. */
async function fetchPart(fetch: Fetcher, url: string, timeoutMs: number, signal?: AbortSignal): Promise<Uint8Array> {
  if (signal?.aborted) throw new ModelDownloadError("cancelled", "cancelled");
  const ctl = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = globalScope.setTimeout(() => {
      ctl.abort();
      reject(new ModelDownloadError("timeout", `no complete answer from ${url} within ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    onAbort = () => {
      ctl.abort();
      reject(new ModelDownloadError("cancelled", "cancelled"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([fetch(url, ctl.signal), stop]);
  } catch (err) {
    if (err instanceof ModelDownloadError) throw err;
    throw new ModelDownloadError("offline", `could not fetch ${url}: ${messageOf(err)}`);
  } finally {
    globalScope.clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

/** How long a part may take: 30 s, plus its size at 50 kB/s (a slow mobile connection); a stalled
 *  connection fails then (requestUrl reports no progress to tell slow from stalled). */
export function partTimeout(size: number): number {
  return 30_000 + size / 50;
}

/** Writes through `fs`, turning a full disk into a "disk" error. */
async function writing<T>(what: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (isDiskFull(err)) throw new ModelDownloadError("disk", `the disk is full (writing ${what})`);
    throw err;
  }
}

/** A part already on disk from an earlier attempt, if it is whole and correct. */
async function keptPart(fs: ModelFs, path: string, part: TablePart): Promise<boolean> {
  if ((await fs.size(path)) !== part.size) return false;
  return (await digestHex(await fs.read(path))) === part.sha256;
}

/**
 * Downloads model `id` of the table's release from `baseUrl` into `<modelsDir>/<id>/`.
 * Parts already downloaded (and still correct) are kept; the rest are fetched one by one and
 * checked (size, SHA-256). Then the files are assembled, checked whole and installed by one
 * rename. Throws ModelDownloadError with a message for the user; the model folder then does
 * not exist (or is as it was), the verified parts stay for the next attempt (except when the
 * disk is full: then they are removed to free the space).
 */
export async function downloadModel(opts: DownloadOptions): Promise<InstallResult> {
  const m = tableModel(opts.table, opts.id);
  const { fs, modelsDir } = opts;
  const parts = m.files.flatMap((f) => f.parts);
  const tmp = partsDir(modelsDir, m.id);
  const base = opts.baseUrl.replace(/\/+$/, "");
  const progress: DownloadProgress = {
    model: m.id,
    phase: "download",
    doneBytes: 0,
    totalBytes: m.size,
    partsDone: 0,
    parts: parts.length,
  };
  const report = () => opts.onProgress?.({ ...progress });
  let resumed = 0;
  let fetched = 0;
  try {
    await writing(tmp, () => fs.mkdir(tmp));
    report();
    for (const [i, part] of parts.entries()) {
      if (opts.signal?.aborted) throw new ModelDownloadError("cancelled", "cancelled");
      const path = `${tmp}/${part.name}`;
      if (await keptPart(fs, path, part)) {
        resumed++;
      } else {
        const url = `${base}/${encodeURIComponent(part.name)}`;
        const where = `part ${i + 1} of ${parts.length} (${part.name})`;
        let bytes: Uint8Array;
        try {
          bytes = await fetchPart(opts.fetch, url, opts.partTimeoutMs ?? partTimeout(part.size), opts.signal);
        } catch (err) {
          if (err instanceof ModelDownloadError && err.kind !== "cancelled")
            throw new ModelDownloadError(err.kind, `${where}: ${err.message}`);
          throw err;
        }
        if (bytes.length !== part.size) {
          throw new ModelDownloadError(
            "truncated",
            `${where} came with ${bytes.length} bytes instead of ${part.size} (the connection was cut or the file on the server is not this release's)`,
          );
        }
        if ((await digestHex(bytes)) !== part.sha256) {
          throw new ModelDownloadError("hash", `${where} failed its SHA-256 check (the server sent other bytes than this release's)`);
        }
        await writing(part.name, () => fs.write(path, bytes));
        fetched++;
      }
      progress.doneBytes += part.size;
      progress.partsDone++;
      report();
    }
    progress.phase = "install";
    report();
    const dir = await installFromParts(fs, modelsDir, m, (file, partName) => fs.read(`${tmp}/${partName}`));
    await fs.removeDir(tmp);
    return { model: m.id, dir, bytes: m.size, resumedParts: resumed, fetchedParts: fetched };
  } catch (err) {
    await fs.removeDir(stagingDir(modelsDir, m.id)).catch(() => undefined);
    const e = err instanceof ModelDownloadError ? err : isDiskFull(err) ? new ModelDownloadError("disk", "the disk is full") : null;
    const kept = e?.kind === "disk" ? 0 : resumed + fetched;
    // Nothing worth keeping for a resume (or a full disk to free): no parts folder either.
    if (kept === 0) await fs.removeDir(tmp).catch(() => undefined);
    if (!e) throw err;
    throw new ModelDownloadError(e.kind, downloadFailure(m.id, e, kept, parts.length, opts.meanwhile));
  }
}

/** The user's account of a failed download: what happened, what is left, how to retry. */
function downloadFailure(
  id: string,
  e: ModelDownloadError,
  kept: number,
  parts: number,
  meanwhile = "lexical search works as before",
): string {
  const what = {
    offline: `${e.message} (offline, or the server cannot be reached)`,
    http: e.message,
    timeout: e.message,
    truncated: e.message,
    hash: e.message,
    disk: `${e.message}; the downloaded parts were removed`,
    cancelled: "cancelled",
    "unknown-model": e.message,
    source: e.message,
  }[e.kind];
  const retry =
    e.kind === "cancelled" || e.kind === "disk" || e.kind === "unknown-model"
      ? ""
      : kept > 0
        ? ` Download again to resume (${kept} of ${parts} parts are kept).`
        : " Download again to retry.";
  return `The download of ${id} failed: ${what}. Nothing was installed; ${meanwhile}.${retry}`;
}

/**
 * Assembles a model's files from their parts into the staging folder, checks each file's
 * size and SHA-256, and renames the staging folder to `<modelsDir>/<id>` (replacing a broken
 * folder of that name). `readPart` gives a part's bytes.
 */
async function installFromParts(
  fs: ModelFs,
  modelsDir: string,
  m: TableModel,
  readPart: (file: TableFile, partName: string) => Promise<Uint8Array>,
): Promise<string> {
  const staging = stagingDir(modelsDir, m.id);
  await fs.removeDir(staging);
  await writing(staging, () => fs.mkdir(staging));
  for (const file of m.files) {
    const hash = new Sha256();
    let size = 0;
    const out = `${staging}/${file.name}`;
    for (const [j, part] of file.parts.entries()) {
      const bytes = await readPart(file, part.name);
      hash.update(bytes);
      size += bytes.length;
      await writing(file.name, () => (j === 0 ? fs.write(out, bytes) : fs.append(out, bytes)));
    }
    if (size !== file.size || hash.hex() !== file.sha256) {
      throw new ModelDownloadError("hash", `${file.name} of ${m.id} failed its SHA-256 check once assembled (${size} bytes)`);
    }
  }
  const dir = `${modelsDir}/${m.id}`;
  await fs.removeDir(dir);
  await fs.rename(staging, dir);
  return dir;
}

/** Reads files from a folder the user points at (Import from folder). */
export interface SourceFolder {
  /** The file's bytes, or null when absent. */
  read(name: string): Promise<Uint8Array | null>;
  /** For messages. */
  describe: string;
}

/**
 * Installs model `id` from a folder holding its files (model.onnx, tokenizer.json), with the
 * same checks as a download: each file's size and SHA-256 against the table.
 */
export async function importModel(opts: {
  table: ModelTable;
  id: string;
  source: SourceFolder;
  modelsDir: string;
  fs: ModelFs;
}): Promise<InstallResult> {
  const m = tableModel(opts.table, opts.id);
  const files = new Map<string, Uint8Array>();
  try {
    for (const f of m.files) {
      const bytes = await opts.source.read(f.name);
      if (!bytes) throw new ModelDownloadError("source", `${opts.source.describe} has no ${f.name}`);
      if (bytes.length !== f.size || sha256Hex(bytes) !== f.sha256) {
        throw new ModelDownloadError(
          "hash",
          `${f.name} in ${opts.source.describe} is not the ${m.id} of this release (size or SHA-256 differs)`,
        );
      }
      files.set(f.name, bytes);
    }
    // One "part" per file: the bytes are checked already and checked again as they are written.
    const whole: TableModel = { ...m, files: m.files.map((f) => ({ ...f, parts: [{ name: f.name, size: f.size, sha256: f.sha256 }] })) };
    const dir = await installFromParts(opts.fs, opts.modelsDir, whole, async (file) => files.get(file.name)!);
    return { model: m.id, dir, bytes: m.size, resumedParts: 0, fetchedParts: 0 };
  } catch (err) {
    await opts.fs.removeDir(stagingDir(opts.modelsDir, m.id)).catch(() => undefined);
    if (!(err instanceof ModelDownloadError)) throw err;
    throw new ModelDownloadError(err.kind, `Importing ${m.id} failed: ${err.message}. Nothing was installed.`);
  }
}

export interface VerifyResult {
  model: string;
  dir: string;
  /** Every file present with its size and SHA-256. */
  ok: boolean;
  /** What is wrong, per file. */
  problems: string[];
}

/** Checks an installed model's files against the table. */
export async function verifyModel(opts: { table: ModelTable; id: string; modelsDir: string; fs: ModelFs }): Promise<VerifyResult> {
  const m = tableModel(opts.table, opts.id);
  const dir = `${opts.modelsDir}/${m.id}`;
  const problems: string[] = [];
  for (const f of m.files) {
    const path = `${dir}/${f.name}`;
    const size = await opts.fs.size(path);
    if (size === null) problems.push(`${f.name} is missing`);
    else if (size !== f.size) problems.push(`${f.name} has ${size} bytes, the release's has ${f.size}`);
    else if (sha256Hex(await opts.fs.read(path)) !== f.sha256) problems.push(`${f.name} differs from the release's (SHA-256)`);
  }
  return { model: m.id, dir, ok: problems.length === 0, problems };
}
