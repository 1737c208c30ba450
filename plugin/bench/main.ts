// `strata-bench` (dist/strata-bench.js; `npm run bench -- [vault] [options]` builds and runs it):
// the benchmarks, a bundle of their own so that the shipped CLI, plugin and bridge carry no
// benchmark code and no competitor (MiniSearch, onnxruntime-web). The hidden `__bench-worker`
// command runs one measurement in a fresh process (workers.ts).

import { runMain } from "../cli/common.ts";
import { benchCommand, BENCH_USAGE } from "./bench.ts";
import { tokensCommand, TOKENS_USAGE } from "./tokens.ts";
import { benchWorker } from "./workers.ts";

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "__bench-worker") return benchWorker(rest);
  if (first === "tokens") return tokensCommand(rest);
  if (first === "help" || first === "-h" || first === "--help") {
    process.stdout.write(`usage: ${BENCH_USAGE}\n       ${TOKENS_USAGE}\n`);
    return 0;
  }
  return benchCommand(argv);
}

runMain(main);
