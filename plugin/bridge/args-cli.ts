// Command-line options of the MCP bridge (`mcp-bridge.js` and `strata mcp`).

import * as path from "node:path";
import { parseArgs } from "node:util";

import type { BridgeOptions } from "./stdio-server.ts";

export const MCP_USAGE =
  "mcp <vault> [--config-dir .obsidian] [--write-tools] [--no-model] [--headless]   stdio MCP server for Claude (forwards to Obsidian when it runs)";

export const MCP_HELP = `usage: ${MCP_USAGE}

  <vault>          the vault folder (or $STRATA_VAULT; when mcp-bridge.js sits in
                   <vault>/<config-dir>/plugins/strata-search/ it finds its vault itself)
  --config-dir     Obsidian's config folder name (default .obsidian, or $STRATA_CONFIG_DIR)
  --write-tools    allow apply_patch, session_save/compact and memory_save when Obsidian is not
                   running (also $STRATA_WRITE_TOOLS=1; otherwise the plugin's setting decides)
  --no-model       do not load an embedding model (lexical search only); otherwise the model
                   follows the plugin's "Embedding model" setting (auto without one)
  --headless       never forward to the running plugin
`;

export class BridgeUsageError extends Error {}

/** The vault a bridge installed in `<vault>/<configDir>/plugins/<id>/` belongs to. */
export function vaultOfInstalledBridge(moduleDir: string): { vaultDir: string; configDir: string } | null {
  const plugins = path.dirname(moduleDir);
  const config = path.dirname(plugins);
  if (path.basename(plugins) !== "plugins" || !path.basename(config).startsWith(".")) return null;
  return { vaultDir: path.dirname(config), configDir: path.basename(config) };
}

export function parseBridgeArgs(argv: string[], moduleDir?: string): BridgeOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        "config-dir": { type: "string" },
        "write-tools": { type: "boolean" },
        "no-model": { type: "boolean" },
        headless: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    throw new BridgeUsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) throw new BridgeUsageError("");
  if (positionals.length > 1) throw new BridgeUsageError(`one vault only, got ${positionals.length}`);
  const installed = moduleDir ? vaultOfInstalledBridge(moduleDir) : null;
  const vault = positionals[0] ?? process.env.STRATA_VAULT ?? installed?.vaultDir;
  if (!vault) throw new BridgeUsageError("missing <vault> argument");
  const configDir =
    values["config-dir"] ?? process.env.STRATA_CONFIG_DIR ?? (positionals[0] ? undefined : installed?.configDir) ?? ".obsidian";
  const envWrite = process.env.STRATA_WRITE_TOOLS;
  const write = values["write-tools"] ? true : envWrite === "1" || envWrite === "true" ? true : undefined;
  return {
    vaultDir: path.resolve(vault),
    configDir,
    settings: write ? { writeToolsEnabled: true } : undefined,
    modelsDir: values["no-model"] ? null : undefined,
    headlessOnly: values.headless ?? false,
    log: (msg) => process.stderr.write(`strata-mcp: ${msg}\n`),
  };
}
