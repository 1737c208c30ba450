// `strata tasks <vault>`, `strata query <vault> "<expression>"` and `strata outline <vault>
// <note>`: the core's structured queries over the vault's index (indexing it first if it has none).

import type { DateRange, QueryRequest, QueryResponse, StrataCoreApi, TaskHit, TasksRequest, TasksResponse } from "../core/api.ts";
import { coreErrorCode, errorMessage } from "../core/errors.ts";
import { hostClock, isIsoDate, outlineText, outlineWithTasks, taskCounts, taskLine } from "../core/structured.ts";
import { loadCore, type NodeVault } from "../node/host.ts";
import { CliError, intOption, openVaultIndex, parse, vaultContext, vaultOptions } from "./common.ts";
import { ms, ttyOut } from "./ui.ts";

export const TASKS_USAGE = `strata tasks <vault> [--status open|closed|all|todo|done|in-progress|cancelled|…|<char>]… [--folder F] [--note PATH]
              [--tag T] [--text WORDS] [--where "<expression>"] [--when overdue|today|this-week] [--priority P]
              [--due-before D] [--due-after D] [--due-on D] [--scheduled-before D] [--scheduled-after D] [--scheduled-on D]
              [--done-before D] [--done-after D] [--done-on D] [--sort path|due|priority] [--group-by status|folder|note|tag]
              [--limit 200] [--today YYYY-MM-DD] [--refresh] [--index-dir DIR] [--config-dir .obsidian] [--json]`;

export const QUERY_USAGE = `strata query <vault> "<expression>" [--sort "field [asc|desc], -field"] [--limit 100] [--offset N]
              [--today YYYY-MM-DD] [--refresh] [--index-dir DIR] [--config-dir .obsidian] [--json]
              expression: status = draft AND (priority >= 2 OR tags contains urgent) AND file.mtime >= today-7d
              fields: frontmatter keys; file.path, file.name, file.folder, file.tags, file.title, file.size,
              file.mtime, file.ctime (the file's creation time, when the file system knows it)`;

export const OUTLINE_USAGE = `strata outline <vault> <note path> [--tasks 10] [--refresh] [--index-dir DIR] [--config-dir .obsidian] [--json]`;

const DATE_FLAGS = ["due", "scheduled", "done"] as const;
const BOUNDS = ["before", "after", "on"] as const;

/** The core's request errors (a bad expression, a bad date) as exit code 2. */
function asked<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (coreErrorCode(err) === "bad-request") throw new CliError(errorMessage(err).replace(/^\[bad-request\]\s*/, ""), 2);
    throw err;
  }
}

function todayOption(value: string | undefined): string {
  if (value === undefined) return hostClock().today;
  if (!isIsoDate(value)) throw new CliError(`--today expects YYYY-MM-DD, got ${JSON.stringify(value)}`, 2);
  return value;
}

function oneOfOption<T extends string>(value: string | undefined, name: string, values: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  const v = value.replace(/\s+/g, "-") as T;
  if (!values.includes(v)) throw new CliError(`--${name} must be one of ${values.join(", ")}, got ${JSON.stringify(value)}`, 2);
  return v;
}

/** Opens the index (indexing the vault when it has none), runs `fn` on the core, frees it. */
async function withCore<T>(
  vaultArg: string,
  values: Record<string, unknown>,
  what: string,
  fn: (core: StrataCoreApi, vault: NodeVault) => T | Promise<T>,
): Promise<T> {
  const ctx = await vaultContext(vaultArg, values, { access: "read", what });
  const json = Boolean(values.json);
  const { core, summary } = await openVaultIndex(ctx, Boolean(values.refresh), json && !process.stderr.isTTY);
  if (summary && !json) {
    process.stderr.write(
      `strata: indexed ${summary.added + summary.updated + summary.moved} notes, ${summary.unchanged} unchanged, ${summary.deleted} deleted\n`,
    );
  }
  try {
    return await fn(core, ctx.vault);
  } finally {
    core.free();
  }
}

export async function tasksCommand(args: string[]): Promise<number> {
  const dateOptions = Object.fromEntries(
    DATE_FLAGS.flatMap((d) => BOUNDS.map((b) => [`${d}-${b}`, { type: "string" as const }])),
  ) as Record<`${(typeof DATE_FLAGS)[number]}-${(typeof BOUNDS)[number]}`, { type: "string" }>;
  const { values, positionals } = parse(args, {
    ...vaultOptions,
    ...dateOptions,
    status: { type: "string", multiple: true },
    folder: { type: "string" },
    note: { type: "string" },
    tag: { type: "string" },
    text: { type: "string" },
    where: { type: "string" },
    when: { type: "string" },
    priority: { type: "string" },
    sort: { type: "string" },
    "group-by": { type: "string" },
    limit: { type: "string" },
    today: { type: "string" },
    refresh: { type: "boolean" },
  });
  const [vaultArg, ...extra] = positionals;
  if (!vaultArg || extra.length > 0) throw new CliError(`usage: ${TASKS_USAGE}`, 2);
  const req: TasksRequest = { today: todayOption(values.today), limit: intOption(values.limit, "limit", 1) ?? 200 };
  const status = (values.status ?? ["open"]).flatMap((s) => s.split(",")).map((s) => s.trim());
  if (!status.includes("all")) req.status = status.filter((s) => s !== "");
  for (const k of ["folder", "tag", "text", "where", "priority"] as const) if (values[k]?.trim()) req[k] = values[k].trim();
  if (values.note) req.path = values.note;
  for (const d of DATE_FLAGS) {
    const r: DateRange = {};
    for (const b of BOUNDS) if (values[`${d}-${b}`] !== undefined) r[b] = values[`${d}-${b}`];
    if (Object.keys(r).length > 0) req[d] = r;
  }
  req.when = oneOfOption(values.when, "when", ["overdue", "today", "this-week"] as const);
  req.sort = oneOfOption(values.sort, "sort", ["path", "due", "priority"] as const);
  req.groupBy = oneOfOption(values["group-by"], "group-by", ["status", "folder", "note", "tag"] as const);

  const res: TasksResponse = await withCore(vaultArg, values, "strata tasks", (core) => asked(() => core.tasks(req)));
  if (values.json) {
    process.stdout.write(JSON.stringify({ request: req, ...res }, null, 2) + "\n");
    return 0;
  }
  const tty = ttyOut();
  const dim = (s: string) => (tty ? `\x1b[2m${s}\x1b[22m` : s);
  const where = (t: TaskHit, withPath: boolean) =>
    dim(`${withPath ? `${t.path}:${t.line}` : `line ${t.line}`}${t.heading ? ` › ${t.heading}` : ""}`);
  const out: string[] = [];
  if (res.groups.length > 0) {
    for (const g of res.groups) {
      out.push(`${tty ? "\x1b[1m" : ""}${g.key || "(none)"}${tty ? "\x1b[22m" : ""} (${g.count})`);
      for (const t of g.tasks) out.push(`  ${taskLine(t)}  ${where(t, req.groupBy !== "note")}`);
      if (g.tasks.length < g.count) out.push(`  … ${g.count - g.tasks.length} more`);
    }
  } else {
    for (const t of res.tasks) out.push(`${taskLine(t)}  ${where(t, true)}`);
  }
  const shown = res.tasks.length + res.groups.reduce((n, g) => n + g.tasks.length, 0);
  out.push(`${taskCounts(res.total, res.byStatus)}${shown < res.total ? `, ${shown} shown (--limit)` : ""} · ${ms(res.tookMs)}`);
  process.stdout.write(out.join("\n") + "\n");
  return 0;
}

export async function queryCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...vaultOptions,
    sort: { type: "string" },
    limit: { type: "string" },
    offset: { type: "string" },
    today: { type: "string" },
    refresh: { type: "boolean" },
  });
  const [vaultArg, ...rest] = positionals;
  const expression = rest.join(" ").trim();
  if (!vaultArg) throw new CliError(`usage: ${QUERY_USAGE}`, 2);
  const clock = hostClock();
  const req: QueryRequest = {
    today: todayOption(values.today),
    utcOffsetMinutes: clock.utcOffsetMinutes,
    limit: intOption(values.limit, "limit", 1) ?? 100,
    offset: intOption(values.offset, "offset") ?? 0,
  };
  if (values.today === undefined) req.now = clock.now;
  if (expression) req.where = expression;
  if (values.sort?.trim()) req.sort = values.sort.trim();
  const res: QueryResponse = await withCore(vaultArg, values, "strata query", (core) => asked(() => core.query(req)));
  if (values.json) {
    process.stdout.write(JSON.stringify({ request: req, ...res }, null, 2) + "\n");
    return 0;
  }
  const out = res.notes.map((n) => {
    const fields = Object.entries(n.fields).map(([k, v]) => {
      const shown =
        (k === "file.mtime" || k === "file.ctime") && typeof v === "number"
          ? new Date(v).toISOString().slice(0, 16).replace("T", " ")
          : JSON.stringify(v);
      return `${k}=${shown}`;
    });
    return `${n.path}${fields.length ? `  ${fields.join("  ")}` : ""}`;
  });
  const offset = req.offset ?? 0;
  const more = offset + res.notes.length < res.total ? `, ${res.notes.length} shown from ${offset} (--limit, --offset)` : "";
  out.push(`${res.total} note${res.total === 1 ? "" : "s"}${more} · ${ms(res.tookMs)}`);
  process.stdout.write(out.join("\n") + "\n");
  return 0;
}

export async function outlineCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...vaultOptions, tasks: { type: "string" }, refresh: { type: "boolean" } });
  const [vaultArg, noteArg, ...extra] = positionals;
  if (!vaultArg || !noteArg || extra.length > 0) throw new CliError(`usage: ${OUTLINE_USAGE}`, 2);
  const perHeading = intOption(values.tasks, "tasks") ?? 10;
  const path = noteArg.replace(/\\/g, "/");
  const o = await withCore(vaultArg, values, "strata outline", async (core, vault) => {
    let bytes: Uint8Array;
    try {
      bytes = await vault.read(path);
    } catch {
      throw new CliError(`${path}: no such note in the vault (give its vault-relative path, e.g. "Projects/Plan.md")`, 2);
    }
    const info = core.note(path) ?? null;
    const tasks = info ? asked(() => core.tasks({ path, limit: 1000, today: hostClock().today })).tasks : [];
    return outlineWithTasks(loadCore().outline(bytes), info, tasks);
  });
  if (values.json) {
    process.stdout.write(JSON.stringify({ path, ...o }, null, 2) + "\n");
    return 0;
  }
  process.stdout.write(outlineText(path, o, perHeading) + "\n");
  return 0;
}
