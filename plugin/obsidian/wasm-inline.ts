// Decoding the .wasm files that main.js carries inline (gzip + base64).

/** base64 → bytes → gunzip (DecompressionStream: Chromium 80+, Safari 16.4+, Node 18+). */
export async function decodeInlineWasm(base64Gzip: string): Promise<ArrayBuffer> {
  const bin = atob(base64Gzip);
  const gz = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) gz[i] = bin.charCodeAt(i);
  const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).arrayBuffer();
}
