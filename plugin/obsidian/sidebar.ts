// The search sidebar: query box, mode switch, folder, tag and property-expression filters, depth preference,
// results grouped by note (breadcrumbs, highlighted snippets, score breakdown on hover, click
// opens at the line), and a "Similar notes" panel that follows the active note.

import { ItemView, TFile, TFolder, type WorkspaceLeaf } from "obsidian";
import type { SearchMode, SearchRequest, SearchResponse } from "../core/api.ts";
import { groupByNote } from "../core/group-hits.ts";
import { hostClock } from "../core/structured.ts";
import type { SearchHost } from "./host.ts";
import { isMod, Latest, mixedLanguages, openAtLine, renderHit, renderLanguageBadge, renderSimilarHit, searchErrorText } from "./results.ts";

export const VIEW_TYPE = "strata-search";
/** Workspace event: similar notes may have changed (a model was loaded, embedding caught up). */
export const VECTORS_CHANGED = "strata-search:vectors-changed";

declare module "obsidian" {
  interface Workspace {
    on(name: typeof VECTORS_CHANGED, callback: () => unknown, ctx?: unknown): import("obsidian").EventRef;
  }
}

type DepthPref = "relevance" | "shallow" | "deep";

export class StrataView extends ItemView {
  queryEl!: HTMLInputElement;
  modeEl!: HTMLSelectElement;
  folderEl!: HTMLInputElement;
  tagEl!: HTMLInputElement;
  whereEl!: HTMLInputElement;
  whereErrorEl!: HTMLElement;
  depthEl!: HTMLSelectElement;
  infoEl!: HTMLElement;
  resultsEl!: HTMLElement;
  similarEl!: HTMLElement;
  similarTitleEl!: HTMLElement;
  /** Resolve when the latest search / similar panel is rendered (tests, the bench). */
  settled: Promise<void> = Promise.resolve();
  similarSettled: Promise<void> = Promise.resolve();
  lastResponse: SearchResponse | null = null;
  private readonly latest = new Latest();
  private readonly latestSimilar = new Latest();
  private similarPath: string | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly plugin: SearchHost,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return VIEW_TYPE;
  }

  getDisplayText(): string {
    return "Strata search";
  }

  override getIcon(): string {
    return "search";
  }

  override async onOpen(): Promise<void> {
    const root = this.contentEl;
    root.empty();
    root.addClass("strata-view");
    const form = root.createDiv({ cls: "strata-controls" });
    this.queryEl = form.createEl("input", { cls: "strata-query", attr: { type: "search", placeholder: "Search…", spellcheck: "false" } });
    const row = form.createDiv({ cls: "strata-row" });
    this.modeEl = row.createEl("select", { cls: "dropdown strata-mode", attr: { "aria-label": "Search mode" } });
    for (const [v, label] of [
      ["hybrid", "Hybrid"],
      ["lexical", "Lexical"],
      ["semantic", "Semantic"],
    ]) {
      this.modeEl.createEl("option", { text: label, attr: { value: v } });
    }
    this.modeEl.value = this.plugin.settings.mode;
    this.depthEl = row.createEl("select", { cls: "dropdown strata-depth", attr: { "aria-label": "Depth preference" } });
    for (const [v, label] of [
      ["relevance", "Relevance"],
      ["shallow", "Overview first"],
      ["deep", "Detail first"],
    ]) {
      this.depthEl.createEl("option", { text: label, attr: { value: v } });
    }
    const filters = form.createDiv({ cls: "strata-row" });
    this.folderEl = filters.createEl("input", {
      cls: "strata-folder",
      attr: { type: "text", placeholder: "Folder", list: "strata-folders" },
    });
    const folders = filters.createEl("datalist", { attr: { id: "strata-folders" } });
    for (const f of this.app.vault.getAllLoadedFiles()) {
      if (f instanceof TFolder && !f.isRoot()) folders.createEl("option", { attr: { value: f.path } });
    }
    // The placeholder is a tag as it is written in a note, so it stays "#tag" (the review's
    // sentence-case rule would have "#Tag").
    this.tagEl = filters.createEl("input", { cls: "strata-tag", attr: { type: "text", placeholder: "#tag" } });
    this.whereEl = form.createEl("input", {
      cls: "strata-where",
      attr: { type: "text", placeholder: "Where: status = draft and file.mtime >= today-7d", spellcheck: "false", "aria-label": "Where" },
    });
    this.whereErrorEl = form.createDiv({ cls: "strata-where-error" });
    this.infoEl = root.createDiv({ cls: "strata-info" });
    this.resultsEl = root.createDiv({ cls: "strata-results strata-grouped" });
    const similar = root.createDiv({ cls: "strata-similar" });
    this.similarTitleEl = similar.createDiv({ cls: "strata-similar-title", text: "Similar notes" });
    this.similarEl = similar.createDiv({ cls: "strata-similar-list" });

    const rerun = () => this.run();
    this.queryEl.addEventListener("input", rerun);
    this.folderEl.addEventListener("change", rerun);
    this.tagEl.addEventListener("change", rerun);
    this.whereEl.addEventListener("change", rerun);
    this.depthEl.addEventListener("change", rerun);
    this.modeEl.addEventListener("change", () => {
      this.plugin.settings.mode = this.modeEl.value as SearchMode;
      void this.plugin.saveSettings();
      this.run();
    });
    this.registerEvent(this.app.workspace.on("file-open", () => this.followActive()));
    this.registerEvent(this.app.workspace.on("active-leaf-change", () => this.followActive()));
    this.registerEvent(this.app.workspace.on(VECTORS_CHANGED, () => this.followActive(true)));
    this.followActive();
  }

  override async onClose(): Promise<void> {
    this.latest.cancel();
    this.latestSimilar.cancel();
  }

  /** The request the controls describe. */
  request(): SearchRequest {
    const req: SearchRequest = {
      query: this.queryEl.value,
      mode: this.modeEl.value as SearchMode,
      k: this.plugin.settings.resultCount,
      depthOrder: this.depthEl.value as DepthPref,
    };
    const folder = this.folderEl.value.trim().replace(/^\/+|\/+$/g, "");
    const tag = this.tagEl.value.trim();
    const where = this.whereEl.value.replace(/^\s*where:/i, "").trim();
    if (folder || tag || where)
      req.filters = { ...(folder ? { folder } : {}), ...(tag ? { tag } : {}), ...(where ? { where, ...hostClock() } : {}) };
    return req;
  }

  /** Sets the query (and runs it), as typing would. */
  setQuery(q: string): Promise<void> {
    this.queryEl.value = q;
    this.run();
    return this.settled;
  }

  run(): void {
    const req = this.request();
    const signal = this.latest.next();
    this.whereErrorEl.setText("");
    if (!req.query.trim()) {
      this.resultsEl.empty();
      this.infoEl.setText("");
      this.settled = Promise.resolve();
      return;
    }
    this.settled = this.plugin
      .search(req, signal)
      .then((resp) => {
        if (signal.aborted) return;
        this.lastResponse = resp;
        this.render(resp);
      })
      .catch((err) => {
        const msg = searchErrorText(err);
        if (msg !== null && !signal.aborted) {
          this.resultsEl.empty();
          // A bad expression is shown under its field, with the caret at its position.
          const bad = /^bad expression: /.test(msg);
          this.infoEl.setText(bad ? "" : msg);
          if (bad) this.whereErrorEl.setText(msg.replace(/^bad expression: /, ""));
        }
      });
  }

  private render(resp: SearchResponse): void {
    this.resultsEl.empty();
    const all = groupByNote(resp.hits);
    // Weaker matches (few of the query's words, near the query's background in meaning) under a collapsed row.
    const groups = all.filter((g) => !g.hits.every((h) => h.weak));
    const weak = all.filter((g) => g.hits.every((h) => h.weak));
    const info = [`${groups.length} note${groups.length === 1 ? "" : "s"} · ${resp.mode} · ${Math.round(resp.tookMs)} ms`];
    if (resp.notice) info.push(resp.notice);
    this.infoEl.setText(info.join(" — "));
    let weakEl: HTMLElement | null = null;
    const mixed = mixedLanguages(resp.hits);
    for (const { path, hits } of [...groups, ...weak]) {
      if (hits.every((h) => h.weak) && !weakEl) {
        // After the matches: a row that opens on the weaker ones.
        weakEl = this.resultsEl.createEl("details", { cls: "strata-weak" });
        weakEl.createEl("summary", {
          text: `Weaker matches (${weak.length})`,
          attr: { title: "Few of the query's words, and not much closer to it in meaning than the rest of the vault" },
        });
      }
      const parent = hits.every((h) => h.weak) && weakEl ? weakEl : this.resultsEl;
      const group = parent.createDiv({ cls: "strata-group" });
      const head = group.createDiv({ cls: "strata-group-title" });
      head.createSpan({ cls: "strata-hit-name", text: hits[0].title || path });
      if (mixed) renderLanguageBadge(head, hits[0]);
      const folder = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
      if (folder) head.createSpan({ cls: "strata-hit-folder", text: folder });
      head.addEventListener("click", (evt: MouseEvent) => void openAtLine(this.app, path, hits[0].startLine, isMod(evt)));
      for (const hit of hits) {
        const el = renderHit(group, hit, resp, { showTitle: false });
        el.addClass("strata-result");
        el.addEventListener("click", (evt: MouseEvent) => void openAtLine(this.app, hit.path, hit.startLine, isMod(evt)));
      }
    }
  }

  /** Shows the notes similar to the active note (when it changed, or when `refresh`). */
  followActive(refresh = false): void {
    const file = this.app.workspace.getActiveFile();
    const path = file instanceof TFile && file.extension === "md" ? file.path : null;
    if (path === this.similarPath && !refresh) return;
    this.similarPath = path;
    const signal = this.latestSimilar.next();
    this.similarEl.empty();
    if (!path) {
      this.similarTitleEl.setText("Similar notes");
      this.similarSettled = Promise.resolve();
      return;
    }
    this.similarTitleEl.setText(`Similar to ${file!.basename}`);
    this.similarSettled = this.plugin
      .similar(path, 8, signal)
      .then((resp) => {
        if (signal.aborted) return;
        this.similarEl.empty();
        if (!resp.hits.length) this.similarEl.createDiv({ cls: "strata-info", text: "No similar notes yet." });
        for (const hit of resp.hits) {
          const el = renderSimilarHit(this.similarEl, hit);
          el.addClass("strata-result");
          el.addEventListener(
            "click",
            (evt: MouseEvent) => void openAtLine(this.app, hit.path, hit.sections[0]?.startLine ?? 1, isMod(evt)),
          );
        }
      })
      .catch((err) => {
        const msg = searchErrorText(err);
        if (msg !== null && !signal.aborted) this.similarEl.createDiv({ cls: "strata-info", text: msg });
      });
  }
}
