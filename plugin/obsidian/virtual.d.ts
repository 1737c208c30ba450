// Modules esbuild.config.mjs generates at bundle time.

/** The worker bundle (worker-entry.ts, IIFE) as source text. */
declare module "strata:worker" {
  const source: string;
  export default source;
}

/** The core's .wasm, base64 (not compressed: it is decoded at every start). */
declare module "strata:wasm" {
  const base64: string;
  export default base64;
}

/** The embedder's .wasm (tract + tokenizers), gzip-compressed, base64. */
declare module "strata:embedder-wasm" {
  const base64Gzip: string;
  export default base64Gzip;
}

/** The code chunker's .wasm (tree-sitter and its grammars), gzip-compressed, base64. */
declare module "strata:code-wasm" {
  const base64Gzip: string;
  export default base64Gzip;
}

/** An embedder worker's bundle (pool-worker-entry.ts, IIFE) as source text. */
declare module "strata:embed-worker" {
  const source: string;
  export default source;
}
