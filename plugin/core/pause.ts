// Where long work (reconcile, embedding) lets other work run between its parts.

import { globalScope } from "./global-scope.ts";

/** Awaited between the parts of long work; the plugin's worker also waits there for the
 *  searches in flight, so a search never queues behind background indexing. */
export type Pause = () => Promise<void>;

/** Lets queued events (a search request in the worker, a keystroke) run before going on. */
export function yieldToEvents(): Promise<void> {
  return new Promise((resolve) => globalScope.setTimeout(resolve, 0));
}
