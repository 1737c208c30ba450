// The settings tab as a test reads it: a shown row by its name (its description, error state and
// controls), typing into a row, and data.json as the plugin saved it.

import { readFile } from "node:fs/promises";
import * as path from "node:path";

import { PLUGIN_DIR, type AppT } from "./plugin-env.ts";

/** An element of the fake Obsidian's DOM, as the tests read it. */
export type El = {
  children: El[];
  tagName: string;
  value: string;
  classList: { contains(c: string): boolean };
  getText(): string;
  dispatch(t: string): void;
};
/** Every element under `e`, depth first. */
export const all = (e: El, out: El[] = []): El[] => (e.children.forEach((c) => (out.push(c), all(c, out))), out);

/** The shown tab's row named `name` (undefined when it is hidden): its description, error and
 *  first input, select, toggle, and its buttons. */
export function settingRow(app: AppT, name: string) {
  const rows = all(app.settingTabs[0].containerEl as unknown as El).filter((e) => e.classList.contains("setting-item"));
  const r = rows.find(
    (e) =>
      all(e)
        .find((c) => c.classList.contains("setting-item-name"))
        ?.getText() === name,
  );
  if (!r) return undefined;
  const inRow = all(r);
  const byClass = (c: string) => inRow.find((e) => e.classList.contains(c));
  return {
    el: r,
    desc: byClass("setting-item-description")?.getText() ?? "",
    invalid: r.classList.contains("is-invalid"),
    input: inRow.find((e) => e.tagName === "input" || e.tagName === "textarea" || e.tagName === "select"),
    toggle: byClass("checkbox-container"),
    buttons: inRow.filter((e) => e.tagName === "button").map((b) => b.getText()),
  };
}

/** Types `value` into the row's input (a select's choice), as a user does. */
export function typeInto(app: AppT, name: string, value: string): void {
  const input = settingRow(app, name)?.input;
  if (!input) throw new Error(`no input in ${name}`);
  input.value = value;
  input.dispatch(input.tagName === "select" ? "change" : "input");
}

/** data.json as saved (empty while a save is half written). */
export async function savedSettings(vault: string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await readFile(path.join(vault, PLUGIN_DIR, "data.json"), "utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
}
