// The two builds of the embedder's wasm. Every bundle carries the simd128 build. A release also
// publishes a build with relaxed SIMD on top (scripts/build-wasm.sh relaxed), beside the models:
// tract's kernels then use fused multiply-adds, 3–8 % faster a text in Chromium, the engine
// of Obsidian's desktop app (docs/benchmarks.md). Its vectors differ from the simd128 build's in
// their last bits (a fused multiply-add rounds once; scripts/check-relaxed-embedder.mjs holds
// them to a cosine of 0.9999 with the simd128 build's).
//
// A host downloads it only where its engine validates relaxed SIMD (`relaxedSimdSupported`), and
// uses it only when the installed file still matches this bundle's table (the same release's
// glue) and the engine validates the module itself; anything else gives the built-in build and
// says why.

import { sha256Hex } from "../sha256.ts";

/** The table's id of the relaxed-SIMD build (its folder in the plugin folder). */
export const RELAXED_EMBEDDER_ID = "embedder-relaxed-simd";
/** Its one file: the wasm, gzip-compressed (19.9 MB → ~5 MB to download). */
export const RELAXED_EMBEDDER_FILE = "strata_embedder_bg.wasm.gz";

/** The smallest module using relaxed SIMD: one function returning f32x4.relaxed_madd of three zero vectors. */
const PROBE = (() => {
  const zero = "fd0c" + "00".repeat(16);
  const hex = "0061736d01000000" + "0105016000017b" + "03020100" + "0a3d013b00" + zero + zero + zero + "fd8502" + "0b";
  return new Uint8Array(hex.match(/../g)!.map((b) => parseInt(b, 16)));
})();

/** Whether this engine runs relaxed SIMD (Chromium 114+, so Obsidian's desktop app; Node 22+). */
export function relaxedSimdSupported(): boolean {
  try {
    return WebAssembly.validate(PROBE);
  } catch {
    return false;
  }
}

/** Which build an embedder runs, and why (for the status and the settings tab). */
export interface EmbedderBuild {
  build: "relaxed-simd" | "simd128";
  why: string;
}

/** The installed relaxed-SIMD build as a host reads it, with the SHA-256 its table gives. */
export interface RelaxedEmbedderFile {
  gz: Uint8Array;
  sha256: string;
}

/** Why the built-in build runs where the engine could run the relaxed one, which is not installed. */
export const ABSENT_RELAXED = "the relaxed-SIMD build is not installed";
/** Why the built-in build runs when the installed relaxed one is another release's (or damaged). */
export const STALE_RELAXED = "the installed relaxed-SIMD build is not this version's (SHA-256 differs): download it again";

/** gzip → bytes (DecompressionStream: Chromium 80+, Safari 16.4+, Node 18+). */
export async function gunzip(bytes: Uint8Array): Promise<ArrayBuffer> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).arrayBuffer();
}

/**
 * The embedder wasm to compile: the relaxed-SIMD build when `installed()` gives it, it matches
 * its SHA-256, unpacks and validates in this engine; else `builtIn()`'s bytes, with the reason.
 */
export async function pickEmbedderWasm(
  installed: () => Promise<RelaxedEmbedderFile | null>,
  builtIn: () => Promise<ArrayBuffer | Uint8Array>,
): Promise<{ bytes: ArrayBuffer | Uint8Array; build: EmbedderBuild }> {
  const plain = async (why: string) => ({ bytes: await builtIn(), build: { build: "simd128" as const, why } });
  let relaxed: RelaxedEmbedderFile | null;
  try {
    relaxed = await installed();
  } catch (err) {
    return plain(`the installed relaxed-SIMD build could not be read (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!relaxed) return plain(relaxedSimdSupported() ? ABSENT_RELAXED : "this engine has no relaxed SIMD");
  if (sha256Hex(relaxed.gz) !== relaxed.sha256) return plain(STALE_RELAXED);
  let bytes: ArrayBuffer;
  try {
    bytes = await gunzip(relaxed.gz);
  } catch (err) {
    return plain(`the installed relaxed-SIMD build does not unpack (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!WebAssembly.validate(bytes)) return plain("this engine does not validate the relaxed-SIMD build");
  return { bytes, build: { build: "relaxed-simd", why: "downloaded with the model; this engine runs relaxed SIMD" } };
}
