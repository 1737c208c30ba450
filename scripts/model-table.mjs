// The model table (models.json): per model its id, license and files, each file's size and
// SHA-256, and its parts (the release assets, at most PART_SIZE bytes each) with theirs. The
// release script writes it and the parts; esbuild.config.mjs compiles it into the bundles
// (plugin/core/release.ts) so every host checks a download against it.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, open, readFile, rename, stat, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { gzipSync } from "node:zlib";

/** Largest part of a model file (bytes): progress, retry and resume work per part. */
export const PART_SIZE = 16_000_000;

/** The files of every model's folder (crate/src/embed/models.rs: MODEL_FILE, TOKENIZER_FILE). */
const FILE_NAMES = ["model.onnx", "tokenizer.json"];

/** The models the core knows, as StrataCore.models() lists them (ids and licenses). */
export async function coreModels(wasmDir = "build/wasm") {
  const glue = await import(path.resolve(wasmDir, "strata_core.js"));
  glue.initSync({ module: readFileSync(path.join(wasmDir, "strata_core_bg.wasm")) });
  return glue.StrataCore.models();
}

/** The release asset name of part `i` of a model's file. */
export const partName = (id, file, i) => `${id}--${file}.${String(i).padStart(3, "0")}`;

/** Hashes a file and its parts in one read. */
async function describeFile(file, id, name, partSize) {
  const fh = await open(file, "r");
  try {
    const size = (await fh.stat()).size;
    const whole = createHash("sha256");
    const parts = [];
    const buf = Buffer.alloc(Math.min(partSize, Math.max(size, 1)));
    for (let i = 0, off = 0; off < size; i++) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(partSize, size - off), off);
      const chunk = buf.subarray(0, bytesRead);
      whole.update(chunk);
      parts.push({ name: partName(id, name, i), size: bytesRead, sha256: createHash("sha256").update(chunk).digest("hex") });
      off += bytesRead;
    }
    return { name, size, sha256: whole.digest("hex"), parts };
  } finally {
    await fh.close();
  }
}

/**
 * The table of the models `models` (from coreModels()) whose files are in `<modelsDir>/<id>/`.
 * `cacheFile` keeps the hashes by path, size and mtime (a build does not hash 200 MB again).
 */
export async function modelTable({ version, models, modelsDir = "models", partSize = PART_SIZE, cacheFile = null, require = [] }) {
  let cache = {};
  try {
    if (cacheFile && existsSync(cacheFile)) cache = JSON.parse(readFileSync(cacheFile, "utf8"));
  } catch {
    // a damaged cache: hash again
  }
  const fresh = {};
  const out = [];
  for (const m of models) {
    const dir = path.join(modelsDir, m.id);
    const present = FILE_NAMES.every((f) => existsSync(path.join(dir, f)));
    if (!present) {
      if (require.includes(m.id)) throw new Error(`model ${m.id} is missing in ${dir} (${m.fetchScript} makes it)`);
      continue;
    }
    const files = [];
    for (const name of FILE_NAMES) {
      const file = path.join(dir, name);
      const st = await stat(file);
      const key = `${path.resolve(file)}|${partSize}`;
      const hit = cache[key];
      const entry = hit && hit.size === st.size && hit.mtimeMs === st.mtimeMs ? hit.entry : await describeFile(file, m.id, name, partSize);
      fresh[key] = { size: st.size, mtimeMs: st.mtimeMs, entry };
      files.push(entry);
    }
    out.push({ id: m.id, license: m.license, size: files.reduce((s, f) => s + f.size, 0), files });
  }
  if (cacheFile) {
    await mkdir(path.dirname(cacheFile), { recursive: true });
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(fresh));
    await rename(tmp, cacheFile);
  }
  return { version, partSize, models: out };
}

/** The table entry of a set of files in `dir` published under `id` (the MCP bridge for Claude Code). */
export async function describeFiles(id, dir, names, { license, partSize = PART_SIZE }) {
  const files = [];
  for (const name of names) files.push(await describeFile(path.join(dir, name), id, name, partSize));
  return { id, license, size: files.reduce((s, f) => s + f.size, 0), files };
}

/** The relaxed-SIMD embedder build's id and file (plugin/core/embedding/builds.ts). */
export const RELAXED_EMBEDDER_ID = "embedder-relaxed-simd";
export const RELAXED_EMBEDDER_FILE = "strata_embedder_bg.wasm.gz";

/**
 * The table entry of the embedder build in `relaxedDir` (scripts/build-wasm.sh relaxed), its wasm
 * gzipped into `outDir`. Its JS glue must be byte for byte `wasmDir`'s: the bundles carry only that.
 */
export async function relaxedEmbedderEntry({ relaxedDir, wasmDir, outDir, license, partSize = PART_SIZE }) {
  const glue = (dir) => readFileSync(path.join(dir, "strata_embedder.js"));
  if (!glue(relaxedDir).equals(glue(wasmDir)))
    throw new Error(`${relaxedDir}/strata_embedder.js differs from ${wasmDir}'s: build both from the same sources`);
  await mkdir(outDir, { recursive: true });
  const wasm = await readFile(path.join(relaxedDir, "strata_embedder_bg.wasm"));
  await writeFile(path.join(outDir, RELAXED_EMBEDDER_FILE), gzipSync(wasm, { level: 9 }));
  return describeFiles(RELAXED_EMBEDDER_ID, outDir, [RELAXED_EMBEDDER_FILE], { license, partSize });
}

/** Writes the parts of every model of `table` into `outDir` (the release's assets). */
export async function writeParts(table, modelsDir, outDir) {
  await mkdir(outDir, { recursive: true });
  for (const m of table.models) await writeEntryParts(m, path.join(modelsDir, m.id), outDir);
}

/** Writes the parts of one table entry whose files are in `dir`. */
export async function writeEntryParts(m, dir, outDir) {
  for (const f of m.files) {
    const bytes = await readFile(path.join(dir, f.name));
    let off = 0;
    for (const p of f.parts) {
      await writeFile(path.join(outDir, p.name), bytes.subarray(off, off + p.size));
      off += p.size;
    }
  }
}

/** The repository URL downloads come from: $STRATA_REPOSITORY, else package.json's "repository". */
export function repositoryUrl(pkg) {
  const env = process.env.STRATA_REPOSITORY;
  if (env) return env.replace(/\/+$/, "");
  const r = typeof pkg.repository === "string" ? pkg.repository : pkg.repository?.url;
  if (!r) return "";
  return r
    .replace(/^git\+/, "")
    .replace(/\.git$/, "")
    .replace(/^github:/, "https://github.com/");
}
