// The fake `obsidian` module's settings: Setting rows and their components, and PluginSettingTab
// with Obsidian 1.13's declarative settings: getSettingDefinitions() read when the tab is added
// (for the settings search) and drawn when the tab is opened, values through
// getControlValue / setControlValue, validate() errors shown and not stored, render() rows and
// their cleanups, update() redrawing an open tab. `fakeApi.version` below 1.13 stands for an
// older Obsidian: the tab is opened with display(), definitions are never read.

import { newEl } from "./dom.ts";

/** The Obsidian version the fake stands for (requireApiVersion compares with it). */
export const fakeApi = { version: "1.13.1" };

export function requireApiVersion(version: string): boolean {
  const a = fakeApi.version.split(".").map(Number);
  const b = version.split(".").map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

const declarative = () => requireApiVersion("1.13.0");

// ---- components ----------------------------------------------------------------------------

abstract class ValueComponent<T> {
  protected changeFn: ((v: T) => unknown) | null = null;
  abstract readonly el: HTMLElement;
  onChange(fn: (v: T) => unknown): this {
    this.changeFn = fn;
    return this;
  }
  setDisabled(d: boolean): this {
    this.el.toggleClass("is-disabled", d);
    return this;
  }
}

class TextLike extends ValueComponent<string> {
  constructor(readonly inputEl: HTMLInputElement | HTMLTextAreaElement) {
    super();
    inputEl.addEventListener("input", () => this.changeFn?.(inputEl.value));
  }
  get el() {
    return this.inputEl as HTMLElement;
  }
  setValue(v: string): this {
    this.inputEl.value = v;
    return this;
  }
  getValue(): string {
    return this.inputEl.value;
  }
  setPlaceholder(p: string): this {
    this.inputEl.setAttribute("placeholder", p);
    return this;
  }
}

class ToggleComponent extends ValueComponent<boolean> {
  readonly el: HTMLElement;
  private value = false;
  constructor(parent: HTMLElement) {
    super();
    this.el = parent.createDiv({ cls: "checkbox-container" });
    this.el.addEventListener("click", () => {
      this.setValue(!this.value);
      this.changeFn?.(this.value);
    });
  }
  setValue(v: boolean): this {
    this.value = v;
    this.el.toggleClass("is-enabled", v);
    return this;
  }
  getValue(): boolean {
    return this.value;
  }
}

class DropdownComponent extends ValueComponent<string> {
  readonly selectEl: HTMLSelectElement;
  constructor(parent: HTMLElement) {
    super();
    this.selectEl = parent.createEl("select", { cls: "dropdown" });
    this.selectEl.addEventListener("change", () => this.changeFn?.(this.selectEl.value));
  }
  get el() {
    return this.selectEl as HTMLElement;
  }
  addOptions(o: Record<string, string>): this {
    for (const [v, label] of Object.entries(o)) this.selectEl.createEl("option", { text: label, attr: { value: v } });
    return this;
  }
  setValue(v: string): this {
    this.selectEl.value = v;
    return this;
  }
}

class SliderComponent extends ValueComponent<number> {
  readonly el: HTMLInputElement;
  constructor(parent: HTMLElement) {
    super();
    this.el = parent.createEl("input", { cls: "slider", attr: { type: "range" } });
    this.el.addEventListener("input", () => this.changeFn?.(Number(this.el.value)));
  }
  setLimits(min: number, max: number, step: number): this {
    this.el.setAttribute("min", String(min));
    this.el.setAttribute("max", String(max));
    this.el.setAttribute("step", String(step));
    return this;
  }
  setValue(v: number): this {
    this.el.value = String(v);
    return this;
  }
  /** Before 1.13 only (deprecated by 1.13: the value is always shown). */
  setDynamicTooltip(): this {
    if (declarative()) throw new Error("setDynamicTooltip is deprecated on Obsidian 1.13+");
    return this;
  }
}

class ButtonComponent {
  readonly buttonEl: HTMLButtonElement;
  constructor(parent: HTMLElement) {
    this.buttonEl = parent.createEl("button");
  }
  setButtonText(t: string): this {
    this.buttonEl.setText(t);
    return this;
  }
  setWarning(): this {
    this.buttonEl.addClass("mod-warning");
    return this;
  }
  /** 1.13+. */
  setDestructive(): this {
    if (!declarative()) throw new Error("setDestructive needs Obsidian 1.13");
    this.buttonEl.addClass("mod-destructive");
    return this;
  }
  setCta(): this {
    this.buttonEl.addClass("mod-cta");
    return this;
  }
  onClick(fn: (ev: MouseEvent) => unknown): this {
    this.buttonEl.addEventListener("click", fn);
    return this;
  }
}

export class Setting {
  readonly settingEl: HTMLElement;
  readonly infoEl: HTMLElement;
  readonly nameEl: HTMLElement;
  readonly descEl: HTMLElement;
  readonly controlEl: HTMLElement;
  errorEl: HTMLElement | null = null;
  constructor(containerEl: HTMLElement) {
    this.settingEl = containerEl.createDiv({ cls: "setting-item" });
    this.infoEl = this.settingEl.createDiv({ cls: "setting-item-info" });
    this.nameEl = this.infoEl.createDiv({ cls: "setting-item-name" });
    this.descEl = this.infoEl.createDiv({ cls: "setting-item-description" });
    this.controlEl = this.settingEl.createDiv({ cls: "setting-item-control" });
  }
  setName(n: string): this {
    this.nameEl.setText(n);
    return this;
  }
  setDesc(d: string): this {
    this.descEl.setText(d);
    return this;
  }
  setHeading(): this {
    this.settingEl.addClass("setting-item-heading");
    return this;
  }
  setDisabled(d: boolean): this {
    this.settingEl.toggleClass("is-disabled", d);
    return this;
  }
  /** 1.13+: a validation message under the row. */
  setErrorMessage(message: string | null): this {
    if (!declarative()) throw new Error("setErrorMessage needs Obsidian 1.13");
    this.settingEl.toggleClass("is-invalid", !!message);
    if (message) (this.errorEl ??= this.infoEl.createDiv({ cls: "setting-item-error" })).setText(message);
    else this.errorEl?.setText("");
    return this;
  }
  addText(cb: (c: TextLike) => unknown): this {
    cb(new TextLike(this.controlEl.createEl("input", { attr: { type: "text" } })));
    return this;
  }
  addTextArea(cb: (c: TextLike) => unknown): this {
    cb(new TextLike(this.controlEl.createEl("textarea")));
    return this;
  }
  addToggle(cb: (c: ToggleComponent) => unknown): this {
    cb(new ToggleComponent(this.controlEl));
    return this;
  }
  addDropdown(cb: (c: DropdownComponent) => unknown): this {
    cb(new DropdownComponent(this.controlEl));
    return this;
  }
  addSlider(cb: (c: SliderComponent) => unknown): this {
    cb(new SliderComponent(this.controlEl));
    return this;
  }
  addButton(cb: (c: ButtonComponent) => unknown): this {
    cb(new ButtonComponent(this.controlEl));
    return this;
  }
}

/** 1.11+: a group of rows under a heading. */
export class SettingGroup {
  readonly listEl: HTMLElement;
  constructor(readonly containerEl: HTMLElement) {
    this.listEl = containerEl.createDiv({ cls: "setting-group" });
  }
  setHeading(text: string): this {
    this.listEl.createDiv({ cls: "setting-group-heading", text });
    return this;
  }
  addSetting(cb: (s: Setting) => void): this {
    cb(new Setting(this.listEl));
    return this;
  }
}

// ---- the settings tab and its declarative definitions ---------------------------------------

type Flag = boolean | (() => boolean) | undefined;
const flag = (v: Flag, dflt: boolean) => (v === undefined ? dflt : typeof v === "function" ? v() : v);

interface Control {
  type: string;
  key: string;
  defaultValue?: unknown;
  options?: Record<string, string>;
  placeholder?: string;
  min?: number;
  max?: number;
  step?: number;
  validate?: (v: unknown) => string | void | Promise<string | void>;
  disabled?: Flag;
}

/** A setting definition (SettingDefinition in obsidian.d.ts). */
export interface Definition {
  name: string;
  desc?: string;
  aliases?: string[];
  searchable?: Flag;
  visible?: Flag;
  control?: Control;
  action?: (el: HTMLElement, index: number) => void;
  disabled?: Flag;
  render?: (setting: Setting, group: SettingGroup) => void | (() => void);
}

/** A group, list or page (SettingDefinitionGroup / -Page). */
export interface DefinitionGroup {
  type: "group" | "list" | "page";
  heading?: string;
  name?: string;
  visible?: Flag;
  items?: (Definition | DefinitionGroup)[];
}

export type DefinitionItem = Definition | DefinitionGroup;

/** One row Obsidian's settings search finds: the row's definition and its group's heading. */
export interface SearchHit {
  tab: PluginSettingTab;
  heading: string | null;
  def: Definition;
}

interface PluginLike {
  settings?: unknown;
  saveData(data: unknown): Promise<void>;
}

export class PluginSettingTab {
  containerEl: HTMLElement = newEl("div", "vertical-tab-content");
  settingItems: DefinitionItem[] = [];
  /** True while the settings modal shows this tab (update() redraws it then). */
  private shown = false;
  private cleanups: (() => void)[] = [];
  /** Each drawn row with its definition (refreshDomState re-evaluates visible and disabled). */
  private drawn: { def: Definition; row: Setting }[] = [];
  constructor(
    public app: unknown,
    public plugin: PluginLike,
  ) {}
  display(): void {}
  hide(): void {
    this.shown = false;
    this.cleanups.splice(0).forEach((c) => c());
  }
  getSettingDefinitions(): DefinitionItem[] {
    return [];
  }
  getControlValue(key: string): unknown {
    return (this.plugin.settings as Record<string, unknown>)[key];
  }
  async setControlValue(key: string, value: unknown): Promise<void> {
    (this.plugin.settings as Record<string, unknown>)[key] = value;
    await this.plugin.saveData(this.plugin.settings);
  }
  update(): void {
    if (!declarative()) throw new Error("update() needs Obsidian 1.13");
    this.settingItems = this.getSettingDefinitions();
    if (this.shown) this.draw();
  }
  refreshDomState(): void {
    for (const { def, row } of this.drawn) {
      row.settingEl.toggleClass("is-hidden", !flag(def.visible, true));
      row.setDisabled(flag(def.control?.disabled ?? def.disabled, false));
    }
  }

  /** What the settings modal does when the user opens this tab. */
  open(): void {
    this.hide();
    this.shown = true;
    if (declarative()) {
      this.settingItems = this.getSettingDefinitions();
      if (this.settingItems.length) return this.draw();
    }
    this.containerEl.empty();
    this.display();
  }

  /** Draws settingItems as Obsidian 1.13 does: groups with headings, a row per definition. */
  private draw(): void {
    this.cleanups.splice(0).forEach((c) => c());
    this.drawn = [];
    this.containerEl.empty();
    const drawItems = (el: HTMLElement, items: DefinitionItem[], group: SettingGroup) => {
      items.forEach((item, index) => {
        if ("type" in item) {
          if (!flag(item.visible, true)) return;
          const g = new SettingGroup(el);
          if (item.heading ?? item.name) g.setHeading((item.heading ?? item.name)!);
          drawItems(g.listEl, item.items ?? [], g);
          return;
        }
        if (!flag(item.visible, true)) return;
        const row = new Setting(el).setName(item.name);
        if (item.desc) row.setDesc(item.desc);
        this.drawn.push({ def: item, row });
        if (item.control) this.bind(row, item.control);
        else if (item.action) {
          const action = item.action;
          row.settingEl.addEventListener("click", () => action(row.settingEl, index));
        } else if (item.render) {
          const cleanup = item.render(row, group);
          if (cleanup) this.cleanups.push(cleanup);
        }
      });
    };
    drawItems(this.containerEl, this.settingItems, new SettingGroup(this.containerEl));
    this.refreshDomState();
  }

  /** A control bound to getControlValue / setControlValue, validated before it is stored. */
  private bind(row: Setting, c: Control): void {
    const value = this.getControlValue(c.key) ?? c.defaultValue;
    const commit = async (v: unknown) => {
      const err = (await c.validate?.(v)) || null;
      row.setErrorMessage(err);
      if (!err) await this.setControlValue(c.key, v);
    };
    const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
    switch (c.type) {
      case "toggle":
        row.addToggle((t) => t.setValue(value === true).onChange(commit));
        break;
      case "dropdown":
        row.addDropdown((d) =>
          d
            .addOptions(c.options ?? {})
            .setValue(str(value))
            .onChange(commit),
        );
        break;
      case "slider":
        row.addSlider((s) =>
          s
            .setLimits(c.min ?? 0, c.max ?? 100, c.step ?? 1)
            .setValue(Number(value))
            .onChange(commit),
        );
        break;
      case "number":
        row.addText((t) => {
          t.inputEl.setAttribute("type", "number");
          t.setValue(str(value)).onChange((v) => commit(v.trim() === "" ? NaN : Number(v)));
        });
        break;
      case "textarea":
        row.addTextArea((t) =>
          t
            .setPlaceholder(c.placeholder ?? "")
            .setValue(str(value))
            .onChange(commit),
        );
        break;
      case "text":
      case "file":
      case "folder":
        row.addText((t) =>
          t
            .setPlaceholder(c.placeholder ?? "")
            .setValue(str(value))
            .onChange(commit),
        );
        break;
      default:
        throw new Error(`the fake has no ${c.type} control`);
    }
  }
}

/** Obsidian 1.13's settings search over the tabs' definitions (read when each tab was added):
 *  every word of `query` in the row's name, description or aliases; rows hidden or not
 *  searchable are left out. */
export function searchSettings(tabs: PluginSettingTab[], query: string): SearchHit[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const hits: SearchHit[] = [];
  const walk = (tab: PluginSettingTab, items: DefinitionItem[], heading: string | null) => {
    for (const item of items) {
      if ("type" in item) {
        if (flag(item.visible, true)) walk(tab, item.items ?? [], item.heading ?? item.name ?? heading);
        continue;
      }
      if (!flag(item.visible, true) || !flag(item.searchable, true)) continue;
      const text = [item.name, item.desc ?? "", ...(item.aliases ?? [])].join(" ").toLowerCase();
      if (words.every((w) => text.includes(w))) hits.push({ tab, heading, def: item });
    }
  };
  for (const tab of tabs) walk(tab, tab.settingItems, null);
  return hits;
}
