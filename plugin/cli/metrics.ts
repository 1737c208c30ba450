// Note-level retrieval metrics, shared by `strata eval` and `strata bench` (for both engines).

import { readFileSync } from "node:fs";
import { CliError } from "./common.ts";

export interface EvalQuery {
  id: string;
  query: string;
  /** Vault-relative path → grade (2 = the answer, 1 = useful). */
  relevant: Record<string, number>;
  kind?: string;
}

export function loadQueries(file: string): EvalQuery[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new CliError(`cannot read queries file ${file}: ${(err as Error).message}`, 2);
  }
  const out: EvalQuery[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    let q: EvalQuery;
    try {
      q = JSON.parse(line) as EvalQuery;
    } catch (err) {
      throw new CliError(`${file}:${i + 1}: not JSON: ${(err as Error).message}`, 2);
    }
    if (typeof q.query !== "string" || typeof q.relevant !== "object" || q.relevant === null) {
      throw new CliError(`${file}:${i + 1}: expected {"id","query","relevant":{path: grade}}`, 2);
    }
    const relevant: Record<string, number> = {};
    for (const [p, g] of Object.entries(q.relevant)) relevant[p.normalize("NFC")] = Number(g);
    out.push({ id: String(q.id ?? i + 1), query: q.query, relevant, kind: q.kind });
  });
  return out;
}

/** The first `k` distinct notes of a ranked list of hits, in rank order. */
export function topNotes(paths: Iterable<string>, k: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const p of paths) {
    const n = p.normalize("NFC");
    if (seen.has(n)) continue;
    seen.add(n);
    out.push(n);
    if (out.length >= k) break;
  }
  return out;
}

export interface QueryScore {
  recall: number;
  rr: number;
  ndcg: number;
}

/** recall@k, reciprocal rank (within k) and nDCG@k with gain 2^grade − 1. */
export function scoreRanking(ranked: string[], relevant: Record<string, number>, k: number): QueryScore {
  const top = ranked.slice(0, k);
  const rel = Object.entries(relevant).filter(([, g]) => g > 0);
  const total = rel.length;
  const found = top.filter((p) => (relevant[p] ?? 0) > 0).length;
  const first = top.findIndex((p) => (relevant[p] ?? 0) > 0);
  const gain = (g: number) => Math.pow(2, g) - 1;
  let dcg = 0;
  top.forEach((p, i) => (dcg += gain(relevant[p] ?? 0) / Math.log2(i + 2)));
  const ideal = rel
    .map(([, g]) => g)
    .sort((a, b) => b - a)
    .slice(0, k);
  let idcg = 0;
  ideal.forEach((g, i) => (idcg += gain(g) / Math.log2(i + 2)));
  return {
    recall: total > 0 ? found / total : 0,
    rr: first >= 0 ? 1 / (first + 1) : 0,
    ndcg: idcg > 0 ? dcg / idcg : 0,
  };
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export interface PerQuery {
  id: string;
  query: string;
  recall: number;
  rr: number;
  ndcg: number;
  ms: number;
  top: string[];
}

export interface EvalResult {
  n: number;
  k: number;
  recall10: number;
  mrr10: number;
  ndcg10: number;
  p50_ms: number;
  p95_ms: number;
  per_query: PerQuery[];
}

/**
 * Runs every query through `search` (which returns hit paths in rank order) and averages
 * the note-level metrics. Queries without a relevant note are left out.
 */
export function evaluate(queries: EvalQuery[], k: number, search: (q: string) => string[]): EvalResult {
  const per: PerQuery[] = [];
  for (const q of queries) {
    if (!Object.values(q.relevant).some((g) => g > 0)) continue;
    const t = performance.now();
    const paths = search(q.query);
    const took = performance.now() - t;
    const top = topNotes(paths, k);
    per.push({ id: q.id, query: q.query, ...scoreRanking(top, q.relevant, k), ms: round(took, 3), top });
  }
  const mean = (f: (x: PerQuery) => number) => (per.length ? per.reduce((a, x) => a + f(x), 0) / per.length : 0);
  const times = per.map((x) => x.ms);
  return {
    n: per.length,
    k,
    recall10: round(
      mean((x) => x.recall),
      4,
    ),
    mrr10: round(
      mean((x) => x.rr),
      4,
    ),
    ndcg10: round(
      mean((x) => x.ndcg),
      4,
    ),
    p50_ms: round(percentile(times, 50), 3),
    p95_ms: round(percentile(times, 95), 3),
    per_query: per.map((x) => ({ ...x, recall: round(x.recall, 4), rr: round(x.rr, 4), ndcg: round(x.ndcg, 4) })),
  };
}

export function round(x: number, digits: number): number {
  if (!Number.isFinite(x)) return x;
  const f = Math.pow(10, digits);
  return Math.round(x * f) / f;
}
