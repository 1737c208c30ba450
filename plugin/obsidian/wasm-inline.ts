// Decoding the .wasm files that main.js carries inline, as base64: the core's plain (it is on
// the start-up path, and gunzip cost more than the bigger text: measured in Node 20, decoding
// and compiling the 5.2 MB core took 123–166 ms from gzip + base64 and 65 ms from base64; in
// Obsidian, parsing main.js grows by ~1 ms a MB of base64), the embedder's gzip-compressed (it
// is loaded only with a model, and 19 MB plain).

/** base64 → bytes: the engine's own decoder where there is one (Chromium 140+, Safari 18.2+). */
export function decodeBase64(base64: string): Uint8Array<ArrayBuffer> {
  const native = (Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array<ArrayBuffer> }).fromBase64;
  if (native) return native(base64);
  const bin = atob(base64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** base64 → bytes → gunzip (DecompressionStream: Chromium 80+, Safari 16.4+, Node 18+). */
export async function decodeInlineWasm(base64Gzip: string): Promise<ArrayBuffer> {
  const stream = new Blob([decodeBase64(base64Gzip)]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).arrayBuffer();
}
