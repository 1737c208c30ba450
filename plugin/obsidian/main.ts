// The plugin bundle's entry (main.js): the plugin class with its worker inlined.

import { spawnInlineWorker } from "./inline-worker.ts";
import StrataPlugin from "./plugin.ts";

StrataPlugin.spawn = spawnInlineWorker;

export default StrataPlugin;
