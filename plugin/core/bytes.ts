// Byte buffers handed over by the core.

/**
 * The contract says Uint8Array; a core serialized with serde-wasm-bindgen's json_compatible()
 * hands byte buffers over as plain number arrays instead. Accept both.
 */
export function asBytes(bytes: Uint8Array | ArrayLike<number>): Uint8Array {
  return bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes);
}
