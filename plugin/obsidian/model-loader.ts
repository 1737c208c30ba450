// The plugin's embedding model: loading the one the setting chooses in the search worker (which
// reads it from the plugin folder) and starting background embedding when Embed notes is on; with
// it off, loading it for queries only at the first semantic or hybrid search once the index holds
// other devices' vectors. On a phone, a model is loaded only when it fits the memory budget
// (memory-budget.ts); otherwise search stays lexical and the status says why.

import { Platform } from "obsidian";
import type { EmbedProgress, SearchResponse } from "../core/api.ts";
import { coreErrorCode, errorMessage } from "../core/errors.ts";
import { formatBytes } from "../core/model-download.ts";
import type { ModelLoad } from "../core/models.ts";
import type { ModelState } from "./host.ts";
import { checkModelBudget, deviceMemoryGB, type BudgetCheck } from "./memory-budget.ts";
import type { ModelInstaller } from "./model-install.ts";
import type { Endpoint } from "./rpc.ts";
import { embedWorkerChoice, type StrataSettings } from "./settings.ts";
import type { StatusBar } from "./status.ts";
import type { HostApi, WorkerApi, WorkerState } from "./worker-protocol.ts";

/** What the model loader uses of the plugin. */
export interface ModelLoaderHost {
  readonly worker: Endpoint<WorkerApi, HostApi> | null;
  readonly settings: StrataSettings;
  readonly modelsDir: string;
  readonly installer: ModelInstaller;
  readonly semanticEnabled: boolean;
  readonly ready: Promise<void>;
  readonly statusBar: StatusBar | null;
  /** The worker's last embedding progress (the plugin also sets it from the worker's events). */
  embedProgress: EmbedProgress | null;
  notify(message: string): void;
  saveSettings(): Promise<void>;
  workerState(): Promise<WorkerState | null>;
  /** Similar notes may have changed (a model loaded). */
  vectorsChanged(): void;
}

/** The start of what a search says on a device whose memory budget keeps the model out. */
const OVER_BUDGET = "semantic search is off on this device";

/** With Embed notes off and no vectors in the index, how long before a search looks again. */
const NO_VECTORS_RETRY_MS = 60_000;

export class ModelLoader {
  state: ModelState = "off";
  error: string | null = null;
  /** What the last model load chose and did (the settings tab shows it). */
  load: ModelLoad | null = null;
  /** The last memory check on this device that did not let a model load (the status shows it). */
  overBudget: BudgetCheck | null = null;
  private queryLoad: Promise<void> | null = null;
  private noVectorsUntil = 0;

  constructor(private readonly p: ModelLoaderHost) {}

  /**
   * Loads the model the setting chooses and starts background embedding (when enabled). A new
   * model starts a switch: everything is embedded again in the background while the old model's
   * vectors keep answering. A missing model is a notice; search stays lexical without any.
   */
  async loadModel(): Promise<void> {
    const worker = this.p.worker;
    if (!worker) return;
    if (!this.p.semanticEnabled) {
      this.state = "off";
      await worker.call("setEmbedding", { enabled: false });
      return;
    }
    this.state = "loading";
    try {
      if (!(await this.fitsBudget())) return;
      const load = await worker.call("loadModel", { setting: this.p.settings.embeddingModel, modelsDir: this.p.modelsDir });
      this.loaded(load, load.semantic ? "loaded" : "absent");
      if (load.semantic) this.p.vectorsChanged();
      if (load.notice) {
        const offer = this.downloadOffer(load);
        if (!offer) this.p.notify(`Strata: ${load.notice}`);
        else if (!this.p.settings.offeredModels.includes(offer.id)) {
          // Offered once per model; the settings tab keeps the Download button.
          this.p.settings.offeredModels.push(offer.id);
          await this.p.saveSettings();
          this.p.notify(offer.text);
        }
      }
      if (load.loaded) {
        // Mobile: the search worker's own embedder (no second copy of the model); else the pool.
        await worker.call("setEmbedding", { enabled: true, maxChunks: Platform.isMobile ? 4 : 8, workers: this.embedWorkers.workers });
        void this.p.installer.renewRelaxedEmbedder(() => this.p.workerState());
      }
    } catch (err) {
      this.failed(err);
      this.p.notify(`Strata: the embedding model could not be loaded (${this.error}); search stays lexical.`);
    }
  }

  /**
   * With *Embed notes* off, a semantic or hybrid search loads the model for queries only once the
   * index holds other devices' vectors (embedding stays off); without, it looks again a minute
   * later, not at every keystroke. Over the phone's memory budget it is not loaded.
   */
  loadForQueries(): Promise<void> {
    if (this.state !== "off" || Date.now() < this.noVectorsUntil) return Promise.resolve();
    this.queryLoad ??= (async () => {
      const worker = this.p.worker!;
      // The shared vectors synced in since the open (or not read yet) count too.
      if ((await worker.call("status", {})).vectors === 0 && (await worker.call("syncVectors", {})).vectors === 0) {
        this.noVectorsUntil = Date.now() + NO_VECTORS_RETRY_MS;
        return;
      }
      if (!(await this.fitsBudget())) return;
      const load = await worker.call("loadModel", { setting: this.p.settings.embeddingModel, modelsDir: this.p.modelsDir });
      await worker.call("setEmbedding", { enabled: false });
      this.loaded(load, load.semantic ? "queries" : "absent");
      if (!load.semantic && load.notice) this.p.notify(`Strata: your other devices' vectors are here, but ${load.notice}`);
    })()
      .catch((err) => this.failed(err))
      .finally(() => (this.queryLoad = null));
    return this.queryLoad;
  }

  /**
   * On a phone: whether the model would fit its memory budget beside the index (the model of the
   * index's vectors, else the setting's; auto counts as the larger model). When it does not, the
   * state says so and a notice says why, once.
   */
  private async fitsBudget(): Promise<boolean> {
    if (!Platform.isMobile) return true;
    const worker = this.p.worker!;
    const [status, state] = await Promise.all([worker.call("status", {}), worker.call("state", {})]);
    const model = status.model ?? this.p.settings.embeddingModel;
    const check = checkModelBudget(model, (state.memory?.coreWasm ?? 0) / 1048576, { mobile: true, deviceMemoryGB: deviceMemoryGB() });
    if (check.fits) {
      this.overBudget = null;
      return true;
    }
    const first = this.overBudget === null;
    [this.overBudget, this.state, this.error] = [check, "over-budget", check.reason];
    if (first) this.p.notify(`Strata: ${OVER_BUDGET}: ${check.reason}. Lexical search works.`);
    return false;
  }

  /** A search's answer as this device explains it: over the memory budget, the lexical answer's
   *  notice says so (the core's says how to get a model, which is not the reason here). */
  explain(res: SearchResponse): SearchResponse {
    if (this.state !== "over-budget" || !res.notice || res.mode !== "lexical") return res;
    return { ...res, notice: `${OVER_BUDGET}: ${this.error}` };
  }

  /** A failed semantic search, as this device explains it (see `explain`). */
  explainError(err: unknown): Error {
    if (!(err instanceof Error)) return new Error(String(err));
    if (this.state !== "over-budget" || coreErrorCode(err) !== "unavailable") return err;
    return new Error(`[unavailable] ${OVER_BUDGET}: ${this.error}`);
  }

  private loaded(load: ModelLoad, state: ModelState): void {
    [this.load, this.state, this.error] = [load, state, null];
    this.p.embedProgress = load.progress;
    this.p.statusBar?.setEmbed(load.progress);
  }

  private failed(err: unknown): void {
    [this.state, this.error] = ["error", errorMessage(err)];
  }

  /** The model the setting chose and whose files are missing (the settings tab offers it), or null. */
  get missingModel(): string | null {
    const l = this.load;
    if (!l || !this.p.semanticEnabled) return null;
    return l.missing.find((m) => m.model === l.choice.model)?.model ?? null;
  }

  /** The notice of a start without the chosen model (search lexical) when this build can download it. */
  private downloadOffer(load: ModelLoad): { id: string; text: string } | null {
    const id = load.missing.find((m) => m.model === load.choice.model)?.model;
    const m = id && !load.semantic ? this.p.installer.model(id) : undefined;
    if (!m || !this.p.installer.baseUrl()) return null;
    return {
      id: m.id,
      text: `Strata: semantic search needs the embedding model ${m.id} (${formatBytes(m.size)}, license ${m.license}). Download it in Settings → Strata → Semantic search; lexical search works meanwhile.`,
    };
  }

  /** A model was downloaded or imported (and checked): load it. */
  async installed(id: string): Promise<void> {
    this.p.notify(`Strata: ${id} is installed (every file checked); loading it.`);
    await this.p.ready;
    await this.loadModel();
  }

  /** The embedder workers the setting gives on this device for the loaded model, and why. */
  get embedWorkers(): { workers: number; reason: string } {
    if (Platform.isMobile) return { workers: 0, reason: "none on mobile: the search worker embeds" };
    return embedWorkerChoice(this.p.settings.embedWorkers, this.load?.loaded ?? null, false);
  }

  /** The "Embedding workers" setting changed: save it; the next embedding run uses the new count. */
  async setEmbedWorkers(setting: "auto" | number): Promise<void> {
    this.p.settings.embedWorkers = setting;
    await this.p.saveSettings();
    await this.p.ready;
    if (this.p.worker && this.load?.loaded && this.p.semanticEnabled) {
      await this.p.worker.call("setEmbedding", { enabled: true, workers: this.embedWorkers.workers });
    }
  }

  /** The "Embedding model" setting changed: save it and load the model it chooses (not awaited by the UI). */
  async setEmbeddingModel(setting: string): Promise<void> {
    this.p.settings.embeddingModel = setting;
    await this.p.saveSettings();
    await this.p.ready;
    await this.loadModel();
  }
}
