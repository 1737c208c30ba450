// The settings tab: what is indexed, how results are fused, the embedding model (which one,
// why, its status and how to install it), Claude and the MCP bridge, and the index itself
// (size, location, rebuild, clear). One list of setting definitions describes every row:
// Obsidian 1.13+ draws it and finds each row in its settings search; before 1.13, display()
// draws the same list (settings-fallback.ts).

import {
  Platform,
  PluginSettingTab,
  requireApiVersion,
  type App,
  type Plugin,
  type SettingDefinition,
  type SettingDefinitionItem,
} from "obsidian";
import { AUTO_MODEL } from "../core/models.ts";
import type { SettingsHost } from "./host.ts";
import { fmt } from "./status.ts";
import { downloadUrlValue, modelInstallDefinitions } from "./settings-model.ts";
import { claudeDefinitions, type BridgeLookup } from "./settings-claude.ts";
import { destructive, renderDefinitions } from "./settings-fallback.ts";
import { extensionList, folderList, MAX_CODE_KB, type StrataSettings } from "./settings.ts";

const list = (v: string) =>
  v
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);

const trimSlashes = (f: string) => f.replace(/^\/+|\/+$/g, "");

/** Settings that change what is indexed: the vault is indexed again once the user stops typing. */
const REINDEX = new Set([
  "excludeFolders",
  "extensions",
  "chunkBudget",
  "codeEnabled",
  "codeExtensions",
  "codeExcludeFolders",
  "maxCodeKB",
]);

/** The folder settings of the write tools (text, never empty). */
const FOLDERS = ["sessionsFolder", "memoryFolder", "changelogFolder"] as const;

/** What the rows of a setting kept per device (device-id.ts, DEVICE_SETTINGS) add to their description. */
const ON_THIS_DEVICE = " This device only: not synced with the vault's settings.";
/** Where another device's vectors come from (docs/plugin.md, "Several devices"). */
const SHARED_VECTORS =
  " Vectors made on one device answer on all of them when iCloud, Syncthing, Dropbox or git syncs the vault." +
  " Obsidian Sync carries only a plugin's main.js, manifest.json, styles.css and data.json: with it, each device embeds for itself.";

export class StrataSettingTab extends PluginSettingTab {
  private reindexTimer: number | null = null;
  /** Undoes the fallback's rows (their subscriptions to the installer) before 1.13. */
  private fallbackUndraw: (() => void) | null = null;
  private readonly bridgeLookup: BridgeLookup = {};
  /** A model chosen in the tab is loading (its row says so). */
  private loadingModel = false;

  private readonly plugin: SettingsHost;

  constructor(app: App, plugin: Plugin & SettingsHost) {
    super(app, plugin);
    this.plugin = plugin;
  }

  /** Redraws the tab after a change of state its rows show (a model loaded, a download ended):
   *  update() from 1.13 (the declarative API), the fallback's own drawing before. */
  refresh(): void {
    if (requireApiVersion("1.13.0")) this.update();
    else if (this.fallbackUndraw) this.drawFallback();
  }

  /** Settings that change what is indexed take effect once the user stops typing. */
  private reindexSoon(): void {
    if (this.reindexTimer) window.clearTimeout(this.reindexTimer);
    this.reindexTimer = window.setTimeout(() => {
      this.reindexTimer = null;
      void this.plugin.reindexForSettings();
    }, 1500);
  }

  /** The fallback for Obsidian before 1.13 (1.13 draws the definitions itself and skips it). */
  override display(): void {
    this.drawFallback();
  }

  private drawFallback(): void {
    this.fallbackUndraw?.();
    this.containerEl.empty();
    this.fallbackUndraw = renderDefinitions(this.containerEl, this.getSettingDefinitions(), this);
  }

  override hide(): void {
    this.fallbackUndraw?.();
    this.fallbackUndraw = null;
    super.hide();
  }

  /** A control's value as its control shows it (lists as text, the embed toggle's effective state). */
  override getControlValue(key: string): unknown {
    const p = this.plugin;
    const s = p.settings;
    switch (key) {
      case "excludeFolders":
        return s.excludeFolders.join("\n");
      case "extensions":
        return s.extensions.join(", ");
      case "codeExtensions":
        return s.codeExtensions.join(", ");
      case "codeExcludeFolders":
        return s.codeExcludeFolders.join("\n");
      case "semantic":
        return p.semanticEnabled;
      case "embedWorkers":
        return String(s.embedWorkers);
      default:
        return s[key as keyof StrataSettings];
    }
  }

  /** Stores a control's value (already validated), saves, and does what the change needs. */
  override async setControlValue(key: string, value: unknown): Promise<void> {
    const p = this.plugin;
    const s = p.settings;
    const text = typeof value === "string" ? value : "";
    switch (key) {
      case "excludeFolders":
        s.excludeFolders = folderList(list(text));
        break;
      case "extensions": {
        const exts = extensionList(list(text));
        s.extensions = exts.length ? exts : ["md"];
        break;
      }
      case "codeEnabled":
        s.codeEnabled = value === true;
        this.refresh(); // the code rows show with it
        break;
      case "codeExtensions":
        s.codeExtensions = extensionList(list(text));
        break;
      case "codeExcludeFolders":
        s.codeExcludeFolders = folderList(list(text));
        break;
      case "maxCodeKB":
        s.maxCodeKB = Number(value);
        break;
      case "chunkBudget":
        s.chunkBudget = Number(value);
        break;
      case "mode":
        s.mode = value === "lexical" || value === "semantic" ? value : "hybrid";
        break;
      case "fusion":
        s.fusion = value === "linear" ? "linear" : "rrf";
        break;
      case "resultCount":
        s.resultCount = Number(value);
        break;
      case "embeddingModel":
        // Loads in the worker; the old vectors answer until the new model has re-embedded.
        this.loadingModel = true;
        this.refresh();
        try {
          await p.setEmbeddingModel(text);
        } finally {
          this.loadingModel = false;
          this.refresh();
        }
        return;
      case "semantic":
        s.semantic = value === true;
        await p.saveSettings();
        await p.loadModel();
        this.refresh();
        return;
      case "embedWorkers":
        await p.setEmbedWorkers(text === "auto" ? "auto" : Number(text));
        this.refresh();
        return;
      case "modelDownloadUrl":
        s.modelDownloadUrl = downloadUrlValue(value) ?? s.modelDownloadUrl;
        break;
      case "bridgeEnabled":
        s.bridgeEnabled = value === true;
        await p.saveSettings();
        await p.restartBridge();
        this.refresh();
        return;
      case "bridgePort":
        s.bridgePort = Number(value);
        break;
      case "writeToolsEnabled":
        s.writeToolsEnabled = value === true;
        break;
      case "sessionsFolder":
      case "memoryFolder":
      case "changelogFolder":
        s[key] = trimSlashes(text.trim());
        break;
      default:
        throw new Error(`no setting ${key}`);
    }
    await p.saveSettings();
    if (REINDEX.has(key)) this.reindexSoon();
  }

  override getSettingDefinitions(): SettingDefinitionItem[] {
    const p = this.plugin;
    const s = p.settings;
    const refresh = () => this.refresh();
    const wholeIn = (lo: number, hi: number) => (v: number) =>
      Number.isInteger(v) && v >= lo && v <= hi ? undefined : `A whole number from ${lo} to ${hi}.`;
    const load = p.modelLoad;
    const modelDesc: Record<string, string> = {
      loaded: `Model ${load?.loaded ?? load?.switching?.from ?? "?"} loaded.${load?.notice ? ` Note: ${load.notice}.` : ""}`,
      loading: "Loading the model…",
      off: "Semantic indexing is off.",
      error: `The model failed to load: ${p.modelError ?? ""}`,
      absent: load?.notice ? `${load.notice[0].toUpperCase()}${load.notice.slice(1)}.` : `No model found in ${p.modelsDir}/.`,
      queries: `Model ${load?.loaded ?? "?"} loaded for searches only: this device does not embed; your other devices' vectors answer.`,
      "over-budget": `Not loaded on this device, over its memory budget: ${p.modelError ?? ""}. Lexical search works.`,
    };
    const auto = s.embedWorkers === "auto" ? ` Auto gives ${p.embedWorkers.reason}.` : "";
    return [
      {
        type: "group",
        heading: "Indexing",
        items: [
          {
            name: "Excluded folders",
            desc: "One folder per line (or comma separated). Notes inside are not indexed.",
            aliases: ["ignore", "exclude"],
            control: { type: "textarea", key: "excludeFolders", placeholder: "Archive\nTemplates" },
          },
          {
            name: "Indexed extensions",
            desc: "File extensions to index, without the dot.",
            aliases: ["file types"],
            control: { type: "text", key: "extensions", placeholder: "md" },
          },
          {
            name: "Chunk budget",
            desc: "Longest section, in estimated tokens, before it is split (64–4096). Changing it re-indexes the vault.",
            aliases: ["section size", "tokens"],
            control: { type: "number", key: "chunkBudget", min: 64, max: 4096, step: 1, validate: wholeIn(64, 4096) },
          },
          ...codeDefinitions(s, wholeIn(1, MAX_CODE_KB)),
        ],
      },
      {
        type: "group",
        heading: "Search",
        items: [
          {
            name: "Default mode",
            desc: "Hybrid fuses keyword (BM25) and semantic results; it answers lexically while no model is loaded.",
            aliases: ["hybrid", "lexical", "semantic"],
            control: { type: "dropdown", key: "mode", options: { hybrid: "Hybrid", lexical: "Lexical", semantic: "Semantic" } },
          },
          {
            name: "Fusion",
            desc: "Reciprocal rank fusion, with weights chosen per query (questions lean semantic, exact terms lean lexical), or a linear blend of the two scores, each max-normalised, with the same weights.",
            aliases: ["rrf", "ranking"],
            control: { type: "dropdown", key: "fusion", options: { rrf: "Reciprocal rank fusion", linear: "Linear" } },
          },
          {
            name: "Results",
            desc: "Results shown in the search modal and the sidebar.",
            aliases: ["result count", "number of results"],
            control: { type: "slider", key: "resultCount", min: 5, max: 100, step: 5 },
          },
        ],
      },
      {
        type: "group",
        heading: "Semantic search",
        items: [
          {
            name: "Embedding model",
            desc: this.loadingModel ? "Loading the model…" : modelChoiceDesc(p),
            aliases: ["model", "multilingual", "minilm", "e5"],
            control: {
              type: "dropdown",
              key: "embeddingModel",
              options: {
                [AUTO_MODEL]: "Auto (recommended)",
                ...Object.fromEntries((p.models?.ids ?? [s.embeddingModel]).filter((id) => id !== AUTO_MODEL).map((id) => [id, id])),
              },
            },
          },
          { name: "Model", desc: modelDesc[p.modelState] ?? p.modelState, aliases: ["model status"] },
          ...modelInstallDefinitions(p, refresh),
          {
            name: "Embed notes",
            desc: `Compute semantic vectors in the background.${Platform.isMobile ? " Off by default on mobile (battery)." : ""}${SHARED_VECTORS}${ON_THIS_DEVICE}`,
            aliases: ["semantic search", "vectors", "embeddings"],
            control: { type: "toggle", key: "semantic" },
          },
          {
            // Embedder workers beside the search worker (worker-embedding.ts); Auto's choice and why.
            name: "Embedding workers",
            desc: `Threads that embed notes in the background, each with its own copy of the model; searches never wait for them.${auto}${ON_THIS_DEVICE}`,
            aliases: ["threads", "workers", "cores"],
            visible: !Platform.isMobile,
            control: {
              type: "dropdown",
              key: "embedWorkers",
              options: { auto: "Auto", ...Object.fromEntries(Array.from({ length: 16 }, (_, i) => [String(i + 1), String(i + 1)])) },
            },
          },
        ],
      },
      ...claudeDefinitions(p, this.bridgeLookup, refresh),
      {
        type: "group",
        heading: "MCP bridge",
        visible: Platform.isDesktopApp,
        items: [
          {
            name: "Serve the index to the MCP bridge",
            desc: p.bridge?.port
              ? `Listening on 127.0.0.1:${p.bridge.port} (MCP clients at http://127.0.0.1:${p.bridge.port}/mcp, and the MCP bridge).`
              : p.bridgeError
                ? `Not running: ${p.bridgeError}`
                : `Lets Claude and other MCP clients (over HTTP, or through the Strata MCP bridge) search this vault while Obsidian runs (127.0.0.1 only, token protected).${ON_THIS_DEVICE}`,
            aliases: ["mcp", "claude", "loopback"],
            control: { type: "toggle", key: "bridgeEnabled" },
          },
          {
            name: "Port",
            desc: `0 picks a free port (written to bridge.json in the plugin folder).${ON_THIS_DEVICE}`,
            aliases: ["mcp port"],
            control: { type: "number", key: "bridgePort", min: 0, max: 65535, step: 1, validate: wholeIn(0, 65535) },
          },
          {
            name: "Allow write tools",
            desc: "Lets the bridge's write tools (patches, sessions, memory) change notes. Off by default.",
            aliases: ["mcp write", "patches"],
            control: { type: "toggle", key: "writeToolsEnabled" },
          },
          ...FOLDERS.map((key) => ({
            name: { sessionsFolder: "Sessions folder", memoryFolder: "Memory folder", changelogFolder: "Changelog folder" }[key],
            desc: {
              sessionsFolder: "Where the bridge's write tools keep session notes.",
              memoryFolder: "Where the bridge's write tools keep memory notes.",
              changelogFolder: "Where the bridge's write tools log the changes they make.",
            }[key],
            control: {
              type: "text" as const,
              key,
              validate: (v: string) => (v.trim() && trimSlashes(v.trim()) ? undefined : "A folder in the vault (not empty)."),
            },
          })),
        ],
      },
      {
        type: "group",
        heading: "Index",
        items: [
          {
            name: "Index",
            desc: `Location: ${p.indexDir}`,
            aliases: ["index size", "index location"],
            render: (row) => {
              void p.indexStatus().then((st) => {
                if (st)
                  row.setDesc(
                    `${fmt(st.notes)} notes, ${fmt(st.sections)} sections, ${fmt(st.vectors)} vectors, ${(st.indexBytes / 1048576).toFixed(1)} MB — ${p.indexDir}`,
                  );
              });
            },
          },
          {
            name: "Rebuild index",
            desc: "Deletes the index, semantic vectors included, and indexes the vault again.",
            aliases: ["reindex"],
            render: (row) => {
              row.addButton((b) => b.setButtonText("Rebuild").onClick(() => void p.rebuild()));
            },
          },
          {
            name: "Clear index",
            desc: "Deletes the index files. Search is empty until the next rebuild or restart.",
            aliases: ["delete index"],
            render: (row) => {
              row.addButton((b) => destructive(b.setButtonText("Clear")).onClick(() => void p.clearIndex()));
            },
          },
        ],
      },
    ];
  }
}

/** The rows of code indexing (the extensions, folders and size show while it is on). */
function codeDefinitions(s: StrataSettings, sizeValid: (v: number) => string | undefined): SettingDefinition[] {
  const on = () => s.codeEnabled;
  const extension = (v: string) =>
    list(v).every((e) => /^\.?[a-z0-9]+$/i.test(e)) ? undefined : "Extensions are letters and digits, separated by commas.";
  return [
    {
      name: "Index code files",
      desc: "Source files (Python, JavaScript, TypeScript, Go, Rust, Java, C, C++) and JSON and YAML files: each function, class, method and key is its own result, found by what it does and by its name.",
      aliases: ["code", "source files", "programming"],
      control: { type: "toggle", key: "codeEnabled" },
    },
    {
      name: "Code extensions",
      desc: "File extensions indexed as code, without the dot.",
      aliases: ["code file types", "languages"],
      visible: on,
      control: { type: "text", key: "codeExtensions", placeholder: "py, ts, go", validate: extension },
    },
    {
      name: "Skipped code folders",
      desc: "One per line (or comma separated). Code inside a folder of this name anywhere in the vault (or at this path) is not indexed; notes there still are.",
      aliases: ["node_modules", "vendor", "exclude code"],
      visible: on,
      control: { type: "textarea", key: "codeExcludeFolders", placeholder: "node_modules\nvendor" },
    },
    {
      name: "Largest code file (KB)",
      desc: `Larger code files are skipped with a warning (1–${MAX_CODE_KB}).`,
      aliases: ["code size", "max code"],
      visible: on,
      control: { type: "number", key: "maxCodeKB", min: 1, max: MAX_CODE_KB, step: 1, validate: sizeValid },
    },
  ];
}

/** What the model setting chose and why, and how a switch between models is going. */
function modelChoiceDesc(p: Pick<SettingsHost, "modelLoad" | "embedProgress">): string {
  const l = p.modelLoad;
  const auto =
    "Auto picks multilingual-e5-small when 10% or more of the vault's text is not in English (German, Chinese, Russian…), all-MiniLM-L6-v2 (English only, faster) otherwise.";
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
