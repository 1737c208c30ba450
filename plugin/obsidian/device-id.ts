// What is this device's in the plugin, kept in the app's local storage, which no sync service
// carries (Obsidian ≥ 1.8.7 keeps it per vault with app.loadLocalStorage; older apps, the web
// view's localStorage): its id, which names the device's own folder in the vault's index
// (crate/src/layout.rs), and the settings that are the device's choice, not the vault's.

import type { App } from "obsidian";

import type { CoreConfig } from "../core/api.ts";
import { DEVICE_ID, newDeviceId } from "../core/device-id.ts";
import { coreConfig, type StrataSettings } from "./settings.ts";

const KEY = "strata-search-device-id";

interface LocalStorageApp {
  loadLocalStorage?(key: string): unknown;
  saveLocalStorage?(key: string, data: unknown): void;
}

function load(app: App, key: string): unknown {
  const a = app as unknown as LocalStorageApp;
  if (a.loadLocalStorage) return a.loadLocalStorage(key);
  try {
    return JSON.parse(window.localStorage.getItem(key) ?? "null") as unknown;
  } catch {
    return null; // not ours, or damaged: made again
  }
}

function save(app: App, key: string, data: unknown): void {
  const a = app as unknown as LocalStorageApp;
  if (a.saveLocalStorage) a.saveLocalStorage(key, data);
  else window.localStorage.setItem(key, JSON.stringify(data));
}

/** This device's id, made and kept the first time. */
export function pluginDeviceId(app: App): string {
  const kept = load(app, KEY);
  if (typeof kept === "string" && DEVICE_ID.test(kept)) return kept;
  const id = newDeviceId();
  save(app, KEY, id);
  return id;
}

/** The settings that are each device's choice (embedding on a phone, the bridge on a desktop):
 *  kept on the device, never in data.json, which sync carries to every device. */
export const DEVICE_SETTINGS = ["semantic", "embedWorkers", "bridgeEnabled", "bridgePort", "bridgeToken"] as const;
const SETTINGS_KEY = "strata-search-device-settings";

function deviceOnly(from: object): Record<string, unknown> {
  const src = from as Record<string, unknown>;
  return Object.fromEntries(DEVICE_SETTINGS.filter((k) => k in src).map((k) => [k, src[k]]));
}

/** data.json's settings with this device's over them. data.json's own values of those (an earlier
 *  version kept them there) serve a device that has none yet. */
export function withDeviceSettings(raw: unknown, app: App): unknown {
  const local = load(app, SETTINGS_KEY);
  const base = raw !== null && typeof raw === "object" ? raw : {};
  return { ...base, ...(local !== null && typeof local === "object" ? deviceOnly(local) : {}) };
}

/** Keeps this device's settings on the device and returns the vault's, for data.json. */
export function vaultSettings(settings: StrataSettings, app: App): Partial<StrataSettings> {
  save(app, SETTINGS_KEY, deviceOnly(settings));
  const out: Partial<StrataSettings> = { ...settings };
  for (const k of DEVICE_SETTINGS) delete out[k];
  return out;
}

/** The core's configuration on this device: the vault-wide settings and this device's id. */
export function deviceConfig(settings: StrataSettings, app: App): CoreConfig {
  return coreConfig(settings, app.vault.configDir, pluginDeviceId(app));
}
