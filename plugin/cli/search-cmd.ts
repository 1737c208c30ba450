// `strata search <vault> "<query>"`: search the vault's index (indexing it first if it has none).

import type { Hit, SearchFilters, SearchMode, SearchRequest, SearchResponse, StrataCoreApi } from "../core/api.ts";
import { coreErrorCode, errorMessage } from "../core/errors.ts";
import { searchWithSnippets, type ReadNote } from "../core/note-reads.ts";
import { describeModel, modelReport, type ModelLoad } from "../core/models.ts";
import { groupByNote } from "../core/group-hits.ts";
import { hostClock } from "../core/structured.ts";
import {
  CliError,
  CODE_USAGE,
  codeOptions,
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
              [--k N] [--folder F] [--tag T] [--property KEY=VALUE] [--where "<expression>"] [--depth-min N] [--depth-max N]
              [--order relevance|shallow|deep] [--group note|section] [--weak] [--refresh] [--no-embed] [--embed-limit 256]
              [--lang python,go…] [--kind function,method|class|interface|type|enum|constant|module] ${CODE_USAGE}
              ${MODEL_USAGE} [--index-dir DIR] [--config-dir .obsidian] [--json]`;

/** --lang and --kind: a name, or several separated by commas (any of them matches). */
export function codeFilter(value: string | undefined, name: "lang" | "kind"): string | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (items.length === 0 || items.some((s) => !/^[a-z0-9+#_-]+$/.test(s))) {
    const example = name === "lang" ? "python or python,go" : "function or function,method";
    throw new CliError(`--${name} expects a name or several separated by commas (${example}), got ${JSON.stringify(value)}`, 2);
  }
  return items.join(",");
}

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

/** The core's request errors as exit code 2 (a bad request without its code: it says what to fix). */
function usageError(err: unknown): unknown {
  const code = coreErrorCode(err);
  if (code === "bad-request") return new CliError(errorMessage(err).replace(/^\[bad-request\]\s*/, ""), 2);
  return code === "unavailable" ? new CliError(errorMessage(err), 2) : err;
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
    ...codeOptions,
    mode: { type: "string" },
    queries: { type: "string", multiple: true },
    fusion: { type: "string" },
    k: { type: "string" },
    folder: { type: "string" },
    tag: { type: "string" },
    property: { type: "string" },
    where: { type: "string" },
    "depth-min": { type: "string" },
    "depth-max": { type: "string" },
    lang: { type: "string" },
    kind: { type: "string" },
    order: { type: "string" },
    group: { type: "string" },
    refresh: { type: "boolean" },
    "no-embed": { type: "boolean" },
    "embed-limit": { type: "string" },
    snippets: { type: "boolean", default: true },
    weak: { type: "boolean" },
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
  if (values.where?.trim()) Object.assign(filters, { where: values.where }, hostClock());
  filters.minDepth = intOption(values["depth-min"], "depth-min");
  filters.maxDepth = intOption(values["depth-max"], "depth-max");
  const lang = codeFilter(values.lang, "lang");
  if (lang) filters.lang = lang;
  const kind = codeFilter(values.kind, "kind");
  if (kind) filters.kind = kind;
  const order = values.order ?? "relevance";
  if (!["relevance", "shallow", "deep"].includes(order)) throw new CliError(`--order must be relevance, shallow or deep`, 2);
  const mode = parseMode(values.mode);
  const json = Boolean(values.json);
  const group = parseGroup(values.group, json);
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
    const { hits, ...rest } = res;
    const body = group === "note" ? { notes: groupByNote(hits), ...rest } : { hits, ...rest };
    process.stdout.write(JSON.stringify({ query, queries, model: model && modelReport(model), group, ...body }, null, 2) + "\n");
    return 0;
  }
  const tty = ttyOut();
  const out: string[] = [];
  if (res.hits.length === 0) out.push(`no results for ${JSON.stringify(query)} (${res.mode}, ${ms(res.tookMs)})`);
  const pathText = (p: string) => (tty ? `\x1b[36m${p}\x1b[39m` : p);
  const line = (h: Hit) => `(lines ${h.startLine}–${h.endLine}, ${breakdown(h, res.mode)})`;
  // A code hit: cited as path:line, its language, kind and signature on the next line.
  const code = (h: Hit, indent: string) => {
    const label = codeLabel(h);
    if (label) out.push(`${indent}${label}`);
  };
  const snippet = (h: Hit, indent: string) => {
    if (h.snippet && h.snippet.text.trim() !== "") out.push(`${indent}${renderSnippet(h.snippet, tty)}`);
  };
  // Weaker matches (neither list's evidence stands out) come last, and are listed with --weak only.
  const weak = res.hits.filter((h) => h.weak).length;
  const listed = values.weak ? res.hits : res.hits.filter((h) => !h.weak);
  const notes = group === "note" ? groupByNote(listed) : listed.map((h) => ({ path: h.path, title: h.title, hits: [h] }));
  if (res.hits.length > 0 && listed.length === 0) out.push(`no matches for ${JSON.stringify(query)} (${res.mode}, ${ms(res.tookMs)})`);
  let weakHeader = false;
  notes.forEach((n, i) => {
    if (!weakHeader && n.hits.every((h) => h.weak)) {
      weakHeader = true;
      out.push("weaker matches (few of the query's words, not much closer in meaning than the rest of the vault):");
    }
    const rank = `${String(i + 1).padStart(2)}. `;
    if (n.hits.length === 1) {
      const h = n.hits[0];
      const where = h.code ? `${h.path}:${h.startLine}` : h.path;
      out.push(`${rank}${pathText(where)}${h.headingPath ? ` › ${crumb(h)}` : ""}  ${line(h)}`);
      code(h, "    ");
      snippet(h, "    ");
      return;
    }
    // A note with several hits: the note, then each section under it (as the sidebar shows them).
    out.push(`${rank}${pathText(n.path)}  (${n.hits.length} sections)`);
    for (const h of n.hits) {
      // A definition cited whole (path:line: a terminal or an editor opens it there).
      const where = h.code ? `${pathText(`${h.path}:${h.startLine}`)} ` : "";
      out.push(`    ${where}› ${(h.headingPath && crumb(h)) || n.title || "(top of the note)"}  ${line(h)}`);
      code(h, "      ");
      snippet(h, "      ");
    }
  });
  // "in N notes" when grouping merged some (in hybrid and semantic each hit is already a note).
  if (listed.length > 0) out.push(footer(res, model, notes.length < listed.length ? notes.length : null, listed.length));
  if (weak > 0 && !values.weak) out.push(`${weak} weaker match${weak === 1 ? "" : "es"} not shown (--weak lists them)`);
  process.stdout.write(out.join("\n") + "\n");
  return 0;
}

/** A hit's heading path as the CLI shows it: a code hit's breadcrumb "Class › method". */
function crumb(h: Hit): string {
  return h.code ? h.headingPath.split(" > ").join(" › ") : h.headingPath;
}

/** "[python method] def rebuild_auth(self, prepared_request, response):" for a code hit (its
 *  signature on one line, at most 160 characters); "" for a note's section. */
export function codeLabel(h: Hit): string {
  if (!h.code) return "";
  const sig = h.code.signature.replace(/\s+/g, " ").trim();
  const shown = sig.length > 160 ? `${sig.slice(0, 159)}…` : sig;
  const flags = h.code.syntaxErrors ? " (syntax errors)" : "";
  return `[${h.code.lang} ${h.code.kind}]${flags}${shown ? ` ${shown}` : h.code.name ? ` ${h.code.name}` : ""}`;
}

/** --group: by note (the default on a terminal, as the plugin shows results) or one line per section
 *  (the default with --json, whose `hits` are the core's). */
export function parseGroup(value: string | undefined, json: boolean): "note" | "section" {
  const group = value ?? (json ? "section" : "note");
  if (group !== "note" && group !== "section") throw new CliError(`--group must be note or section, got ${JSON.stringify(value)}`, 2);
  return group;
}

/** The short score breakdown of a hit: the final score, then its lexical and vector parts. */
export function breakdown(h: Hit, mode: SearchMode): string {
  if (mode === "lexical") return `score ${h.score.toFixed(3)}`;
  const parts = [`score ${h.finalScore.toFixed(4)}`];
  if (mode === "hybrid") parts.push(h.lexScore > 0 ? `lex ${h.lexNorm.toFixed(2)} (bm25 ${h.lexScore.toFixed(2)})` : "lex —");
  parts.push(h.vecScore !== 0 ? `vec ${h.vecScore.toFixed(3)}` : "vec —");
  return parts.join(" · ");
}

function footer(res: SearchResponse, model: ModelLoad | null, notes: number | null, results: number): string {
  const bits = [`${results} results${notes === null ? "" : ` in ${notes} note${notes === 1 ? "" : "s"}`}`, res.mode];
  if (res.weights)
    bits.push(`${res.weights.method} lex ${res.weights.lex.toFixed(2)} / vec ${res.weights.vec.toFixed(2)} (${res.weights.reason})`);
  if (res.semanticCoverage != null && res.semanticCoverage < 1) bits.push(`${Math.round(res.semanticCoverage * 100)}% embedded`);
  if (res.strongSignal) bits.push("strong lexical signal");
  bits.push(ms(res.tookMs));
  if (model) bits.push(`model ${describeModel(model)}`);
  return bits.join(" · ");
}
