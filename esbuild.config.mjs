// Bundles Strata's TypeScript. Run with `node esbuild.config.mjs` (after scripts/build-wasm.sh,
// whose output build/wasm/strata_core.js the bundles import).
import { build } from "esbuild";
import { existsSync, readFileSync } from "node:fs";
import { chmod, readFile } from "node:fs/promises";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

import { buildBridge, COMMON as common, ESM_REQUIRE_BANNER } from "./esbuild.bridge.mjs";
import { coreModels, modelTable, relaxedEmbedderEntry, repositoryUrl } from "./scripts/model-table.mjs";

/** The wasm modules and their glue: build/wasm, or $STRATA_WASM_DIR (the release's `dist` build). */
const WASM_DIR = process.env.STRATA_WASM_DIR ?? "build/wasm";

/** esbuild plugin: the wasm glue imported as build/wasm/strata_*.js comes from WASM_DIR. */
export function wasmDirPlugin() {
  return {
    name: "strata-wasm-dir",
    setup(b) {
      if (path.resolve(WASM_DIR) === path.resolve("build/wasm")) return;
      b.onResolve({ filter: /build\/wasm\/strata_(core|embedder|chunker)\.js$/ }, (args) => ({
        path: path.resolve(WASM_DIR, path.basename(args.path)),
      }));
    },
  };
}

/**
 * What the bundles know of their release (plugin/core/release.ts): the version, the repository
 * downloads come from, and the model table. The release script passes its models.json
 * ($STRATA_MODEL_TABLE); a development build describes the models in models/ (none: an empty table).
 */
export async function releaseInfo() {
  const pkg = JSON.parse(readFileSync("package.json", "utf8"));
  const { version } = JSON.parse(readFileSync("manifest.json", "utf8"));
  let table = { version, partSize: 0, models: [] };
  if (process.env.STRATA_MODEL_TABLE) table = JSON.parse(readFileSync(process.env.STRATA_MODEL_TABLE, "utf8"));
  else if (existsSync(path.join(WASM_DIR, "strata_core_bg.wasm"))) {
    try {
      table = await modelTable({ version, models: await coreModels(WASM_DIR), cacheFile: "build/model-table-cache.json" });
    } catch (err) {
      // A wasm being rebuilt, an unreadable model: this development build carries no table.
      console.warn(`esbuild: no model table (${err.message})`);
    }
    // A relaxed-SIMD embedder built here (scripts/build-wasm.sh relaxed): described like the
    // release's, so the Chromium bench can install it into a vault (npm run bench:plugin).
    const relaxedDir = `${WASM_DIR}-relaxed`;
    if (existsSync(path.join(relaxedDir, "strata_embedder_bg.wasm"))) {
      try {
        table.embedder = await relaxedEmbedderEntry({ relaxedDir, wasmDir: WASM_DIR, outDir: relaxedDir, license: pkg.license ?? "MIT" });
      } catch (err) {
        console.warn(`esbuild: no relaxed-SIMD embedder in the table (${err.message})`);
      }
    }
  }
  return { version, repository: repositoryUrl(pkg), table };
}

/** esbuild `define` of the release info (one JSON literal, the same in every bundle). */
let releaseDefine = null;
export async function defineRelease() {
  releaseDefine ??= { __STRATA_RELEASE__: JSON.stringify(await releaseInfo()) };
  return releaseDefine;
}

/** esbuild plugin: the virtual modules "strata:wasm" (the core's .wasm, base64), "strata:embedder-wasm" (gzip+base64:
 *  only loaded with a model), "strata:code-wasm" (the code chunker's, gzip+base64: only loaded when the vault has code
 *  files to index), "strata:worker" (the worker bundle's text) and "strata:embed-worker" (an embedder worker's). See
 *  plugin/obsidian/wasm-inline.ts. */
export function inlinePlugin() {
  let workerText = null;
  let embedWorkerText = null;
  return {
    name: "strata-inline",
    setup(b) {
      b.onResolve({ filter: /^strata:(wasm|embedder-wasm|code-wasm|worker|embed-worker)$/ }, (args) => ({
        path: args.path,
        namespace: "strata-inline",
      }));
      b.onLoad({ filter: /.*/, namespace: "strata-inline" }, async (args) => {
        const wasmFile = {
          "strata:wasm": "strata_core_bg.wasm",
          "strata:embedder-wasm": "strata_embedder_bg.wasm",
          "strata:code-wasm": "strata_chunker_bg.wasm",
        }[args.path];
        if (wasmFile) {
          const wasm = await readFile(path.join(WASM_DIR, wasmFile));
          const text = args.path === "strata:wasm" ? wasm.toString("base64") : gzipSync(wasm, { level: 6 }).toString("base64");
          return { contents: text, loader: "text" };
        }
        if (args.path === "strata:embed-worker") {
          // An embedder worker of the plugin's pool (pool-worker-web.ts): the embedder's JS glue only (its wasm is posted).
          embedWorkerText ??= (
            await build({
              ...common,
              entryPoints: ["plugin/obsidian/pool-worker-entry.ts"],
              platform: "browser",
              format: "iife",
              write: false,
              define: { "import.meta.url": '"about:blank"' },
              // The glue of the wasm build being bundled (the release's `dist` one in build/wasm-dist).
              plugins: [wasmDirPlugin()],
            })
          ).outputFiles[0].text;
          return { contents: embedWorkerText, loader: "text" };
        }
        if (workerText === null) {
          const out = await build({
            ...common,
            entryPoints: ["plugin/obsidian/worker-entry.ts"],
            platform: "browser",
            format: "iife",
            write: false,
            // wasm-bindgen's default path (never used: the bytes are passed in).
            define: { "import.meta.url": '"about:blank"' },
            plugins: [inlinePlugin(), wasmDirPlugin()],
          });
          workerText = out.outputFiles[0].text;
        }
        return { contents: workerText, loader: "text" };
      });
    },
  };
}

/** esbuild plugin: the MCP SDK's Ajv validator left out of the plugin bundle. The SDK's server makes it only when
 *  given no validator of its own, and Strata's servers always are (plugin/bridge/ajv-left-out.ts says why): ~280 KB less
 *  in main.js. */
export function ajvLeftOutPlugin() {
  return {
    name: "strata-ajv-left-out",
    setup(b) {
      b.onResolve({ filter: /\/validation\/ajv-provider\.js$/ }, (args) =>
        args.resolveDir.includes(`${path.sep}@modelcontextprotocol${path.sep}`)
          ? { path: fileURLToPath(new URL("plugin/bridge/ajv-left-out.ts", import.meta.url)) }
          : undefined,
      );
    },
  };
}

/** The plugin bundle's options (also used by the UI test harness with another entry). */
export async function pluginBuildOptions({ entry, outfile, alias = {}, format = "cjs" }) {
  const aliased = Object.keys(alias);
  return {
    ...common,
    entryPoints: [entry],
    outfile,
    platform: "browser",
    format,
    alias,
    external: [
      ...(aliased.includes("obsidian") ? [] : ["obsidian"]),
      "electron",
      "@codemirror/*",
      "@lezer/*",
      "node:*",
      "crypto",
      "fs",
      "fs/promises",
      "http",
      "path",
      "os",
      "url",
    ],
    define: { "import.meta.url": '"about:blank"', ...(await defineRelease()) },
    plugins: [inlinePlugin(), wasmDirPlugin(), ajvLeftOutPlugin()],
  };
}

/** The bench (plugin/bench → dist/strata-bench.js): its competitors (onnxruntime-web, with its
 *  own .wasm files, and the JS tokenizer of its harness) are loaded from node_modules at run
 *  time; MiniSearch is bundled. None of it is in the shipped bundles. */
async function buildBench() {
  await build({
    ...common,
    entryPoints: ["plugin/bench/main.ts"],
    outfile: "dist/strata-bench.js",
    platform: "node",
    format: "esm",
    banner: { js: `#!/usr/bin/env node\n${ESM_REQUIRE_BANNER}` },
    external: ["onnxruntime-web", "@huggingface/tokenizers"],
  });
  await chmod("dist/strata-bench.js", 0o755);
}

// Run directly: `node esbuild.config.mjs` builds the CLI, the plugin, the MCP bridge and the
// bench; `node esbuild.config.mjs --bench` the bench only (`npm run bench`).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!process.argv.includes("--bench")) {
    // 1. The headless CLI: `strata index|search|similar|eval|mcp`.
    await build({
      ...common,
      entryPoints: ["plugin/cli/main.ts"],
      outfile: "dist/strata.js",
      platform: "node",
      format: "esm",
      // `strata mcp` bundles CommonJS dependencies (yaml, ajv) that require Node's built-ins.
      banner: { js: `#!/usr/bin/env node\n${ESM_REQUIRE_BANNER}` },
      define: await defineRelease(),
      plugins: [wasmDirPlugin()],
    });
    await chmod("dist/strata.js", 0o755);

    // 2. The Obsidian plugin: `main.js` (CommonJS, `obsidian` external) with the search worker
    // inlined as source text and the two .wasm as base64 strings the plugin posts to the worker
    // (see worker-entry.ts): the community installer ships main.js, manifest.json and styles.css only.
    await build(await pluginBuildOptions({ entry: "plugin/obsidian/main.ts", outfile: "main.js" }));

    // 3. The MCP bridge (dist/mcp-bridge.js, and mcp-bridge.js to install beside main.js).
    await buildBridge({ define: await defineRelease(), plugins: [wasmDirPlugin()] });
  }

  // 4. The bench, beside the CLI (not shipped: dist/strata-bench.js).
  await buildBench();
}
