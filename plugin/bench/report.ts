// The bench's result and its rendering as tables, Strata beside each anchor (MiniSearch as
// Omnisearch configures it, onnxruntime-web, the targets).

import { bytes, ms, table } from "../cli/ui.ts";
import type { EvalResult } from "../cli/metrics.ts";
import type { EmbedEngineResult, ModelBenchResult } from "./embed-bench.ts";
import { BENCH_QUERIES, QUERY_ROUNDS } from "./settings.ts";
import type { VectorBenchRow } from "./vector-bench.ts";

export interface EngineFigures {
  /** The median of the full-index runs (`--index-runs`), and every run's time. */
  indexMs: number;
  indexRunsMs: number[];
  peakRssMb: number;
  queryP50Ms: number;
  queryP95Ms: number;
  editP50Ms: number;
  editP95Ms: number;
  editFound: number;
  coldOpenMs: number;
  coldFirstQueryMs: number;
  coldTotalMs: number;
  coldProcessMs: number;
  editBytesWritten: number;
  indexBytes: number;
}

export type Metrics = Omit<EvalResult, "per_query">;

export interface QualityRow {
  lang: string;
  /** Strata lexical (the comparison with MiniSearch). */
  strata: Metrics;
  minisearch: Metrics;
  /** The embedding model of the semantic and hybrid modes (--model), null without one. */
  model: string | null;
  /** Strata's semantic and hybrid modes (absent without the model). */
  semantic: Metrics | null;
  hybrid: Metrics | null;
  /** Chunks embedded for the semantic modes, and how long it took (whole vault, our embedder). */
  embedded: number;
  embedMs: number;
}

export interface EmbedComparison {
  vault: string;
  notes: number;
  /** Ours, batch 8 (the default) and batch 1 (no padding). */
  tract: EmbedEngineResult[];
  /** onnxruntime-web, batch 8 and batch 1. */
  ort: EmbedEngineResult[];
  /** The pool of embedder workers with 1 and 2 worker threads (the whole run's wall clock). */
  pool: EmbedEngineResult[];
  /** onnxruntime-web on --ort-threads threads, batch 1 (not part of the ratio). */
  ortThreaded: EmbedEngineResult | null;
  /** Steady-state chunks/s, our faster configuration over onnxruntime-web's faster one. */
  ratio: number;
  target: number;
}

export interface ModelsComparison {
  vault: string;
  notes: number;
  queries: number;
  /** One per model present, each run in its own process on the same sample. */
  results: ModelBenchResult[];
  /** Models not measured (absent). */
  missing: string[];
}

export type BenchResult = {
  vault: string;
  notes: number;
  vaultBytes: number;
  edits: number;
  editNote: string;
  queries: number;
  baselineRssMb: number;
  strata: EngineFigures & { sections: number };
  minisearch: EngineFigures;
  embedding: EmbedComparison | null;
  embedSkipped: string | null;
  models: ModelsComparison | null;
  vectors: VectorBenchRow[] | null;
  /** Why the vector index part did not run (--vector-sizes 0, the bench wasm not built). */
  vectorsSkipped: string | null;
  quality: QualityRow[];
};

export function render(r: BenchResult): string {
  const s = r.strata;
  const m = r.minisearch;
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : "—");
  const mb = (x: number) => `${x.toFixed(0)} MB`;
  const check = (ok: boolean) => (ok ? "ok" : "MISSED");
  const rows = [
    ["", "Strata", "MiniSearch (Omnisearch)", "Strata/MS", "target"],
    ["full index time", ms(s.indexMs), ms(m.indexMs), ratio(s.indexMs, m.indexMs), `≤ 0.3× ${check(s.indexMs <= 0.3 * m.indexMs)}`],
    [
      "full index peak RSS",
      mb(s.peakRssMb),
      mb(m.peakRssMb),
      ratio(s.peakRssMb, m.peakRssMb),
      `≤ 0.5× ${check(s.peakRssMb <= 0.5 * m.peakRssMb)}`,
    ],
    ["query p50", ms(s.queryP50Ms), ms(m.queryP50Ms), ratio(s.queryP50Ms, m.queryP50Ms), ""],
    ["query p95", ms(s.queryP95Ms), ms(m.queryP95Ms), ratio(s.queryP95Ms, m.queryP95Ms), `≤ 10 ms ${check(s.queryP95Ms <= 10)}`],
    ["edit → searchable p50", ms(s.editP50Ms), ms(m.editP50Ms), ratio(s.editP50Ms, m.editP50Ms), ""],
    ["edit → searchable p95", ms(s.editP95Ms), ms(m.editP95Ms), ratio(s.editP95Ms, m.editP95Ms), `≤ 100 ms ${check(s.editP95Ms <= 100)}`],
    ["edits found by search", `${s.editFound}/${r.edits}`, `${m.editFound}/${r.edits}`, "", ""],
    [
      "cold open + first query",
      ms(s.coldTotalMs),
      ms(m.coldTotalMs),
      ratio(s.coldTotalMs, m.coldTotalMs),
      `≤ 300 ms ${check(s.coldTotalMs <= 300)}`,
    ],
    ["  (whole process)", ms(s.coldProcessMs), ms(m.coldProcessMs), "", ""],
    [
      "bytes written per 1-note edit",
      bytes(s.editBytesWritten),
      `${bytes(m.editBytesWritten)} (whole cache)`,
      ratio(s.editBytesWritten, m.editBytesWritten),
      "",
    ],
    ["index size on disk", bytes(s.indexBytes), bytes(m.indexBytes), ratio(s.indexBytes, m.indexBytes), ""],
  ];
  const out = [
    `Vault ${r.vault}: ${r.notes} notes, ${bytes(r.vaultBytes)} of Markdown, ${s.sections} sections. Node baseline RSS ${mb(r.baselineRssMb)}.`,
    `Queries: ${r.queries} timed (${BENCH_QUERIES.length} fixed queries × ${QUERY_ROUNDS}); Strata's include snippets (the hit notes read from the vault). Edits: ${r.edits} to ${r.editNote} (in memory), update + persist + search (MiniSearch: replace + search, no save).`,
    "",
    table(rows, ["l", "r", "r", "r", "l"]),
    `Full index: the median of ${s.indexRunsMs.length} alternated runs each (Strata ${s.indexRunsMs.map(ms).join(", ")}; MiniSearch ${m.indexRunsMs.map(ms).join(", ")}).`,
  ];
  if (r.embedding) {
    const e = r.embedding;
    const rows2 = [["embedder", "chunks", "model load", "first step", "chunks/s (all)", "chunks/s (steady)"]];
    for (const x of [...e.tract, ...e.ort, ...(e.ortThreaded ? [e.ortThreaded] : [])]) {
      rows2.push([x.engine, String(x.chunks), ms(x.loadMs), ms(x.firstStepMs), x.chunksPerSec.toFixed(1), x.steadyChunksPerSec.toFixed(1)]);
    }
    const refCos = e.ort.map((o) => o.referenceMinCosine).find((c) => c != null);
    out.push(
      "",
      `Embedding ${e.notes} notes of ${e.vault}, same model.onnx, same chunk texts, one thread each, each engine in its own process; steps of 16 chunks, steady = without the first 2 steps.`,
      table(rows2, ["l", "r", "r", "r", "r", "r"]),
      `Strata / onnxruntime-web (the faster configuration of each), steady: ${e.ratio.toFixed(2)}× (target ≥ ${e.target}× ${check(e.ratio >= e.target)})` +
        (refCos != null ? ` · onnxruntime-web harness vs the Python reference vectors: min cosine ${refCos.toFixed(4)}` : ""),
    );
    if (e.pool.length > 0) {
      const ort1 = e.ort.find((o) => o.batch === 1)?.steadyChunksPerSec ?? 0;
      const rows4 = [
        [
          "pool",
          "chunks",
          "to first batch",
          "chunks/s (all)",
          "chunks/s (steady)",
          "vs onnxruntime-web 1 thread",
          "worker wasm",
          "peak RSS",
        ],
      ];
      for (const x of e.pool) {
        rows4.push([
          x.engine,
          String(x.chunks),
          ms(x.firstStepMs),
          x.chunksPerSec.toFixed(1),
          x.steadyChunksPerSec.toFixed(1),
          ratio(x.steadyChunksPerSec, ort1),
          x.workerWasmMb != null ? mb(x.workerWasmMb) : "",
          x.maxRssMb != null ? mb(x.maxRssMb) : "",
        ]);
      }
      const two = e.pool.find((x) => x.threads === 2)?.steadyChunksPerSec ?? 0;
      out.push(
        "",
        `The pool of embedder workers (worker threads, each its own embedder wasm and model; steps of 4 chunks), same notes: target ≥ 1.8× onnxruntime-web on one thread with 2 workers ${check(two >= 1.8 * ort1)}.`,
        table(rows4, ["l", "r", "r", "r", "r", "r", "r", "r"]),
      );
    }
    if (e.ortThreaded) {
      const one = e.ort.find((o) => o.batch === 1)?.steadyChunksPerSec ?? 0;
      out.push(
        `onnxruntime-web on ${e.ortThreaded.threads} threads: ${ratio(e.ortThreaded.steadyChunksPerSec, one)} its one-thread rate (not part of the comparison; Strata's embedder uses one thread).`,
      );
    }
  } else if (r.embedSkipped) {
    out.push("", `Embedder comparison skipped: ${r.embedSkipped}.`);
  }
  if (r.models) {
    const x = r.models;
    const rows3 = [
      ["model", "chunks", "load", "chunks/s (all)", "chunks/s (steady)", "query p50", "query p95", "wasm core / embedder", "peak RSS"],
    ];
    for (const m of x.results) {
      rows3.push([
        m.model,
        String(m.chunks),
        ms(m.loadMs),
        m.chunksPerSec.toFixed(1),
        m.steadyChunksPerSec.toFixed(1),
        ms(m.queryP50Ms),
        ms(m.queryP95Ms),
        `${m.coreMemMb.toFixed(0)} / ${m.embedderMemMb.toFixed(0)} MB (peak ${m.peakEmbedderMemMb.toFixed(0)})`,
        mb(m.maxRssMb ?? 0),
      ]);
    }
    out.push(
      "",
      `Embedding models on the same ${x.notes} notes of ${x.vault}, each in its own process, one thread, default batch; steps of 16 chunks, steady = without the first 2 steps; ` +
        `queries: ${x.queries} semantic searches (query embedding + vector search), after a warm-up; wasm memory after the model load.`,
      table(rows3, ["l", "r", "r", "r", "r", "r", "r", "r", "r"]),
    );
    if (x.missing.length) out.push(`Not measured (absent): ${x.missing.join(", ")} (scripts/fetch-model.sh, scripts/fetch-e5.sh).`);
  }
  if (r.vectors?.length) {
    const target: Record<number, number> = { 100_000: 15, 300_000: 40 };
    const v = [
      [
        "vectors",
        "query p50",
        "query p95",
        "per vector",
        "recall@10 near / random",
        "insert",
        "memory",
        "snapshot",
        "write / load",
        "target",
      ],
    ];
    for (const x of r.vectors) {
      const t = target[x.n];
      const goal = [
        t ? `≤ ${t} ms ${check(x.queryP95Ms <= t)}` : "",
        `recall ≥ 0.99 ${check(Math.min(x.recallNear, x.recallRandom) >= 0.99)}`,
      ]
        .filter(Boolean)
        .join(", ");
      v.push([
        String(x.n),
        ms(x.queryP50Ms),
        ms(x.queryP95Ms),
        `${(x.usPerVector * 1000).toFixed(0)} ns`,
        `${x.recallNear.toFixed(3)} / ${x.recallRandom.toFixed(3)}`,
        ms(x.insertMs),
        bytes(x.memoryBytes),
        bytes(x.snapshotBytes),
        `${ms(x.snapshotWriteMs)} / ${ms(x.snapshotLoadMs)}`,
        goal,
      ]);
    }
    out.push(
      "",
      `Vector index (the core's int8 SIMD128 scan + f16 re-rank, in wasm, one thread): synthetic unit vectors of ${r.vectors[0].dim} dimensions in clusters; ` +
        `${r.vectors[0].queries} timed queries each; recall@10 against an exact f32 scan (20 queries near stored vectors, 20 random); insert = all vectors up to that size.`,
      table(v, ["r", "r", "r", "r", "r", "r", "r", "r", "r", "l"]),
    );
  } else if (r.vectorsSkipped && r.vectorsSkipped !== "--vector-sizes 0") {
    out.push("", `Vector index skipped: ${r.vectorsSkipped}.`);
  }
  if (r.quality.length) {
    const f = (a: number, b: number) => `${a.toFixed(3)} / ${b.toFixed(3)}`;
    const q = [["lexical quality", "n", "recall@10 S / MS", "MRR@10 S / MS", "nDCG@10 S / MS"]];
    for (const row of r.quality) {
      q.push([
        row.lang,
        String(row.strata.n),
        f(row.strata.recall10, row.minisearch.recall10),
        f(row.strata.mrr10, row.minisearch.mrr10),
        f(row.strata.ndcg10, row.minisearch.ndcg10),
      ]);
    }
    out.push("", table(q, ["l", "r", "r", "r", "r"]));
    if (r.quality.some((row) => row.hybrid)) {
      const m = [["Strata by mode", "n", "mode", "recall@10", "MRR@10", "nDCG@10", "p50", "p95", "embedded", "model"]];
      for (const row of r.quality) {
        const modes: [string, Metrics | null][] = [
          ["lexical", row.strata],
          ["semantic", row.semantic],
          ["hybrid", row.hybrid],
        ];
        for (const [name, x] of modes) {
          if (!x) continue;
          const sem = name !== "lexical";
          m.push([
            row.lang,
            String(x.n),
            name,
            x.recall10.toFixed(3),
            x.mrr10.toFixed(3),
            x.ndcg10.toFixed(3),
            ms(x.p50_ms),
            ms(x.p95_ms),
            sem ? `${row.embedded} chunks, ${ms(row.embedMs)}` : "",
            sem ? (row.model ?? "") : "",
          ]);
        }
      }
      out.push("", table(m, ["l", "r", "l", "r", "r", "r", "r", "r", "l", "l"]));
    }
  }
  return out.join("\n");
}
