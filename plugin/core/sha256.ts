// SHA-256, incremental: a model file of 200 MB is checked part by part as its parts are read
// back, without holding it whole (Web Crypto's digest() takes one buffer only). @noble/hashes
// (audited, no dependencies) runs the same in Obsidian (desktop and mobile), in the search
// worker and in Node.

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

export class Sha256 {
  private readonly hash = sha256.create();

  update(data: Uint8Array): this {
    this.hash.update(data);
    return this;
  }

  /** The hash, lower-case hex. */
  hex(): string {
    return bytesToHex(this.hash.digest());
  }
}

/** SHA-256 of `data`, lower-case hex. */
export function sha256Hex(data: Uint8Array): string {
  return bytesToHex(sha256(data));
}
