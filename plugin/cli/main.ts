// The `strata` command: index, search, list tasks, query properties and evaluate a vault with the wasm core, serve it to
// Claude over MCP. The benchmarks are a separate bundle (plugin/bench, dist/strata-bench.js).

import { CliError, runMain } from "./common.ts";
import { evalCommand, EVAL_USAGE } from "./eval-cmd.ts";
import { indexCommand, INDEX_USAGE } from "./index-cmd.ts";
import { mcpCommand, MCP_USAGE } from "./mcp-cmd.ts";
import { modelCommand, MODEL_USAGE } from "./model-cmd.ts";
import { searchCommand, SEARCH_USAGE } from "./search-cmd.ts";
import { similarCommand, SIMILAR_USAGE } from "./similar-cmd.ts";
import { outlineCommand, OUTLINE_USAGE, queryCommand, QUERY_USAGE, tasksCommand, TASKS_USAGE } from "./tasks-cmd.ts";

const USAGE = `Strata: local search for an Obsidian vault.

usage:
  ${INDEX_USAGE}
  ${SEARCH_USAGE}
  ${SIMILAR_USAGE}
  ${TASKS_USAGE}
  ${QUERY_USAGE}
  ${OUTLINE_USAGE}
  ${EVAL_USAGE}
  ${MCP_USAGE}
  ${MODEL_USAGE}

The index lives in <vault>/<config-dir>/plugins/strata-search/index/ unless --index-dir is given.
Semantic and hybrid search need an embedding model in models/<id>/: all-MiniLM-L6-v2 (English) or
multilingual-e5-small (\`strata model download\` gets them from the release, checked against its SHA-256
table; in the repository scripts/fetch-model.sh and scripts/fetch-e5.sh make them; STRATA_MODELS overrides
the models/ folder, STRATA_MODEL_DIR the all-MiniLM-L6-v2 one). --model auto (the default) picks multilingual-e5-small when
10% or more of the vault's text is not in English. Without a model, hybrid (the default) answers lexically.
Exit codes: 0 ok, 1 failure, 2 bad usage or input (missing vault, unknown option, unavailable mode),
130 interrupted (Ctrl-C while embedding: the work done so far is saved).
`;

/** What `strata bench` answers: the benchmarks are a bundle of their own, run from the repository. */
const BENCH_MOVED =
  "the benchmarks are not part of the strata CLI: in the repository, run `npm run bench -- [vault] [options]` " +
  "(it builds and runs dist/strata-bench.js; `npm run bench -- --help` lists the options)";

/** The usage `strata <command> --help` (or -h, or `strata help <command>`) prints, exit 0;
 *  `model` and `mcp` print their own, longer help. */
const COMMAND_USAGE: Record<string, string> = {
  index: INDEX_USAGE,
  search: SEARCH_USAGE,
  similar: SIMILAR_USAGE,
  tasks: TASKS_USAGE,
  query: QUERY_USAGE,
  outline: OUTLINE_USAGE,
  eval: EVAL_USAGE,
};

const wantsHelp = (args: string[]) => args.some((a) => a === "--help" || a === "-h");

async function main(argv: string[]): Promise<number> {
  const [cmd, ...args] = argv;
  if (cmd === "help" && args[0] && args[0] !== "help") return main([args[0], "--help"]);
  if (cmd && Object.hasOwn(COMMAND_USAGE, cmd) && wantsHelp(args)) {
    process.stdout.write(
      `usage: ${COMMAND_USAGE[cmd]}\n\nRun \`strata help\` for what every command shares (the index's folder, models, exit codes).\n`,
    );
    return 0;
  }
  switch (cmd) {
    case "index":
      return indexCommand(args);
    case "search":
      return searchCommand(args);
    case "similar":
      return similarCommand(args);
    case "tasks":
      return tasksCommand(args);
    case "query":
      return queryCommand(args);
    case "outline":
      return outlineCommand(args);
    case "eval":
      return evalCommand(args);
    case "mcp":
      return mcpCommand(args);
    case "model":
      return modelCommand(args);
    case "bench":
      throw new CliError(BENCH_MOVED, 2);
    case undefined:
    case "help":
    case "-h":
    case "--help":
      process.stdout.write(USAGE);
      return cmd === undefined ? 2 : 0;
    default:
      throw new CliError(`unknown command ${JSON.stringify(cmd)}\n\n${USAGE}`, 2);
  }
}

runMain(main);
