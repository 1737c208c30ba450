// `strata eval <vault> <queries.jsonl>`: note-level retrieval quality of the index.

import { mkdtemp, rm } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";

import type { SearchMode, SearchRequest, StrataCoreApi } from "../core/api.ts";
import { describeModel, modelReport } from "../core/models.ts";
import {
  CliError,
  intOption,
  MODEL_USAGE,
  modelOptions,
  openVaultIndex,
  parse,
  parseModelSetting,
  readySemantic,
  vaultContext,
  vaultOptions,
} from "./common.ts";
import { evaluate, loadQueries, type EvalResult } from "./metrics.ts";
import { parseFusion, parseMode, runSearch } from "./search-cmd.ts";
import { table } from "./ui.ts";

export const EVAL_USAGE = `strata eval <vault> <queries.jsonl> [--mode lexical|semantic|hybrid] [--fusion rrf|linear] [--k 10] ${MODEL_USAGE}
              [--index-dir DIR] [--json]
              (without --index-dir the index is built and embedded in a temporary folder, removed afterwards)`;

/** How many sections to ask the core for per note kept: lexical hits are sections, deduplicated by note. */
export const SECTIONS_PER_NOTE = 5;

export interface ModeEval extends EvalResult {
  /** The mode that answered (hybrid answers "lexical" while no model is loaded). */
  answeredMode: SearchMode;
  notice: string | null;
}

/** Note-level metrics of `core` over `queries` (hits deduplicated by note in rank order). */
export function evalCore(
  core: StrataCoreApi,
  queries: ReturnType<typeof loadQueries>,
  mode: SearchMode,
  k: number,
  fusion?: SearchRequest["fusion"],
): ModeEval {
  let answeredMode: SearchMode = mode;
  let notice: string | null = null;
  const res = evaluate(queries, k, (query) => {
    // Hybrid and semantic hits are notes already: ask for k, as a user does (the candidate
    // pools, and so the first results, are those of the plugin and the bridge). Lexical hits
    // are sections (also hybrid's answer without a model): ask for more, deduplicated by note.
    const req = { query, mode, snippets: false, ...(fusion ? { fusion } : {}) };
    let r = runSearch(core, { ...req, k: mode === "lexical" ? Math.min(200, k * SECTIONS_PER_NOTE) : k });
    if (r.mode === "lexical" && mode !== "lexical") r = runSearch(core, { ...req, k: Math.min(200, k * SECTIONS_PER_NOTE) });
    answeredMode = r.mode;
    notice ??= r.notice;
    return r.hits.map((h) => h.path);
  });
  return { ...res, answeredMode, notice };
}

export async function evalCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...vaultOptions,
    ...modelOptions,
    mode: { type: "string" },
    fusion: { type: "string" },
    k: { type: "string" },
  });
  const [vaultArg, queriesFile] = positionals;
  if (!vaultArg || !queriesFile) throw new CliError(`usage: ${EVAL_USAGE}`, 2);
  const mode = parseMode(values.mode);
  const fusion = parseFusion(values.fusion);
  const setting = parseModelSetting(values.model);
  const k = intOption(values.k, "k", 1) ?? 10;
  const queries = loadQueries(queriesFile);
  const json = Boolean(values.json);
  const quiet = json && !process.stderr.isTTY;

  const tmp = values["index-dir"] ? undefined : await mkdtemp(path.join(os.tmpdir(), "strata-eval-"));
  try {
    const ctx = await vaultContext(
      vaultArg,
      { ...values, "index-dir": values["index-dir"] ?? tmp },
      { access: "write", what: "strata eval" },
    );
    // An existing index is brought up to date first: eval measures the vault as it is now,
    // with every chunk embedded for the semantic and hybrid modes.
    const { core } = await openVaultIndex(ctx, true, quiet);
    const { model } = await readySemantic(core, ctx.vault, ctx.store, mode, { setting, quiet });
    const res = evalCore(core, queries, mode, k, fusion);
    core.free();
    if (res.notice) process.stderr.write(`strata: ${res.notice}\n`);
    if (json) {
      process.stdout.write(JSON.stringify({ mode, model: model && modelReport(model), ...res }, null, 2) + "\n");
    } else {
      const rows = [["id", "recall", "rr", "ndcg", "ms", "query", "first note"]];
      for (const q of res.per_query) {
        rows.push([q.id, q.recall.toFixed(2), q.rr.toFixed(2), q.ndcg.toFixed(2), q.ms.toFixed(1), clip(q.query, 40), q.top[0] ?? "—"]);
      }
      process.stdout.write(table(rows, ["l", "r", "r", "r", "r"]) + "\n\n");
      const answered = res.answeredMode !== mode ? ` (answered ${res.answeredMode})` : "";
      if (model) process.stdout.write(`model ${describeModel(model)}\n`);
      process.stdout.write(
        `${mode}${answered}, n=${res.n}, k=${k}: recall@${k} ${res.recall10.toFixed(3)} · MRR@${k} ${res.mrr10.toFixed(3)} · nDCG@${k} ${res.ndcg10.toFixed(3)} · p50 ${res.p50_ms.toFixed(2)} ms · p95 ${res.p95_ms.toFixed(2)} ms\n`,
      );
    }
    return 0;
  } finally {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }
}

function clip(s: string, n: number): string {
  const chars = [...s];
  return chars.length > n ? chars.slice(0, n - 1).join("") + "…" : s;
}
