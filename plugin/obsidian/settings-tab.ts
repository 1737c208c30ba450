// The settings tab: what is indexed, how results are fused, the embedding model (which one,
// why, its status and how to install it), the MCP bridge, and the index itself (size,
// location, rebuild, clear).

import { Platform, PluginSettingTab, Setting, type App } from "obsidian";
import { AUTO_MODEL } from "../core/models.ts";
import type StrataPlugin from "./plugin.ts";
import { fmt } from "./status.ts";
import { renderModelInstall } from "./settings-model.ts";
import { renderClaudeSetup } from "./settings-claude.ts";

const list = (v: string) =>
  v
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);

export class StrataSettingTab extends PluginSettingTab {
  private reindexTimer: number | null = null;
  /** Stop the model and Claude rows following a download (the tab is redrawn or hidden). */
  private unfollow: (() => void)[] = [];

  constructor(
    app: App,
    private readonly plugin: StrataPlugin,
  ) {
    super(app, plugin);
  }

  /** Settings that change what is indexed take effect once the user stops typing. */
  private reindexSoon(): void {
    if (this.reindexTimer) window.clearTimeout(this.reindexTimer);
    this.reindexTimer = window.setTimeout(() => {
      this.reindexTimer = null;
      void this.plugin.reindexForSettings();
    }, 1500);
  }

  override hide(): void {
    this.unfollow.splice(0).forEach((u) => u());
    super.hide();
  }

  override display(): void {
    const { containerEl } = this;
    const p = this.plugin;
    const s = p.settings;
    this.unfollow.splice(0).forEach((u) => u());
    containerEl.empty();

    new Setting(containerEl).setName("Indexing").setHeading();
    new Setting(containerEl)
      .setName("Excluded folders")
      .setDesc("One folder per line (or comma separated). Notes inside are not indexed.")
      .addTextArea((t) =>
        t
          .setPlaceholder("Archive\nTemplates")
          .setValue(s.excludeFolders.join("\n"))
          .onChange(async (v) => {
            s.excludeFolders = list(v).map((f) => f.replace(/^\/+|\/+$/g, ""));
            await p.saveSettings();
            this.reindexSoon();
          }),
      );
    new Setting(containerEl)
      .setName("Indexed extensions")
      .setDesc("File extensions to index, without the dot.")
      .addText((t) =>
        t.setValue(s.extensions.join(", ")).onChange(async (v) => {
          const exts = list(v)
            .map((e) => e.replace(/^\./, "").toLowerCase())
            .filter((e) => /^[a-z0-9]+$/.test(e));
          s.extensions = exts.length ? exts : ["md"];
          await p.saveSettings();
          this.reindexSoon();
        }),
      );
    new Setting(containerEl)
      .setName("Chunk budget")
      .setDesc("Longest section, in estimated tokens, before it is split (64–4096). Changing it re-indexes the vault.")
      .addText((t) =>
        t.setValue(String(s.chunkBudget)).onChange(async (v) => {
          const n = Number.parseInt(v, 10);
          if (!Number.isFinite(n) || n < 64 || n > 4096) return;
          s.chunkBudget = n;
          await p.saveSettings();
          this.reindexSoon();
        }),
      );

    new Setting(containerEl).setName("Search").setHeading();
    new Setting(containerEl)
      .setName("Default mode")
      .setDesc("Hybrid fuses keyword (BM25) and semantic results; it answers lexically while no model is loaded.")
      .addDropdown((d) =>
        d
          .addOptions({ hybrid: "Hybrid", lexical: "Lexical", semantic: "Semantic" })
          .setValue(s.mode)
          .onChange(async (v) => {
            s.mode = v as typeof s.mode;
            await p.saveSettings();
          }),
      );
    new Setting(containerEl)
      .setName("Fusion")
      .setDesc(
        "Reciprocal rank fusion, with weights chosen per query (questions lean semantic, exact terms lean lexical), or a linear blend of the two scores, each max-normalised, with the same weights.",
      )
      .addDropdown((d) =>
        d
          .addOptions({ rrf: "Reciprocal rank fusion", linear: "Linear" })
          .setValue(s.fusion)
          .onChange(async (v) => {
            s.fusion = v === "linear" ? "linear" : "rrf";
            await p.saveSettings();
          }),
      );
    new Setting(containerEl)
      .setName("Results")
      .setDesc("Results shown in the search modal and the sidebar.")
      .addSlider((sl) =>
        sl
          .setLimits(5, 100, 5)
          .setValue(s.resultCount)
          .setDynamicTooltip()
          .onChange(async (v) => {
            s.resultCount = v;
            await p.saveSettings();
          }),
      );

    new Setting(containerEl).setName("Semantic search").setHeading();
    const choice = new Setting(containerEl)
      .setName("Embedding model")
      .setDesc(modelChoiceDesc(p))
      .addDropdown((d) =>
        d
          .addOptions({
            [AUTO_MODEL]: "Auto (recommended)",
            ...Object.fromEntries((p.models?.ids ?? [s.embeddingModel]).filter((id) => id !== AUTO_MODEL).map((id) => [id, id])),
          })
          .setValue(s.embeddingModel)
          .onChange((v) => {
            // Loads in the worker without blocking; the old vectors answer until the new model has re-embedded.
            choice.setDesc("Loading the model…");
            void p.setEmbeddingModel(v).then(() => this.display());
          }),
      );
    const load = p.modelLoad;
    const modelDesc: Record<string, string> = {
      loaded: `Model ${load?.loaded ?? load?.switching?.from ?? "?"} loaded.${load?.notice ? ` Note: ${load.notice}.` : ""}`,
      loading: "Loading the model…",
      off: "Semantic indexing is off.",
      error: `The model failed to load: ${p.modelError ?? ""}`,
      absent: load?.notice ? `${load.notice[0].toUpperCase()}${load.notice.slice(1)}.` : `No model found in ${p.modelsDir}/.`,
    };
    new Setting(containerEl).setName("Model").setDesc(modelDesc[p.modelState] ?? p.modelState);
    this.unfollow.push(renderModelInstall(containerEl, p, () => this.display()));
    new Setting(containerEl)
      .setName("Embed notes")
      .setDesc(`Compute semantic vectors in the background.${Platform.isMobile ? " Off by default on mobile (battery)." : ""}`)
      .addToggle((t) =>
        t.setValue(p.semanticEnabled).onChange(async (v) => {
          s.semantic = v;
          await p.saveSettings();
          await p.loadModel();
          this.display();
        }),
      );

    if (!Platform.isMobile) {
      // Embedder workers beside the search worker (embed-workers.ts); Auto's choice and why.
      const auto = s.embedWorkers === "auto" ? ` Auto gives ${p.embedWorkers.reason}.` : "";
      new Setting(containerEl)
        .setName("Embedding workers")
        .setDesc(`Threads that embed notes in the background, each with its own copy of the model; searches never wait for them.${auto}`)
        .addDropdown((d) =>
          d
            .addOptions({ auto: "Auto", ...Object.fromEntries(Array.from({ length: 16 }, (_, i) => [String(i + 1), String(i + 1)])) })
            .setValue(String(s.embedWorkers))
            .onChange((v) => void p.setEmbedWorkers(v === "auto" ? "auto" : Number(v)).then(() => this.display())),
        );
    }

    if (Platform.isDesktopApp) {
      this.unfollow.push(renderClaudeSetup(containerEl, p, () => this.display()));
      new Setting(containerEl).setName("MCP bridge").setHeading();
      new Setting(containerEl)
        .setName("Serve the index to the MCP bridge")
        .setDesc(
          p.bridge
            ? `Listening on 127.0.0.1:${p.bridge.port}.`
            : p.bridgeError
              ? `Not running: ${p.bridgeError}`
              : "Lets Claude search this vault through the Strata MCP bridge while Obsidian runs (127.0.0.1 only, token protected).",
        )
        .addToggle((t) =>
          t.setValue(s.bridgeEnabled).onChange(async (v) => {
            s.bridgeEnabled = v;
            await p.saveSettings();
            await p.restartBridge();
            this.display();
          }),
        );
      new Setting(containerEl)
        .setName("Port")
        .setDesc("0 picks a free port (written to bridge.json in the plugin folder).")
        .addText((t) =>
          t.setValue(String(s.bridgePort)).onChange(async (v) => {
            const n = Number.parseInt(v, 10);
            if (!Number.isInteger(n) || n < 0 || n > 65535) return;
            s.bridgePort = n;
            await p.saveSettings();
          }),
        );
      new Setting(containerEl)
        .setName("Token")
        .setDesc("A new token disconnects bridges that use the old one.")
        .addButton((b) =>
          b.setButtonText("Regenerate token").onClick(async () => {
            await p.regenerateToken();
            this.display();
          }),
        );
      new Setting(containerEl)
        .setName("Allow write tools")
        .setDesc("Lets the bridge's write tools (patches, sessions, memory) change notes. Off by default.")
        .addToggle((t) =>
          t.setValue(s.writeToolsEnabled).onChange(async (v) => {
            s.writeToolsEnabled = v;
            await p.saveSettings();
          }),
        );
      for (const [key, name] of [
        ["sessionsFolder", "Sessions folder"],
        ["memoryFolder", "Memory folder"],
        ["changelogFolder", "Changelog folder"],
      ] as const) {
        new Setting(containerEl).setName(name).addText((t) =>
          t.setValue(s[key]).onChange(async (v) => {
            if (!v.trim()) return;
            s[key] = v.trim().replace(/^\/+|\/+$/g, "");
            await p.saveSettings();
          }),
        );
      }
    }

    new Setting(containerEl).setName("Index").setHeading();
    const info = new Setting(containerEl).setName("Index").setDesc(`Location: ${p.indexDir}`);
    void p.indexStatus().then((st) => {
      if (st)
        info.setDesc(
          `${fmt(st.notes)} notes, ${fmt(st.sections)} sections, ${fmt(st.vectors)} vectors, ${(st.indexBytes / 1048576).toFixed(1)} MB — ${p.indexDir}`,
        );
    });
    new Setting(containerEl)
      .setName("Rebuild index")
      .setDesc("Deletes the index, semantic vectors included, and indexes the vault again.")
      .addButton((b) => b.setButtonText("Rebuild").onClick(() => void p.rebuild()));
    new Setting(containerEl)
      .setName("Clear index")
      .setDesc("Deletes the index files. Search is empty until the next rebuild or restart.")
      .addButton((b) =>
        b
          .setButtonText("Clear")
          .setWarning()
          .onClick(() => void p.clearIndex()),
      );
  }
}

/** What the model setting chose and why, and how a switch between models is going. */
function modelChoiceDesc(p: StrataPlugin): string {
  const l = p.modelLoad;
  const auto =
    "Auto picks multilingual-e5-small when 10% or more of the vault's text is not in Latin script (Chinese, Japanese, Cyrillic…), all-MiniLM-L6-v2 (English, faster) otherwise.";
  if (!l) return `${auto} A new model re-embeds the vault in the background; search keeps using the old vectors meanwhile.`;
  const out = [
    l.choice.setting === AUTO_MODEL
      ? `Auto chose ${l.choice.model}: ${l.choice.reason.replace(/^auto: /, "")}.`
      : `${l.choice.model}, chosen here.`,
  ];
  const e = p.embedProgress;
  const sw = e?.switching;
  if (sw && e) {
    out.push(
      `Re-embedding the vault for ${sw.to}: ${fmt(e.done)} / ${fmt(e.total)}${sw.fromLoaded ? `; ${sw.from} answers searches meanwhile` : ""}.`,
    );
  }
  return out.join(" ");
}
