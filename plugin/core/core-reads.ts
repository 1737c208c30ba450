// The core's reads that every host serves as the core answers them: one request in, the core's
// answer out, after the host's own checks (the index is open, a path the request names stays in
// the vault). They are named once, here; their types are the core's own (crate/src/wasm.rs,
// declared to TypeScript by wasm-bindgen in build/wasm/strata_core.d.ts). The search worker's
// protocol (plugin/obsidian/worker-protocol.ts), the MCP tools' VaultBackend (vault-backend.ts)
// and both its implementations (plugin/obsidian/tool-backend.ts, plugin/bridge/headless.ts)
// serve every name of this list by one code path: a new read of this kind is its Rust, its name
// here, and its tests.

import type { StrataCoreApi } from "./api.ts";

export const CORE_READS = ["similar", "list", "tasks", "query"] as const;

export type CoreRead = (typeof CORE_READS)[number];

type CoreReadTypes = {
  [K in CoreRead]: { req: NonNullable<Parameters<StrataCoreApi[K]>[0]>; answer: ReturnType<StrataCoreApi[K]> };
};

/** The request of a core read (`SimilarRequest` for "similar", …). */
export type CoreReadRequest<K extends CoreRead> = CoreReadTypes[K]["req"];

/** The core's answer to a read (`SimilarResponse` for "similar", …). */
export type CoreReadAnswer<K extends CoreRead> = CoreReadTypes[K]["answer"];

/** Every core read as a function of its request: what the core offers, and the search worker's
 *  protocol (where the RPC makes each answer a promise). */
export type CoreReadFns = { [K in CoreRead]: (req: CoreReadRequest<K>) => CoreReadAnswer<K> };

/** Runs a read on the core. */
export function runCoreRead<K extends CoreRead>(core: CoreReadFns, read: K, req: CoreReadRequest<K>): CoreReadAnswer<K> {
  return core[read](req);
}

/** The note path a read's request names, if any: a host checks it before the read runs. */
export function requestPath(req: object): string | undefined {
  const path = (req as { path?: unknown }).path;
  return typeof path === "string" && path !== "" ? path : undefined;
}

/** A table of handlers, one per core read, each serving its read through `serve` (the search
 *  worker's RPC handlers). */
export function coreReadTable<C>(serve: <K extends CoreRead>(read: K, req: CoreReadRequest<K>, ctx: C) => Promise<CoreReadAnswer<K>>): {
  [K in CoreRead]: (req: CoreReadRequest<K>, ctx: C) => Promise<CoreReadAnswer<K>>;
} {
  const table: Partial<Record<CoreRead, unknown>> = {};
  for (const read of CORE_READS) table[read] = (req: CoreReadRequest<typeof read>, ctx: C) => serve(read, req, ctx);
  return table as { [K in CoreRead]: (req: CoreReadRequest<K>, ctx: C) => Promise<CoreReadAnswer<K>> };
}

/** Asks a core read of something that serves them by name (the search worker's endpoint): its
 *  answer is the core's answer to that read. */
export function callCoreRead<K extends CoreRead>(
  server: { call(method: CoreRead, arg: CoreReadRequest<CoreRead>): Promise<unknown> },
  read: K,
  req: CoreReadRequest<K>,
): Promise<CoreReadAnswer<K>> {
  return server.call(read, req) as Promise<CoreReadAnswer<K>>;
}
