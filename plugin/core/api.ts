// The contract between the TypeScript side (plugin, CLI, bridge) and the wasm core
// (crate/src/wasm.rs, class `StrataCore`). Every structured value crosses the boundary
// through serde-wasm-bindgen as a plain object with these camelCase fields.
//
// Data flows one way: vault files → StrataCore.update → (flush → index folder) and
// StrataCore.search/read → UI, CLI, bridge. The core never touches the file system: the
// caller lists and reads notes, and writes the files `flush()` returns, in order. The index
// does not store note text: where the core needs it (snippets, read, renames, embedding) the
// caller passes the notes' current bytes, and the core checks them against its content hash
// (the shared client's searchWithSnippets, readNote and embedAll do the reading).
//
// The types that cross the boundary are generated from the Rust types (./generated/api.ts,
// kept current by a test in crate/src/typescript.rs), and the class's methods are declared once,
// in crate/src/wasm.rs: wasm-bindgen writes them, typed with those generated types, into
// build/wasm/strata_core.d.ts, which this file re-exports. It adds what is not the core's: the
// client's snippet options.

import type { StrataCore } from "../../build/wasm/strata_core.js";
import type { Hit as CoreHit, SearchRequest as CoreSearchRequest, SearchResponse as CoreSearchResponse, Snippet } from "./generated/api.ts";

export type {
  AccessInfo,
  AddVectorsReport,
  CodeInfo,
  CodePassProgress,
  CoreConfig,
  DepthOrder,
  EmbedBatch,
  EmbedItem,
  EmbedProgress,
  FileStat,
  FlushOutput,
  FusionMethod,
  FusionWeights,
  IndexFile,
  Link,
  ListEntry,
  ListRequest,
  ListResponse,
  ListSort,
  ModelChoice,
  ModelConfig,
  ModelFile,
  ModelInfo,
  ModelSwitch,
  NoteInfo,
  NoteInput,
  NoteTexts,
  OpenPlan,
  OpenReport,
  OpenTimings,
  Outline,
  OutlineHeading,
  OutlineLink,
  Plan,
  Pooling,
  Priority,
  PropertyFilter,
  QueryHit,
  QueryRequest,
  QueryResponse,
  ReadRequest,
  ReadResult,
  Rename,
  SearchFilters,
  SearchMode,
  SectionInfo,
  ShapeMode,
  SimilarHit,
  SimilarRequest,
  SimilarResponse,
  SimilarSection,
  Skip,
  Snippet,
  SnippetHit,
  SnippetRequest,
  Status,
  StatusKind,
  DateRange,
  TaskGroup,
  TaskGroupBy,
  TaskHit,
  TaskSort,
  TasksRequest,
  TasksResponse,
  TaskWhen,
  UpdateBatch,
  UpdateReport,
  Warning,
} from "./generated/api.ts";

/** A search as the shared client takes it: the core's request, and whether to attach snippets. */
export interface SearchRequest extends CoreSearchRequest {
  /** Highlighted snippets, default true. Read by the shared client's `searchWithSnippets`, which
   *  reads the hit notes and calls `snippets()`: the core's `search` never makes them (the index
   *  does not store note text). false: no note is read. */
  snippets?: boolean;
}

/** A search hit: the core's, with the snippet the shared client attaches. */
export interface Hit extends CoreHit {
  /** Attached by `searchWithSnippets` (from `snippets()`); absent in the core's own answer. */
  snippet?: Snippet | null;
}

/** A search's answer, its hits as the shared client returns them. Hybrid/semantic results are
 *  one hit per note (its best section). */
export interface SearchResponse extends Omit<CoreSearchResponse, "hits"> {
  hits: Hit[];
}

/** The core's class, as wasm-bindgen declares it in build/wasm/strata_core.d.ts: its methods'
 *  argument and answer types are the generated types above, named in crate/src/wasm.rs, and their
 *  documentation is wasm.rs's. Errors are thrown as JS Errors whose message starts with a code in
 *  brackets: "[bad-request] …", "[unavailable] …". */
export type StrataCoreApi = StrataCore;

/** The class itself: `StrataCore.create(config)` (an empty index), `StrataCore.open(config,
 *  files)` (never throws on a bad index: it starts fresh and says why in openReport()),
 *  `StrataCore.models()` and `StrataCore.outline(bytes)`. */
export type StrataCoreStatic = typeof StrataCore;

/** True when T is `any`: a type wasm-bindgen could not name (a JsValue without its type in
 *  wasm.rs) or a name that does not resolve (declaration files are not type-checked here). */
type IsAny<T> = 0 extends 1 & T ? true : false;
type AnyInSignature<F> = F extends (...args: infer A) => infer R
  ? true extends IsAny<R> | { [I in keyof A]: IsAny<A[I]> }[number]
    ? true
    : false
  : false;
/** The methods of T whose declaration lets `any` through. */
type UntypedMethods<T> = { [K in keyof T]: AnyInSignature<T[K]> extends true ? K : never }[keyof T];
type MustBeNever<T extends never> = T;
/** Fails to type-check, naming the methods, when a core method takes or answers `any` (a JsValue
 *  without its type in wasm.rs). A type name there that does not resolve is caught by
 *  tsconfig.wasm.json, which checks the declaration files themselves. */
export type EveryCoreMethodTyped = [MustBeNever<UntypedMethods<StrataCore>>, MustBeNever<UntypedMethods<StrataCoreStatic>>];
