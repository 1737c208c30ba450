// The settings tab's Claude rows (desktop): the .mcpb of this version for Claude Desktop, and
// for this vault the exact `claude mcp add` command and claude_desktop_config.json entry, with
// its absolute paths filled in, each with a Copy button. Those start the MCP bridge from the
// plugin folder: a release install gets it there with *Install* (the release's bridge files,
// checked like a model).

import { Notice, Setting } from "obsidian";
import { formatBytes, releaseAssetUrl } from "../core/model-download.ts";
import { BRIDGE_ID } from "./model-install.ts";
import type StrataPlugin from "./plugin.ts";

const quote = (s: string) => (/^[\w@%+=:,./\\-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, "\\$1")}"`);

/** Where the bridge may be, relative to the vault: installed from the release, or by install-plugin. */
export function bridgeCandidates(p: StrataPlugin): string[] {
  return [`${p.pluginDir}/${BRIDGE_ID}/mcp-bridge.js`, `${p.pluginDir}/mcp-bridge.js`];
}

/** What Claude needs to start the bridge at `bridge` (vault-relative) for this vault, or null off desktop. */
export function claudeSetup(p: StrataPlugin, bridge: string): { vault: string; args: string[]; command: string; config: string } | null {
  const base = (p.app.vault.adapter as { getBasePath?: () => string }).getBasePath?.();
  if (!base) return null;
  const vault = base.replace(/[\\/]+$/, "");
  const args = [`${vault}/${bridge}`, vault, "--config-dir", p.app.vault.configDir];
  const command = `claude mcp add strata -- node ${args.map(quote).join(" ")}`;
  const config = JSON.stringify({ mcpServers: { strata: { command: "node", args } } }, null, 2);
  return { vault, args, command, config };
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

/** Adds the rows; returns a function that stops following a bridge download. */
export function renderClaudeSetup(el: HTMLElement, p: StrataPlugin, redisplay: () => void): () => void {
  new Setting(el).setName("Claude").setHeading();
  const inst = p.installer;
  const release = inst.release;
  const mcpb = releaseAssetUrl(release, "strata.mcpb");
  const desktop = new Setting(el).setName("Claude Desktop extension");
  if (mcpb) {
    desktop.setDesc(
      `Download strata.mcpb of Strata ${release.version} and open it: Claude Desktop installs it and asks for the vault folder. `,
    );
    desktop.descEl.createEl("a", { text: "strata.mcpb", href: mcpb });
  } else desktop.setDesc(`Install strata.mcpb from the release of Strata ${release.version} (this build does not know its address).`);

  if (!claudeSetup(p, "")) return () => undefined;
  const box = el.createDiv();
  const unsubscribe = inst.onChange(() => {
    if (inst.running !== BRIDGE_ID || !inst.progress || inst.progress.partsDone === 0) redisplay();
    else bridgeRow?.setDesc(progressText());
  });
  let bridgeRow: Setting | null = null;
  const progressText = () => {
    const pr = inst.progress;
    return pr ? `Downloading the bridge: ${formatBytes(pr.doneBytes)} of ${formatBytes(pr.totalBytes)}.` : "Downloading the bridge…";
  };
  void (async () => {
    let found: string | null = null;
    for (const c of bridgeCandidates(p)) if (!found && (await p.app.vault.adapter.exists(c))) found = c;
    if (!found) {
      const b = inst.bridge;
      bridgeRow = new Setting(box).setName("Claude Code");
      if (inst.running === BRIDGE_ID) {
        bridgeRow.setDesc(progressText()).addButton((btn) => btn.setButtonText("Cancel").onClick(() => inst.cancel()));
      } else if (b) {
        const err = inst.errors.get(BRIDGE_ID);
        bridgeRow
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
      } else
        bridgeRow.setDesc(
          "This build carries no MCP bridge to install: install Strata from a release, or use the Claude Desktop extension.",
        );
      return;
    }
    const setup = claudeSetup(p, found)!;
    const cmd = new Setting(box)
      .setName("Claude Code")
      .setDesc("Run in a terminal (it needs Node.js; add --scope user for every project):");
    cmd.descEl.createEl("pre", { text: setup.command, cls: "strata-copy-text" });
    copyButton(cmd, setup.command);
    const cfg = new Setting(box)
      .setName("claude_desktop_config.json")
      .setDesc("Or add this to Claude Desktop's configuration file instead of installing the extension:");
    cfg.descEl.createEl("pre", { text: setup.config, cls: "strata-copy-text" });
    copyButton(cfg, setup.config);
  })();
  return unsubscribe;
}
