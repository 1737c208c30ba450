// `strata eval <vault> <queries.jsonl>`: note-level retrieval quality of the index.

import { mkdtemp, rm } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";

import type { SearchMode, StrataCoreApi } from "../core/api.ts";
import { coreErrorCode, errorMessage } from "../core/client.ts";
import { CliError, intOption, openVaultIndex, parse, vaultContext, vaultOptions } from "./common.ts";
import { evaluate, loadQueries, type EvalResult } from "./metrics.ts";
import { parseMode } from "./search-cmd.ts";
import { table } from "./ui.ts";

export const EVAL_USAGE = `strata eval <vault> <queries.jsonl> [--mode lexical|semantic|hybrid] [--k 10] [--index-dir DIR] [--json]
              (without --index-dir the index is built in a temporary folder and removed afterwards)`;

/** How many sections to ask the core for per note kept: hits are deduplicated by note. */
export const SECTIONS_PER_NOTE = 5;

/** Note-level metrics of `core` over `queries` (hits deduplicated by note in rank order). */
export function evalCore(core: StrataCoreApi, queries: ReturnType<typeof loadQueries>, mode: SearchMode, k: number): EvalResult {
  try {
    return evaluate(queries, k, (query) =>
      core.search({ query, mode, k: Math.min(200, k * SECTIONS_PER_NOTE), snippets: false }).hits.map((h) => h.path),
    );
  } catch (err) {
    const code = coreErrorCode(err);
    if (code === "unavailable" || code === "bad-request") throw new CliError(errorMessage(err), 2);
    throw err;
  }
}

export async function evalCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...vaultOptions, mode: { type: "string" }, k: { type: "string" } });
  const [vaultArg, queriesFile] = positionals;
  if (!vaultArg || !queriesFile) throw new CliError(`usage: ${EVAL_USAGE}`, 2);
  const mode = parseMode(values.mode);
  const k = intOption(values.k, "k", 1) ?? 10;
  const queries = loadQueries(queriesFile);
  const json = Boolean(values.json);

  const tmp = values["index-dir"] ? undefined : await mkdtemp(path.join(os.tmpdir(), "strata-eval-"));
  try {
    const ctx = await vaultContext(vaultArg, { ...values, "index-dir": values["index-dir"] ?? tmp });
    // An existing index is brought up to date first: eval measures the vault as it is now.
    const { core } = await openVaultIndex(ctx, true, json && !process.stderr.isTTY);
    const res = evalCore(core, queries, mode, k);
    core.free();
    if (json) {
      process.stdout.write(JSON.stringify({ mode, ...res }, null, 2) + "\n");
    } else {
      const rows = [["id", "recall", "rr", "ndcg", "ms", "query", "first note"]];
      for (const q of res.per_query) {
        rows.push([q.id, q.recall.toFixed(2), q.rr.toFixed(2), q.ndcg.toFixed(2), q.ms.toFixed(1), clip(q.query, 40), q.top[0] ?? "—"]);
      }
      process.stdout.write(table(rows, ["l", "r", "r", "r", "r"]) + "\n\n");
      process.stdout.write(
        `${mode}, n=${res.n}, k=${k}: recall@${k} ${res.recall10.toFixed(3)} · MRR@${k} ${res.mrr10.toFixed(3)} · nDCG@${k} ${res.ndcg10.toFixed(3)} · p50 ${res.p50_ms.toFixed(2)} ms · p95 ${res.p95_ms.toFixed(2)} ms\n`,
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
