// Every file under a folder with its bytes' hash, for tests that compare folders over time (the
// sync simulator, the phone profile). A folder that does not exist is empty.

import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import * as path from "node:path";

/** Every file under `dir`, relative, "/"-separated, in name order (the directory's own order
 *  depends on the file system, and a seeded simulation must replay), with its bytes' SHA-256. */
export async function fileHashes(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (rel: string) => {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const name = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(name);
      else
        out.set(
          name,
          createHash("sha256")
            .update(await readFile(path.join(dir, name)))
            .digest("hex"),
        );
    }
  };
  await walk("");
  return out;
}
