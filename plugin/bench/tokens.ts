// `strata-bench tokens <vault> [--model M]`: where a vault's embedded tokens go, without embedding
// anything. The vault is indexed in a temporary folder, then every note's embed texts (its lead,
// then its leaves: core.embedTexts) are tokenized by the model's tokenizer (the embedder wasm's
// tokenIds) and counted: leads against leaves, their token lengths, texts cut at the model's
// maximum, tiny leaves, texts shared by several notes (one SHA-256 key, embedded once: the
// core's total must be the number of distinct texts), notes of one section (whose lead and leaf
// overlap), and the leaf tokens a 256-token cap would leave.

import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";

import { initSync, StrataEmbedder } from "../../build/wasm/strata_embedder.js";
import { openIndex } from "../core/index-store.ts";
import { EMBEDDER_WASM_NAME, FsIndexStore, findWasm, loadCore, loadModelFiles, findModelDir, NodeVault } from "../node/host.ts";
import { loadedModel } from "../core/wasm-classes.ts";
import { reconcile } from "../core/reconcile.ts";
import { CliError, parse } from "../cli/common.ts";
import { CONFIG } from "./settings.ts";

export const TOKENS_USAGE = "npm run bench -- tokens <vault> [--model all-MiniLM-L6-v2|multilingual-e5-small] [--json]";

interface Lengths {
  count: number;
  tokens: number;
  p10: number;
  p50: number;
  p90: number;
  max: number;
}

function lengths(xs: number[]): Lengths {
  const s = [...xs].sort((a, b) => a - b);
  const q = (f: number) => s[Math.min(s.length - 1, Math.floor(f * s.length))] ?? 0;
  return { count: s.length, tokens: s.reduce((a, b) => a + b, 0), p10: q(0.1), p50: q(0.5), p90: q(0.9), max: s.at(-1) ?? 0 };
}

export async function tokensCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { model: { type: "string" }, json: { type: "boolean" } });
  const vaultDir = positionals[0];
  if (!vaultDir) throw new CliError(`usage: ${TOKENS_USAGE}`, 2);
  const id = values.model ?? "all-MiniLM-L6-v2";
  const files = await loadModelFiles(findModelDir(id));
  if (!files) throw new CliError(`no ${id} model in ${findModelDir(id)}`, 2);
  const dir = await mkdtemp(path.join(os.tmpdir(), "strata-tokens-"));
  try {
    const store = new FsIndexStore(dir);
    const { core } = await openIndex(loadCore(), store, CONFIG);
    const vault = new NodeVault(vaultDir);
    await reconcile(core, vault, { store });
    const progress = core.loadModel(files.model, files.tokenizer, id);
    // The tokenizer as the core's embedder has it (same bytes, same config).
    const model = loadedModel(id)!;
    initSync({ module: await readFile(findWasm(EMBEDDER_WASM_NAME)) });
    const tokenizer = new StrataEmbedder(model.model, files.tokenizer, model.config);
    const maxTokens = (model.config as { max_tokens: number }).max_tokens;
    const seen = new Map<string, { lead: boolean; tokens: number; notes: number }>();
    let chunks = 0;
    const oneSection = { notes: 0, leadTokens: 0, leafTokens: 0 };
    let leafTokensAt256 = 0;
    for (const p of core.paths()) {
      const texts = core.embedTexts(p, await vault.read(p));
      const lengths = texts.map((t) => tokenizer.tokenIds(t).length);
      if (texts.length === 2) {
        oneSection.notes++;
        oneSection.leadTokens += Math.min(maxTokens, lengths[0]);
        oneSection.leafTokens += Math.min(maxTokens, lengths[1]);
      }
      texts.forEach((t, i) => {
        chunks++;
        const key = createHash("sha256").update(t).digest("hex");
        const had = seen.get(key);
        if (had) had.notes++;
        else {
          seen.set(key, { lead: i === 0, tokens: Math.min(maxTokens, lengths[i]), notes: 1 });
          if (i > 0) leafTokensAt256 += Math.min(256, maxTokens, lengths[i]);
        }
      });
    }
    tokenizer.free();
    const all = [...seen.values()];
    const leads = lengths(all.filter((x) => x.lead).map((x) => x.tokens));
    const leaves = lengths(all.filter((x) => !x.lead).map((x) => x.tokens));
    const res = {
      vault: vaultDir,
      model: id,
      maxTokens,
      notes: core.paths().length,
      chunks,
      distinct: all.length,
      coreTotal: progress.total,
      sharedTexts: all.filter((x) => x.notes > 1).length,
      leads,
      leaves,
      leadShare: Math.round((leads.tokens / (leads.tokens + leaves.tokens)) * 1000) / 1000,
      cutLeaves: all.filter((x) => !x.lead && x.tokens >= maxTokens).length,
      leavesUnder32: all.filter((x) => !x.lead && x.tokens < 32).length,
      tokensPerNote: Math.round((leads.tokens + leaves.tokens) / Math.max(1, core.paths().length)),
      oneSection,
      leafTokensAt256,
    };
    core.free();
    if (values.json) process.stdout.write(JSON.stringify(res, null, 2) + "\n");
    else {
      const row = (name: string, l: Lengths) =>
        `  ${name}: ${l.count} texts, ${l.tokens} tokens; length p10 ${l.p10}, p50 ${l.p50}, p90 ${l.p90}, max ${l.max}`;
      process.stdout.write(
        [
          `${res.notes} notes of ${vaultDir}, ${id} (at most ${maxTokens} tokens a text):`,
          `  ${chunks} texts, ${res.distinct} distinct (the core's total: ${res.coreTotal}); ${res.sharedTexts} texts in more than one note`,
          row("leads", leads),
          row("leaves", leaves),
          `  leads are ${(res.leadShare * 100).toFixed(1)} % of the tokens; ${res.cutLeaves} leaves cut at ${maxTokens} tokens; ${res.leavesUnder32} leaves under 32 tokens; ${res.tokensPerNote} tokens per note`,
          `  ${oneSection.notes} notes of one section (a lead and one leaf): their leads ${oneSection.leadTokens} tokens, their leaves ${oneSection.leafTokens}; every leaf at most 256 tokens: ${leafTokensAt256} leaf tokens`,
        ].join("\n") + "\n",
      );
    }
    return 0;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
