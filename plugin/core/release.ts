// What a bundle knows of its release: its version, the repository its downloads come from and
// the model table (each model file's parts with their sizes and SHA-256). esbuild.config.mjs
// compiles it in (`define`); code run from source (tests, tsx) has none.

import type { ReleaseInfo } from "./model-download.ts";

declare const __STRATA_RELEASE__: ReleaseInfo | undefined;

/** This bundle's release info; from source, an empty table. */
export function bundledRelease(): ReleaseInfo {
  return typeof __STRATA_RELEASE__ === "undefined"
    ? { version: "0.0.0-source", repository: "", table: { version: "0.0.0-source", partSize: 0, models: [] } }
    : __STRATA_RELEASE__;
}
