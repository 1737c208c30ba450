// The status bar item: indexing and embedding progress (done/total, ETA; a model switch's
// re-embedding says for which model), else a quiet summary. Updates are coalesced to at most a few per second.

import type { EmbedProgress } from "../core/api.ts";
import { formatEta } from "../core/eta.ts";
import type { ReconcileProgress } from "../core/reconcile.ts";

export const fmt = (n: number) => n.toLocaleString("en-US");

export class StatusBar {
  private reconcile: ReconcileProgress | null = null;
  private embed: EmbedProgress | null = null;
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
