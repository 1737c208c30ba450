// This machine's device id for the Node hosts (the CLI, the headless MCP bridge): it names the
// machine's own folder in a vault's index (crate/src/layout.rs), where only this machine writes.
// Kept per machine, outside every vault: $XDG_STATE_HOME/strata/device-id (~/.local/state when
// unset); STRATA_DEVICE_ID overrides it (a second checkout on one machine, the sync tests).

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { DEVICE_ID, newDeviceId } from "../core/device-id.ts";

let cached: string | undefined;

/** The file that keeps this machine's id. */
export function deviceIdFile(): string {
  const state = process.env.XDG_STATE_HOME || path.join(os.homedir(), ".local", "state");
  return path.join(state, "strata", "device-id");
}

/**
 * This machine's device id: STRATA_DEVICE_ID, else the one kept in `deviceIdFile()`, made (16 random
 * hex digits) the first time. Processes starting at once agree: the file is created exclusively
 * and a loser reads the winner's. Without a writable home, a random id for this process (its
 * folder is then left for its own later cleanup, never another device's).
 */
export function machineDeviceId(): string {
  const env = process.env.STRATA_DEVICE_ID;
  if (env !== undefined) {
    if (!DEVICE_ID.test(env)) throw new Error(`STRATA_DEVICE_ID=${JSON.stringify(env)}: 1–64 letters, digits, '-' or '_'`);
    return env;
  }
  if (cached) return cached;
  const file = deviceIdFile();
  const read = (): string | null => {
    try {
      const id = readFileSync(file, "utf8").trim();
      return DEVICE_ID.test(id) ? id : null;
    } catch {
      return null;
    }
  };
  let id = read();
  if (!id) {
    const made = newDeviceId();
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `${made}\n`, { flag: "wx" });
      id = made;
    } catch {
      id = read() ?? made;
    }
  }
  cached = id;
  return id;
}
