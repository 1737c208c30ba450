// Rendering and opening search results, shared by the modal and the sidebar: a hit's title,
// heading breadcrumb and highlighted snippet, its score breakdown (hover), a keyboard-driven
// result list, opening a note at a line, and "latest wins" cancellation of searches.

import { MarkdownView, Notice, Platform, TFile, type App } from "obsidian";
import type { Hit, SearchResponse, SimilarHit, Snippet } from "../core/api.ts";
import { isCancelled } from "./rpc.ts";

/** Appends `snippet.text` with its highlights as <mark>. Bad offsets are clamped, never thrown. */
export function renderSnippet(el: HTMLElement, snippet: Snippet | null | undefined): void {
  if (!snippet || !snippet.text) return;
  const text = snippet.text;
  const marks = [...(snippet.highlights ?? [])]
    .filter((h) => Array.isArray(h) && h.length === 2 && Number.isFinite(h[0]) && Number.isFinite(h[1]))
    .map(([a, b]) => [Math.max(0, Math.min(text.length, a)), Math.max(0, Math.min(text.length, b))] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let at = 0;
  for (const [a, b] of marks) {
    if (a < at) continue; // overlapping highlight
    if (a > at) el.appendText(text.slice(at, a));
    el.createEl("mark", { cls: "strata-mark", text: text.slice(a, b) });
    at = b;
  }
  if (at < text.length) el.appendText(text.slice(at));
}

/** The breadcrumb of a hit: "Note title › Heading › Sub-heading". */
export function breadcrumb(hit: Pick<Hit, "title" | "headingPath">): string {
  const parts = hit.headingPath ? hit.headingPath.split(" > ") : [];
  return parts.join(" › ");
}

/** The score breakdown shown on hover. */
export function scoreBreakdown(hit: Hit, resp?: Pick<SearchResponse, "mode" | "weights"> | null): string {
  const lines = [`score ${hit.finalScore.toFixed(4)}`];
  if (hit.lexScore > 0 || resp?.mode !== "semantic") lines.push(`lexical ${hit.lexNorm.toFixed(2)} (BM25 ${hit.lexScore.toFixed(2)})`);
  if (resp?.mode !== "lexical") lines.push(`semantic ${hit.vecScore.toFixed(3)} (cosine)`);
  if (hit.rrfScore > 0) lines.push(`fused ${hit.rrfScore.toFixed(4)}`);
  if (resp?.weights)
    lines.push(`weights lex ${resp.weights.lex} · vec ${resp.weights.vec} (${resp.weights.method}: ${resp.weights.reason})`);
  if (hit.explain) lines.push(hit.explain);
  lines.push(`lines ${hit.startLine}–${hit.endLine}`);
  return lines.join("\n");
}

function folderOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/** One search hit: title (+ folder), breadcrumb, snippet; the breakdown on hover. */
export function renderHit(parent: HTMLElement, hit: Hit, resp: SearchResponse | null, opts: { showTitle?: boolean } = {}): HTMLElement {
  const el = parent.createDiv({ cls: "strata-hit" });
  if (opts.showTitle !== false) {
    const head = el.createDiv({ cls: "strata-hit-title" });
    head.createSpan({ cls: "strata-hit-name", text: hit.title || hit.path });
    const folder = folderOf(hit.path);
    if (folder) head.createSpan({ cls: "strata-hit-folder", text: folder });
  }
  const crumb = breadcrumb(hit);
  if (crumb) el.createDiv({ cls: "strata-hit-breadcrumb", text: crumb });
  const snip = el.createDiv({ cls: "strata-hit-snippet" });
  renderSnippet(snip, hit.snippet);
  const score = el.createSpan({ cls: "strata-hit-score", text: hit.finalScore.toFixed(3) });
  const why = scoreBreakdown(hit, resp);
  score.setAttr("aria-label", why);
  el.setAttr("title", why);
  return el;
}

export function renderSimilarHit(parent: HTMLElement, hit: SimilarHit): HTMLElement {
  const el = parent.createDiv({ cls: "strata-hit strata-similar-hit" });
  const head = el.createDiv({ cls: "strata-hit-title" });
  head.createSpan({ cls: "strata-hit-name", text: hit.title || hit.path });
  const folder = folderOf(hit.path);
  if (folder) head.createSpan({ cls: "strata-hit-folder", text: folder });
  const best = hit.sections[0];
  if (best?.headingPath) el.createDiv({ cls: "strata-hit-breadcrumb", text: best.headingPath.split(" > ").join(" › ") });
  el.createSpan({ cls: "strata-hit-score", text: hit.score.toFixed(3) });
  el.setAttr(
    "title",
    `cosine ${hit.score.toFixed(3)}\n` + hit.sections.map((s) => `${s.headingPath || "(note)"}: ${s.score.toFixed(3)}`).join("\n"),
  );
  return el;
}

/** Opens `path` and puts the cursor on 1-based `line`, in a new tab when asked. */
export async function openAtLine(app: App, path: string, line: number, newTab: boolean): Promise<void> {
  const file = app.vault.getAbstractFileByPath(path);
  if (!(file instanceof TFile)) {
    new Notice(`Strata: ${path} no longer exists.`);
    return;
  }
  const leaf = app.workspace.getLeaf(newTab ? "tab" : false);
  const l = Math.max(0, (line || 1) - 1);
  await leaf.openFile(file, { active: true, eState: { line: l } });
  const view = leaf.view;
  if (view instanceof MarkdownView && view.editor) {
    const pos = { line: l, ch: 0 };
    view.editor.setCursor(pos);
    view.editor.scrollIntoView({ from: pos, to: pos }, true);
  }
}

/** Mod+Enter/Mod+click: Cmd on macOS, Ctrl elsewhere. */
export function isMod(evt: KeyboardEvent | MouseEvent): boolean {
  return Platform.isMacOS ? evt.metaKey : evt.ctrlKey;
}

export interface ResultItem {
  render(parent: HTMLElement): HTMLElement;
  open(newTab: boolean): void | Promise<void>;
}

/** A list of results with a keyboard selection (↑/↓, Enter, Mod+Enter) and click to open. */
export class ResultList {
  private items: { item: ResultItem; el: HTMLElement }[] = [];
  private selected = -1;

  constructor(
    readonly containerEl: HTMLElement,
    private readonly onOpen: () => void = () => {},
  ) {}

  get length(): number {
    return this.items.length;
  }

  get selectedIndex(): number {
    return this.selected;
  }

  set(items: ResultItem[]): void {
    this.containerEl.empty();
    this.items = items.map((item, i) => {
      const el = item.render(this.containerEl);
      el.addClass("strata-result");
      el.addEventListener("mousemove", () => this.select(i, false));
      el.addEventListener("click", (evt: MouseEvent) => {
        this.select(i, false);
        void this.open(isMod(evt));
      });
      return { item, el };
    });
    this.selected = -1;
    if (this.items.length) this.select(0, false);
  }

  select(i: number, scroll = true): void {
    if (!this.items.length) return;
    const n = ((i % this.items.length) + this.items.length) % this.items.length;
    this.items[this.selected]?.el.removeClass("is-selected");
    this.selected = n;
    const el = this.items[n].el;
    el.addClass("is-selected");
    if (scroll) el.scrollIntoView({ block: "nearest" });
  }

  async open(newTab: boolean): Promise<void> {
    const cur = this.items[this.selected];
    if (!cur) return;
    this.onOpen();
    await cur.item.open(newTab);
  }

  /** Handles navigation keys; true when the key was used. */
  handleKey(evt: KeyboardEvent): boolean {
    if (evt.key === "ArrowDown" || (evt.key === "n" && evt.ctrlKey)) {
      this.select(this.selected + 1);
      return true;
    }
    if (evt.key === "ArrowUp" || (evt.key === "p" && evt.ctrlKey)) {
      this.select(this.selected - 1);
      return true;
    }
    if (evt.key === "Enter" && !evt.isComposing) {
      void this.open(isMod(evt));
      return true;
    }
    return false;
  }
}

/** "Latest wins": each next() aborts the previous signal (a new keystroke cancels the old search). */
export class Latest {
  private ctl: AbortController | null = null;
  next(): AbortSignal {
    this.ctl?.abort();
    this.ctl = new AbortController();
    return this.ctl.signal;
  }
  cancel(): void {
    this.ctl?.abort();
    this.ctl = null;
  }
}

/** A user-facing message for a failed search (cancellations are silent: null). */
export function searchErrorText(err: unknown): string | null {
  if (isCancelled(err)) return null;
  const msg = err instanceof Error ? err.message : String(err);
  return msg.replace(/^\[[a-z-]+\]\s*/, "");
}
