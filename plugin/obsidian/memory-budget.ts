// The memory Strata plans for on a phone, and whether the embedding model fits in it before it is
// loaded there. The budget comes from what the mobile web views allow (docs/plugin.md, "Several
// devices"): iOS runs the app's pages in a WKWebView whose web content process is killed, without
// a warning the page can see, when it outgrows what iOS allows it (a few hundred MB on iPhones
// before the 15, about 1 GB after), and WebAssembly memories of 1 GiB and more fail to reserve
// there; Android's WebView renderer shares the phone's memory with every app and is killed by its
// low-memory killer. WKWebView does not say how much memory the phone has; Android's WebView does
// (`navigator.deviceMemory`, in GB, rounded to a power of two).

/** What Strata plans to take on a phone whose web view does not say its memory (iOS), in all. */
export const MOBILE_BUDGET_MB = 1024;

/** The share of the phone's memory Strata may take where the web view says it (Android). */
export const DEVICE_MEMORY_SHARE = 1 / 4;

/**
 * What loading a model adds to the search worker at its peak (MB), measured in Chromium on the
 * help vault (docs/benchmarks.md, "A phone"): the embedder's wasm memory with the model and its
 * tokenizer, and the model file's bytes while they are copied in.
 */
export const MODEL_LOAD_MB: Record<string, number> = {
  "all-MiniLM-L6-v2": 220,
  "multilingual-e5-small": 680,
};

/** The JavaScript heaps of the app's page and the search worker beside Strata's wasm (MB). */
export const JS_HEAP_MB = 80;

export interface BudgetCheck {
  /** The model fits (always on desktop). */
  fits: boolean;
  /** What Strata would take with the model loaded (MB). */
  needMB: number;
  /** The budget it is held to (MB); Infinity on desktop. */
  budgetMB: number;
  /** Why it does not fit, for the status and a notice; null when it fits. */
  reason: string | null;
}

/** The budget on this device: none on desktop, else MOBILE_BUDGET_MB or a share of the memory the web view reports. */
export function mobileBudgetMB(deviceMemoryGB: number | undefined): number {
  if (!deviceMemoryGB || !(deviceMemoryGB > 0)) return MOBILE_BUDGET_MB;
  return Math.min(MOBILE_BUDGET_MB, Math.round(deviceMemoryGB * 1024 * DEVICE_MEMORY_SHARE));
}

/**
 * Whether `model` may be loaded: on a phone, the search core's wasm memory now (`coreMB`), the
 * model's load (MODEL_LOAD_MB; an unknown model counts as the largest) and the JS heaps must fit
 * in the phone's budget.
 */
export function checkModelBudget(model: string, coreMB: number, env: { mobile: boolean; deviceMemoryGB?: number }): BudgetCheck {
  const modelMB = MODEL_LOAD_MB[model] ?? Math.max(...Object.values(MODEL_LOAD_MB));
  const needMB = Math.round(coreMB + modelMB + JS_HEAP_MB);
  if (!env.mobile) return { fits: true, needMB, budgetMB: Infinity, reason: null };
  const budgetMB = mobileBudgetMB(env.deviceMemoryGB);
  if (needMB <= budgetMB) return { fits: true, needMB, budgetMB, reason: null };
  const of = env.deviceMemoryGB ? `, a quarter of its ${env.deviceMemoryGB} GB` : "";
  return {
    fits: false,
    needMB,
    budgetMB,
    reason:
      `${model} would bring Strata to about ${needMB} MB on this device, over its memory budget of ${budgetMB} MB${of} ` +
      `(the index takes ${Math.round(coreMB)} MB, the model ${modelMB} MB as it loads)`,
  };
}

/** The device's memory as the web view reports it (GB; Chromium and Android's WebView), else undefined. */
export function deviceMemoryGB(): number | undefined {
  const nav = typeof navigator === "undefined" ? undefined : (navigator as Navigator & { deviceMemory?: number });
  return typeof nav?.deviceMemory === "number" ? nav.deviceMemory : undefined;
}
