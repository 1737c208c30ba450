// A device's manifest as the tests read it (crate/src/store.rs writes it): JSON, then a line
// `checksum <hex>`. Only the fields the tests look at.

/** A vector segment a manifest lists: written by the device, and merged into another or not. */
export interface ManifestSegment {
  name: string;
  mergedInto?: string;
}

export interface Manifest {
  generation: number;
  segments?: ManifestSegment[];
}

/** The JSON part of a manifest file's text. */
export function parseManifest(text: string): Manifest {
  return JSON.parse(text.slice(0, text.lastIndexOf("\nchecksum "))) as Manifest;
}

/** Of a device's manifest files' texts (its two slots), the newest; null for none. */
export function newestManifest(texts: string[]): Manifest | null {
  return texts.map(parseManifest).reduce<Manifest | null>((a, m) => (a && a.generation >= m.generation ? a : m), null);
}
