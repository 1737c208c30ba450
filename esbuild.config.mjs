// Bundles Strata's TypeScript. Run with `node esbuild.config.mjs` (after scripts/build-wasm.sh,
// whose output build/wasm/strata_core.js the bundles import).
import { build } from "esbuild";
import { chmod, readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

import { buildBridge, COMMON as common, ESM_REQUIRE_BANNER } from "./esbuild.bridge.mjs";

/** esbuild plugin: the virtual modules "strata:wasm" (the core's .wasm, base64), "strata:embedder-wasm" (gzip+base64:
 *  only loaded with a model) and "strata:worker" (the worker bundle's text). See plugin/obsidian/wasm-inline.ts. */
export function inlinePlugin() {
  let workerText = null;
  return {
    name: "strata-inline",
    setup(b) {
      b.onResolve({ filter: /^strata:(wasm|embedder-wasm|worker)$/ }, (args) => ({ path: args.path, namespace: "strata-inline" }));
      b.onLoad({ filter: /.*/, namespace: "strata-inline" }, async (args) => {
        const wasmFile = { "strata:wasm": "strata_core_bg.wasm", "strata:embedder-wasm": "strata_embedder_bg.wasm" }[args.path];
        if (wasmFile) {
          const wasm = await readFile(`build/wasm/${wasmFile}`);
          const text = args.path === "strata:wasm" ? wasm.toString("base64") : gzipSync(wasm, { level: 6 }).toString("base64");
          return { contents: text, loader: "text" };
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
            plugins: [inlinePlugin()],
          });
          workerText = out.outputFiles[0].text;
        }
        return { contents: workerText, loader: "text" };
      });
    },
  };
}

/** The plugin bundle's options (also used by the UI test harness with another entry). */
export function pluginBuildOptions({ entry, outfile, alias = {}, format = "cjs" }) {
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
    define: { "import.meta.url": '"about:blank"' },
    plugins: [inlinePlugin()],
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
    });
    await chmod("dist/strata.js", 0o755);

    // 2. The Obsidian plugin: `main.js` (CommonJS, `obsidian` external) with the search worker
    // inlined as source text and the two .wasm as base64 strings the plugin posts to the worker
    // (see worker-entry.ts): the community installer ships main.js, manifest.json and styles.css only.
    await build(pluginBuildOptions({ entry: "plugin/obsidian/main.ts", outfile: "main.js" }));

    // 3. The MCP bridge (dist/mcp-bridge.js, and mcp-bridge.js to install beside main.js).
    await buildBridge();
  }

  // 4. The bench, beside the CLI (not shipped: dist/strata-bench.js).
  await buildBench();
}
