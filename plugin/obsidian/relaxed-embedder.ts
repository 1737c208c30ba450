// The plugin's side of the relaxed-SIMD embedder build (core/embedding/builds.ts): whether this
// device wants it, whether it is installed (`<plugin folder>/embedder-relaxed-simd/`, downloaded
// with a model by model-install.ts), and reading it for the search worker, which checks it.

import type { DataAdapter } from "obsidian";
import { RELAXED_EMBEDDER_FILE, RELAXED_EMBEDDER_ID, relaxedSimdSupported, type RelaxedEmbedderFile } from "../core/embedding/builds.ts";
import type { ReleaseInfo, TableModel } from "../core/model-download.ts";

export class RelaxedEmbedder {
  constructor(
    private readonly adapter: DataAdapter,
    private readonly pluginDir: string,
    private readonly release: ReleaseInfo,
  ) {}

  /** The release's entry of the build, if this bundle's table has one (a development build has none). */
  get entry(): TableModel | undefined {
    return this.release.table.embedder;
  }

  /** Where it is installed. */
  get file(): string {
    return `${this.pluginDir}/${RELAXED_EMBEDDER_ID}/${RELAXED_EMBEDDER_FILE}`;
  }

  /** Worth downloading on this device: the release has it and the engine runs relaxed SIMD. */
  get wanted(): boolean {
    return !!this.entry && relaxedSimdSupported();
  }

  /** Installed at this release's size (its hash is checked when it is loaded). */
  async installed(): Promise<boolean> {
    const want = this.entry?.files[0]?.size;
    const st = want === undefined ? null : await this.adapter.stat(this.file);
    return st?.type === "file" && st.size === want;
  }

  /** The installed build and its table's SHA-256, or null (not in the table, not wanted here, not installed). */
  async read(): Promise<RelaxedEmbedderFile | null> {
    const sha256 = this.entry?.files[0]?.sha256;
    if (!sha256 || !this.wanted || !(await this.adapter.exists(this.file))) return null;
    return { gz: new Uint8Array(await this.adapter.readBinary(this.file)), sha256 };
  }
}
