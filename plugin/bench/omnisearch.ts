// The comparison engine of `strata bench`: MiniSearch configured the way the Omnisearch plugin
// configures it (fields basename/directory/aliases/content/H1/H2/H3, boosts 3/2/3/1/1.5/1.3/1.1,
// prefix search, fuzziness 0.05–0.1 by term length, tokens de-duplicated per field, queries as
// an OR of AND groups). Written for the comparison from Omnisearch's documented behaviour; it is
// not Omnisearch's code. Without Omnisearch's optional Chinese word-splitting plugin, a run of
// Han/Kana characters is one token, as in a default Omnisearch install.

import MiniSearch, { type Options, type SearchResult } from "minisearch";
import * as path from "node:path";

import type { VaultSource } from "../core/note-reads.ts";

export interface OmniDoc {
  path: string;
  basename: string;
  aliases: string;
  content: string;
  headings1: string;
  headings2: string;
  headings3: string;
}

export const OMNI_BOOST = { basename: 3, directory: 2, aliases: 3, headings1: 1.5, headings2: 1.3, headings3: 1.1 };
/** Omnisearch's default fuzziness setting ("1" = 0.1): none up to 3 chars, half up to 5. */
const FUZZINESS = 0.1;

const SPACE_OR_PUNCTUATION = /[|\t\n\r\p{Z}\p{P}]+/u;
const BRACKETS_AND_SPACE = /[|[\](){}<> \t\n\r]+/u;

function splitHyphens(token: string): string[] {
  return token.includes("-") ? token.split("-").filter(Boolean) : [];
}

function splitCamelCase(token: string): string[] {
  const parts = token.split(/(?<=\p{Ll})(?=\p{Lu})/u);
  return parts.length > 1 ? parts : [];
}

/** Indexing tokens: punctuation-split tokens, their hyphen and camelCase parts, bracket-split words; unique. */
export function tokenizeForIndexing(text: string): string[] {
  const tokens = text.split(SPACE_OR_PUNCTUATION).filter(Boolean);
  const words = text.split(BRACKETS_AND_SPACE).filter(Boolean);
  const all = tokens.flatMap((t) => [t, ...splitHyphens(t), ...splitCamelCase(t)]);
  return [...new Set([...all, ...words])];
}

function removeDiacritics(s: string): string {
  return s
    .normalize("NFD")
    .replace(/\p{Diacritic}/gu, "")
    .normalize("NFC");
}

export function omnisearchOptions(): Options<OmniDoc> {
  return {
    idField: "path",
    fields: ["basename", "directory", "aliases", "content", "headings1", "headings2", "headings3"],
    storeFields: [],
    tokenize: tokenizeForIndexing,
    processTerm: (term: string) => removeDiacritics(term).toLowerCase(),
    extractField: (doc, field) => {
      if (field === "directory") return path.posix.dirname(doc.path) === "." ? "" : path.posix.dirname(doc.path);
      return (doc as unknown as Record<string, string>)[field];
    },
  };
}

/** Omnisearch's query: OR of AND groups (tokens, words, hyphen parts, camelCase parts). */
export function omniSearch(ms: MiniSearch<OmniDoc>, query: string): SearchResult[] {
  const tokens = query.split(SPACE_OR_PUNCTUATION).filter(Boolean);
  const words = query.split(BRACKETS_AND_SPACE).filter(Boolean);
  const groups = [tokens, words, tokens.flatMap(splitHyphens), tokens.flatMap(splitCamelCase)].filter((g) => g.length > 0);
  if (groups.length === 0) return [];
  return ms.search(
    { combineWith: "OR", queries: groups.map((g) => ({ combineWith: "AND", queries: g })) },
    {
      prefix: (term) => term.length >= 1,
      fuzzy: (term) => (term.length <= 3 ? 0 : term.length <= 5 ? FUZZINESS / 2 : FUZZINESS),
      boost: OMNI_BOOST,
      tokenize: (t) => [t],
    },
  );
}

/** The document Omnisearch builds for a note: name, aliases, full text, H1/H2/H3 texts. */
export function omniDoc(notePath: string, text: string): OmniDoc {
  const headings: string[][] = [[], [], []];
  let fence: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    const f = /^\s{0,3}(```+|~~~+)/.exec(line);
    if (f) {
      if (fence === null) fence = f[1][0];
      else if (f[1][0] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const h = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (h && h[1].length <= 3) headings[h[1].length - 1].push(h[2]);
  }
  return {
    path: notePath,
    basename: path.posix.basename(notePath).replace(/\.[^.]*$/, ""),
    aliases: frontmatterAliases(text).join(" "),
    content: text,
    headings1: headings[0].join(" "),
    headings2: headings[1].join(" "),
    headings3: headings[2].join(" "),
  };
}

/** `aliases:` (or `alias:`) of the YAML frontmatter: inline list, scalar or block list. */
export function frontmatterAliases(text: string): string[] {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\s*(\r?\n|$)/.exec(text);
  if (!m) return [];
  const lines = m[1].split(/\r?\n/);
  const out: string[] = [];
  const clean = (s: string) => s.trim().replace(/^["']|["']$/g, "");
  for (let i = 0; i < lines.length; i++) {
    const kv = /^(aliases|alias)\s*:\s*(.*)$/.exec(lines[i]);
    if (!kv) continue;
    const v = kv[2].trim();
    if (v.startsWith("[")) {
      out.push(
        ...v
          .replace(/^\[|\]$/g, "")
          .split(",")
          .map(clean)
          .filter(Boolean),
      );
    } else if (v !== "") {
      out.push(clean(v));
    } else {
      for (i++; i < lines.length && /^\s*-\s+/.test(lines[i]); i++) out.push(clean(lines[i].replace(/^\s*-\s+/, "")));
      i--;
    }
  }
  return out;
}

/** Builds the MiniSearch index of every Markdown note of a vault (the same listing Strata walks). */
export async function buildOmni(vault: VaultSource): Promise<{ ms: MiniSearch<OmniDoc>; notes: number; bytes: number }> {
  const ms = new MiniSearch<OmniDoc>(omnisearchOptions());
  const listing = await vault.list((p) => p.toLowerCase().endsWith(".md"));
  const decoder = new TextDecoder("utf-8");
  let bytes = 0;
  const batch: OmniDoc[] = [];
  for (const f of listing.files) {
    let data: Uint8Array;
    try {
      data = await vault.read(f.path);
    } catch {
      continue;
    }
    bytes += data.byteLength;
    batch.push(omniDoc(f.path, decoder.decode(data)));
    if (batch.length >= 500) ms.addAll(batch.splice(0));
  }
  ms.addAll(batch);
  return { ms, notes: listing.files.length, bytes };
}

export function loadOmni(json: string): MiniSearch<OmniDoc> {
  return MiniSearch.loadJSON<OmniDoc>(json, omnisearchOptions());
}
