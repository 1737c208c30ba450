// This device's id in the plugin: it names the device's own folder in the vault's index
// (crate/src/layout.rs). Kept in the app's local storage, which no sync service carries: per
// device (Obsidian ≥ 1.8.7 keeps it per vault with app.loadLocalStorage; older apps, the web
// view's localStorage).

import type { App } from "obsidian";

import type { CoreConfig } from "../core/api.ts";
import { coreConfig, type StrataSettings } from "./settings.ts";

const KEY = "strata-search-device-id";
const VALID = /^[A-Za-z0-9_-]{1,64}$/;

interface LocalStorageApp {
  loadLocalStorage?(key: string): unknown;
  saveLocalStorage?(key: string, data: unknown): void;
}

function randomId(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** This device's id, made and kept the first time. */
export function pluginDeviceId(app: App): string {
  const a = app as unknown as LocalStorageApp;
  const load = (): unknown => (a.loadLocalStorage ? a.loadLocalStorage(KEY) : window.localStorage.getItem(KEY));
  const kept = load();
  if (typeof kept === "string" && VALID.test(kept)) return kept;
  const id = randomId();
  if (a.saveLocalStorage) a.saveLocalStorage(KEY, id);
  else window.localStorage.setItem(KEY, id);
  return id;
}

/** The core's configuration on this device: the vault-wide settings and this device's id. */
export function deviceConfig(settings: StrataSettings, app: App): CoreConfig {
  return coreConfig(settings, app.vault.configDir, pluginDeviceId(app));
}
