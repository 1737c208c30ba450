// Bundles the MCP bridge Claude starts (stdio): `node esbuild.bridge.mjs` (esbuild.config.mjs runs
// it too). Two copies of plugin/bridge/mcp-bridge.ts:
//   dist/mcp-bridge.js  ESM, beside dist/strata.js (this package is "type": "module");
//   mcp-bridge.js       CommonJS, installed beside the plugin's main.js: a vault's plugin folder has
//                       no package.json saying "module", and CommonJS runs on every Node ≥ 18.
// Both find the core's .wasm and the model next to themselves or in the repository (plugin/node/host.ts).
import { build } from "esbuild";
import { chmod } from "node:fs/promises";

/** ESM bundles of CommonJS dependencies (yaml, ajv) need a real `require` for Node's built-ins. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __strataCreateRequire } from 'node:module';\nconst require = __strataCreateRequire(import.meta.url);";

/** Options every bundle of this repository shares (esbuild.config.mjs uses them too). */
export const COMMON = {
  bundle: true,
  sourcemap: false,
  logLevel: "warning",
  target: "es2022",
  legalComments: "none",
};

const common = { ...COMMON, entryPoints: ["plugin/bridge/mcp-bridge.ts"], platform: "node" };

/** `extra`: esbuild options esbuild.config.mjs adds (the release info `define`, the wasm folder
 *  plugin); `cjsOutfile` (the release script's) builds the CommonJS copy only, there. */
export async function buildBridge(extra = {}) {
  const { define = {}, plugins = [], cjsOutfile = null } = extra;
  if (!cjsOutfile)
    await build({
      ...common,
      outfile: "dist/mcp-bridge.js",
      format: "esm",
      banner: { js: `#!/usr/bin/env node\n${ESM_REQUIRE_BANNER}` },
      define,
      plugins,
    });
  await build({
    ...common,
    outfile: cjsOutfile ?? "mcp-bridge.js",
    format: "cjs",
    plugins,
    // import.meta.url locates the .wasm and the model next to the bundle.
    define: { ...define, "import.meta.url": "__strataImportMetaUrl" },
    banner: { js: "#!/usr/bin/env node\nconst __strataImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  });
  if (!cjsOutfile) await chmod("dist/mcp-bridge.js", 0o755);
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) await buildBridge();
