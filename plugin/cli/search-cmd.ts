// `strata search <vault> "<query>"`: search the vault's index (indexing it first if it has none).

import type { Hit, SearchFilters, SearchMode, SearchRequest, SearchResponse, StrataCoreApi } from "../core/api.ts";
import { coreErrorCode, errorMessage } from "../core/errors.ts";
import { searchWithSnippets, type ReadNote } from "../core/note-reads.ts";
import { describeModel, modelReport, type ModelLoad } from "../core/models.ts";
import {
  CliError,
  intOption,
  MODEL_USAGE,
  modelOptions,
  openVaultIndex,
  parse,
  parseModelSetting,
  readySemantic,
  EMBED_FIRST_LIMIT,
  vaultContext,
  vaultOptions,
} from "./common.ts";
import { ms, renderSnippet, ttyOut } from "./ui.ts";

export const SEARCH_USAGE = `strata search <vault> "<query>" [--mode lexical|semantic|hybrid] [--queries "<q2>" …] [--fusion rrf|linear]
              [--k N] [--folder F] [--tag T] [--property KEY=VALUE] [--depth-min N] [--depth-max N]
              [--order relevance|shallow|deep] [--refresh] [--no-embed] [--embed-limit 256] ${MODEL_USAGE}
              [--index-dir DIR] [--config-dir .obsidian] [--json]`;

const MODES: SearchMode[] = ["lexical", "semantic", "hybrid"];

/** --mode, default hybrid (which answers lexically, with a notice, while there is no model). */
export function parseMode(value: string | undefined): SearchMode {
  const mode = (value ?? "hybrid") as SearchMode;
  if (!MODES.includes(mode)) throw new CliError(`--mode must be one of ${MODES.join(", ")}, got ${JSON.stringify(value)}`, 2);
  return mode;
}

export function parseFusion(value: string | undefined): SearchRequest["fusion"] {
  if (value === undefined) return undefined;
  if (value !== "rrf" && value !== "linear") throw new CliError(`--fusion must be rrf or linear, got ${JSON.stringify(value)}`, 2);
  return value;
}

/** The core's request errors as exit code 2. */
function usageError(err: unknown): unknown {
  const code = coreErrorCode(err);
  return code === "unavailable" || code === "bad-request" ? new CliError(errorMessage(err), 2) : err;
}

/** core.search (no snippets: no note is read) with the core's request errors as exit code 2. */
export function runSearch(core: StrataCoreApi, req: SearchRequest): SearchResponse {
  try {
    return core.search(req);
  } catch (err) {
    throw usageError(err);
  }
}

/** A search with snippets (the hit notes read through `read`), request errors as exit code 2. */
export async function runSearchWithSnippets(core: StrataCoreApi, read: ReadNote, req: SearchRequest): Promise<SearchResponse> {
  try {
    return await searchWithSnippets(core, read, req);
  } catch (err) {
    throw usageError(err);
  }
}

export async function searchCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...vaultOptions,
    ...modelOptions,
    mode: { type: "string" },
    queries: { type: "string", multiple: true },
    fusion: { type: "string" },
    k: { type: "string" },
    folder: { type: "string" },
    tag: { type: "string" },
    property: { type: "string" },
    "depth-min": { type: "string" },
    "depth-max": { type: "string" },
    order: { type: "string" },
    refresh: { type: "boolean" },
    "no-embed": { type: "boolean" },
    "embed-limit": { type: "string" },
    snippets: { type: "boolean", default: true },
  });
  const [vaultArg, ...rest] = positionals;
  const query = rest.join(" ");
  if (!vaultArg || query.trim() === "") throw new CliError(`usage: ${SEARCH_USAGE}`, 2);

  const filters: SearchFilters = {};
  if (values.folder) filters.folder = values.folder;
  if (values.tag) filters.tag = values.tag;
  if (values.property) {
    const eq = values.property.indexOf("=");
    if (eq <= 0) throw new CliError(`--property expects KEY=VALUE, got ${JSON.stringify(values.property)}`, 2);
    filters.property = { key: values.property.slice(0, eq), value: values.property.slice(eq + 1) };
  }
  filters.minDepth = intOption(values["depth-min"], "depth-min");
  filters.maxDepth = intOption(values["depth-max"], "depth-max");
  const order = values.order ?? "relevance";
  if (!["relevance", "shallow", "deep"].includes(order)) throw new CliError(`--order must be relevance, shallow or deep`, 2);
  const mode = parseMode(values.mode);
  const setting = parseModelSetting(values.model);
  const queries = (values.queries ?? []).map((q) => q.trim()).filter((q) => q !== "");
  const req: SearchRequest = {
    query,
    mode,
    k: intOption(values.k, "k", 1) ?? 10,
    filters,
    depthOrder: order as SearchRequest["depthOrder"],
    snippets: true,
  };
  if (queries.length > 0) req.queries = queries;
  const fusion = parseFusion(values.fusion);
  if (fusion) req.fusion = fusion;

  const ctx = await vaultContext(vaultArg, values, { access: "read", what: "strata search" });
  const json = Boolean(values.json);
  const { core, summary } = await openVaultIndex(ctx, Boolean(values.refresh), false);
  if (summary && !json) {
    process.stderr.write(
      `strata: indexed ${summary.added + summary.updated + summary.moved} notes, ${summary.unchanged} unchanged, ${summary.deleted} deleted\n`,
    );
  }
  const embedLimit = intOption(values["embed-limit"], "embed-limit", 0) ?? EMBED_FIRST_LIMIT;
  const quiet = json && !process.stderr.isTTY;
  // Beside another writer nothing is embedded here: it is embedding them.
  const noEmbed = Boolean(values["no-embed"]) || ctx.readOnly !== null;
  const { model, unembedded } = await readySemantic(core, ctx.vault, ctx.store, mode, { setting, noEmbed, quiet, embedLimit });
  if (unembedded > 0 && !quiet) {
    process.stderr.write(
      `strata: ${unembedded.toLocaleString("en-US")} chunks have no vector yet (more than --embed-limit ${embedLimit}): semantic results come from the embedded ones; \`strata index\` embeds the rest\n`,
    );
  }
  const res = await runSearchWithSnippets(core, (p) => ctx.vault.read(p), req);
  core.free();
  // With chunks left unembedded the line above replaces the core's coverage notice, whose
  // "embedding continues" is the plugin's case.
  if (res.notice && unembedded === 0) process.stderr.write(`strata: ${res.notice}\n`);

  if (json) {
    process.stdout.write(JSON.stringify({ query, queries, model: model && modelReport(model), ...res }, null, 2) + "\n");
    return 0;
  }
  const tty = ttyOut();
  const out: string[] = [];
  if (res.hits.length === 0) out.push(`no results for ${JSON.stringify(query)} (${res.mode}, ${ms(res.tookMs)})`);
  res.hits.forEach((h, i) => {
    const where = h.headingPath ? ` › ${h.headingPath}` : "";
    const pathText = tty ? `\x1b[36m${h.path}\x1b[39m` : h.path;
    out.push(`${String(i + 1).padStart(2)}. ${pathText}${where}  (lines ${h.startLine}–${h.endLine}, ${breakdown(h, res.mode)})`);
    if (h.snippet && h.snippet.text.trim() !== "") out.push(`    ${renderSnippet(h.snippet, tty)}`);
  });
  if (res.hits.length > 0) out.push(footer(res, model));
  process.stdout.write(out.join("\n") + "\n");
  return 0;
}

/** The short score breakdown of a hit: the final score, then its lexical and vector parts. */
export function breakdown(h: Hit, mode: SearchMode): string {
  if (mode === "lexical") return `score ${h.score.toFixed(3)}`;
  const parts = [`score ${h.finalScore.toFixed(4)}`];
  if (mode === "hybrid") parts.push(h.lexScore > 0 ? `lex ${h.lexNorm.toFixed(2)} (bm25 ${h.lexScore.toFixed(2)})` : "lex —");
  parts.push(h.vecScore !== 0 ? `vec ${h.vecScore.toFixed(3)}` : "vec —");
  return parts.join(" · ");
}

function footer(res: SearchResponse, model: ModelLoad | null): string {
  const bits = [`${res.hits.length} results`, res.mode];
  if (res.weights)
    bits.push(`${res.weights.method} lex ${res.weights.lex.toFixed(2)} / vec ${res.weights.vec.toFixed(2)} (${res.weights.reason})`);
  if (res.semanticCoverage != null && res.semanticCoverage < 1) bits.push(`${Math.round(res.semanticCoverage * 100)}% embedded`);
  if (res.strongSignal) bits.push("strong lexical signal");
  bits.push(ms(res.tookMs));
  if (model) bits.push(`model ${describeModel(model)}`);
  return bits.join(" · ");
}
