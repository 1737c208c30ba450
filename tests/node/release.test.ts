// The release as a new user gets it: `npm run release` (scripts/release.mjs, the release-profile
// wasm) assembles a release folder, a server on 127.0.0.1 serves it as GitHub serves a release's
// assets, and
//   - a vault holding only the three plugin files: the plugin (fake Obsidian, real worker and wasm,
//     requestUrl over real HTTP) starts lexical, the user clicks Download, progress is reported,
//     the hashes are checked, the model loads, embedding runs and a semantic query finds its note;
//   - strata.mcpb: unpacked and started as Claude Desktop starts it (its manifest's command and
//     args with user_config filled in), the MCP SDK's client lists the tools and searches.
// Without models/ the release carries no model and the semantic end is skipped (saying so);
// tests/node/model-download.test.ts checks the download itself without a real model.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import v8 from "node:v8";
import { gunzipSync } from "node:zlib";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import type { ModelTable } from "../../plugin/core/model-download.ts";
import { relaxedSimdSupported, STALE_RELAXED } from "../../plugin/core/embedding/builds.ts";
import { modelPresent } from "../../plugin/node/host.ts";
import { cleanupTemps, ROOT, tempDir } from "./helpers.ts";
import { eventually, loadPlugin, PLUGIN_DIR, StrataPlugin, unloadPlugin } from "./plugin-env.ts";
import { serveRelease, type ReleaseServer } from "./release-server.ts";

const run = promisify(execFile);
const MODEL = "all-MiniLM-L6-v2";
const HAS_MODEL = modelPresent(MODEL);
const NEEDS_MODEL = HAS_MODEL ? {} : { skip: `no ${MODEL} in models/ (scripts/fetch-model.sh): the release carries no model` };
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

const NOTES: Record<string, string> = {
  "Garden/Drip irrigation.md":
    "# Drip irrigation\n\nThin hoses with emitters run along the tomato and bean rows. A timer opens the valve at dawn for twenty minutes, so the soil stays moist without anyone carrying cans.\n",
  "Kitchen/Sourdough.md": "# Sourdough\n\nFeed the starter with flour and water every morning; bake when it doubles.\n",
  "Sky/Telescope.md": "# Telescope\n\nCollimate the mirrors before observing Jupiter; keep the dust caps on.\n",
};

let out: string;
let version: string;
let table: ModelTable;
let server: ReleaseServer;
let vault: string;
/** The args of the `claude mcp add` command the settings tab showed (the bridge installed from the release). */
let bridgeArgs: string[] | null = null;
const originalRelease = StrataPlugin.release;

before(async () => {
  out = path.join(await tempDir("strata-release-"), "release");
  // The release profile (no --dist): the same wasm the other tests use, built once by build-wasm.sh.
  // The relaxed-SIMD embedder is a second build of tract (~8 minutes here), so the simd128 build
  // stands in for it (`--relaxed-from`: same glue, and it validates everywhere); the release
  // workflow builds and checks the real one (scripts/check-relaxed-embedder.mjs).
  const args = ["scripts/release.mjs", "--models", HAS_MODEL ? MODEL : "", "--relaxed-from", "build/wasm", "--out", out];
  await run(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, STRATA_REPOSITORY: "https://example.invalid/strata" },
    timeout: 20 * 60_000,
    maxBuffer: 1 << 24,
  });
  version = JSON.parse(await readFile(path.join(out, "manifest.json"), "utf8")).version;
  table = JSON.parse(await readFile(path.join(out, "models.json"), "utf8"));
  server = await serveRelease(out, version);
});

after(async () => {
  StrataPlugin.release = originalRelease;
  await server?.close();
  await cleanupTemps();
});

describe("release", () => {
  test("npm run release: the three plugin files, strata.mcpb, the model parts and models.json, its hashes compiled into main.js", async () => {
    const files = (await readdir(out)).sort();
    for (const f of ["main.js", "manifest.json", "models.json", "strata.mcpb", "styles.css"]) assert.ok(files.includes(f), f);
    const pkg = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8"));
    assert.equal(version, pkg.version);
    assert.equal(table.version, version);
    assert.deepEqual(
      table.models.map((m) => m.id),
      HAS_MODEL ? [MODEL] : [],
    );
    const main = await readFile(path.join(out, "main.js"), "utf8");
    assert.ok(main.includes("https://example.invalid/strata"), "the repository is compiled in");
    for (const m of table.models) {
      assert.equal(m.license, "Apache-2.0");
      for (const f of m.files) {
        const whole = await readFile(path.join(ROOT, "models", m.id, f.name));
        assert.equal(f.size, whole.length);
        assert.equal(f.sha256, sha256(whole));
        assert.ok(main.includes(f.sha256), `${f.name}'s SHA-256 is in main.js`);
        let off = 0;
        for (const p of f.parts) {
          const bytes = await readFile(path.join(out, p.name));
          assert.ok(bytes.length <= 16_000_000 && bytes.length === p.size, p.name);
          assert.equal(p.sha256, sha256(bytes));
          assert.ok(main.includes(p.sha256), `${p.name}'s SHA-256 is in main.js`);
          assert.ok(bytes.equals(whole.subarray(off, off + p.size)));
          off += p.size;
        }
      }
    }
    // The bridge for Claude Code: mcp-bridge.js and the three .wasm, in the table and compiled in too.
    assert.deepEqual(
      table.bridge?.files.map((f) => f.name),
      ["mcp-bridge.js", "strata_core_bg.wasm", "strata_embedder_bg.wasm", "strata_chunker_bg.wasm"],
    );
    for (const f of table.bridge.files) assert.ok(main.includes(f.sha256), `the bridge's ${f.name} SHA-256 is in main.js`);
    // The relaxed-SIMD embedder: one gzip file whose parts unpack to the build it was given.
    const relaxed = table.embedder!;
    assert.deepEqual([relaxed.id, relaxed.files.map((f) => f.name)], ["embedder-relaxed-simd", ["strata_embedder_bg.wasm.gz"]]);
    const gz = Buffer.concat(await Promise.all(relaxed.files[0].parts.map((p) => readFile(path.join(out, p.name)))));
    assert.equal(sha256(gz), relaxed.files[0].sha256);
    assert.ok(gunzipSync(gz).equals(await readFile(path.join(ROOT, "build", "wasm", "strata_embedder_bg.wasm"))));
    assert.ok(main.includes(relaxed.files[0].sha256), "its SHA-256 is in main.js");
    const parts = [...table.models, table.bridge, relaxed].flatMap((m) => m.files.flatMap((f) => f.parts.map((p) => p.name)));
    assert.deepEqual(files, [...parts, "main.js", "manifest.json", "models.json", "strata.mcpb", "styles.css"].sort());
  });

  test("a new user: an empty vault with the three plugin files, lexical at once, Download, then semantic search", NEEDS_MODEL, async () => {
    vault = await tempDir("strata-newuser-");
    await mkdir(path.join(vault, PLUGIN_DIR), { recursive: true });
    for (const f of ["main.js", "manifest.json", "styles.css"]) await copyFile(path.join(out, f), path.join(vault, PLUGIN_DIR, f));
    for (const [p, text] of Object.entries(NOTES)) {
      await mkdir(path.dirname(path.join(vault, p)), { recursive: true });
      await writeFile(path.join(vault, p), text);
    }
    StrataPlugin.release = () => ({ version, repository: server.url, table });
    const { app, plugin } = await loadPlugin(vault);
    try {
      assert.equal(plugin.modelState, "absent");
      assert.equal(plugin.missingModel, MODEL);
      // One notice offers the download.
      assert.deepEqual(plugin.notices, [
        "Strata: semantic search needs the embedding model all-MiniLM-L6-v2 (23.4 MB, license Apache-2.0). Download it in Settings → Strata → Semantic search; lexical search works meanwhile.",
      ]);
      const lexical = await plugin.search({ query: "sourdough starter", mode: "hybrid" });
      assert.equal(lexical.mode, "lexical");
      assert.equal(lexical.hits[0]?.path, "Kitchen/Sourdough.md");

      const tab = app.settingTabs[0];
      app.openSettingTab(tab);
      const text = () => (tab.containerEl as unknown as { getText(): string }).getText();
      assert.match(
        text(),
        /all-MiniLM-L6-v2 is not installed: 23\.4 MB, license Apache-2\.0, from http:\/\/127\.0\.0\.1:\d+\/releases\/download\//,
      );
      // Where the engine has no relaxed SIMD (Node 20 by default) the faster embedder is neither
      // offered nor downloaded; Node runs it once asked to, as Obsidian's Chromium does.
      if (!relaxedSimdSupported()) {
        assert.equal(plugin.installer.relaxed.wanted, false);
        assert.doesNotMatch(text(), /Faster embedder/);
        v8.setFlagsFromString("--experimental-wasm-relaxed-simd");
      }
      assert.ok(plugin.installer.relaxed.wanted);
      app.openSettingTab(tab);
      assert.match(
        text(),
        /Faster embedderA build of the embedder for this device's relaxed SIMD instructions.*It comes with a model download; [\d.]+ MB\./,
      );
      const progress: string[] = [];
      const bar: string[] = [];
      plugin.installer.onChange(() => {
        const p = plugin.installer.progress;
        if (p) progress.push(`${p.phase} ${p.partsDone}/${p.parts} ${p.doneBytes}`);
        bar.push(plugin.statusBar!.text());
      });
      const download = findButton(tab.containerEl, "Download");
      download.dispatch("click");
      // The model's download, then the relaxed-SIMD build's (a second download, started after the
      // first has ended: `running` is null for a moment between them), then the model's load.
      await eventually(
        async () => plugin.installer.running === null && plugin.modelState === "loaded",
        120_000,
        "the downloads and the model's load",
      );
      assert.equal(plugin.installer.errors.get(MODEL), undefined);
      const parts = table.models[0].files.reduce((n, f) => n + f.parts.length, 0);
      assert.deepEqual(progress.slice(0, 2), [`download 0/${parts} 0`, `download 1/${parts} 16000000`]);
      assert.ok(progress.includes(`install ${parts}/${parts} ${table.models[0].size}`), JSON.stringify(progress));
      assert.ok(
        bar.some((t) => /^Strata: downloading all-MiniLM-L6-v2 [\d.]+ MB \/ 23\.4 MB$/.test(t)),
        JSON.stringify(bar),
      );
      for (const f of table.models[0].files) {
        const installed = await readFile(path.join(vault, PLUGIN_DIR, "models", MODEL, f.name));
        assert.equal(sha256(installed), f.sha256);
      }
      assert.deepEqual((await readdir(path.join(vault, PLUGIN_DIR, "models"))).sort(), [MODEL], "no temporary folder is left");
      // The relaxed-SIMD embedder came with it, checked, and the worker runs it.
      const gzFile = path.join(vault, PLUGIN_DIR, "embedder-relaxed-simd", "strata_embedder_bg.wasm.gz");
      assert.equal(sha256(await readFile(gzFile)), table.embedder!.files[0].sha256);
      assert.ok(
        bar.some((t) => /^Strata: downloading the faster embedder /.test(t)),
        JSON.stringify(bar),
      );

      await eventually(async () => plugin.modelState === "loaded", 60_000, "the model to load");
      const done = await plugin.worker!.call("embedIdle", {});
      assert.ok(done && done.total > 0 && done.done === done.total, JSON.stringify(done));
      assert.deepEqual((await plugin.workerState())?.embedWorkers.build, {
        build: "relaxed-simd",
        why: "downloaded with the model; this engine runs relaxed SIMD",
      });
      assert.ok(
        (await plugin.statusLines()).includes("embedder: relaxed-SIMD build (downloaded with the model; this engine runs relaxed SIMD)"),
      );
      const res = await plugin.search({ query: "watering the vegetable beds automatically", mode: "semantic", k: 3 });
      assert.equal(res.mode, "semantic");
      assert.equal(res.hits[0]?.path, "Garden/Drip irrigation.md");
      app.openSettingTab(tab);
      assert.doesNotMatch(text(), /is not installed/);
      await eventually(async () => text().includes("In use: the embedder's relaxed-SIMD build"), 5000, "the Faster embedder row");

      // Claude Code: install the bridge from the release, then run the command the tab shows.
      await eventually(async () => text().includes("Install the bridge"), 5000, "the Claude Code row");
      findButton(tab.containerEl, "Install the bridge").dispatch("click");
      await eventually(async () => plugin.installer.running === null, 60_000, "the bridge download");
      assert.equal(plugin.installer.errors.get("bridge"), undefined);
      app.openSettingTab(tab);
      await eventually(async () => text().includes("claude mcp add strata -- node "), 5000, "the command");
      const command = /claude mcp add strata -- node (.+?)(?=Copy)/.exec(text())![1];
      assert.equal(command, `${vault}/${PLUGIN_DIR}/bridge/mcp-bridge.js ${vault} --config-dir .obsidian`);
      assert.match(text(), /"mcpServers": \{/);
      bridgeArgs = command.split(" ");
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("after an update: the previous release's relaxed-SIMD build is not run, and this release's replaces it", NEEDS_MODEL, async () => {
    const gzFile = path.join(vault, PLUGIN_DIR, "embedder-relaxed-simd", "strata_embedder_bg.wasm.gz");
    const want = table.embedder!.files[0];
    // Another release's file of the same size (a model download put this one there).
    const old = Buffer.from(await readFile(gzFile));
    old[old.length - 1] ^= 0xff;
    await writeFile(gzFile, old);
    const first = await loadPlugin(vault);
    try {
      await eventually(async () => first.plugin.modelState === "loaded", 60_000, "the model to load");
      assert.deepEqual((await first.plugin.workerState())?.embedWorkers.build, { build: "simd128", why: STALE_RELAXED });
      // (While it is installed the folder is replaced by one rename: a read may miss it.)
      await eventually(
        async () => sha256(await readFile(gzFile).catch(() => Buffer.alloc(0))) === want.sha256,
        60_000,
        "this release's build to be downloaded",
      );
      await eventually(async () => first.plugin.installer.running === null, 10_000, "the download to end");
      assert.equal(first.plugin.installer.errors.size, 0);
      assert.deepEqual(
        first.plugin.notices.filter((n) => /failed/.test(n)),
        [],
      );
      const res = await first.plugin.search({ query: "watering the vegetable beds automatically", mode: "semantic", k: 3 });
      assert.equal(res.hits[0]?.path, "Garden/Drip irrigation.md", "the built-in build answers meanwhile");
    } finally {
      await unloadPlugin(first.plugin);
    }
    const next = await loadPlugin(vault);
    try {
      await eventually(async () => next.plugin.modelState === "loaded", 60_000, "the model to load");
      assert.equal((await next.plugin.workerState())?.embedWorkers.build?.build, "relaxed-simd");
    } finally {
      await unloadPlugin(next.plugin);
    }
  });

  test("the model came first: Faster embedder downloads the relaxed-SIMD build, used from the next start", NEEDS_MODEL, async () => {
    const dir = path.join(vault, PLUGIN_DIR, "embedder-relaxed-simd");
    await rm(dir, { recursive: true, force: true });
    const { app, plugin } = await loadPlugin(vault);
    try {
      await eventually(async () => plugin.modelState === "loaded", 60_000, "the model to load");
      assert.deepEqual((await plugin.workerState())?.embedWorkers.build, {
        build: "simd128",
        why: "the relaxed-SIMD build is not installed",
      });
      const tab = app.settingTabs[0];
      app.openSettingTab(tab);
      const text = () => (tab.containerEl as unknown as { getText(): string }).getText();
      // The row finds out what is installed and running, then offers its button.
      await eventually(
        async () => {
          try {
            return text().includes("It comes with a model download") && !!findButton(tab.containerEl, "Download");
          } catch {
            return false;
          }
        },
        5000,
        "the Faster embedder row",
      );
      findButton(tab.containerEl, "Download").dispatch("click");
      await eventually(
        async () => plugin.installer.running === null && existsSync(path.join(dir, "strata_embedder_bg.wasm.gz")),
        60_000,
        "the download",
      );
      assert.equal(plugin.installer.errors.size, 0);
      assert.equal(sha256(await readFile(path.join(dir, "strata_embedder_bg.wasm.gz"))), table.embedder!.files[0].sha256);
      app.openSettingTab(tab);
      await eventually(async () => text().includes("Installed: used from Strata's next start."), 5000, "the row to say so");
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("strata.mcpb: unpacked and started as Claude Desktop starts it, the SDK client lists the tools and searches", async () => {
    const dir = await tempDir("strata-mcpb-");
    await run(path.join(ROOT, "node_modules", ".bin", "mcpb"), ["unpack", path.join(out, "strata.mcpb"), dir], { cwd: ROOT });
    const manifest = JSON.parse(await readFile(path.join(dir, "manifest.json"), "utf8"));
    assert.equal(manifest.version, version);
    assert.equal(manifest.server.type, "node");
    await stat(path.join(dir, manifest.server.entry_point));
    // The vault of the new user (its plugin folder holds the downloaded model), else a fresh one.
    const target = vault ?? (await newVault());
    const userConfig: Record<string, string> = { vault: target, write_tools: "false", config_dir: ".obsidian" };
    const fill = (s: string) =>
      s.replace(/\$\{__dirname\}/g, dir).replace(/\$\{user_config\.(\w+)\}/g, (_, k: string) => {
        assert.ok(k in userConfig, `user_config.${k} is asked for`);
        assert.ok(k in manifest.user_config, `user_config.${k} is declared`);
        return userConfig[k];
      });
    const cfg = manifest.server.mcp_config;
    assert.equal(cfg.command, "node");
    const env = Object.fromEntries(Object.entries(cfg.env as Record<string, string>).map(([k, v]) => [k, fill(v)]));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: (cfg.args as string[]).map(fill),
      env: { PATH: process.env.PATH ?? "", ...env },
      cwd: dir,
      stderr: "pipe",
    });
    let err = "";
    transport.stderr?.on("data", (d: Buffer) => (err += d.toString()));
    const client = new Client({ name: "strata-release-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(tools, manifest.tools.map((t: { name: string }) => t.name).sort());
      const call = async (name: string, args: Record<string, unknown>) => {
        const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
        return { text: (r.content as { text: string }[]).map((c) => c.text).join("\n"), data: r.structuredContent as Record<string, any> };
      };
      const lexical = await call("search", { queries: ["sourdough starter"], mode: "lexical" });
      assert.match(lexical.text, /Kitchen\/Sourdough\.md/, err);
      const st = await call("status", {});
      assert.equal(st.data.write_tools_enabled, false);
      if (vault && HAS_MODEL) {
        // The headless bridge found the model the plugin downloaded into the vault.
        assert.equal(st.data.model_loaded, true, st.text);
        assert.equal(st.data.model, MODEL);
        await eventually(
          async () => {
            const s = await call("status", {});
            return s.data.embedding && s.data.embedding.done >= s.data.embedding.total && s.data.embedding.total > 0;
          },
          120_000,
          "the bridge's embedding",
        );
        const sem = await call("search", { queries: ["watering the vegetable beds automatically"], mode: "semantic", top_k: 3 });
        assert.match(sem.text.split("\n").find((l) => /\.md/.test(l)) ?? "", /Garden\/Drip irrigation\.md/, sem.text);
      }
    } finally {
      await client.close();
    }
  });
});

test("strata model download|verify (dist/strata.js) from the served release", NEEDS_MODEL, async () => {
  const cli = path.join(ROOT, "dist", "strata.js");
  const dir = await tempDir("strata-cli-models-");
  const from = `${server.url}/releases/download/${version}`;
  const dl = await run(process.execPath, [cli, "model", "download", "--from", from, "--models-dir", dir]);
  assert.match(dl.stdout, new RegExp(`^${MODEL} installed in ${dir}/${MODEL}: 23\\.4 MB, every part and file checked \\(SHA-256\\)`));
  const ok = await run(process.execPath, [cli, "model", "verify", "--model", MODEL, "--models-dir", dir]);
  assert.match(ok.stdout, new RegExp(`^${MODEL}: ok`));
  const list = await run(process.execPath, [cli, "model", "list", "--models-dir", dir]);
  assert.match(list.stdout, new RegExp(`^${MODEL}  23\\.4 MB  Apache-2\\.0  installed  \\(${dir}/${MODEL}\\)$`, "m"));
  // (dist/strata.js's table describes the models in models/ when it was built.)
  if (modelPresent("multilingual-e5-small")) assert.match(list.stdout, /^multilingual-e5-small {2}203\.3 MB {2}MIT {2}not installed/m);
  const again = await run(process.execPath, [cli, "model", "download", "--from", from, "--models-dir", dir]);
  assert.match(again.stdout, /is already installed in .* \(checked: SHA-256\)/);
  // One flipped byte in the installed tokenizer: verify says which file and exits 1.
  const tok = path.join(dir, MODEL, "tokenizer.json");
  const bytes = await readFile(tok);
  bytes[100] ^= 1;
  await writeFile(tok, bytes);
  await assert.rejects(
    run(process.execPath, [cli, "model", "verify", "--model", MODEL, "--models-dir", dir]),
    (err: { code: number; stdout: string }) => {
      assert.equal(err.code, 1);
      assert.match(err.stdout, /tokenizer\.json differs from the release's \(SHA-256\)/);
      return true;
    },
  );
  // A release without the model: a 404, exit 1, nothing installed.
  const other = await tempDir("strata-cli-models-");
  await assert.rejects(
    run(process.execPath, [cli, "model", "download", "--model", "multilingual-e5-small", "--from", from, "--models-dir", other]),
    (err: { code: number; stderr: string }) => {
      assert.equal(err.code, 1);
      assert.match(
        err.stderr,
        /The download of multilingual-e5-small failed: part 1 of \d+ .*HTTP 404 \(not found\)\. Nothing was installed/,
      );
      return true;
    },
  );
  assert.deepEqual(await readdir(other), []);
});

test("Claude Code: the command the settings tab shows starts the bridge the plugin installed", NEEDS_MODEL, async () => {
  assert.ok(bridgeArgs, "the new user test ran");
  const transport = new StdioClientTransport({ command: process.execPath, args: bridgeArgs, stderr: "pipe" });
  const client = new Client({ name: "strata-release-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(tools.includes("search") && tools.includes("read"));
    const r = await client.callTool({ name: "search", arguments: { queries: ["sourdough starter"], mode: "lexical" } }, undefined, {
      timeout: 120_000,
    });
    assert.match((r.content as { text: string }[])[0].text, /Kitchen\/Sourdough\.md/);
  } finally {
    await client.close();
  }
});

async function newVault(): Promise<string> {
  const v = await tempDir("strata-mcpb-vault-");
  for (const [p, text] of Object.entries(NOTES)) {
    await mkdir(path.dirname(path.join(v, p)), { recursive: true });
    await writeFile(path.join(v, p), text);
  }
  return v;
}

type El = { children: El[]; tagName: string; getText(): string; dispatch(t: string): void };
function findButton(root: unknown, text: string): El {
  const stack = [root as El];
  while (stack.length) {
    const e = stack.shift()!;
    if (e.tagName === "button" && e.getText() === text) return e;
    stack.push(...e.children);
  }
  throw new Error(`no button ${text}`);
}
