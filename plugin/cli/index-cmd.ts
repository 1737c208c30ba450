// `strata index <vault>`: build or update the vault's index (code files without definitions yet in
// line windows, searchable at plain-text speed), give those files their definitions (the code
// pass), then embed the pending chunks (when the embedding model is present and --no-embed is not
// given).

import { codePassAll, type CodePassSummary } from "../core/code-pass.ts";
import { openIndex } from "../core/index-store.ts";
import type { ReconcileSummary } from "../core/reconcile.ts";
import { describeModel, modelReport, type ModelLoad } from "../core/models.ts";
import { findModelDir, loadCore } from "../node/host.ts";
import {
  CODE_USAGE,
  codeOptions,
  embedWithProgress,
  indexWithProgress,
  loadModel,
  MODEL_USAGE,
  modelOptions,
  parse,
  parseModelSetting,
  parseThreads,
  vaultContext,
  vaultOptions,
  type EmbedRun,
} from "./common.ts";
import { bytes, seconds } from "./ui.ts";

export const INDEX_USAGE = `strata index <vault> [--no-embed] [--threads auto|N] ${MODEL_USAGE}
              ${CODE_USAGE} [--index-dir DIR] [--config-dir .obsidian] [--json]`;

export async function indexCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...vaultOptions,
    ...modelOptions,
    ...codeOptions,
    "no-embed": { type: "boolean" },
    threads: { type: "string" },
  });
  const setting = parseModelSetting(values.model);
  const ctx = await vaultContext(positionals[0], values, { access: "write", what: "strata index" });
  const json = Boolean(values.json);
  const quiet = json && !process.stderr.isTTY;
  const t0 = performance.now();
  const { core, report } = await openIndex(loadCore(), ctx.store, ctx.config);
  if (report.rebuilt) {
    process.stderr.write(`strata: the index in ${ctx.indexDir} was unusable (${report.reason ?? "unknown reason"}); rebuilding it\n`);
  }
  const sum = await indexWithProgress(core, ctx, quiet, true);
  const lexicalMs = performance.now() - t0;
  // Searchable now; the code files indexed in line windows get their definitions.
  const pass: CodePassSummary = await codePassAll(core, ctx.vault, ctx.store);
  const definitionsMs = performance.now() - t0;
  sum.warnings.push(...pass.warnings, ...(pass.failure ? [pass.failure] : []));

  // Semantic: load the model the setting chooses (when present) and embed what the index
  // lacks. Lexical search is already persisted and usable, whatever happens here.
  let model: ModelLoad | null = null;
  let run: EmbedRun | null = null;
  let threads = 1;
  if (!values["no-embed"]) {
    model = await loadModel(core, setting, { quiet: false, store: ctx.store });
    threads = parseThreads(values.threads, model.loaded);
    if (model.loaded) run = await embedWithProgress(core, ctx.vault, ctx.store, quiet, threads);
  }
  const progress = core.embedProgress();
  const status = core.status();
  // A switch the embedding run completed is over: report the model as it is now.
  if (model) model = { ...model, switching: status.switching ?? null };
  const indexBytes = await ctx.store.size();
  const tookMs = performance.now() - t0;
  core.free();

  const embedding = {
    model: progress.model,
    modelLoaded: progress.modelLoaded,
    modelDir: model?.loaded ? findModelDir(model.loaded) : null,
    modelLoadMs: model ? Math.round(model.loadMs) : null,
    skipped: Boolean(values["no-embed"]),
    threads,
    embedded: run?.embedded ?? 0,
    done: progress.done,
    total: progress.total,
    vectors: status.vectors,
    rate: run && run.embedMs > 0 ? Math.round((run.embedded / (run.embedMs / 1000)) * 10) / 10 : null,
    tookMs: run ? Math.round(run.tookMs) : 0,
    bytesWritten: run?.bytesWritten ?? 0,
    interrupted: run?.interrupted ?? false,
  };
  if (json) {
    process.stdout.write(
      JSON.stringify(
        {
          vault: ctx.vaultDir,
          indexDir: ctx.indexDir,
          fresh: report.fresh,
          rebuilt: report.rebuilt,
          rebuildReason: report.reason ?? null,
          listed: sum.listed,
          ignored: sum.ignored,
          added: sum.added,
          updated: sum.updated,
          unchanged: sum.unchanged,
          moved: sum.moved,
          deleted: sum.deleted,
          skipped: sum.skipped,
          warnings: sum.warnings,
          sections: sum.sections,
          bytesRead: sum.bytesRead,
          bytesWritten: sum.bytesWritten + pass.bytesWritten + embedding.bytesWritten,
          indexBytes,
          notes: status.notes,
          totalSections: status.sections,
          lexicalMs: Math.round(lexicalMs),
          codePass: { defined: pass.defined, left: pass.left, tookMs: Math.round(pass.tookMs), definitionsMs: Math.round(definitionsMs) },
          model: model && modelReport(model),
          embedding,
          tookMs: Math.round(tookMs),
        },
        null,
        2,
      ) + "\n",
    );
  } else {
    let out = humanSummary(ctx.vaultDir, ctx.indexDir, sum, status.notes, indexBytes, lexicalMs);
    if (pass.defined > 0 || pass.left > 0) {
      const left = pass.left > 0 ? ` · ${pass.left} left in line windows (run \`strata index\` again)` : "";
      out += `  definitions of ${pass.defined} code files in ${seconds(pass.tookMs)} (all indexed at ${seconds(definitionsMs)})${left}\n`;
    }
    if (values["no-embed"]) {
      out += `  embedding skipped (--no-embed): ${progress.done}/${progress.total} chunks have a vector\n`;
    } else if (run) {
      const rate = embedding.rate != null ? ` (${embedding.rate} chunks/s)` : "";
      out += `  embedded ${run.embedded} chunks in ${seconds(run.tookMs)}${rate} with ${threads} thread${threads > 1 ? "s" : ""} · ${progress.done}/${progress.total} chunks have a vector · model ${model ? describeModel(model) : "?"} loaded in ${seconds(model?.loadMs ?? 0)}\n`;
      if (run.interrupted) out += `  embedding interrupted: run \`strata index\` again to resume (the work done so far is saved)\n`;
    } else if (model?.semantic) {
      out += `  not embedded: ${model.choice.model} is missing (see above); semantic search answers from the ${model.switching?.from} vectors\n`;
    } else {
      out += `  semantic search off: no embedding model (see above); ${progress.done}/${progress.total} chunks have a vector\n`;
    }
    process.stdout.write(out);
  }
  return run?.interrupted ? 130 : 0;
}

function humanSummary(vault: string, indexDir: string, s: ReconcileSummary, notes: number, indexBytes: number, tookMs: number): string {
  const lines = [
    `Indexed ${vault} in ${seconds(tookMs)}`,
    `  added ${s.added} · updated ${s.updated} · unchanged ${s.unchanged} · moved ${s.moved} · deleted ${s.deleted} · skipped ${s.skipped.length} · warnings ${s.warnings.length}`,
    `  ${notes} notes in the index · ${s.sections} sections written · ${bytes(s.bytesWritten)} written · index ${bytes(indexBytes)} in ${indexDir}`,
  ];
  const list = (title: string, items: { path: string; text: string }[]) => {
    if (items.length === 0) return;
    lines.push(`  ${title}:`);
    for (const it of items.slice(0, 20)) lines.push(`    ${it.path}: ${it.text}`);
    if (items.length > 20) lines.push(`    … and ${items.length - 20} more (--json lists all)`);
  };
  list(
    "skipped",
    s.skipped.map((x) => ({ path: x.path, text: x.reason })),
  );
  list(
    "warnings",
    s.warnings.map((x) => ({ path: x.path, text: x.message })),
  );
  return lines.join("\n") + "\n";
}
