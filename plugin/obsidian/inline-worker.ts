// Starts the search worker from the source inlined in main.js (a Blob URL: the community
// installer ships main.js, manifest.json and styles.css only).

import SOURCE from "strata:worker";
import type { Transport } from "./plugin.ts";

export function spawnInlineWorker(): Transport {
  const url = URL.createObjectURL(new Blob([SOURCE], { type: "text/javascript" }));
  const worker = new Worker(url, { name: "strata-search" });
  // The worker has fetched its script once it answers; the URL can go right away in Chromium.
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return {
    port: worker,
    terminate: () => worker.terminate(),
  };
}
