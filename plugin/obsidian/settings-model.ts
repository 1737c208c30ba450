// The settings tab's model rows: when the chosen embedding model is missing, its size and
// license with a Download button (progress and cancel while it runs), the download address,
// and Import from folder for offline devices.

import type { SettingDefinition } from "obsidian";
import { formatBytes } from "../core/model-download.ts";
import { ABSENT_RELAXED, RELAXED_EMBEDDER_ID, STALE_RELAXED, type EmbedderBuild } from "../core/embedding/builds.ts";
import { BRIDGE_ID } from "./model-install.ts";
import type { ModelRowsHost } from "./host.ts";

const URL_RE = /^https?:\/\/\S+$/;

/** The model the Download row is about: the one downloading, else the chosen model that is missing. */
function rowModel(p: ModelRowsHost): string | null {
  // (A download of the bridge is the Claude rows', of the relaxed-SIMD embedder its own row's.)
  const running = p.installer.running;
  return (running && running !== BRIDGE_ID && running !== RELAXED_EMBEDDER_ID ? running : null) ?? p.missingModel;
}

/** The rows; `refresh` redraws the tab (a download started, finished or failed). The Download
 *  row follows the installer's progress while it is shown. */
export function modelInstallDefinitions(p: ModelRowsHost, refresh: () => void): SettingDefinition[] {
  const id = rowModel(p);
  const describe = (id: string): string => {
    const inst = p.installer;
    const m = inst.model(id);
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
    return err ?? what;
  };
  let folder = "";
  return [
    {
      name: "Download the model",
      desc: id ? describe(id) : "",
      aliases: ["install model", "embedding model download"],
      visible: !!id,
      render: (row) => {
        const inst = p.installer;
        if (!id) return;
        row.setDesc(describe(id));
        if (inst.running === id) {
          row.addButton((b) => b.setButtonText("Cancel").onClick(() => inst.cancel()));
        } else if (inst.model(id)) {
          row.addButton((b) =>
            b
              .setButtonText(inst.errors.has(id) ? "Download again" : "Download")
              .setCta()
              .onClick(() => void inst.download(id)),
          );
        }
        return inst.onChange(() => {
          // Start, finish and failure change the buttons; progress only the text.
          if (inst.running === BRIDGE_ID || inst.running === RELAXED_EMBEDDER_ID) return;
          if (inst.running !== id || !inst.progress || inst.progress.partsDone === 0) refresh();
          else row.setDesc(describe(id));
        });
      },
    },
    relaxedEmbedderDefinition(p, refresh),
    {
      name: "Download address",
      desc: "Where models are downloaded from: a folder holding the release's files (a mirror or a company server). Empty: this version's release.",
      aliases: ["mirror", "model url"],
      control: {
        type: "text",
        key: "modelDownloadUrl",
        placeholder: p.installer.baseUrl() ?? "https://…",
        validate: (v) => (v.trim() && !URL_RE.test(v.trim()) ? "An address starting with http:// or https://, or empty." : undefined),
      },
    },
    {
      name: "Import from folder",
      desc: `For a device without internet: a folder holding model.onnx and tokenizer.json of ${id ?? "the model"} (a path in the vault, or on desktop an absolute path). The files are checked as a download is.`,
      aliases: ["offline model"],
      visible: !!id,
      render: (row) => {
        if (!id) return;
        row
          .addText((t) => t.setPlaceholder("Models/" + id).onChange((v) => (folder = v)))
          .addButton((b) =>
            b.setButtonText("Import").onClick(() => {
              if (folder.trim()) void p.installer.importFrom(id, folder);
            }),
          );
      },
    },
  ];
}

/** What the relaxed-SIMD embedder build is doing on this device. */
function relaxedDesc(p: ModelRowsHost, installed: boolean, build: EmbedderBuild | null): string {
  const inst = p.installer;
  const pr = inst.progress;
  if (inst.running === RELAXED_EMBEDDER_ID)
    return pr ? `Downloading: ${formatBytes(pr.doneBytes)} of ${formatBytes(pr.totalBytes)}.` : "Downloading…";
  const err = inst.errors.get(RELAXED_EMBEDDER_ID);
  if (err) return err;
  if (build?.build === "relaxed-simd") return "In use: the embedder's relaxed-SIMD build, 3–8 % faster than the built-in one.";
  if (installed)
    return build && build.why !== ABSENT_RELAXED ? `Installed, not in use: ${build.why}.` : "Installed: used from Strata's next start.";
  const m = inst.relaxed.entry;
  return (
    "A build of the embedder for this device's relaxed SIMD instructions: 3–8 % faster embedding with the same model " +
    `(vectors differ only in their last bits). It comes with a model download${m ? `; ${formatBytes(m.size)}` : ""}.`
  );
}

/** The "Faster embedder" row, shown where the engine runs relaxed SIMD and the release has the build. */
function relaxedEmbedderDefinition(p: ModelRowsHost, refresh: () => void): SettingDefinition {
  return {
    name: "Faster embedder",
    desc: relaxedDesc(p, false, null),
    aliases: ["relaxed simd", "embedder build"],
    visible: p.installer.relaxed.wanted,
    render: (row) => {
      const inst = p.installer;
      void (async () => {
        const [installed, state] = await Promise.all([inst.relaxed.installed(), p.workerState().catch(() => null)]);
        const build = state?.embedWorkers.build ?? null;
        row.setDesc(relaxedDesc(p, installed, build));
        if (inst.running === RELAXED_EMBEDDER_ID) row.addButton((b) => b.setButtonText("Cancel").onClick(() => inst.cancel()));
        else if (build?.build !== "relaxed-simd" && (!installed || build?.why === STALE_RELAXED))
          row.addButton((b) =>
            b
              .setButtonText(installed || inst.errors.has(RELAXED_EMBEDDER_ID) ? "Download again" : "Download")
              .onClick(() => void inst.downloadRelaxedEmbedder()),
          );
      })();
      return inst.onChange(() => {
        if (inst.running === RELAXED_EMBEDDER_ID && inst.progress && inst.progress.partsDone > 0) row.setDesc(relaxedDesc(p, false, null));
        else if (!inst.running || inst.running === RELAXED_EMBEDDER_ID) refresh();
      });
    },
  };
}

/** The download address as stored: trimmed, and only an http(s) URL or empty. */
export function downloadUrlValue(v: unknown): string | null {
  const url = typeof v === "string" ? v.trim() : "";
  return url === "" || URL_RE.test(url) ? url : null;
}
