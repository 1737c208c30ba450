// The status bar item: indexing, the code pass's and embedding progress (done/total, ETA; a model
// switch's re-embedding says for which model), else a quiet summary. Updates are coalesced to at most a few per second.

import type { CodePassProgress, EmbedProgress } from "../core/api.ts";
import { formatEta } from "../core/eta.ts";
import type { ReconcileProgress } from "../core/reconcile.ts";
import type { StatusHost } from "./host.ts";

export const fmt = (n: number) => n.toLocaleString("en-US");

export class StatusBar {
  private reconcile: ReconcileProgress | null = null;
  private embed: EmbedProgress | null = null;
  private code: CodePassProgress | null = null;
  private idleText = "Strata";
  private download: string | null = null;
  private timer: number | null = null;
  private lastText = "";

  constructor(private readonly el: HTMLElement) {
    el.addClass("strata-status");
    this.render();
  }

  setReconcile(p: ReconcileProgress | null): void {
    this.reconcile = p && p.phase !== "done" ? p : null;
    this.schedule();
  }

  /** The code pass's progress (null, or nothing left: not shown). */
  setCodePass(p: CodePassProgress | null): void {
    this.code = p && p.left > 0 ? p : null;
    this.schedule();
  }

  setEmbed(p: EmbedProgress | null): void {
    this.embed = p;
    this.schedule();
  }

  /** A model download's progress line (null when none runs). */
  setDownload(text: string | null): void {
    this.download = text;
    this.schedule();
  }

  setIdle(text: string): void {
    this.idleText = text;
    this.schedule();
  }

  /** The text shown now (tests read it). */
  text(): string {
    if (this.download) return this.download;
    const r = this.reconcile;
    if (r) {
      if (r.phase === "list") return "Strata: listing notes…";
      if (r.phase === "persist") return `Strata: saving index… ${fmt(r.done)}/${fmt(r.total)}`;
      return `Strata: indexing ${fmt(r.done)}/${fmt(r.total)}`;
    }
    const c = this.code;
    if (c) return `Strata: indexing code definitions ${fmt(c.done)}/${fmt(c.done + c.left)}`;
    const e = this.embed;
    if (e && e.modelLoaded && e.total > 0 && e.done < e.total) {
      const eta = formatEta(e.etaSeconds);
      const what = e.switching
        ? `re-embedding for ${e.switching.to}: ${fmt(e.done)} / ${fmt(e.total)}`
        : `embedding ${fmt(e.done)}/${fmt(e.total)}`;
      return `Strata: ${what}${eta ? ` · ETA ${eta}` : ""}`;
    }
    return this.idleText;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = window.setTimeout(() => {
      this.timer = null;
      this.render();
    }, 200);
  }

  render(): void {
    const t = this.text();
    if (t === this.lastText) return;
    this.lastText = t;
    this.el.setText(t);
  }

  destroy(): void {
    if (this.timer) window.clearTimeout(this.timer);
    this.timer = null;
  }
}

/** The lines of the index status notice (*Show index status*, a click on the status bar). */
export async function statusLines(p: StatusHost): Promise<string[]> {
  const st = await p.indexStatus().catch(() => null);
  const state = await p.workerState().catch(() => null);
  const lines = ["Strata"];
  if (!st) return [...lines, "not running"];
  lines.push(`${fmt(st.notes)} notes, ${fmt(st.sections)} sections, ${(st.indexBytes / 1048576).toFixed(1)} MB`);
  const e = state?.embedding ?? p.embedProgress;
  const sw = e?.switching;
  if (p.modelState === "loaded" && e) {
    lines.push(`semantic: ${fmt(e.done)}/${fmt(e.total)} embedded (${e.model ?? "?"})`);
    if (sw) lines.push(`re-embedding for ${sw.to}; ${sw.fromLoaded ? `${sw.from} answers meanwhile` : `${sw.from} is missing`}`);
    const b = state?.embedWorkers.build;
    if (b) lines.push(`embedder: ${b.build === "relaxed-simd" ? "relaxed-SIMD build" : "built-in simd128 build"} (${b.why})`);
  } else if (p.modelState === "queries" && e) {
    lines.push(
      `semantic: ${fmt(e.done)}/${fmt(e.total)} embedded by your other devices (${e.model ?? "?"}); this device does not embed (settings)`,
    );
  } else if (p.modelState === "absent") lines.push(`semantic: off — no model in ${p.modelsDir} (see settings)`);
  else if (p.modelState === "off")
    lines.push(
      `semantic: off (settings)${st.vectors > 0 ? `; ${fmt(st.vectors)} vectors from your other devices answer once a search needs them` : ""}`,
    );
  else if (p.modelState === "error") lines.push(`semantic: model failed to load: ${p.modelError}`);
  else if (p.modelState === "over-budget") lines.push(`semantic: off on this device, over its memory budget: ${p.modelError}`);
  else lines.push(`semantic: ${p.modelState}`);
  if (state?.phase === "reconciling" && state.reconcile) lines.push(`indexing ${fmt(state.reconcile.done)}/${fmt(state.reconcile.total)}`);
  lines.push(`index: ${p.indexDir}`);
  if (p.bridge) lines.push(`bridge: 127.0.0.1:${p.bridge.port}`);
  return lines;
}
