// The `search` round trip of an MCP client, over Streamable HTTP to the plugin's /mcp against
// through the stdio bridge that forwards to the same plugin: the plugin runs here on the fake
// Obsidian (tests/node/plugin-env.ts) with its endpoint on; each client is a process of its own,
// as Claude Code is, and times its calls. Alternated rounds; p50 / p95 per transport.
//
//   node --import tsx tests/mcp-bench.ts [--vault DIR] [--calls N] [--rounds R] [--mode lexical|hybrid]
//
// (needs the wasm and the bundles: `npm run build`.) The vault is copied first; the example vault by default.

import { spawn } from "node:child_process";
import { cp } from "node:fs/promises";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const QUERIES = [
  "sourdough feeding schedule",
  "telescope collimation",
  "drip irrigation emitters",
  "bicycle chain wear",
  "fermented hot sauce",
  "泡茶 水温",
  "味噌汁",
  "reading list",
];

interface Timing {
  transport: string;
  calls: number;
  p50: number;
  p95: number;
  mean: number;
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** A client process: connects, warms up, times `calls` searches, prints its timing as JSON. */
async function runClient(): Promise<void> {
  const transportName = arg("--client", "http");
  const calls = Number(arg("--calls", "200"));
  const mode = arg("--mode", "lexical");
  const transport =
    transportName === "http"
      ? new StreamableHTTPClientTransport(new URL(arg("--url", "")), {
          requestInit: { headers: { Authorization: `Bearer ${arg("--token", "")}` } },
        })
      : new StdioClientTransport({
          command: process.execPath,
          args: [arg("--bridge", ""), arg("--vault", "")],
          env: { ...(process.env as Record<string, string>), STRATA_WRITE_TOOLS: "" },
          stderr: "ignore",
        });
  const client = new Client({ name: "strata-bench", version: "1.0.0" });
  await client.connect(transport);
  const search = async (i: number) => {
    const r = await client.callTool({ name: "search", arguments: { queries: [QUERIES[i % QUERIES.length]], mode, top_k: 10 } });
    if (r.isError) throw new Error(JSON.stringify(r.content));
  };
  for (let i = 0; i < 20; i++) await search(i);
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    await search(i);
    times.push(performance.now() - t0);
  }
  await client.close();
  times.sort((a, b) => a - b);
  const timing: Timing = {
    transport: transportName,
    calls,
    p50: quantile(times, 0.5),
    p95: quantile(times, 0.95),
    mean: times.reduce((a, b) => a + b, 0) / times.length,
  };
  process.stdout.write(JSON.stringify(timing) + "\n");
}

function child(args: string[]): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    p.stdout.on("data", (d: Buffer) => (out += d.toString()));
    p.on("error", reject);
    p.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split("\n").at(-1)!) as Timing) : reject(new Error(`client exited ${code}`)),
    );
  });
}

async function main(): Promise<void> {
  const env = await import("./node/plugin-env.ts");
  const { tempDir, cleanupTemps, FIXTURE, ROOT } = await import("./node/helpers.ts");
  const source = arg("--vault", FIXTURE);
  const calls = arg("--calls", "200");
  const rounds = Number(arg("--rounds", "3"));
  const mode = arg("--mode", "lexical");
  const vault = path.join(await tempDir(), "vault");
  await cp(source, vault, { recursive: true, filter: (src) => !src.includes(`${path.sep}.obsidian${path.sep}plugins`) });
  const t0 = performance.now();
  const { plugin } = await env.loadPlugin(vault, { settings: { bridgeEnabled: true, semantic: mode !== "lexical" } });
  console.error(`plugin loaded and indexed in ${Math.round(performance.now() - t0)} ms`);
  try {
    await env.eventually(async () => plugin.bridge?.port, 10_000, "the endpoint");
    const url = `http://127.0.0.1:${plugin.bridge!.port}/mcp`;
    const results: Timing[] = [];
    for (let r = 0; r < rounds; r++) {
      results.push(
        await child(["--client", "http", "--url", url, "--token", plugin.settings.bridgeToken, "--calls", calls, "--mode", mode]),
      );
      results.push(
        await child([
          "--client",
          "stdio",
          "--bridge",
          path.join(ROOT, "dist", "mcp-bridge.js"),
          "--vault",
          vault,
          "--calls",
          calls,
          "--mode",
          mode,
        ]),
      );
    }
    const fmt = (n: number) => n.toFixed(2);
    console.log(`search round trip (${mode}, ${calls} calls a run, ${rounds} alternated runs each), ms:`);
    for (const t of results) console.log(`  ${t.transport.padEnd(5)} p50 ${fmt(t.p50)}  p95 ${fmt(t.p95)}  mean ${fmt(t.mean)}`);
    for (const name of ["http", "stdio"]) {
      const mine = results.filter((t) => t.transport === name);
      const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      console.log(`${name}: median of runs p50 ${fmt(med(mine.map((t) => t.p50)))} ms, p95 ${fmt(med(mine.map((t) => t.p95)))} ms`);
    }
  } finally {
    await env.unloadPlugin(plugin);
    await cleanupTemps();
  }
}

if (process.argv.includes("--client")) await runClient();
else await main();
