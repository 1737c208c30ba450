// "Search vault": a modal with live results as you type (each keystroke cancels the previous
// search), ↑/↓ to move, Enter to open at the matching line, Mod+Enter in a new tab.
// "Find notes similar to the current note": the same list over similar notes.

import { Modal, type App } from "obsidian";
import type { SearchResponse } from "../core/api.ts";
import type { SearchHost } from "./host.ts";
import { Latest, mixedLanguages, openAtLine, renderHit, renderSimilarHit, ResultList, searchErrorText } from "./results.ts";

export class SearchModal extends Modal {
  inputEl!: HTMLInputElement;
  list!: ResultList;
  infoEl!: HTMLElement;
  private readonly latest = new Latest();
  /** Resolves when the results of the latest query are rendered (tests, the bench). */
  settled: Promise<void> = Promise.resolve();
  lastResponse: SearchResponse | null = null;

  constructor(
    app: App,
    private readonly plugin: Pick<SearchHost, "search" | "settings">,
    private readonly initial = "",
  ) {
    super(app);
  }

  override onOpen(): void {
    this.modalEl.addClass("strata-modal");
    this.contentEl.empty();
    this.inputEl = this.contentEl.createEl("input", {
      cls: "strata-modal-input",
      attr: { type: "search", placeholder: "Search your vault…", spellcheck: "false" },
    });
    this.infoEl = this.contentEl.createDiv({ cls: "strata-info" });
    const results = this.contentEl.createDiv({ cls: "strata-results" });
    this.list = new ResultList(results, () => this.close());
    const hints = this.contentEl.createDiv({ cls: "strata-hints" });
    for (const [k, v] of [
      ["↑↓", "navigate"],
      ["↵", "open"],
      ["mod ↵", "new tab"],
      ["esc", "close"],
    ]) {
      const h = hints.createSpan({ cls: "strata-hint" });
      h.createEl("kbd", { text: k });
      h.appendText(` ${v}`);
    }
    this.inputEl.addEventListener("input", () => this.run());
    this.inputEl.addEventListener("keydown", (evt: KeyboardEvent) => {
      if (this.list.handleKey(evt)) evt.preventDefault();
    });
    this.inputEl.value = this.initial;
    this.inputEl.focus();
    if (this.initial) this.run();
  }

  override onClose(): void {
    this.latest.cancel();
    this.contentEl.empty();
  }

  private run(): void {
    const query = this.inputEl.value;
    const signal = this.latest.next();
    if (!query.trim()) {
      this.list.set([]);
      this.infoEl.setText("");
      this.settled = Promise.resolve();
      return;
    }
    this.settled = this.plugin
      .search({ query, k: this.plugin.settings.resultCount, mode: this.plugin.settings.mode }, signal)
      .then((resp) => {
        if (signal.aborted) return;
        this.lastResponse = resp;
        // Weaker matches (few of the query's words, near the query's background in meaning) are left to the sidebar.
        const weak = resp.hits.filter((h) => h.weak).length;
        const language = mixedLanguages(resp.hits);
        this.list.set(
          resp.hits
            .filter((h) => !h.weak)
            .map((hit) => ({
              render: (parent: HTMLElement) => renderHit(parent, hit, resp, { language }),
              open: (newTab: boolean) => openAtLine(this.app, hit.path, hit.startLine, newTab),
            })),
        );
        const info: string[] = [];
        if (resp.hits.length === weak) info.push("No results.");
        if (weak) info.push(`${weak} weaker match${weak === 1 ? "" : "es"} not shown (the sidebar lists them).`);
        if (resp.notice) info.push(resp.notice);
        this.infoEl.setText(info.join(" "));
        this.infoEl.toggleClass("is-empty", info.length === 0);
      })
      .catch((err) => {
        const msg = searchErrorText(err);
        if (msg !== null && !signal.aborted) this.infoEl.setText(msg);
      });
  }
}

export class SimilarModal extends Modal {
  list!: ResultList;
  settled: Promise<void> = Promise.resolve();
  private readonly latest = new Latest();

  constructor(
    app: App,
    private readonly plugin: Pick<SearchHost, "similar" | "settings">,
    private readonly path: string,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.modalEl.addClass("strata-modal");
    this.contentEl.empty();
    this.titleEl.setText(`Notes similar to ${this.path.replace(/\.md$/, "")}`);
    const info = this.contentEl.createDiv({ cls: "strata-info", text: "Searching…" });
    const results = this.contentEl.createDiv({ cls: "strata-results" });
    this.list = new ResultList(results, () => this.close());
    const signal = this.latest.next();
    const onKey = (evt: KeyboardEvent) => {
      if (this.list.handleKey(evt)) evt.preventDefault();
    };
    this.modalEl.addEventListener("keydown", onKey);
    this.modalEl.setAttr("tabindex", "-1");
    this.modalEl.focus();
    this.settled = this.plugin
      .similar(this.path, this.plugin.settings.resultCount, signal)
      .then((resp) => {
        info.setText(resp.hits.length ? "" : "No similar notes found.");
        this.list.set(
          resp.hits.map((hit) => ({
            render: (parent: HTMLElement) => renderSimilarHit(parent, hit),
            open: (newTab: boolean) => openAtLine(this.app, hit.path, hit.sections[0]?.startLine ?? 1, newTab),
          })),
        );
      })
      .catch((err) => {
        const msg = searchErrorText(err);
        if (msg !== null) info.setText(msg);
      });
  }

  override onClose(): void {
    this.latest.cancel();
    this.contentEl.empty();
  }
}
