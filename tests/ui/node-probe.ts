// A module that imports one of Node's modules, loaded by the harness the way the plugin loads its
// desktop-only modules (bridge-endpoint.ts → bridge/loopback.ts): a dynamic import of a bundled
// module whose static import of `node:*` esbuild turns into a `require` call.

import * as os from "node:os";

export function platform(): string {
  return os.platform();
}
