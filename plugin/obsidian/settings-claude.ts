// The settings tab's Claude rows (desktop). While Obsidian runs, any MCP client connects to
// the plugin over HTTP with nothing to install: for this vault, the exact
// `claude mcp add --transport http` command and the `mcpServers` entry of clients configured
// by a file, with the address and token filled in, each with a Copy button; the port to keep;
// the token and its rotation. For Claude Desktop and for a vault whose Obsidian is closed: the
// .mcpb of this version, and the `claude mcp add` command and claude_desktop_config.json entry
// that start the MCP bridge from the plugin folder (a release install gets it there with
// *Install*: the release's bridge files, checked like a model).

import { Notice, Platform, type Setting, type SettingDefinitionItem } from "obsidian";
import { MCP_PATH } from "../bridge/loopback-protocol.ts";
import { formatBytes, releaseAssetUrl } from "../core/model-download.ts";
import { BRIDGE_ID } from "./model-install.ts";
import type { ClaudeRowsHost } from "./host.ts";

const quote = (s: string) => (/^[\w@%+=:,./\\-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, "\\$1")}"`);

/** Where the bridge may be, relative to the vault: installed from the release, or by install-plugin. */
export function bridgeCandidates(p: ClaudeRowsHost): string[] {
  return [`${p.pluginDir}/${BRIDGE_ID}/mcp-bridge.js`, `${p.pluginDir}/mcp-bridge.js`];
}

/** What Claude needs to start the bridge at `bridge` (vault-relative) for this vault, or null off desktop. */
export function claudeSetup(p: ClaudeRowsHost, bridge: string): { vault: string; args: string[]; command: string; config: string } | null {
  const base = (p.app.vault.adapter as { getBasePath?: () => string }).getBasePath?.();
  if (!base) return null;
  const vault = base.replace(/[\\/]+$/, "");
  const args = [`${vault}/${bridge}`, vault, "--config-dir", p.app.vault.configDir];
  const command = `claude mcp add strata -- node ${args.map(quote).join(" ")}`;
  const config = JSON.stringify({ mcpServers: { strata: { command: "node", args } } }, null, 2);
  return { vault, args, command, config };
}

/** What an MCP client needs to reach this vault's running plugin over HTTP, or null while the endpoint is off. */
export function httpSetup(p: Pick<ClaudeRowsHost, "bridge" | "settings">): { url: string; command: string; config: string } | null {
  const port = p.bridge?.port;
  const token = p.settings.bridgeToken;
  if (!port || !token) return null;
  const url = `http://127.0.0.1:${port}${MCP_PATH}`;
  const command = `claude mcp add --transport http strata ${url} --header "Authorization: Bearer ${token}"`;
  const config = JSON.stringify({ mcpServers: { strata: { type: "http", url, headers: { Authorization: `Bearer ${token}` } } } }, null, 2);
  return { url, command, config };
}

function copyButton(row: Setting, text: string): void {
  row.addButton((b) =>
    b.setButtonText("Copy").onClick(() => {
      void navigator.clipboard?.writeText(text).then(
        () => new Notice("Copied"),
        () => new Notice("Could not copy: select the text instead"),
      );
    }),
  );
}

/** Where the bridge was found, checked again each time the rows are defined (it is installed
 *  from the tab): undefined until the first check answers. */
export interface BridgeLookup {
  found?: string | null;
}

/** The rows; `refresh` redraws the tab (the bridge found, a bridge download started or ended). */
export function claudeDefinitions(p: ClaudeRowsHost, lookup: BridgeLookup, refresh: () => void): SettingDefinitionItem[] {
  const inst = p.installer;
  const release = inst.release;
  const mcpb = releaseAssetUrl(release, "strata.mcpb");
  const setup = claudeSetup(p, lookup.found ?? "");
  void (async () => {
    let found: string | null = null;
    for (const c of bridgeCandidates(p)) if (!found && (await p.app.vault.adapter.exists(c))) found = c;
    // (Not yet looked up draws as not found: no redraw when it is not there.)
    if (found !== (lookup.found ?? null)) {
      lookup.found = found;
      refresh();
    }
  })();
  const progressText = () => {
    const pr = inst.progress;
    return pr ? `Downloading the bridge: ${formatBytes(pr.doneBytes)} of ${formatBytes(pr.totalBytes)}.` : "Downloading the bridge…";
  };
  /** The Claude Code row before the bridge is in the plugin folder: install it. */
  const installRow = (row: Setting): (() => void) => {
    const b = inst.bridge;
    if (inst.running === BRIDGE_ID) {
      row.setDesc(progressText()).addButton((btn) => btn.setButtonText("Cancel").onClick(() => inst.cancel()));
    } else if (b) {
      const err = inst.errors.get(BRIDGE_ID);
      row
        .setDesc(
          err ??
            `Claude Code starts Strata's MCP bridge with Node.js from the plugin folder: install it first (${formatBytes(b.size)}, from this version's release, checked like the model).`,
        )
        .addButton((btn) =>
          btn
            .setButtonText(err ? "Install again" : "Install the bridge")
            .setCta()
            .onClick(() => void inst.downloadBridge()),
        );
    } else {
      // Product names as they are written: MCP, Strata, Claude Desktop (the review's sentence-case
      // rule knows none of them and would lower-case them).
      row.setDesc("This build carries no MCP bridge to install: install Strata from a release, or use the Claude Desktop extension.");
    }
    return inst.onChange(() => {
      if (inst.running !== BRIDGE_ID || !inst.progress || inst.progress.partsDone === 0) refresh();
      else row.setDesc(progressText());
    });
  };
  const http = httpSetup(p);
  const port = p.bridge?.port ?? 0;
  return [
    {
      type: "group",
      heading: "Claude",
      visible: Platform.isDesktopApp,
      items: [
        {
          name: "Connect over HTTP",
          desc: http
            ? "Claude Code, while Obsidian runs, with nothing to install: run in a terminal (add --scope user for every project):"
            : p.bridgeError
              ? `The endpoint is not running: ${p.bridgeError}`
              : "Claude Code, Cursor, VS Code and other MCP clients can connect to this vault while Obsidian runs, with nothing to install, once the endpoint is on.",
          aliases: ["http", "streamable http", "claude mcp add", "mcp", "cursor", "vs code"],
          render: (row) => {
            if (http) {
              row.descEl.createEl("pre", { text: http.command, cls: "strata-copy-text" });
              copyButton(row, http.command);
            } else if (!p.settings.bridgeEnabled) {
              row.addButton((b) =>
                b
                  .setButtonText("Turn on")
                  .setCta()
                  .onClick(async () => {
                    p.settings.bridgeEnabled = true;
                    await p.saveSettings();
                    await p.restartBridge();
                    refresh();
                  }),
              );
            }
          },
        },
        {
          name: "MCP client configuration",
          desc: "For clients configured by a file (an mcpServers entry: .mcp.json of Claude Code, mcp.json of Cursor, and others):",
          aliases: ["mcpServers", "mcp.json", "http"],
          visible: !!http,
          render: (row) => {
            if (!http) return;
            row.descEl.createEl("pre", { text: http.config, cls: "strata-copy-text" });
            copyButton(row, http.config);
          },
        },
        {
          name: "Keep this port",
          desc: `The port is chosen anew each time Obsidian starts (now ${port}), and the address above with it: keep ${port} so that clients set up once keep working.`,
          aliases: ["mcp port", "fixed port"],
          visible: !!http && p.settings.bridgePort === 0,
          render: (row) => {
            row.addButton((b) =>
              b.setButtonText(`Keep port ${port}`).onClick(async () => {
                p.settings.bridgePort = port;
                await p.saveSettings();
                refresh();
              }),
            );
          },
        },
        {
          name: "Token",
          desc: "HTTP clients send it (Authorization: Bearer). Rotating it cuts off every client that has the old one: give them the new command or entry. The MCP bridge reads the new one by itself.",
          aliases: ["rotate token", "regenerate token", "mcp token"],
          render: (row) => {
            row.addButton((b) =>
              b.setButtonText("Rotate token").onClick(async () => {
                await p.regenerateToken();
                refresh();
              }),
            );
          },
        },
        {
          name: "Claude Desktop extension",
          desc: mcpb
            ? `Download strata.mcpb of Strata ${release.version} and open it: Claude Desktop installs it and asks for the vault folder.`
            : `Install strata.mcpb from the release of Strata ${release.version} (this build does not know its address).`,
          aliases: ["mcpb", "mcp"],
          render: (row) => {
            if (mcpb) row.descEl.createEl("a", { text: " strata.mcpb", href: mcpb });
          },
        },
        {
          name: "Claude Code",
          desc:
            lookup.found && setup
              ? "Or through the MCP bridge, which answers with Obsidian closed too. Run in a terminal (it needs Node.js; add --scope user for every project):"
              : "Install the MCP bridge for Claude Code (it answers with Obsidian closed too).",
          aliases: ["claude mcp add", "mcp"],
          // Only where the vault is a folder on disk (desktop), whose path the command names.
          visible: !!setup,
          render: (row) => {
            if (!lookup.found || !setup) return installRow(row);
            row.descEl.createEl("pre", { text: setup.command, cls: "strata-copy-text" });
            copyButton(row, setup.command);
          },
        },
        {
          name: "claude_desktop_config.json",
          desc: "Or add this to Claude Desktop's configuration file instead of installing the extension:",
          aliases: ["claude desktop", "mcp"],
          visible: !!(lookup.found && setup),
          render: (row) => {
            if (!setup) return;
            row.descEl.createEl("pre", { text: setup.config, cls: "strata-copy-text" });
            copyButton(row, setup.config);
          },
        },
      ],
    },
  ];
}
