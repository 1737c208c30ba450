// The global scope of whichever program runs the shared client: the plugin's search worker (a
// Web Worker), Node (the CLI, the bridge, the tests) or, for a model download, Obsidian's window.
// Code that may run outside a window takes its timers and the Rust core's hooks from here:
// `window` exists in only one of those, and the worker has no `window` at all. (Obsidian's
// review asks for `window.setTimeout` and no `globalThis`, rules for code that runs in a window;
// this module is the one place that reads the global scope instead.)

/** What the shared client and the worker use of the global scope. */
export interface GlobalScope {
  setTimeout: typeof setTimeout;
  clearTimeout: typeof clearTimeout;
  /** Web Crypto (Obsidian, Web Workers, Node 20). */
  crypto?: Crypto;
  /** The host's hooks that the Rust core calls (`__strataChunkCode`, `__strataCreateEmbedder`). */
  [hook: `__strata${string}`]: unknown;
}

export const globalScope = globalThis as unknown as GlobalScope;
