// The app's local storage (App.loadLocalStorage, Obsidian ≥ 1.8.7: per vault and per device,
// never synced), by device, vault folder and key: in memory under Node, in the page's
// localStorage in a browser (the UI harness: kept across page loads, as the app keeps it across
// restarts).

const MEMORY = new Map<string, unknown>();
let deviceName = "";

const pageStorage = (): Storage | null => {
  const w = globalThis as { document?: unknown; localStorage?: Storage };
  return w.document !== undefined && w.localStorage ? w.localStorage : null;
};

/** Which device the app runs on: each has its own local storage (so its own device id). */
export function setDevice(name: string): void {
  deviceName = name;
}

/** The key of `key` for this device and the vault folder `vault`. */
export function storageKey(vault: string, key: string): string {
  return `${deviceName}\0${vault}\0${key}`;
}

export function storageGet(key: string): unknown {
  const page = pageStorage();
  if (!page) return MEMORY.get(key) ?? null;
  const v = page.getItem(key);
  return v === null ? null : (JSON.parse(v) as unknown);
}

export function storageSet(key: string, data: unknown): void {
  const page = pageStorage();
  if (data === null) {
    if (page) page.removeItem(key);
    else MEMORY.delete(key);
  } else if (page) page.setItem(key, JSON.stringify(data));
  else MEMORY.set(key, data);
}
