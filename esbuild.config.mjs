// Bundles Strata's TypeScript. Run with `node esbuild.config.mjs` (after scripts/build-wasm.sh,
// whose output build/wasm/strata_core.js the bundles import).
import { build } from "esbuild";
import { chmod } from "node:fs/promises";

const common = {
  bundle: true,
  sourcemap: false,
  logLevel: "warning",
  target: "es2022",
  legalComments: "none",
};

// 1. The headless CLI: `strata index|search|eval|bench`.
await build({
  ...common,
  entryPoints: ["plugin/cli/main.ts"],
  outfile: "dist/strata.js",
  platform: "node",
  format: "esm",
  banner: { js: "#!/usr/bin/env node" },
  // The bench's competitor (onnxruntime-web, with its own .wasm files, and the JS tokenizer of
  // its harness) is loaded from node_modules at run time, only by `strata bench`.
  external: ["onnxruntime-web", "@huggingface/tokenizers"],
});
await chmod("dist/strata.js", 0o755);

// 2. The Obsidian plugin (`main.js`, CommonJS, `obsidian` external) lands with the plugin issue:
// await build({
//   ...common,
//   entryPoints: ["plugin/obsidian/main.ts"],
//   outfile: "main.js",
//   platform: "browser",
//   format: "cjs",
//   external: ["obsidian", "electron", "@codemirror/*"],
// });
