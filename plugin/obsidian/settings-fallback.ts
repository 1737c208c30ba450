// The settings tab on Obsidian before 1.13, which has no declarative settings: draws the tab's
// setting definitions (getSettingDefinitions) with Setting rows, the way 1.13 renders them, so
// both versions show the same rows from one description. Values go through the tab's
// getControlValue / setControlValue, as on 1.13.

import {
  requireApiVersion,
  Setting,
  type SettingControl,
  type SettingDefinition,
  type SettingDefinitionItem,
  type SettingGroup,
  type ButtonComponent,
} from "obsidian";

/** Where a control's value is read and written (the settings tab). */
export interface ControlStore {
  getControlValue(key: string): unknown;
  setControlValue(key: string, value: unknown): void | Promise<void>;
}

/** A stored value as a text control shows it. */
const asText = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" && Number.isFinite(v) ? String(v) : "");

const on = (v: boolean | (() => boolean) | undefined, dflt: boolean) => (v === undefined ? dflt : typeof v === "function" ? v() : v);

/** Draws `items` into `el`; returns what undoes the rows' subscriptions (their render cleanups). */
export function renderDefinitions(el: HTMLElement, items: SettingDefinitionItem[], store: ControlStore): () => void {
  const cleanups: (() => void)[] = [];
  const draw = (list: SettingDefinitionItem[]) => {
    list.forEach((item, index) => {
      if ("type" in item) {
        // A group, a list or a page: its heading (a page's name), then its items inline.
        if (!on(item.visible, true)) return;
        const heading = item.type === "page" ? item.name : item.heading;
        if (heading) new Setting(el).setName(heading).setHeading();
        draw(item.items ?? []);
        return;
      }
      const cleanup = drawRow(el, item, index, store);
      if (cleanup) cleanups.push(cleanup);
    });
  };
  draw(items);
  return () => cleanups.splice(0).forEach((c) => c());
}

function drawRow(el: HTMLElement, def: SettingDefinition, index: number, store: ControlStore): (() => void) | void {
  if (!on(def.visible, true)) return;
  const row = new Setting(el).setName(def.name);
  if (def.desc) row.setDesc(def.desc);
  if (def.control) {
    addControl(row, def.control, store);
    row.setDisabled(on(def.control.disabled, false));
  } else if (def.action) {
    const action = def.action;
    row.settingEl.addEventListener("click", () => action(row.settingEl, index));
    row.setDisabled(on(def.disabled, false));
  } else if (def.render) {
    // The rows given here ignore the group (Obsidian before 1.11 has no SettingGroup).
    return def.render(row, undefined as unknown as SettingGroup);
  }
}

function addControl(row: Setting, c: SettingControl, store: ControlStore): void {
  const value = store.getControlValue(c.key) ?? c.defaultValue;
  let errorEl: HTMLElement | null = null;
  // As on 1.13: a value the control's validate() rejects is shown as an error, not stored.
  const commit = async <V>(v: V, validate?: (value: V) => string | void | Promise<string | void>) => {
    const err = (await validate?.(v)) || null;
    row.settingEl.toggleClass("is-invalid", !!err);
    if (err) (errorEl ??= row.infoEl.createDiv({ cls: "setting-item-description mod-warning" })).setText(err);
    else errorEl?.setText("");
    if (!err) await store.setControlValue(c.key, v);
  };
  switch (c.type) {
    case "toggle":
      row.addToggle((t) => t.setValue(value === true).onChange((v) => commit(v, c.validate)));
      break;
    case "dropdown":
      row.addDropdown((d) =>
        d
          .addOptions(c.options)
          .setValue(asText(value))
          .onChange((v) => commit(v, c.validate)),
      );
      break;
    case "slider":
      row.addSlider((s) => {
        // Before 1.13 a slider shows its value only in a tooltip: show it beside the slider.
        const shown = row.controlEl.createSpan({ cls: "strata-slider-value", text: asText(value) });
        s.setLimits(c.min, c.max, c.step)
          .setValue(Number(value))
          .onChange((v) => {
            shown.setText(String(v));
            return commit(v, c.validate);
          });
      });
      break;
    case "number":
      row.addText((t) => {
        t.inputEl.type = "number";
        if (c.min !== undefined) t.inputEl.min = String(c.min);
        if (c.max !== undefined) t.inputEl.max = String(c.max);
        t.setPlaceholder(c.placeholder ?? "")
          .setValue(asText(value))
          .onChange((v) => commit(v.trim() === "" ? NaN : Number(v), c.validate));
      });
      break;
    case "textarea":
      row.addTextArea((t) => {
        if (c.rows) t.inputEl.rows = c.rows;
        t.setPlaceholder(c.placeholder ?? "")
          .setValue(asText(value))
          .onChange((v) => commit(v, c.validate));
      });
      break;
    case "color":
      row.addColorPicker((p) => p.setValue(asText(value)).onChange((v) => commit(v, c.validate)));
      break;
    default:
      // text, and file and folder paths (typed: there is no suggester before 1.13).
      row.addText((t) =>
        t
          .setPlaceholder(c.placeholder ?? "")
          .setValue(asText(value))
          .onChange((v) => commit(v, c.validate)),
      );
  }
}

/** A button for a destructive action: 1.13's style, or the warning style before it. */
export function destructive(b: ButtonComponent): ButtonComponent {
  if (requireApiVersion("1.13.0")) return b.setDestructive();
  // What setWarning() did (deprecated by 1.13).
  b.buttonEl.addClass("mod-warning");
  return b;
}
