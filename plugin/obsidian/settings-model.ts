// The settings tab's model rows: when the chosen embedding model is missing, its size and
// license with a Download button (progress and cancel while it runs), the download address,
// and Import from folder for offline devices.

import { Setting } from "obsidian";
import { formatBytes } from "../core/model-download.ts";
import { BRIDGE_ID } from "./model-install.ts";
import type StrataPlugin from "./plugin.ts";

/** Adds the rows to `el`; returns a function that stops following the installer (on hide). */
export function renderModelInstall(el: HTMLElement, p: StrataPlugin, redisplay: () => void): () => void {
  const inst = p.installer;
  // (A download of the bridge is the Claude rows'.)
  const id = (inst.running !== BRIDGE_ID ? inst.running : null) ?? p.missingModel;
  const unsubscribe: Array<() => void> = [];
  if (id) {
    const m = inst.model(id);
    const row = new Setting(el).setName("Download the model");
    const describe = () => {
      const pr = inst.progress;
      if (inst.running === id) {
        if (pr?.phase === "install") return `Checking and installing ${id}…`;
        const pct = pr && pr.totalBytes ? Math.floor((pr.doneBytes / pr.totalBytes) * 100) : 0;
        return pr
          ? `Downloading ${id}: ${formatBytes(pr.doneBytes)} of ${formatBytes(pr.totalBytes)} (${pct}%, part ${pr.partsDone} of ${pr.parts}).`
          : `Downloading ${id}…`;
      }
      const err = inst.errors.get(id);
      if (!m) return `${id} is not in this build's model table: import its files from a folder, or install a release of Strata.`;
      const from = inst.baseUrl();
      const what =
        `${id} is not installed: ${formatBytes(m.size)}, license ${m.license}${from ? `, from ${from}` : ""}. ` +
        (from
          ? "Semantic search starts once it is in; lexical search works meanwhile."
          : "This build does not know where its release is: set a download address below, or import the files from a folder.");
      return err ? `${err}` : what;
    };
    row.setDesc(describe());
    if (inst.running === id) {
      row.addButton((b) => b.setButtonText("Cancel").onClick(() => inst.cancel()));
    } else if (m) {
      row.addButton((b) =>
        b
          .setButtonText(inst.errors.has(id) ? "Download again" : "Download")
          .setCta()
          .onClick(() => void inst.download(id)),
      );
    }
    unsubscribe.push(
      inst.onChange(() => {
        // Start, finish and failure change the buttons; progress only the text.
        if (inst.running === BRIDGE_ID) return;
        if (inst.running !== id || !inst.progress || inst.progress.partsDone === 0) redisplay();
        else row.setDesc(describe());
      }),
    );
  }
  new Setting(el)
    .setName("Download address")
    .setDesc(
      "Where models are downloaded from: a folder holding the release's files (a mirror or a company server). Empty: this version's release.",
    )
    .addText((t) =>
      t
        .setPlaceholder(inst.baseUrl() ?? "https://…")
        .setValue(p.settings.modelDownloadUrl)
        .onChange(async (v) => {
          const url = v.trim();
          if (url && !/^https?:\/\/\S+$/.test(url)) return;
          p.settings.modelDownloadUrl = url;
          await p.saveSettings();
        }),
    );
  let folder = "";
  const importId = id ?? p.missingModel;
  if (importId) {
    new Setting(el)
      .setName("Import from folder")
      .setDesc(
        `For a device without internet: a folder holding model.onnx and tokenizer.json of ${importId} (a path in the vault, or on desktop an absolute path). The files are checked as a download is.`,
      )
      .addText((t) => t.setPlaceholder("Models/" + importId).onChange((v) => (folder = v)))
      .addButton((b) =>
        b.setButtonText("Import").onClick(() => {
          if (folder.trim()) void inst.importFrom(importId, folder);
        }),
      );
  }
  return () => unsubscribe.forEach((u) => u());
}
