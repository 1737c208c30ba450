// The plugin bundle's entry (main.js): the plugin class with its worker inlined.

import CORE_WASM from "strata:wasm";
import EMBEDDER_WASM from "strata:embedder-wasm";
import CODE_WASM from "strata:code-wasm";
import { spawnInlineWorker } from "./inline-worker.ts";
import StrataPlugin from "./plugin.ts";

StrataPlugin.spawn = spawnInlineWorker;
// Posted to the worker with its `init` call (not part of the worker's script: see worker-entry.ts).
StrataPlugin.coreWasm = () => CORE_WASM;
// Sent to the worker only when a model is loaded (its script stays small without it).
StrataPlugin.embedderWasm = () => EMBEDDER_WASM;
// Sent to the worker only when the vault has code files to index.
StrataPlugin.codeWasm = () => CODE_WASM;

export default StrataPlugin;
