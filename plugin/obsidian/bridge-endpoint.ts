// Starts and stops the MCP bridge's loopback endpoint (plugin/bridge/loopback.ts) on desktop:
// the stdio bridge's /v1/… and MCP over Streamable HTTP at /mcp. The module is imported lazily,
// so mobile never evaluates node:http nor the MCP SDK.

import type { BridgeHandle, BridgeHost } from "./host.ts";

/** The vault's folder on disk (desktop FileSystemAdapter), or null. */
export function vaultBasePath(plugin: Pick<BridgeHost, "app">): string | null {
  const adapter = plugin.app.vault.adapter as unknown as { getBasePath?: () => string };
  return typeof adapter.getBasePath === "function" ? adapter.getBasePath() : null;
}

export async function startBridge(plugin: BridgeHost, token: string, port: number): Promise<BridgeHandle> {
  const base = vaultBasePath(plugin);
  if (!base) throw new Error("the vault is not a folder on disk");
  const { startLoopbackServer, writeBridgeInfo, removeBridgeInfo } = await import("../bridge/loopback.ts");
  const server = await startLoopbackServer({ backend: plugin.backend, token, port });
  const pluginDirAbs = `${base.replace(/[\\/]+$/, "")}/${plugin.pluginDir}`;
  try {
    await writeBridgeInfo(pluginDirAbs, { port: server.port, token, vault: plugin.app.vault.getName() });
  } catch (err) {
    await server.close();
    throw err;
  }
  return {
    port: server.port,
    mcpStats: () => server.mcpStats(),
    close: async () => {
      await server.close();
      await removeBridgeInfo(pluginDirAbs);
    },
  };
}

/**
 * With the bridge off, bridge.json still says that Obsidian has this vault's index open (port
 * 0, no token): a headless bridge started by Claude then refuses to write the same index
 * folder and tells the user to turn the bridge on, instead of two writers racing.
 */
export async function markPresence(plugin: Pick<BridgeHost, "app" | "pluginDir">): Promise<BridgeHandle | null> {
  const base = vaultBasePath(plugin);
  if (!base) return null;
  const { writeBridgeInfo, removeBridgeInfo } = await import("../bridge/loopback.ts");
  const pluginDirAbs = `${base.replace(/[\\/]+$/, "")}/${plugin.pluginDir}`;
  await writeBridgeInfo(pluginDirAbs, { port: 0, token: "", vault: plugin.app.vault.getName() });
  return { port: 0, close: () => removeBridgeInfo(pluginDirAbs) };
}
