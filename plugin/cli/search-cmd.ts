// `strata search <vault> "<query>"`: search the vault's index (indexing it first if it has none).

import type { SearchFilters, SearchMode, SearchRequest, SearchResponse } from "../core/api.ts";
import { coreErrorCode, errorMessage } from "../core/client.ts";
import { CliError, intOption, openVaultIndex, parse, vaultContext, vaultOptions } from "./common.ts";
import { ms, renderSnippet, ttyOut } from "./ui.ts";

export const SEARCH_USAGE = `strata search <vault> "<query>" [--mode lexical|semantic|hybrid] [--k N] [--folder F] [--tag T]
              [--property KEY=VALUE] [--depth-min N] [--depth-max N] [--order relevance|shallow|deep]
              [--refresh] [--index-dir DIR] [--config-dir .obsidian] [--json]`;

const MODES: SearchMode[] = ["lexical", "semantic", "hybrid"];

export function parseMode(value: string | undefined): SearchMode {
  const mode = (value ?? "lexical") as SearchMode;
  if (!MODES.includes(mode)) throw new CliError(`--mode must be one of ${MODES.join(", ")}, got ${JSON.stringify(value)}`, 2);
  return mode;
}

export async function searchCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...vaultOptions,
    mode: { type: "string" },
    k: { type: "string" },
    folder: { type: "string" },
    tag: { type: "string" },
    property: { type: "string" },
    "depth-min": { type: "string" },
    "depth-max": { type: "string" },
    order: { type: "string" },
    refresh: { type: "boolean" },
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
  const req: SearchRequest = {
    query,
    mode: parseMode(values.mode),
    k: intOption(values.k, "k", 1) ?? 10,
    filters,
    depthOrder: order as SearchRequest["depthOrder"],
    snippets: true,
  };

  const ctx = await vaultContext(vaultArg, values);
  const json = Boolean(values.json);
  const { core, summary } = await openVaultIndex(ctx, Boolean(values.refresh), false);
  if (summary && !json) {
    process.stderr.write(
      `strata: indexed ${summary.added + summary.updated + summary.moved} notes, ${summary.unchanged} unchanged, ${summary.deleted} deleted\n`,
    );
  }
  let res: SearchResponse;
  try {
    res = core.search(req);
  } catch (err) {
    const code = coreErrorCode(err);
    if (code === "unavailable" || code === "bad-request") throw new CliError(errorMessage(err), 2);
    throw err;
  }
  core.free();

  if (json) {
    process.stdout.write(JSON.stringify({ query, ...res }, null, 2) + "\n");
    return 0;
  }
  const tty = ttyOut();
  const out: string[] = [];
  if (res.hits.length === 0) out.push(`no results for ${JSON.stringify(query)} (${res.mode}, ${ms(res.tookMs)})`);
  res.hits.forEach((h, i) => {
    const where = h.headingPath ? ` › ${h.headingPath}` : "";
    const pathText = tty ? `\x1b[36m${h.path}\x1b[39m` : h.path;
    out.push(`${String(i + 1).padStart(2)}. ${pathText}${where}  (lines ${h.startLine}–${h.endLine}, score ${h.score.toFixed(3)})`);
    if (h.snippet && h.snippet.text.trim() !== "") out.push(`    ${renderSnippet(h.snippet, tty)}`);
  });
  if (res.hits.length > 0) out.push(`${res.hits.length} results · ${res.mode} · ${ms(res.tookMs)}`);
  process.stdout.write(out.join("\n") + "\n");
  return 0;
}
