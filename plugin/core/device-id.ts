// A device's id, as every host makes and checks it: it names the device's own folder in a
// vault's index (crate/src/layout.rs, `check_device_id`, which the core applies too).

import { globalScope } from "./global-scope.ts";

/** 1–64 ASCII letters, digits, '-' or '_'. */
export const DEVICE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A new device id: 16 random hex digits. */
export function newDeviceId(): string {
  const bytes = new Uint8Array(8);
  if (!globalScope.crypto) throw new Error("no Web Crypto to make a device id");
  globalScope.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
