// `npm run release`: builds Strata and assembles release/<version>/, the assets of a GitHub
// release (what .github/workflows/release.yml uploads on a version tag):
//   main.js, manifest.json, styles.css   the Obsidian plugin (the community installer takes these three)
//   strata.mcpb                          the MCP bridge as a Claude Desktop extension (MCP Bundle)
//   <id>--<file>.NNN                     the embedding models' files in parts of at most 16 MB
//   bridge--<file>.NNN                   the MCP bridge and its three .wasm, for Claude Code (the plugin
//                                        installs them into its folder from the settings tab)
//   embedder-relaxed-simd--strata_embedder_bg.wasm.gz.NNN
//                                        the embedder built with relaxed SIMD (with --relaxed): the plugin
//                                        downloads it with a model where the engine runs it
//   models.json                          the table: per model (and for the bridge and the relaxed embedder)
//                                        its license and files, each file's and part's size and SHA-256
//                                        (compiled into main.js)
//
// usage: node scripts/release.mjs [--dist] [--relaxed | --relaxed-from DIR] [--models id,id] [--out DIR]
//   --dist      build the wasm with the `dist` profile (fat LTO; also STRATA_PROFILE=dist): what the
//               tagged CI build ships. Slow (over 25 minutes on 2 cores); without it the `release`
//               profile the tests use.
//   --relaxed   also build the embedder with relaxed SIMD (scripts/build-wasm.sh relaxed: a second
//               build of tract), check it (scripts/check-relaxed-embedder.mjs) and publish it
//   --relaxed-from DIR
//               publish the embedder build in DIR as the relaxed one, unchecked (the tests, which
//               do not build tract twice, pass the simd128 build: its glue is the same)
//   --models    the models to publish, comma separated (default: every model the core knows; each must
//               be in models/; "" for none)
//   --out DIR   the folder to fill (default release/<version>)
// The repository downloads come from is $STRATA_REPOSITORY, else package.json's "repository".
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { coreModels, describeFiles, modelTable, relaxedEmbedderEntry, repositoryUrl, writeEntryParts, writeParts } from "./model-table.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(ROOT);

const { values } = parseArgs({
  options: {
    dist: { type: "boolean" },
    relaxed: { type: "boolean" },
    "relaxed-from": { type: "string" },
    models: { type: "string" },
    out: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  process.stdout.write(
    readFileSync(fileURLToPath(import.meta.url), "utf8")
      .split("\n")
      .slice(0, 25)
      .join("\n") + "\n",
  );
  process.exit(0);
}
const fail = (msg) => {
  process.stderr.write(`release: ${msg}\n`);
  process.exit(1);
};
const log = (msg) => process.stderr.write(`release: ${msg}\n`);

// 1. One version everywhere.
const manifest = JSON.parse(readFileSync("manifest.json", "utf8"));
const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const versions = JSON.parse(readFileSync("versions.json", "utf8"));
const version = manifest.version;
if (pkg.version !== version) fail(`package.json says ${pkg.version}, manifest.json ${version}: run npm version <v> (it updates both)`);
if (versions[version] !== manifest.minAppVersion)
  fail(`versions.json does not map ${version} to minAppVersion ${manifest.minAppVersion}: run npm version <v>`);

// 2. The wasm.
const profile = values.dist ? "dist" : (process.env.STRATA_PROFILE ?? "release");
if (profile !== "release" && profile !== "dist") fail(`STRATA_PROFILE must be release or dist, not ${profile}`);
const wasmDir = profile === "dist" ? "build/wasm-dist" : "build/wasm";
log(`building the wasm (${profile} profile) into ${wasmDir}`);
execFileSync("bash", ["scripts/build-wasm.sh"], { stdio: "inherit", env: { ...process.env, STRATA_PROFILE: profile } });

// 3. The model table and the parts.
const out = path.resolve(values.out ?? path.join("release", version));
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const all = await coreModels(wasmDir);
// --models "" publishes none (a release without models: the tests' when models/ is absent).
const wanted =
  values.models !== undefined
    ? values.models
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : all.map((m) => m.id);
for (const id of wanted) if (!all.some((m) => m.id === id)) fail(`unknown model ${id} (known: ${all.map((m) => m.id).join(", ")})`);
let table;
try {
  table = await modelTable({
    version,
    models: all.filter((m) => wanted.includes(m.id)),
    require: wanted,
    cacheFile: "build/model-table-cache.json",
  });
} catch (err) {
  fail(err.message);
}
writeFileSync(path.join(out, "models.json"), `${JSON.stringify(table, null, 2)}\n`);
await writeParts(table, "models", out);
log(`models: ${table.models.map((m) => `${m.id} (${m.files.reduce((n, f) => n + f.parts.length, 0)} parts)`).join(", ")}`);

if (!repositoryUrl(pkg))
  log("warning: no repository URL ($STRATA_REPOSITORY or package.json's repository): this build's plugin asks for a download address");

// 4. The MCP bridge (CommonJS; finds the .wasm beside itself), with the model table compiled in.
process.env.STRATA_MODEL_TABLE = path.join(out, "models.json");
process.env.STRATA_WASM_DIR = wasmDir;
const { build } = await import("esbuild");
const config = await import("../esbuild.config.mjs");
const { buildBridge } = await import("../esbuild.bridge.mjs");
// A staging folder of this run's own (tests and a developer may run the script at once).
const stage = mkdtempSync(path.join(tmpdir(), "strata-release-stage-"));
const bundle = path.join(stage, "mcpb");
const server = path.join(bundle, "server");
mkdirSync(server, { recursive: true });
await buildBridge({
  define: await config.defineRelease(),
  plugins: [config.wasmDirPlugin()],
  cjsOutfile: path.join(server, "strata-mcp.cjs"),
});
const bridgeWasm = ["strata_core_bg.wasm", "strata_embedder_bg.wasm", "strata_chunker_bg.wasm"];
for (const w of bridgeWasm) copyFileSync(path.join(wasmDir, w), path.join(server, w));

// 5. The bridge's files for Claude Code, as release assets the plugin installs into its folder
// (`bridge/`) from the settings tab, checked like a model: they join the table in models.json.
const bridgeDir = path.join(stage, "bridge");
mkdirSync(bridgeDir, { recursive: true });
copyFileSync(path.join(server, "strata-mcp.cjs"), path.join(bridgeDir, "mcp-bridge.js"));
for (const w of bridgeWasm) copyFileSync(path.join(server, w), path.join(bridgeDir, w));
table.bridge = await describeFiles("bridge", bridgeDir, ["mcp-bridge.js", ...bridgeWasm], {
  license: pkg.license ?? "MIT",
});
await writeEntryParts(table.bridge, bridgeDir, out);
writeFileSync(path.join(out, "models.json"), `${JSON.stringify(table, null, 2)}\n`);

// 5b. The embedder's relaxed-SIMD build, as a release asset the plugin downloads with a model
// where the engine runs relaxed SIMD (plugin/core/embedding/builds.ts).
let relaxedDir = values["relaxed-from"] ?? null;
if (values.relaxed) {
  log(`building the relaxed-SIMD embedder (${profile} profile)`);
  execFileSync("bash", ["scripts/build-wasm.sh", "relaxed"], { stdio: "inherit", env: { ...process.env, STRATA_PROFILE: profile } });
  relaxedDir = `${wasmDir}-relaxed`;
  execFileSync(process.execPath, ["scripts/check-relaxed-embedder.mjs", relaxedDir, wasmDir], { stdio: "inherit" });
}
if (relaxedDir) {
  const dir = path.join(stage, "embedder");
  try {
    table.embedder = await relaxedEmbedderEntry({ relaxedDir, wasmDir, outDir: dir, license: pkg.license ?? "MIT" });
  } catch (err) {
    fail(err.message);
  }
  await writeEntryParts(table.embedder, dir, out);
  writeFileSync(path.join(out, "models.json"), `${JSON.stringify(table, null, 2)}\n`);
}

// 6. The plugin, with the whole table (models and bridge) and this version compiled in.
const release = { version, repository: repositoryUrl(pkg), table };
const opts = await config.pluginBuildOptions({ entry: "plugin/obsidian/main.ts", outfile: path.join(stage, "main.js") });
await build({ ...opts, define: { ...opts.define, __STRATA_RELEASE__: JSON.stringify(release) } });
copyFileSync(path.join(stage, "main.js"), path.join(out, "main.js"));
copyFileSync("manifest.json", path.join(out, "manifest.json"));
copyFileSync("styles.css", path.join(out, "styles.css"));

// 7. strata.mcpb: the bridge, the three .wasm and the bundle's manifest, checked and packed by the
// official CLI.
copyFileSync("LICENSE", path.join(bundle, "LICENSE"));
const { mcpbManifest } = await import("./mcpb-manifest.mjs");
writeFileSync(
  path.join(bundle, "manifest.json"),
  `${JSON.stringify(mcpbManifest({ version, repository: repositoryUrl(pkg) }), null, 2)}\n`,
);
const mcpb = path.resolve("node_modules/.bin/mcpb");
if (!existsSync(mcpb)) fail("node_modules/.bin/mcpb is missing: npm install (it is a devDependency)");
execFileSync(mcpb, ["validate", path.join(bundle, "manifest.json")], { stdio: ["ignore", "ignore", "inherit"] });
execFileSync(mcpb, ["pack", bundle, path.join(out, "strata.mcpb")], { stdio: ["ignore", "ignore", "inherit"] });

rmSync(stage, { recursive: true, force: true });
const size = (f) => `${(statSync(path.join(out, f)).size / 1048576).toFixed(1)} MB`;
log(
  `${out}: main.js ${size("main.js")}, strata.mcpb ${size("strata.mcpb")}, ${table.models.length} models` +
    `${table.embedder ? `, the relaxed-SIMD embedder (${(table.embedder.size / 1048576).toFixed(1)} MB)` : ""} (wasm: ${profile} profile)`,
);
