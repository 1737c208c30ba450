// Rendering and opening search results, shared by the modal and the sidebar: a hit's title,
// heading breadcrumb and highlighted snippet (a code hit: its language and kind, and its
// signature as the title), its score breakdown (hover), a keyboard-driven result list, opening
// a file at a line, and "latest wins" cancellation of searches.

import { MarkdownView, Notice, Platform, TFile, type App } from "obsidian";
import type { CodeInfo, Hit, SearchResponse, SimilarHit, Snippet } from "../core/api.ts";
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

/** A code hit's signature on one line (its name when it has none). */
export function signatureText(code: CodeInfo): string {
  const sig = code.signature.replace(/\s+/g, " ").trim() || code.name;
  return sig.length > 200 ? `${sig.slice(0, 199)}…` : sig;
}

/** The first language of a hit's note ("" when none was detected). */
export function noteLanguage(hit: Pick<Hit, "lang">): string {
  return (hit.lang ?? "").split(" ")[0];
}

/** Whether the hits' notes are in more than one language: only then do they carry a language
 *  badge (in a one-language vault it would repeat itself on every row). */
export function mixedLanguages(hits: readonly Pick<Hit, "lang">[]): boolean {
  return new Set(hits.map(noteLanguage).filter((l) => l !== "")).size > 1;
}

/** The note's language as a small badge ("de"), when it is known. */
export function renderLanguageBadge(el: HTMLElement, hit: Pick<Hit, "lang">): void {
  const lang = noteLanguage(hit);
  if (lang) el.createSpan({ cls: "strata-lang-badge", text: lang, attr: { title: `The note's language: ${hit.lang}` } });
}

/** A code hit's title row: the language and kind badge, the signature, and where it is. */
function renderCodeTitle(el: HTMLElement, hit: Hit, code: CodeInfo, showPath: boolean): void {
  const head = el.createDiv({ cls: "strata-hit-title" });
  const badge = head.createSpan({ cls: "strata-code-badge", text: `${code.lang} · ${code.kind}` });
  if (code.syntaxErrors) {
    badge.addClass("mod-warning");
    badge.setAttr("title", "The file has syntax errors: parts of it are indexed as plain lines.");
  }
  head.createSpan({ cls: "strata-hit-name strata-code-signature", text: signatureText(code) });
  if (showPath) head.createSpan({ cls: "strata-hit-folder", text: `${hit.path}:${hit.startLine}` });
}

/** One search hit: title (+ folder, + the note's language with `language`), breadcrumb,
 *  snippet; the breakdown on hover. A code hit's title is its badge and signature (with
 *  path:line where the note's title would be). */
export function renderHit(
  parent: HTMLElement,
  hit: Hit,
  resp: SearchResponse | null,
  opts: { showTitle?: boolean; language?: boolean } = {},
): HTMLElement {
  const el = parent.createDiv({ cls: "strata-hit" });
  if (hit.code) renderCodeTitle(el, hit, hit.code, opts.showTitle !== false);
  else if (opts.showTitle !== false) {
    const head = el.createDiv({ cls: "strata-hit-title" });
    head.createSpan({ cls: "strata-hit-name", text: hit.title || hit.path });
    if (opts.language) renderLanguageBadge(head, hit);
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

/** Obsidian's view type for an extension (its internal view registry; undefined when none, or
 *  when the registry is not there to ask). */
function viewTypeOf(app: App, ext: string): string | undefined {
  const registry = (app as unknown as { viewRegistry?: { getTypeByExtension?: (ext: string) => string | undefined } }).viewRegistry;
  return typeof registry?.getTypeByExtension === "function" ? registry.getTypeByExtension(ext) : undefined;
}

/**
 * A file Obsidian has no view for (a code file, unless a plugin registered its extension):
 * opened with the system's default app on desktop (the line is said in a notice), else a notice
 * naming path:line. True when handled here.
 */
async function openElsewhere(app: App, file: TFile, line: number): Promise<boolean> {
  const ext = file.extension.toLowerCase();
  if (ext === "md" || viewTypeOf(app, ext)) return false;
  const withDefault = (app as unknown as { openWithDefaultApp?: (path: string) => unknown }).openWithDefaultApp;
  if (Platform.isDesktopApp && typeof withDefault === "function") {
    await withDefault.call(app, file.path);
    new Notice(`Strata: ${file.path} opened in its default app (Obsidian has no view for .${ext} files); the result is at line ${line}.`);
  } else {
    new Notice(`Strata: Obsidian has no view for .${ext} files; the result is at ${file.path}:${line}.`);
  }
  return true;
}

/** Opens `path` and puts the cursor on 1-based `line`, in a new tab when asked (a file Obsidian
 *  cannot show: see openElsewhere). */
export async function openAtLine(app: App, path: string, line: number, newTab: boolean): Promise<void> {
  const file = app.vault.getAbstractFileByPath(path);
  if (!(file instanceof TFile)) {
    new Notice(`Strata: ${path} no longer exists.`);
    return;
  }
  if (await openElsewhere(app, file, line || 1)) return;
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
