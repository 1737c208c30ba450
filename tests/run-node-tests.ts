// Runs the Node tests (tests/node/*.test.ts, or the files given), two files at a time, the slowest
// first. `node --test` sorts its files by name, so a slow file whose name comes late started last
// and left one core idle at the end; node:test's run() keeps the order it is given. Output and
// exit status are node --test's: TAP, with its summary, and 1 if any test failed.
// Usage: node --import tsx tests/run-node-tests.ts [file.test.ts ...]

import { readdirSync } from "node:fs";
import * as path from "node:path";
import { run } from "node:test";
import { tap } from "node:test/reporters";
import { fileURLToPath } from "node:url";

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "node");

/** The slowest files, slowest first (each embeds with the models or starts many processes; timed
 *  in ./test.sh's log, docs/benchmarks.md "Build and test times"); the rest follow by name. */
const SLOWEST = [
  "cli-models",
  "bench",
  "sync",
  "embed-pool",
  "plugin",
  "cli",
  "bridge-args-property",
  "semantic",
  "release",
  "structured",
  "models",
  "e5",
  "code",
  "mcp-http",
  "plugin-storm",
  "bridge-drills",
  "bridge-obsidian",
  "kill-drill",
  "bridge-headless",
  "bridge-plugin",
];

function testFiles(args: string[]): string[] {
  if (args.length > 0) return args.map((f) => path.resolve(f));
  const all = readdirSync(DIR)
    .filter((f) => f.endsWith(".test.ts"))
    .sort();
  const slow = SLOWEST.map((name) => `${name}.test.ts`);
  const missing = slow.filter((f) => !all.includes(f));
  if (missing.length > 0) throw new Error(`tests/run-node-tests.ts names ${missing.join(", ")}, not in tests/node`);
  return [...slow, ...all.filter((f) => !slow.includes(f))].map((f) => path.join(DIR, f));
}

const stream = run({ files: testFiles(process.argv.slice(2)), concurrency: 2 });
stream.on("test:fail", () => {
  process.exitCode = 1;
});
stream.compose(tap).pipe(process.stdout);
