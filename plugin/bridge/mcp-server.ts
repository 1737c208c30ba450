// The MCP server both transports serve: the stdio bridge (stdio-server.ts) and the plugin's
// Streamable HTTP endpoint (mcp-http.ts). One name, one set of instructions, the tools of the
// one tool table (tools.ts) with their schemas and annotations; each transport says how a call
// is answered (forwarded, headless, or the plugin's backend).

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

import { errorMessage } from "../core/errors.ts";
import type { ToolResult } from "./loopback-protocol.ts";
import { TOOLS, toolError } from "./tools.ts";
import { type Caller, clientLabel } from "./writes.ts";

export const SERVER_NAME = "strata";
export const SERVER_VERSION = "0.1.0";

export const INSTRUCTIONS =
  "Strata searches and reads the user's Obsidian vault. Search with the user's words plus 2–3 rephrasings (unless a strong signal is reported), " +
  "read the sections you need before whole notes, cite note paths, and at the end of substantial work save a session summary (session_save) when writing is enabled.";

/** How a transport answers one tool call: `signal` aborts when the client cancels it. */
export type ToolCaller = (name: string, args: unknown, caller: Caller, signal: AbortSignal) => Promise<ToolResult>;

export interface McpServerOptions {
  /** The client's name when the transport knows it better than the server's own handshake
   *  (a stateless HTTP request carries no handshake). */
  client?: () => string | undefined;
}

/**
 * The SDK's server validates with a JSON schema validator only a client's answer to an
 * elicitation (a form the server asks the user to fill in), which Strata never asks for. This
 * one says so if it is ever asked; the SDK's default (Ajv, compiled anew for every server, and
 * ~280 KB that esbuild.config.mjs leaves out of main.js, see ajv-left-out.ts) is never made.
 */
export const NO_ELICITATION: jsonSchemaValidator = {
  getValidator() {
    throw new Error("Strata's MCP server asks clients for no elicitation, so it validates no answer to one");
  },
};

/** A server with Strata's tools, answering calls through `call`. */
export function createMcpServer(call: ToolCaller, opts: McpServerOptions = {}): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: NO_ELICITATION,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    try {
      const client = opts.client?.() ?? clientLabel(server.getClientVersion());
      const caller: Caller = client ? { client } : {};
      return (await call(req.params.name, req.params.arguments ?? {}, caller, extra.signal)) as unknown as Record<string, unknown>;
    } catch (err) {
      return toolError(`${req.params.name} failed: ${errorMessage(err)}`) as unknown as Record<string, unknown>;
    }
  });
  return server;
}
