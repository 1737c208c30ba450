// What the MCP bridge and the plugin's loopback endpoint share: the tool result shape (MCP's
// CallToolResult, without depending on the SDK, so the plugin bundle stays small), where
// bridge.json lives, and the HTTP protocol between the bridge and the plugin.
//
// Protocol (127.0.0.1 only, every request carries `Authorization: Bearer <token>`):
//   GET  /v1/ping  → 200 {"server":"strata","protocol":1,"mode":"plugin","vault":"…"}
//   POST /v1/call  {"name": tool, "arguments": {…}, "client"?: "name version"} → 200 {"result": ToolResult}
//                  (client: the MCP client the bridge serves, recorded with the tool's writes)
//   /mcp           MCP over Streamable HTTP (mcp-http.ts), for any MCP client
// Errors: 401 (token), 403 (Host/Origin), 404, 405, 413 (body too large), 400 (bad JSON),
// always as {"error": message}; and from Node's HTTP server itself, without a JSON body, 408
// (a request not sent within the endpoint's timeouts; the connection is then closed) and 400
// (an HTTP/1.1 request without Host).

export const PLUGIN_ID = "strata-search";
export const BRIDGE_INFO_FILE = "bridge.json";
export const AUDIT_LOG_FILE = "audit.jsonl";
export const PROTOCOL_VERSION = 1;
export const PING_PATH = "/v1/ping";
export const CALL_PATH = "/v1/call";
/** MCP over Streamable HTTP on the same server (the address clients are given: http://127.0.0.1:PORT/mcp). */
export const MCP_PATH = "/mcp";
/** Request bodies above this are refused (413). Tool arguments are small. */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface TextContent {
  type: "text";
  text: string;
}

/** MCP's CallToolResult, as the tools produce it. */
export interface ToolResult {
  content: TextContent[];
  /** The same answer as JSON (tests and programmatic clients read this). */
  structuredContent?: Record<string, unknown>;
  /** Set when the tool refused or failed: `content` says why, in words for the model. */
  isError?: boolean;
}

/** What the plugin writes to `<vault>/<configDir>/plugins/strata-search/bridge.json` (mode 0600). */
export interface BridgeInfo {
  port: number;
  token: string;
  pid: number;
  /** The vault's name (folder name). */
  vault: string;
  protocol?: number;
}

/** The plugin folder, relative to the vault. */
export function pluginDirOf(configDir = ".obsidian"): string {
  return `${configDir}/plugins/${PLUGIN_ID}`;
}
