// Shared pieces of the CLI commands: errors with exit codes, argument parsing, opening a
// vault's index, and finding the repository (for the bench's default vault).

import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, type ParseArgsConfig } from "node:util";

import type { CoreConfig, OpenReport, StrataCoreApi } from "../core/api.ts";
import {
  defaultIndexDir,
  openIndex,
  reconcile,
  type ReconcileProgress,
  type ReconcileSummary,
} from "../core/client.ts";
import { checkVaultDir, FsIndexStore, loadCore, NodeVault } from "../core/node.ts";
import { Progress } from "./ui.ts";

/** An error the CLI reports as one line and an exit code (2 = usage/input, 1 = failure). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

type Options = NonNullable<ParseArgsConfig["options"]>;

export function parse<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new CliError((err as Error).message, 2);
  }
}

export function intOption(value: string | undefined, name: string, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new CliError(`--${name} expects an integer ≥ ${min}, got ${JSON.stringify(value)}`, 2);
  return n;
}

export const vaultOptions = {
  "index-dir": { type: "string" },
  "config-dir": { type: "string" },
  json: { type: "boolean" },
} as const;

export interface VaultContext {
  vaultDir: string;
  indexDir: string;
  config: CoreConfig;
  vault: NodeVault;
  store: FsIndexStore;
}

export async function vaultContext(
  vaultArg: string | undefined,
  opts: { "index-dir"?: string; "config-dir"?: string },
): Promise<VaultContext> {
  if (!vaultArg) throw new CliError("missing <vault> argument", 2);
  const vaultDir = path.resolve(vaultArg);
  const problem = await checkVaultDir(vaultDir);
  if (problem) throw new CliError(problem, 2);
  const configDir = opts["config-dir"] ?? ".obsidian";
  const indexDir = path.resolve(opts["index-dir"] ?? path.join(vaultDir, defaultIndexDir(configDir)));
  return {
    vaultDir,
    indexDir,
    config: { configDir },
    vault: new NodeVault(vaultDir, { configDir }),
    store: new FsIndexStore(indexDir),
  };
}

export interface Ready {
  core: StrataCoreApi;
  report: OpenReport;
  /** Set when the index was updated (fresh, rebuilt or refreshed). */
  summary?: ReconcileSummary;
}

/**
 * Opens the vault's index; indexes the vault when there is no usable index, or when
 * `refresh` is set. Progress goes to stderr unless `quiet`.
 */
export async function openVaultIndex(ctx: VaultContext, refresh: boolean, quiet: boolean): Promise<Ready> {
  const Core = loadCore();
  const { core, report } = await openIndex(Core, ctx.store, ctx.config);
  if (report.rebuilt && !quiet) {
    process.stderr.write(`strata: the index in ${ctx.indexDir} was unusable (${report.reason ?? "unknown reason"}); rebuilding it\n`);
  }
  if (!(report.fresh || report.rebuilt || refresh)) return { core, report };
  if (report.fresh && !quiet) process.stderr.write(`strata: no index yet in ${ctx.indexDir}; indexing ${ctx.vaultDir}\n`);
  const summary = await indexWithProgress(core, ctx, quiet);
  return { core, report, summary };
}

export async function indexWithProgress(core: StrataCoreApi, ctx: VaultContext, quiet: boolean): Promise<ReconcileSummary> {
  const bar = quiet ? undefined : new Progress("indexing");
  try {
    return await reconcile(core, ctx.vault, {
      store: ctx.store,
      onProgress: (p: ReconcileProgress) => bar?.update(p.phase, p.done, p.total),
    });
  } finally {
    bar?.end();
  }
}

/** The repository root (the folder holding Strata's package.json), found from this module. */
export function repoRoot(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const pkg = path.join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        if (JSON.parse(readFileSync(pkg, "utf8")).name === "strata-search") return dir;
      } catch {
        // not ours
      }
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}
