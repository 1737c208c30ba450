// The settings tab's Claude rows (desktop): the .mcpb of this version for Claude Desktop, and
// for this vault the exact `claude mcp add` command and claude_desktop_config.json entry, with
// its absolute paths filled in, each with a Copy button.

import { Notice, Setting } from "obsidian";
import { releaseAssetUrl } from "../core/model-download.ts";
import type StrataPlugin from "./plugin.ts";

const quote = (s: string) => (/^[\w@%+=:,./\\-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, "\\$1")}"`);

/** What Claude needs to start the bridge for this vault, or null off desktop. */
export function claudeSetup(p: StrataPlugin): { bridge: string; vault: string; command: string; config: string } | null {
  const base = (p.app.vault.adapter as { getBasePath?: () => string }).getBasePath?.();
  if (!base) return null;
  const vault = base.replace(/[\\/]+$/, "");
  const bridge = `${vault}/${p.pluginDir}/mcp-bridge.js`;
  const configDir = p.app.vault.configDir;
  const args = [bridge, vault, "--config-dir", configDir];
  const command = `claude mcp add strata -- node ${args.map(quote).join(" ")}`;
  const config = JSON.stringify({ mcpServers: { strata: { command: "node", args } } }, null, 2);
  return { bridge, vault, command, config };
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

export function renderClaudeSetup(el: HTMLElement, p: StrataPlugin): void {
  new Setting(el).setName("Claude").setHeading();
  const release = p.installer.release;
  const mcpb = releaseAssetUrl(release, "strata.mcpb");
  const desktop = new Setting(el).setName("Claude Desktop extension");
  if (mcpb) {
    desktop.setDesc(
      `Download strata.mcpb of Strata ${release.version} and open it: Claude Desktop installs it and asks for the vault folder. `,
    );
    desktop.descEl.createEl("a", { text: "strata.mcpb", href: mcpb });
  } else desktop.setDesc(`Install strata.mcpb from the release of Strata ${release.version} (this build does not know its address).`);

  const setup = claudeSetup(p);
  if (!setup) return;
  const cmd = new Setting(el)
    .setName("Claude Code")
    .setDesc("Run in a terminal (it needs Node.js and mcp-bridge.js in the plugin folder; add --scope user for every project):");
  cmd.descEl.createEl("pre", { text: setup.command, cls: "strata-copy-text" });
  copyButton(cmd, setup.command);
  const cfg = new Setting(el)
    .setName("claude_desktop_config.json")
    .setDesc("Or add this to Claude Desktop's configuration file instead of installing the extension:");
  cfg.descEl.createEl("pre", { text: setup.config, cls: "strata-copy-text" });
  copyButton(cfg, setup.config);
}
