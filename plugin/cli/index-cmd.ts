// `strata index <vault>`: build or update the vault's index.

import type { ReconcileSummary } from "../core/client.ts";
import { loadCore } from "../core/node.ts";
import { openIndex } from "../core/client.ts";
import { indexWithProgress, parse, vaultContext, vaultOptions } from "./common.ts";
import { bytes, seconds } from "./ui.ts";

export const INDEX_USAGE = `strata index <vault> [--index-dir DIR] [--config-dir .obsidian] [--json]`;

export async function indexCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...vaultOptions });
  const ctx = await vaultContext(positionals[0], values);
  const json = Boolean(values.json);
  const t0 = performance.now();
  const { core, report } = await openIndex(loadCore(), ctx.store, ctx.config);
  if (report.rebuilt) {
    process.stderr.write(`strata: the index in ${ctx.indexDir} was unusable (${report.reason ?? "unknown reason"}); rebuilding it\n`);
  }
  const sum = await indexWithProgress(core, ctx, json && !process.stderr.isTTY);
  const status = core.status();
  const indexBytes = await ctx.store.size();
  const tookMs = performance.now() - t0;
  core.free();

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
          bytesWritten: sum.bytesWritten,
          indexBytes,
          notes: status.notes,
          totalSections: status.sections,
          tookMs: Math.round(tookMs),
        },
        null,
        2,
      ) + "\n",
    );
  } else {
    process.stdout.write(humanSummary(ctx.vaultDir, ctx.indexDir, sum, status.notes, indexBytes, tookMs));
  }
  return 0;
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
  list("skipped", s.skipped.map((x) => ({ path: x.path, text: x.reason })));
  list("warnings", s.warnings.map((x) => ({ path: x.path, text: x.message })));
  return lines.join("\n") + "\n";
}
