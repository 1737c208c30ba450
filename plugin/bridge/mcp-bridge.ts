// Entry of the stdio MCP bridge (bundled to mcp-bridge.js, installed beside the plugin's
// main.js, and to dist/mcp-bridge.js). Claude starts it: `node mcp-bridge.js <vault>`.
// stdout carries MCP messages only; diagnostics go to stderr.

import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { errorMessage } from "../core/errors.ts";
import { isEmbedWorkerThread } from "../node/pool-workers.ts";
import { BridgeUsageError, MCP_HELP, parseBridgeArgs } from "./args-cli.ts";
import { serveStdio } from "./stdio-server.ts";

async function main(): Promise<number> {
  let opts;
  try {
    opts = parseBridgeArgs(process.argv.slice(2), path.dirname(fileURLToPath(import.meta.url)));
  } catch (err) {
    if (err instanceof BridgeUsageError) {
      process.stderr.write((err.message ? `strata-mcp: ${err.message}\n\n` : "") + MCP_HELP);
      return 2;
    }
    throw err;
  }
  await serveStdio(opts);
  return 0;
}

// In an embedder worker (the bundle runs itself in worker_threads: plugin/node/pool-workers.ts) the worker serves.
if (!isEmbedWorkerThread())
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`strata-mcp: ${errorMessage(err)}\n`);
      process.exitCode = 1;
    },
  );
