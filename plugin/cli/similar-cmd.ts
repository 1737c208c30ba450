// `strata similar <vault> <note>`: the notes nearest to a note by vector, with the sections that match.

import { existsSync } from "node:fs";
import * as path from "node:path";

import type { SimilarResponse, StrataCoreApi } from "../core/api.ts";
import { coreErrorCode, errorMessage } from "../core/errors.ts";
import { persist } from "../core/index-store.ts";
import { embedStepFrom } from "../core/embedding/loop.ts";
import {
  CliError,
  EMBED_FIRST_LIMIT,
  embedWithProgress,
  intOption,
  loadModel,
  MODEL_USAGE,
  modelOptions,
  openVaultIndex,
  parse,
  parseModelSetting,
  vaultContext,
  vaultOptions,
} from "./common.ts";
import { ms, ttyOut } from "./ui.ts";

export const SIMILAR_USAGE = `strata similar <vault> <note path> [--k N] [--refresh] [--embed-limit 256] ${MODEL_USAGE} [--index-dir DIR] [--config-dir .obsidian] [--json]`;

/**
 * The vault-relative path of `arg`: as given when the index has it, else with ".md" added,
 * else a file path (absolute or relative to the working folder) inside the vault.
 */
export function resolveNotePath(core: StrataCoreApi, vaultDir: string, arg: string): string {
  const known = new Set(core.paths());
  const rel = arg.replace(/\\/g, "/").replace(/^\.\//, "");
  for (const candidate of [rel, `${rel}.md`]) if (known.has(candidate)) return candidate;
  const abs = path.resolve(arg);
  const inVault = path.relative(vaultDir, abs);
  if (existsSync(abs) && !inVault.startsWith("..") && !path.isAbsolute(inVault)) {
    const p = inVault.split(path.sep).join("/");
    if (known.has(p)) return p;
  }
  throw new CliError(`not in the index: ${JSON.stringify(arg)} (give the note's path relative to the vault, e.g. "Folder/Note.md")`, 2);
}

/** Chunks embedded for the note itself when the index lacks too many to embed first (a
 *  section-split note has 4–5; its lead vector is one more). */
const NOTE_CHUNKS = 64;

export async function similarCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...vaultOptions,
    ...modelOptions,
    k: { type: "string" },
    refresh: { type: "boolean" },
    "embed-limit": { type: "string" },
  });
  const [vaultArg, noteArg] = positionals;
  if (!vaultArg || !noteArg) throw new CliError(`usage: ${SIMILAR_USAGE}`, 2);
  const setting = parseModelSetting(values.model);
  const k = intOption(values.k, "k", 1) ?? 10;
  const embedLimit = intOption(values["embed-limit"], "embed-limit", 0) ?? EMBED_FIRST_LIMIT;
  const json = Boolean(values.json);
  const quiet = json && !process.stderr.isTTY;
  const ctx = await vaultContext(vaultArg, values, { access: "read", what: "strata similar" });
  const { core } = await openVaultIndex(ctx, Boolean(values.refresh), quiet);
  const notePath = resolveNotePath(core, ctx.vaultDir, noteArg);

  // Similar notes need vectors, not the model: load it only when chunks lack a vector.
  const before = core.embedProgress();
  if (before.total === 0 || before.done < before.total) {
    const model = await loadModel(core, setting, { quiet: true, store: ctx.readOnly ? null : ctx.store });
    // (Progress counts the loaded model's chunks: `before` may predate the model.)
    const pending = model.loaded ? core.embedProgress() : null;
    if (pending && pending.total - pending.done > embedLimit) {
      // Too many to wait for (an index built with --no-embed): the note's own chunks first.
      core.prioritize([notePath]);
      if (embedLimit > 0) await embedStepFrom(core, ctx.vault, Math.min(NOTE_CHUNKS, embedLimit));
      if (!ctx.readOnly) await persist(core, ctx.store);
      const p = core.embedProgress();
      if (!quiet)
        process.stderr.write(
          `strata: ${(p.total - p.done).toLocaleString("en-US")} chunks have no vector yet: similar notes come from the embedded ones; \`strata index\` embeds the rest\n`,
        );
    } else if (pending) {
      const run = await embedWithProgress(core, ctx.vault, ctx.readOnly ? null : ctx.store, quiet);
      if (run.interrupted) throw new CliError("interrupted while embedding (the work done so far is saved)", 130);
    } else if (core.status().vectors === 0) {
      throw new CliError(`[unavailable] similar notes need vectors, and the index has none; ${model.notice}`, 2);
    } else {
      process.stderr.write(`strata: ${before.total - before.done} of ${before.total} chunks have no vector yet; ${model.notice}\n`);
    }
  }

  let res: SimilarResponse;
  try {
    res = core.similar({ path: notePath, k });
  } catch (err) {
    const code = coreErrorCode(err);
    if (code === "unavailable" || code === "bad-request" || code === "not-found") throw new CliError(errorMessage(err), 2);
    throw err;
  }
  core.free();

  if (json) {
    process.stdout.write(JSON.stringify({ note: notePath, ...res }, null, 2) + "\n");
    return 0;
  }
  const tty = ttyOut();
  const out: string[] = [];
  if (res.hits.length === 0) out.push(`no similar notes for ${notePath} (${ms(res.tookMs)})`);
  else out.push(`Notes similar to ${notePath}:`);
  res.hits.forEach((h, i) => {
    const pathText = tty ? `\x1b[36m${h.path}\x1b[39m` : h.path;
    out.push(`${String(i + 1).padStart(2)}. ${pathText}  (cosine ${h.score.toFixed(3)})`);
    for (const s of h.sections.slice(0, 3)) {
      out.push(`      › ${s.headingPath || "(whole note)"}  lines ${s.startLine}–${s.endLine}, ${s.score.toFixed(3)}`);
    }
  });
  if (res.hits.length > 0) out.push(`${res.hits.length} notes · ${ms(res.tookMs)}`);
  process.stdout.write(out.join("\n") + "\n");
  return 0;
}
