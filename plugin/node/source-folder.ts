// A folder on disk to import a model's files from (the CLI; the plugin on desktop imports this
// lazily, behind Platform.isDesktopApp, for an absolute path outside the vault).

import * as fs from "node:fs/promises";
import * as path from "node:path";

import type { SourceFolder } from "../core/model-download.ts";

export function nodeSourceFolder(dir: string): SourceFolder {
  return {
    describe: dir,
    read: async (name) => {
      try {
        const b = await fs.readFile(path.join(dir, name));
        return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
      } catch (err) {
        if ((err as { code?: unknown }).code === "ENOENT") return null;
        throw err;
      }
    },
  };
}
