// The embedding models: which ones exist, where their files are, and loading the one a
// setting chooses for the vault (with the model a switch is from).

import type { EmbedProgress, ModelChoice, ModelInfo, ModelSwitch, StrataCoreApi } from "./api.ts";

/** The model setting that lets the core choose by the vault's scripts (`chooseModel`). */
export const AUTO_MODEL = "auto";
/** The two files of a model's folder (`<models>/<id>/`), named so for every model. */
export const MODEL_FILE = "model.onnx";
export const TOKENIZER_FILE = "tokenizer.json";

/**
 * The embedding models the core knows (`StrataCore.models()`, crate/src/embed/models.rs: the
 * one list of them), the default first. Each lives in a folder named by its id (`models/<id>/`
 * in the repository and in the plugin folder).
 */
export class ModelCatalog {
  readonly ids: string[];
  /** The model loaded when nothing else is asked for. */
  readonly defaultId: string;

  constructor(readonly models: ModelInfo[]) {
    this.ids = models.map((m) => m.id);
    this.defaultId = models.find((m) => m.default)?.id ?? this.ids[0];
  }

  has(id: string | null | undefined): id is string {
    return id != null && this.ids.includes(id);
  }

  /** "auto" or a known model id. */
  isSetting(setting: string): boolean {
    return setting === AUTO_MODEL || this.has(setting);
  }

  /** The settings there are: "auto", then each model. */
  settings(): string[] {
    return [AUTO_MODEL, ...this.ids];
  }

  info(id: string): ModelInfo | undefined {
    return this.models.find((m) => m.id === id);
  }

  /** How to get a model outside Obsidian (the CLI, the headless bridge). */
  howTo(id: string): string {
    const m = this.info(id);
    return m
      ? `download it with \`strata model download --model ${id}\` or in Obsidian (Settings → Strata), or in the repository run ${m.fetchScript} (it puts ${id} in models/${id}/, from ${m.source})`
      : `${id} is not a model Strata knows`;
  }
}

/** A model's two files, or null when they are absent. */
export type ReadModel = (id: string) => Promise<{ model: Uint8Array; tokenizer: Uint8Array } | null>;

export interface MissingModel {
  model: string;
  howTo: string;
}

/** What loadChosenModel did. */
export interface ModelLoad {
  /** The core's answer for the setting. */
  choice: ModelChoice;
  /** The model new vectors are made with now; null when none could be loaded. */
  loaded: string | null;
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
 * the new model has embedded so far. `notice` says so, with `howTo` (default: the catalog's).
 * Unreadable or broken model files throw.
 */
export async function loadChosenModel(
  core: StrataCoreApi,
  setting: string,
  readModel: ReadModel,
  catalog: ModelCatalog,
  opts: { howTo?: (id: string) => string } = {},
): Promise<ModelLoad> {
  const t0 = performance.now();
  const howTo = opts.howTo ?? ((id: string) => catalog.howTo(id));
  const choice = core.chooseModel(setting);
  const missing: MissingModel[] = [];
  // The index's own model first: falling back to it re-embeds nothing.
  const candidates = setting === AUTO_MODEL ? [choice.model, core.status().model, ...catalog.ids] : [choice.model];
  let loaded: string | null = null;
  for (const id of new Set(candidates.filter((id) => catalog.has(id)))) {
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
    const files = catalog.has(from.from) ? await readModel(from.from) : null;
    if (files) core.loadPreviousModel(files.model, files.tokenizer, from.from);
    else missing.push({ model: from.from, howTo: catalog.has(from.from) ? howTo(from.from) : "it is not a model Strata knows" });
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

/** "multilingual-e5-small (auto: 47% of the vault's text is not in English)", for people. */
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
    nonEnglishShare: Math.round(l.choice.nonEnglishShare * 1000) / 1000,
    loaded: l.loaded,
    fallback: l.fallback,
    switching: l.switching,
    missing: l.missing,
    notice: l.notice,
  };
}
