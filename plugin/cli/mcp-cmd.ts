// `strata mcp <vault>`: the stdio MCP server for Claude (the same as mcp-bridge.js).

import { BridgeUsageError, MCP_HELP, MCP_USAGE, parseBridgeArgs } from "../bridge/args-cli.ts";
import { serveStdio } from "../bridge/stdio-server.ts";
import { CliError } from "./common.ts";

export { MCP_USAGE };

export async function mcpCommand(args: string[]): Promise<number> {
  let opts;
  try {
    opts = parseBridgeArgs(args);
  } catch (err) {
    if (err instanceof BridgeUsageError) {
      if (!err.message) {
        process.stdout.write(MCP_HELP);
        return 0;
      }
      throw new CliError(`${err.message}\n\n${MCP_HELP}`, 2);
    }
    throw err;
  }
  try {
    await serveStdio(opts);
  } catch (err) {
    throw new CliError((err as Error).message, 2);
  }
  return 0;
}
