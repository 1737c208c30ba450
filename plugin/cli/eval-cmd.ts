// `strata eval <vault> <queries.jsonl>`: note-level retrieval quality of the index, and
// symbol-level hit@5 for queries labelled with definitions (code).

import { mkdtemp, rm } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";

import type { CoreConfig, SearchMode, SearchRequest, StrataCoreApi } from "../core/api.ts";
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
import { evaluate, loadQueries, SYMBOL_K, type EvalResult } from "./metrics.ts";
import { parseFusion, parseMode, runSearch } from "./search-cmd.ts";
import { table } from "./ui.ts";

export const EVAL_USAGE = `strata eval <vault> <queries.jsonl> [--mode lexical|semantic|hybrid] [--fusion rrf|linear] [--k 10] ${MODEL_USAGE}
              [--code-chunks syntax|whole] [--index-dir DIR] [--json]
              (without --index-dir the index is built and embedded in a temporary folder, removed afterwards;
              --code-chunks whole indexes each code file as one section, the baseline of syntax chunks:
              give it its own --index-dir)`;

/** --code-chunks: code files chunked by their syntax (the default) or each one section. */
export function parseCodeChunks(value: string | undefined): Pick<CoreConfig, "codeSyntax"> {
  if (value === undefined) return {};
  if (value !== "syntax" && value !== "whole") throw new CliError(`--code-chunks must be syntax or whole, got ${JSON.stringify(value)}`, 2);
  return { codeSyntax: value === "syntax" };
}

/** How many sections to ask the core for per note kept: lexical hits are sections, deduplicated by note. */
export const SECTIONS_PER_NOTE = 5;

export interface ModeEval extends EvalResult {
  /** The mode that answered (hybrid answers "lexical" while no model is loaded). */
  answeredMode: SearchMode;
  notice: string | null;
  /** Queries whose answer is not in the vault (no relevant note: tests/eval-noise) and how many
   *  results each is shown on average, weaker matches not counted (null without such queries). */
  unanswerable_n: number;
  unanswerable_shown: number | null;
}

/** Note-level metrics of `core` over `queries` (hits deduplicated by note in rank order), and
 *  symbol-level hit@5 over the hits as the core returns them: sections in lexical mode, each
 *  note's best section in semantic and hybrid mode. */
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
    // Weaker matches are not listed as matches: they count as not found.
    return r.hits.filter((h) => !h.weak).map((h) => ({ path: h.path, startLine: h.startLine, endLine: h.endLine }));
  });
  // Queries the vault cannot answer: how many results they are shown (notes, weaker matches not
  // counted).
  const unanswerable = queries.filter((q) => !Object.values(q.relevant).some((g) => g > 0));
  const shown = unanswerable.map((q) => {
    const r = runSearch(core, { query: q.query, mode, snippets: false, k, ...(fusion ? { fusion } : {}) });
    return new Set(r.hits.filter((h) => !h.weak).map((h) => h.path)).size;
  });
  const unanswerable_shown = shown.length ? Math.round((shown.reduce((a, b) => a + b, 0) / shown.length) * 100) / 100 : null;
  return { ...res, answeredMode, notice, unanswerable_n: unanswerable.length, unanswerable_shown };
}

export async function evalCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...vaultOptions,
    ...modelOptions,
    mode: { type: "string" },
    fusion: { type: "string" },
    k: { type: "string" },
    "code-chunks": { type: "string" },
  });
  const [vaultArg, queriesFile] = positionals;
  if (!vaultArg || !queriesFile) throw new CliError(`usage: ${EVAL_USAGE}`, 2);
  const mode = parseMode(values.mode);
  const fusion = parseFusion(values.fusion);
  const setting = parseModelSetting(values.model);
  const k = intOption(values.k, "k", 1) ?? 10;
  const codeChunks = parseCodeChunks(values["code-chunks"]);
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
    ctx.config = { ...ctx.config, ...codeChunks };
    // An existing index is brought up to date first: eval measures the vault as it is now,
    // with every chunk embedded for the semantic and hybrid modes.
    const { core } = await openVaultIndex(ctx, true, quiet);
    const { model } = await readySemantic(core, ctx.vault, ctx.store, mode, { setting, quiet });
    const res = evalCore(core, queries, mode, k, fusion);
    core.free();
    if (res.notice) process.stderr.write(`strata: ${res.notice}\n`);
    if (json) {
      const code_chunks = codeChunks.codeSyntax === false ? "whole" : "syntax";
      process.stdout.write(JSON.stringify({ mode, model: model && modelReport(model), code_chunks, ...res }, null, 2) + "\n");
    } else {
      const symbols = res.symbol_n > 0;
      const rows = [["id", "recall", "rr", "ndcg", ...(symbols ? ["sym"] : []), "ms", "query", "first note"]];
      for (const q of res.per_query) {
        const sym = symbols ? [q.symbol_rank === undefined ? "" : q.symbol_rank === null ? "—" : `${q.symbol_rank}`] : [];
        rows.push([
          q.id,
          q.recall.toFixed(2),
          q.rr.toFixed(2),
          q.ndcg.toFixed(2),
          ...sym,
          q.ms.toFixed(1),
          clip(q.query, 40),
          q.top[0] ?? "—",
        ]);
      }
      process.stdout.write(table(rows, ["l", "r", "r", "r", "r", ...(symbols ? ["r" as const] : [])]) + "\n\n");
      const answered = res.answeredMode !== mode ? ` (answered ${res.answeredMode})` : "";
      if (model) process.stdout.write(`model ${describeModel(model)}\n`);
      process.stdout.write(
        `${mode}${answered}, n=${res.n}, k=${k}: recall@${k} ${res.recall10.toFixed(3)} · MRR@${k} ${res.mrr10.toFixed(3)} · nDCG@${k} ${res.ndcg10.toFixed(3)} · p50 ${res.p50_ms.toFixed(2)} ms · p95 ${res.p95_ms.toFixed(2)} ms\n`,
      );
      if (res.unanswerable_shown !== null) {
        process.stdout.write(
          `unanswerable queries, n=${res.unanswerable_n}: ${res.unanswerable_shown.toFixed(2)} results shown on average (weaker matches not counted)\n`,
        );
      }
      if (res.symbol_hit1 !== null && res.symbol_hit5 !== null && res.symbol_precise_hit5 !== null) {
        process.stdout.write(
          `symbols, n=${res.symbol_n}: first ${res.symbol_hit1.toFixed(3)} (the first hit overlaps the definition) · hit@${SYMBOL_K} ${res.symbol_hit5.toFixed(3)} (a top-${SYMBOL_K} hit overlaps the definition) · precise hit@${SYMBOL_K} ${res.symbol_precise_hit5.toFixed(3)} (mostly inside it)\n`,
        );
      }
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
