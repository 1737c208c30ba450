// Note-level retrieval metrics, shared by `strata eval` and `strata bench` (for both engines),
// and symbol-level hit@5 for queries labelled with a definition's lines (code).

import { readFileSync } from "node:fs";
import { CliError } from "./common.ts";

export interface EvalQuery {
  id: string;
  query: string;
  /** Vault-relative path → grade (2 = the answer, 1 = useful). */
  relevant: Record<string, number>;
  kind?: string;
  /** The definitions that answer the query: vault-relative path, 1-based inclusive lines. */
  symbols?: SymbolLabel[];
}

export interface SymbolLabel {
  path: string;
  start: number;
  end: number;
}

/** A ranked hit with its section's lines (1-based, inclusive), as the core returns it. */
export interface RankedHit {
  path: string;
  startLine: number;
  endLine: number;
}

/** How many hits symbol-level hit@N looks at. */
export const SYMBOL_K = 5;

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
    const symbols = q.symbols === undefined ? undefined : parseSymbols(q.symbols, `${file}:${i + 1}`);
    out.push({ id: String(q.id ?? i + 1), query: q.query, relevant, kind: q.kind, ...(symbols ? { symbols } : {}) });
  });
  return out;
}

function parseSymbols(value: unknown, where: string): SymbolLabel[] {
  const ok = (x: unknown): x is SymbolLabel => {
    const s = x as SymbolLabel;
    return (
      typeof s === "object" &&
      s !== null &&
      typeof s.path === "string" &&
      Number.isInteger(s.start) &&
      Number.isInteger(s.end) &&
      s.start >= 1 &&
      s.end >= s.start
    );
  };
  if (!Array.isArray(value) || !value.every(ok)) {
    throw new CliError(`${where}: "symbols" expects [{"path","start","end"}] with 1 <= start <= end`, 2);
  }
  return value.map((s) => ({ path: s.path.normalize("NFC"), start: s.start, end: s.end }));
}

/** Lines a hit and a label share (0 when apart or in different files). */
function sharedLines(hit: RankedHit, label: SymbolLabel): number {
  if (hit.path.normalize("NFC") !== label.path) return 0;
  return Math.max(0, Math.min(hit.endLine, label.end) - Math.max(hit.startLine, label.start) + 1);
}

export interface SymbolScore {
  /** 1-based rank of the first of the top SYMBOL_K hits overlapping a labelled definition, or null. */
  rank: number | null;
  /** The same for a hit lying mostly inside the definition (at least half of its lines):
   *  a whole file or a whole class overlaps each of its definitions without pointing at one. */
  preciseRank: number | null;
}

/** Where the top SYMBOL_K hits meet one of the labelled definitions. */
export function scoreSymbols(hits: readonly RankedHit[], labels: readonly SymbolLabel[]): SymbolScore {
  let rank: number | null = null;
  let preciseRank: number | null = null;
  hits.slice(0, SYMBOL_K).forEach((h, i) => {
    const shared = Math.max(0, ...labels.map((l) => sharedLines(h, l)));
    if (shared > 0) rank ??= i + 1;
    if (shared > 0 && shared * 2 >= h.endLine - h.startLine + 1) preciseRank ??= i + 1;
  });
  return { rank, preciseRank };
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
  /** For a query labelled with definitions (and hits with lines): see SymbolScore. */
  symbol_rank?: number | null;
  symbol_precise_rank?: number | null;
}

export interface EvalResult {
  n: number;
  k: number;
  recall10: number;
  mrr10: number;
  ndcg10: number;
  p50_ms: number;
  p95_ms: number;
  /** Queries scored at symbol level (labelled with definitions, hits with lines). */
  symbol_n: number;
  /** Share of them whose first hit overlaps a labelled definition (null when none is scored). */
  symbol_hit1: number | null;
  /** Share of them with one of the first SYMBOL_K hits overlapping a labelled definition
   *  (null when none is scored). */
  symbol_hit5: number | null;
  /** The same with the hit lying mostly inside the definition. */
  symbol_precise_hit5: number | null;
  per_query: PerQuery[];
}

/**
 * Runs every query through `search` (which returns hits in rank order: their paths, or the
 * hits with their lines) and averages the note-level metrics, and for the queries labelled
 * with definitions, when the hits have lines, symbol-level hit@5. Queries without a relevant
 * note are left out.
 */
export function evaluate(queries: EvalQuery[], k: number, search: (q: string) => readonly string[] | readonly RankedHit[]): EvalResult {
  const per: PerQuery[] = [];
  for (const q of queries) {
    if (!Object.values(q.relevant).some((g) => g > 0)) continue;
    const t = performance.now();
    const hits = search(q.query);
    const took = performance.now() - t;
    const withLines = hits.filter((h): h is RankedHit => typeof h !== "string");
    const top = topNotes(
      hits.map((h) => (typeof h === "string" ? h : h.path)),
      k,
    );
    const row: PerQuery = { id: q.id, query: q.query, ...scoreRanking(top, q.relevant, k), ms: round(took, 3), top };
    if (q.symbols && q.symbols.length > 0 && withLines.length === hits.length) {
      const s = scoreSymbols(withLines, q.symbols);
      row.symbol_rank = s.rank;
      row.symbol_precise_rank = s.preciseRank;
    }
    per.push(row);
  }
  const mean = (f: (x: PerQuery) => number) => (per.length ? per.reduce((a, x) => a + f(x), 0) / per.length : 0);
  const times = per.map((x) => x.ms);
  const scored = per.filter((x) => x.symbol_rank !== undefined);
  const share = (f: (x: PerQuery) => boolean) => (scored.length ? round(scored.filter(f).length / scored.length, 4) : null);
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
    symbol_n: scored.length,
    symbol_hit1: share((x) => x.symbol_rank === 1),
    symbol_hit5: share((x) => x.symbol_rank != null),
    symbol_precise_hit5: share((x) => x.symbol_precise_rank != null),
    per_query: per.map((x) => ({ ...x, recall: round(x.recall, 4), rr: round(x.rr, 4), ndcg: round(x.ndcg, 4) })),
  };
}

export function round(x: number, digits: number): number {
  if (!Number.isFinite(x)) return x;
  const f = Math.pow(10, digits);
  return Math.round(x * f) / f;
}
