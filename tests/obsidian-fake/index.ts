// A fake `obsidian` module: the parts of the API the Strata plugin uses, with the behaviour
// the plugin relies on (vault events after writes, layout-ready, leaves and views, modals,
// settings components, notices), backed by a FakeAdapter over a real folder. Node tests
// resolve "obsidian" here (obsidian-loader.mjs); the browser harness aliases it in esbuild.

import type { FakeAdapter, FakeStat } from "./adapter.ts";
import { bodyEl, newEl } from "./dom.ts";
import { storageGet, storageKey, storageSet } from "./local-storage.ts";
import { PluginSettingTab, requireApiVersion, searchSettings, type SearchHit } from "./settings.ts";

export type { FakeAdapter } from "./adapter.ts";

// Obsidian runs a plugin in a window: its timers are window.setTimeout and the like. Under Node
// the global object stands in for that window.
const host = globalThis as { window?: unknown };
host.window ??= globalThis;

// ---- events --------------------------------------------------------------------------------

export interface EventRef {
  e: Events;
  name: string;
  fn: (...args: unknown[]) => unknown;
}

export class Events {
  private readonly handlers = new Map<string, Set<(...args: unknown[]) => unknown>>();
  on(name: string, fn: (...args: never[]) => unknown): EventRef {
    let s = this.handlers.get(name);
    if (!s) this.handlers.set(name, (s = new Set()));
    s.add(fn as (...args: unknown[]) => unknown);
    return { e: this, name, fn: fn as (...args: unknown[]) => unknown };
  }
  off(name: string, fn: (...args: unknown[]) => unknown): void {
    this.handlers.get(name)?.delete(fn);
  }
  offref(ref: EventRef): void {
    this.off(ref.name, ref.fn);
  }
  trigger(name: string, ...args: unknown[]): void {
    for (const fn of [...(this.handlers.get(name) ?? [])]) fn(...args);
  }
}

// ---- files -----------------------------------------------------------------------------------

export abstract class TAbstractFile {
  parent: TFolder | null = null;
  constructor(
    public vault: Vault,
    public path: string,
  ) {}
  get name(): string {
    return this.path.slice(this.path.lastIndexOf("/") + 1);
  }
}

export class TFile extends TAbstractFile {
  constructor(
    vault: Vault,
    path: string,
    public stat: FakeStat,
  ) {
    super(vault, path);
  }
  get extension(): string {
    const n = this.name;
    const i = n.lastIndexOf(".");
    return i <= 0 ? "" : n.slice(i + 1);
  }
  get basename(): string {
    const n = this.name;
    const i = n.lastIndexOf(".");
    return i <= 0 ? n : n.slice(0, i);
  }
}

export class TFolder extends TAbstractFile {
  children: TAbstractFile[] = [];
  isRoot(): boolean {
    return this.path === "/" || this.path === "";
  }
}

export function normalizePath(p: string): string {
  let s = p.replace(/[\\/]+/g, "/").replace(/\u00a0|\u202f/g, " ");
  s = s.replace(/^\/+|\/+$/g, "");
  return s === "" ? "/" : s.normalize("NFC");
}

// ---- vault -------------------------------------------------------------------------------------

export class Vault extends Events {
  readonly configDir: string;
  private readonly files = new Map<string, TAbstractFile>();

  constructor(
    readonly adapter: FakeAdapter,
    configDir = ".obsidian",
  ) {
    super();
    this.configDir = configDir;
  }

  /** Reads the vault's file list (what Obsidian does when a vault opens). */
  async load(): Promise<void> {
    const { files, folders } = await this.adapter.scan();
    for (const f of folders.sort()) this.files.set(f, new TFolder(this, f));
    for (const f of files) this.files.set(f.path, new TFile(this, f.path, f.stat));
  }

  getName(): string {
    return this.adapter.getName();
  }
  getFiles(): TFile[] {
    return [...this.files.values()].filter((f): f is TFile => f instanceof TFile);
  }
  getMarkdownFiles(): TFile[] {
    return this.getFiles().filter((f) => f.extension === "md");
  }
  getAllLoadedFiles(): TAbstractFile[] {
    return [new TFolder(this, "/"), ...this.files.values()];
  }
  getAllFolders(includeRoot = false): TFolder[] {
    const out = [...this.files.values()].filter((f): f is TFolder => f instanceof TFolder);
    return includeRoot ? [new TFolder(this, "/"), ...out] : out;
  }
  getAbstractFileByPath(p: string): TAbstractFile | null {
    return this.files.get(p) ?? null;
  }
  getFileByPath(p: string): TFile | null {
    const f = this.files.get(p);
    return f instanceof TFile ? f : null;
  }
  getFolderByPath(p: string): TFolder | null {
    const f = this.files.get(p);
    return f instanceof TFolder ? f : null;
  }
  read(file: TFile): Promise<string> {
    return this.adapter.read(file.path);
  }
  cachedRead(file: TFile): Promise<string> {
    return this.adapter.read(file.path);
  }
  readBinary(file: TFile): Promise<ArrayBuffer> {
    return this.adapter.readBinary(file.path);
  }

  private async refresh(file: TFile): Promise<void> {
    const st = await this.adapter.stat(file.path);
    if (st) file.stat = st;
  }

  async create(p: string, data: string): Promise<TFile> {
    if (this.files.has(p)) throw new Error("File already exists.");
    await this.adapter.write(p, data);
    const file = new TFile(this, p, (await this.adapter.stat(p))!);
    this.files.set(p, file);
    this.trigger("create", file);
    return file;
  }
  async createFolder(p: string): Promise<TFolder> {
    if (this.files.has(p)) throw new Error("Folder already exists.");
    await this.adapter.mkdir(p);
    const f = new TFolder(this, p);
    this.files.set(p, f);
    this.trigger("create", f);
    return f;
  }
  /** Obsidian's atomic read-modify-write: fn's result is written, fn's throw aborts. */
  async process(file: TFile, fn: (data: string) => string): Promise<string> {
    const data = fn(await this.adapter.read(file.path));
    await this.modify(file, data);
    return data;
  }
  async modify(file: TFile, data: string): Promise<void> {
    await this.adapter.write(file.path, data);
    await this.refresh(file);
    this.trigger("modify", file);
  }
  async delete(file: TAbstractFile): Promise<void> {
    if (file instanceof TFolder) {
      for (const child of [...this.files.values()].filter((f) => f.path.startsWith(file.path + "/"))) {
        this.files.delete(child.path);
        this.trigger("delete", child);
      }
      await this.adapter.rmdir(file.path, true);
    } else await this.adapter.remove(file.path);
    this.files.delete(file.path);
    this.trigger("delete", file);
  }
  trash(file: TAbstractFile): Promise<void> {
    return this.delete(file);
  }
  /** Renames a file or folder; like Obsidian, every note under a renamed folder gets a rename event. */
  async rename(file: TAbstractFile, newPath: string): Promise<void> {
    const oldPath = file.path;
    await this.adapter.rename(oldPath, newPath);
    const moved: [TAbstractFile, string][] = [];
    if (file instanceof TFolder) {
      for (const child of [...this.files.values()]) {
        if (child.path.startsWith(oldPath + "/")) {
          const old = child.path;
          this.files.delete(old);
          child.path = newPath + old.slice(oldPath.length);
          this.files.set(child.path, child);
          moved.push([child, old]);
        }
      }
    }
    this.files.delete(oldPath);
    file.path = newPath;
    this.files.set(newPath, file);
    if (file instanceof TFile) await this.refresh(file);
    this.trigger("rename", file, oldPath);
    for (const [child, old] of moved) this.trigger("rename", child, old);
  }

  /** A change made outside Obsidian that its file watcher noticed (tests). */
  async externalChange(p: string): Promise<void> {
    const st = await this.adapter.stat(p);
    const existing = this.files.get(p);
    if (!st) {
      if (existing) {
        this.files.delete(p);
        this.trigger("delete", existing);
      }
      return;
    }
    if (existing instanceof TFile) {
      existing.stat = st;
      this.trigger("modify", existing);
    } else {
      const f = new TFile(this, p, st);
      this.files.set(p, f);
      this.trigger("create", f);
    }
  }
}

// ---- components, views, workspace -------------------------------------------------------------

export class Component {
  private readonly cleanups: (() => void)[] = [];
  private readonly children: Component[] = [];
  _loaded = false;
  load(): void {
    this._loaded = true;
    void this.onload();
  }
  onload(): void | Promise<void> {}
  unload(): void {
    for (const c of this.children.splice(0)) c.unload();
    for (const fn of this.cleanups.splice(0).reverse()) fn();
    this._loaded = false;
    this.onunload();
  }
  onunload(): void {}
  addChild<T extends Component>(c: T): T {
    this.children.push(c);
    if (this._loaded) c.load();
    return c;
  }
  register(fn: () => void): void {
    this.cleanups.push(fn);
  }
  registerEvent(ref: EventRef): void {
    this.cleanups.push(() => ref.e.offref(ref));
  }
  registerDomEvent(el: HTMLElement | Window | Document, type: string, fn: (ev: never) => unknown): void {
    (el as HTMLElement).addEventListener(type, fn as EventListener);
    this.cleanups.push(() => (el as HTMLElement).removeEventListener(type, fn as EventListener));
  }
  registerInterval(id: number): number {
    this.cleanups.push(() => clearInterval(id));
    return id;
  }
}

export class Scope {
  register(): unknown {
    return {};
  }
  unregister(): void {}
}

export abstract class View extends Component {
  app: App;
  containerEl: HTMLElement;
  constructor(public leaf: WorkspaceLeaf) {
    super();
    this.app = leaf.app;
    this.containerEl = newEl("div", "workspace-leaf-content");
  }
  abstract getViewType(): string;
  abstract getDisplayText(): string;
  getIcon(): string {
    return "";
  }
  async onOpen(): Promise<void> {}
  async onClose(): Promise<void> {}
}

export abstract class ItemView extends View {
  contentEl: HTMLElement;
  constructor(leaf: WorkspaceLeaf) {
    super(leaf);
    this.containerEl.createDiv({ cls: "view-header" });
    this.contentEl = this.containerEl.createDiv({ cls: "view-content" });
  }
  addAction(): HTMLElement {
    return newEl("div");
  }
}

/** Opened notes: a leaf showing a file (no editor: the harness checks where it would scroll). */
export class MarkdownView extends View {
  file: TFile | null = null;
  editor: { setCursor(pos: unknown): void; scrollIntoView(r: unknown, center?: boolean): void; cursor: unknown };
  constructor(leaf: WorkspaceLeaf) {
    super(leaf);
    const ed = {
      cursor: null as unknown,
      setCursor(pos: unknown) {
        ed.cursor = pos;
      },
      scrollIntoView() {},
    };
    this.editor = ed;
  }
  getViewType(): string {
    return "markdown";
  }
  getDisplayText(): string {
    return this.file?.basename ?? "";
  }
}

export class WorkspaceLeaf {
  view: View;
  /** What openFile() was asked (tests read it). */
  openState: { file: string; eState?: Record<string, unknown>; newTab: boolean } | null = null;
  constructor(
    readonly app: App,
    readonly side: "main" | "right",
    readonly newTab = false,
  ) {
    this.view = new MarkdownView(this);
  }
  async openFile(file: TFile, state: { eState?: Record<string, unknown>; active?: boolean } = {}): Promise<void> {
    const md = this.view instanceof MarkdownView ? this.view : new MarkdownView(this);
    md.file = file;
    this.view = md;
    this.openState = { file: file.path, eState: state.eState, newTab: this.newTab };
    this.app.workspace.activeFile = file;
    this.app.workspace.opened.push(this.openState);
    this.app.workspace.trigger("file-open", file);
    this.app.workspace.trigger("active-leaf-change", this);
  }
  async setViewState(vs: { type: string; active?: boolean }): Promise<void> {
    const factory = this.app.viewRegistry.get(vs.type);
    if (!factory) throw new Error(`no view type ${vs.type}`);
    const view = factory(this);
    this.view = view;
    view.load();
    await view.onOpen();
  }
  getViewState(): { type: string } {
    return { type: this.view.getViewType() };
  }
  detach(): void {
    void this.view.onClose();
    this.view.unload();
    this.app.workspace.leaves = this.app.workspace.leaves.filter((l) => l !== this);
  }
}

export class Workspace extends Events {
  layoutReady = false;
  activeFile: TFile | null = null;
  leaves: WorkspaceLeaf[] = [];
  /** Every openFile() call (tests read it). */
  readonly opened: { file: string; eState?: Record<string, unknown>; newTab: boolean }[] = [];
  private readonly readyQueue: (() => unknown)[] = [];
  constructor(readonly app: App) {
    super();
  }
  onLayoutReady(cb: () => unknown): void {
    if (this.layoutReady) cb();
    else this.readyQueue.push(cb);
  }
  /** Obsidian calls this once the workspace is restored (tests call it). */
  setLayoutReady(): void {
    this.layoutReady = true;
    for (const cb of this.readyQueue.splice(0)) cb();
    this.trigger("layout-ready");
  }
  getActiveFile(): TFile | null {
    return this.activeFile;
  }
  getLeaf(newLeaf?: boolean | "tab" | "split" | "window"): WorkspaceLeaf {
    const leaf = new WorkspaceLeaf(this.app, "main", newLeaf === "tab" || newLeaf === true);
    this.leaves.push(leaf);
    return leaf;
  }
  getRightLeaf(): WorkspaceLeaf {
    const leaf = new WorkspaceLeaf(this.app, "right");
    this.leaves.push(leaf);
    return leaf;
  }
  getLeavesOfType(type: string): WorkspaceLeaf[] {
    return this.leaves.filter((l) => l.view.getViewType() === type);
  }
  async revealLeaf(): Promise<void> {}
  detachLeavesOfType(type: string): void {
    for (const l of this.getLeavesOfType(type)) l.detach();
  }
}

export class MetadataCache extends Events {
  getFileCache(): null {
    return null;
  }
}

export interface Command {
  id: string;
  name: string;
  callback?: () => unknown;
  checkCallback?: (checking: boolean) => boolean | void;
}

export class App {
  readonly workspace: Workspace;
  readonly metadataCache = new MetadataCache();
  readonly viewRegistry = new Map<string, (leaf: WorkspaceLeaf) => View>();
  readonly commands = new Map<string, Command>();
  readonly settingTabs: PluginSettingTab[] = [];
  readonly statusBar: HTMLElement = newEl("div", "status-bar");
  constructor(readonly vault: Vault) {
    this.workspace = new Workspace(this);
  }
  /** Obsidian ≥ 1.8.7's per-vault, per-device storage: kept across app instances of the same
   *  vault folder (a reload of the plugin, a restart of the app), never synced. */
  loadLocalStorage(key: string): unknown {
    return storageGet(storageKey(this.vault.adapter.getBasePath?.() ?? this.vault.adapter.getName(), key));
  }
  saveLocalStorage(key: string, data: unknown): void {
    storageSet(storageKey(this.vault.adapter.getBasePath?.() ?? this.vault.adapter.getName(), key), data);
  }
  /** An app over `adapter`'s folder, its file list loaded, the layout not yet ready. */
  static async create(adapter: FakeAdapter, configDir = ".obsidian"): Promise<App> {
    const vault = new Vault(adapter, configDir);
    await vault.load();
    return new App(vault);
  }
  /** Opens a settings tab as the settings modal does (tests read its containerEl). */
  openSettingTab(tab: PluginSettingTab = this.settingTabs[0]): PluginSettingTab {
    tab.open();
    return tab;
  }
  /** Obsidian 1.13's settings search over every tab. */
  searchSettings(query: string): SearchHit[] {
    return searchSettings(this.settingTabs, query);
  }
  /** Runs a command by id ("strata-search:search-vault"); false when unavailable. */
  runCommand(id: string): boolean {
    const c = this.commands.get(id);
    if (!c) return false;
    if (c.checkCallback) return c.checkCallback(false) !== false;
    c.callback?.();
    return true;
  }
}

// ---- plugin ------------------------------------------------------------------------------------

export interface PluginManifest {
  id: string;
  name: string;
  version: string;
  minAppVersion: string;
  description: string;
  author: string;
  isDesktopOnly?: boolean;
  dir?: string;
}

export class Plugin extends Component {
  settings?: unknown;
  constructor(
    public app: App,
    public manifest: PluginManifest,
  ) {
    super();
  }
  private get dataPath(): string {
    return `${this.manifest.dir}/data.json`;
  }
  async loadData(): Promise<unknown> {
    const a = this.app.vault.adapter;
    if (!(await a.exists(this.dataPath))) return null;
    return JSON.parse(await a.read(this.dataPath));
  }
  async saveData(data: unknown): Promise<void> {
    const a = this.app.vault.adapter;
    if (!(await a.exists(this.manifest.dir!))) await a.mkdir(this.manifest.dir!);
    await a.write(this.dataPath, JSON.stringify(data, null, 2));
  }
  addCommand(cmd: Command): Command {
    const full = { ...cmd, id: `${this.manifest.id}:${cmd.id}` };
    this.app.commands.set(full.id, full);
    this.register(() => this.app.commands.delete(full.id));
    return full;
  }
  addStatusBarItem(): HTMLElement {
    const el = this.app.statusBar.createDiv({ cls: "status-bar-item" });
    this.register(() => el.detach());
    return el;
  }
  /** As Obsidian 1.13+ does, reads the tab's definitions for the settings search. */
  addSettingTab(tab: PluginSettingTab): void {
    this.app.settingTabs.push(tab);
    if (requireApiVersion("1.13.0")) tab.update();
  }
  addRibbonIcon(): HTMLElement {
    return newEl("div");
  }
  registerView(type: string, factory: (leaf: WorkspaceLeaf) => View): void {
    this.app.viewRegistry.set(type, factory);
    this.register(() => this.app.viewRegistry.delete(type));
  }
}

// ---- settings (settings.ts) -------------------------------------------------------------------

export { setDevice } from "./local-storage.ts";
export { fakeApi, PluginSettingTab, requireApiVersion, searchSettings, Setting, SettingGroup } from "./settings.ts";

// ---- modal, notice, platform ------------------------------------------------------------------

export class Modal {
  readonly containerEl: HTMLElement;
  readonly modalEl: HTMLElement;
  readonly titleEl: HTMLElement;
  readonly contentEl: HTMLElement;
  readonly scope = new Scope();
  shouldRestoreSelection = true;
  isOpen = false;
  constructor(public app: App) {
    this.containerEl = newEl("div", "modal-container");
    this.containerEl.createDiv({ cls: "modal-bg" });
    this.modalEl = this.containerEl.createDiv({ cls: "modal" });
    this.titleEl = this.modalEl.createDiv({ cls: "modal-title" });
    this.contentEl = this.modalEl.createDiv({ cls: "modal-content" });
  }
  open(): void {
    bodyEl().appendChild(this.containerEl);
    this.isOpen = true;
    Modal.current = this;
    this.onOpen();
  }
  close(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.onClose();
    this.containerEl.detach();
    if (Modal.current === this) Modal.current = null;
  }
  onOpen(): void {}
  onClose(): void {}
  /** The modal open now (tests read it). */
  static current: Modal | null = null;
}

export class Notice {
  /** Every notice shown (tests read it). */
  static readonly log: string[] = [];
  readonly noticeEl: HTMLElement;
  constructor(message: string | DocumentFragment, _duration?: number) {
    const text = typeof message === "string" ? message : (message.textContent ?? "");
    Notice.log.push(text);
    this.noticeEl = bodyEl().createDiv({ cls: "notice", text });
    setTimeout(() => this.hide(), 50);
  }
  setMessage(m: string): this {
    this.noticeEl.setText(m);
    return this;
  }
  hide(): void {
    this.noticeEl.detach();
  }
}

export const Platform = {
  isDesktop: true,
  isMobile: false,
  isDesktopApp: true,
  isMobileApp: false,
  isIosApp: false,
  isAndroidApp: false,
  isMacOS: false,
  isWin: false,
  isLinux: true,
  isSafari: false,
};

/** Obsidian's Platform as it is on a desktop (Linux) or a phone (the Android app). */
export function setPlatform(profile: "desktop" | "phone"): void {
  const phone = profile === "phone";
  Object.assign(Platform, {
    isDesktop: !phone,
    isMobile: phone,
    isDesktopApp: !phone,
    isMobileApp: phone,
    isAndroidApp: phone,
    isLinux: !phone,
  });
}

export const Keymap = {
  isModEvent(evt?: { ctrlKey?: boolean; metaKey?: boolean } | null): boolean {
    return !!(evt && (evt.ctrlKey || evt.metaKey));
  },
};

export function setIcon(): void {}

/** Obsidian's requestUrl, over real HTTP (Node's or the browser's fetch): the response whole, status
 *  400+ throws unless `throw: false`. Like Obsidian's, it has no timeout and cannot be aborted. */
export async function requestUrl(
  req: string | { url: string; method?: string; headers?: Record<string, string>; body?: string | ArrayBuffer; throw?: boolean },
) {
  const r = typeof req === "string" ? { url: req } : req;
  const res = await fetch(r.url, { method: r.method ?? "GET", headers: r.headers, body: r.body });
  const arrayBuffer = await res.arrayBuffer();
  if (res.status >= 400 && r.throw !== false) throw new Error(`Request failed, status ${res.status}`);
  const text = () => new TextDecoder().decode(arrayBuffer);
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    arrayBuffer,
    get text() {
      return text();
    },
    get json(): unknown {
      return JSON.parse(text());
    },
  };
}
