// Code in the vault, through the Node hosts: the code chunker's wasm is loaded only when code
// files are to be indexed; `strata index` and `strata search` (the bundled CLI) on a vault of
// notes and code, with the --lang/--kind filters and the code options; a missing or corrupt
// code wasm; the MCP tools' code filters and read by symbol, and their argument checks.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import type { Hit } from "../../plugin/core/api.ts";
import { CODE_WASM_NAME, codeHookInstalled, isCodePath } from "../../plugin/core/code-hook.ts";
import { EMBEDDER_WASM_NAME, findWasm, wasmMemory } from "../../plugin/node/host.ts";
import { HeadlessBackend } from "../../plugin/bridge/headless.ts";
import { callTool } from "../../plugin/bridge/tools.ts";
import { ok, spawnBridge } from "./bridge-helpers.ts";
import { CODE_FILES, lineOf, makeVault, NOTES } from "./code-vault.ts";
import { cleanupTemps, copyFixture, indexVault, ROOT, tempDir } from "./helpers.ts";

after(cleanupTemps);

const CLI = path.join(ROOT, "dist", "strata.js");
const NO_MODEL_DIR = path.join(ROOT, "tests", "fixtures", "no-such-model");

function strata(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", STRATA_MODEL_DIR: NO_MODEL_DIR, STRATA_MODELS: NO_MODEL_DIR, ...env },
    timeout: 300_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** `strata search … --json --mode lexical`: its hits. */
function search(vault: string, query: string, ...args: string[]): Hit[] {
  const r = strata(["search", vault, query, "--json", "--mode", "lexical", ...args]);
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { hits: Hit[] }).hits;
}

/** `strata index … --json`: its report. */
function index(vault: string, ...args: string[]) {
  const r = strata(["index", vault, "--json", "--no-embed", ...args]);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out) as { added: number; listed: number; warnings: { path: string; message: string }[] };
}

describe("code in the vault (Node hosts)", () => {
  test("the code chunker's wasm is loaded only once code files are to be indexed", async () => {
    // This file's first test: nothing has loaded it in this process yet.
    const notes = await indexVault(await copyFixture());
    notes.core.free();
    assert.equal(codeHookInstalled(), false, "a vault of notes never loads the code chunker");
    assert.equal(wasmMemory().code, 0);

    const { core, summary } = await indexVault(await makeVault());
    try {
      assert.equal(codeHookInstalled(), true);
      assert.ok(wasmMemory().code > 0);
      assert.deepEqual(
        summary.warnings.filter((w) => /chunker|line windows/.test(w.message)),
        [],
      );
      assert.ok(isCodePath(core, "src/auth/session.py"));
      assert.ok(!isCodePath(core, "Notes/Architecture.md"));
      assert.ok(!isCodePath(core, "node_modules/left-pad/index.js"), "code in a skipped folder");
      const hit = core.search({
        query: "strip authentication so credentials do not leak to another host",
        k: 3,
        filters: { lang: "python" },
      }).hits[0];
      assert.equal(hit?.code?.name, "rebuild_auth");
    } finally {
      core.free();
    }
  });

  test("strata index and search: definitions found by what they do, cited as path:line with language, kind and signature", async () => {
    const vault = await makeVault();
    const rep = index(vault);
    // The notes and the code files; node_modules is skipped.
    assert.equal(rep.added, Object.keys(NOTES).length + Object.keys(CODE_FILES).length - 1);
    assert.deepEqual(rep.warnings, []);

    const auth = search(vault, "strip authentication so credentials do not leak to another host")[0];
    assert.equal(auth.path, "src/auth/session.py");
    assert.deepEqual([auth.code?.lang, auth.code?.kind, auth.code?.name], ["python", "method", "rebuild_auth"]);
    assert.match(auth.code?.signature ?? "", /def rebuild_auth\(self, prepared_request, response\)/);
    assert.equal(auth.headingPath, "SessionRedirectMixin > rebuild_auth");
    const def = lineOf("src/auth/session.py", "def rebuild_auth");
    assert.ok(auth.startLine <= def && auth.endLine >= lineOf("src/auth/session.py", 'del headers["Authorization"]'), JSON.stringify(auth));

    // --lang, --kind, several of each, and the same filters in the query.
    const health = search(vault, "liveness probe load balancer", "--lang", "go");
    assert.ok(health.length > 0 && health.every((h) => h.code?.lang === "go"), JSON.stringify(health));
    assert.deepEqual([health[0].code?.name, health[0].code?.kind], ["healthHandler", "function"]);
    assert.ok(search(vault, "redirect credentials", "--lang", "go").every((h) => h.code?.lang === "go"));
    const mixin = search(vault, "sessions that follow redirects", "--kind", "class")[0];
    assert.deepEqual([mixin?.code?.name, mixin?.code?.kind], ["SessionRedirectMixin", "class"]);
    const retry = search(
      vault,
      "retry with exponential backoff and jitter",
      "--lang",
      "typescript,javascript",
      "--kind",
      "function,method",
    );
    assert.equal(retry[0]?.code?.name, "withExponentialBackoff");
    assert.ok(retry.every((h) => h.code && ["function", "method"].includes(h.code.kind)));
    const proxy = search(vault, "lang:python kind:function proxy environment variables")[0];
    assert.equal(proxy?.code?.name, "parse_proxy_environment");
    // A note is no code: a code filter leaves notes out.
    assert.ok(search(vault, "load balancer", "--kind", "function").every((h) => h.code));
    assert.ok(search(vault, "load balancer").some((h) => !h.code && h.path === "Notes/Architecture.md"));

    // The terminal's lines: path:line, breadcrumb, then [lang kind] signature.
    const text = strata(["search", vault, "liveness probe", "--mode", "lexical", "--lang", "go"]);
    assert.equal(text.code, 0, text.err);
    const line = lineOf("cmd/server/main.go", "func healthHandler");
    assert.match(text.out, new RegExp(`cmd/server/main\\.go:(${line}|${line - 1}) › healthHandler`));
    assert.match(text.out, /\[go function\] func healthHandler\(w http\.ResponseWriter, r \*http\.Request\)/);

    // Grouped by file (the terminal's default), each definition is still cited as path:line.
    const grouped = strata(["search", vault, "redirect session request", "--mode", "lexical"]);
    assert.match(grouped.out, /^ 1\. src\/auth\/session\.py {2}\(\d+ sections\)$/m);
    assert.match(grouped.out, /^ {4}src\/auth\/session\.py:\d+ › SessionRedirectMixin {2}\(lines/m);
    assert.match(grouped.out, /^ {6}\[python class\] class SessionRedirectMixin:$/m);

    // Bad filters are usage errors.
    const bad = strata(["search", vault, "x", "--lang", "py thon"]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--lang expects a name or several separated by commas/);
    assert.equal(strata(["search", vault, "x", "--kind", ""]).code, 2);
    const help = strata(["search", "--help"]);
    assert.match(help.out, /--lang python,go…\] \[--kind function,method/);
    assert.match(strata(["index", "--help"]).out, /\[--no-code\] \[--code-ext py,ts,…\] \[--code-exclude node_modules,…\]/);
  });

  test("a vault of notes: a large fenced code block is chunked into its definitions (the chunker loaded for it)", async () => {
    const vault = await tempDir();
    const steps = Array.from(
      { length: 60 },
      (_, i) => `def resize_step_${i}(image):\n    """Scales the image by ${i} percent."""\n    return image.scale(${i})\n`,
    );
    await writeFile(path.join(vault, "Pipeline.md"), `# Pipeline\n\nHow images are resized.\n\n\`\`\`python\n${steps.join("\n")}\`\`\`\n`);
    await writeFile(path.join(vault, "Small.md"), "# Small\n\n```python\ndef tiny():\n    pass\n```\n");
    const report = index(vault);
    assert.deepEqual(report.warnings, []);
    const hits = search(vault, "resize_step_42");
    assert.equal(hits[0]?.path, "Pipeline.md");
    assert.equal(hits[0]?.code?.name, "resize_step_42");
    assert.equal(hits[0]?.code?.kind, "function");
  });

  test("--no-code, --code-ext and --code-exclude choose what is indexed as code", async () => {
    const notesOnly = index(await makeVault(), "--no-code");
    assert.equal(notesOnly.added, Object.keys(NOTES).length);

    // Python and JavaScript only, and nothing skipped: node_modules' JavaScript too.
    const vault = await makeVault();
    const rep = index(vault, "--code-ext", "py,.JS", "--code-exclude", "");
    assert.equal(rep.added, Object.keys(NOTES).length + 2);
    const pad = search(vault, "repeat the fill character", "--lang", "javascript")[0];
    assert.equal(pad?.path, "node_modules/left-pad/index.js");

    const bad = strata(["index", vault, "--code-ext", "py,b@d"]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--code-ext expects extensions separated by commas/);
  });

  test("a missing or corrupt code wasm: a warning, code indexed as plain line windows, notes as usual", async () => {
    for (const damage of ["missing", "corrupt"] as const) {
      const wasmDir = await tempDir("strata-wasm-");
      for (const name of ["strata_core_bg.wasm", EMBEDDER_WASM_NAME]) await copyFile(findWasm(name), path.join(wasmDir, name));
      if (damage === "corrupt") await writeFile(path.join(wasmDir, CODE_WASM_NAME), "not a wasm module");
      const env = { STRATA_WASM: path.join(wasmDir, "strata_core_bg.wasm") };
      const vault = await makeVault();
      const r = strata(["index", vault, "--json", "--no-embed"], env);
      assert.equal(r.code, 0, r.err);
      const rep = JSON.parse(r.out) as { added: number; warnings: { path: string; message: string }[] };
      assert.equal(rep.added, Object.keys(NOTES).length + Object.keys(CODE_FILES).length - 1, damage);
      assert.ok(
        rep.warnings.some((w) => /code chunker could not be loaded/.test(w.message)),
        `${damage}: ${JSON.stringify(rep.warnings)}`,
      );
      const s = strata(["search", vault, "starter flour", "--json", "--mode", "lexical"], env);
      assert.equal((JSON.parse(s.out) as { hits: Hit[] }).hits[0]?.path, "Notes/Sourdough.md");
      const code = strata(["search", vault, "liveness probe", "--json", "--mode", "lexical"], env);
      assert.equal((JSON.parse(code.out) as { hits: Hit[] }).hits[0]?.path, "cmd/server/main.go", damage);
      // The headless bridge's status says so (a code file changed since: the bridge's refresh tries to load it).
      await writeFile(path.join(vault, "web/retry.ts"), CODE_FILES["web/retry.ts"] + "\nexport const VERSION = 2;\n");
      const bridge = await spawnBridge([vault, "--headless", "--no-model"], env);
      try {
        const st = await ok(bridge.client, "status");
        assert.ok(
          (st.data.notices as string[]).some((n) => /code chunker could not be loaded/.test(n)),
          `${damage}: ${st.text}`,
        );
      } finally {
        await bridge.close();
      }
    }
  });

  test("MCP tools: search with lang and kind cites path:line, read by symbol, bad arguments refused", async () => {
    const vault = await makeVault();
    await mkdir(path.join(vault, ".obsidian"), { recursive: true });
    const backend = await HeadlessBackend.open({ vaultDir: vault, modelsDir: null, embed: false });
    try {
      const text = (r: { content: { text?: string }[] }) => r.content.map((c) => c.text ?? "").join("\n");
      const found = await callTool(backend, "search", {
        queries: ["remove the authorization header before following to another host"],
        mode: "lexical",
        filters: { lang: "Python", kind: "method, function" },
      });
      assert.equal(found.isError, undefined, text(found));
      const first = (found.structuredContent as { results: Record<string, any>[] }).results[0];
      assert.equal(first.cite, `src/auth/session.py:${first.start_line}`);
      assert.deepEqual([first.code.lang, first.code.kind, first.code.name], ["python", "method", "rebuild_auth"]);
      assert.match(text(found), /1\. src\/auth\/session\.py:\d+ › SessionRedirectMixin > rebuild_auth/);
      assert.match(text(found), /\[python method\] def rebuild_auth\(self, prepared_request, response\):/);

      for (const symbol of ["SessionRedirectMixin.rebuild_auth", "rebuild_auth"]) {
        const read = await callTool(backend, "read", { path: "src/auth/session.py", symbol });
        assert.equal(read.isError, undefined, text(read));
        const body = text(read);
        assert.match(body, /def rebuild_auth\(self, prepared_request, response\):/);
        assert.match(body, /del headers\["Authorization"\]/);
        assert.match(body, /from urllib\.parse import urlparse/, "the file's imports");
        assert.match(body, /src\/auth\/session\.py:\d+/, "cited as path:line");
      }
      const missing = await callTool(backend, "read", { path: "src/auth/session.py", symbol: "no_such_function" });
      assert.equal(missing.isError, true);

      const refused = async (name: string, args: Record<string, unknown>, pattern: RegExp) => {
        const r = await callTool(backend, name, args);
        assert.equal(r.isError, true, text(r));
        assert.match(text(r), pattern);
      };
      await refused(
        "search",
        { queries: ["x"], filters: { lang: "py thon;" } },
        /filters\.lang must be a language or several separated by commas/,
      );
      await refused("search", { queries: ["x"], filters: { kind: 3 } }, /filters\.kind must be a string/);
      await refused("search", { queries: ["x"], filters: { kind: "x".repeat(201) } }, /filters\.kind is 201 characters long/);
      await refused("read", { path: "src/auth/session.py", symbol: "rebuild_auth", heading: "x" }, /only one of/);
      await refused("read", { path: "src/auth/session.py", symbol: "  " }, /symbol is empty/);
      await refused("read", { path: "src/auth/session.py", symbol: ["a"] }, /symbol must be a string/);
    } finally {
      await backend.close();
    }
  });

  test("the headless bridge indexes code as the plugin's settings say (data.json)", async () => {
    const vault = await makeVault();
    const pluginDir = path.join(vault, ".obsidian", "plugins", "strata-search");
    await mkdir(pluginDir, { recursive: true });
    await writeFile(path.join(pluginDir, "data.json"), JSON.stringify({ codeExtensions: ["go"], codeExcludeFolders: [] }));
    let backend = await HeadlessBackend.open({ vaultDir: vault, modelsDir: null, embed: false });
    try {
      assert.deepEqual((await backend.coreRead("list", { limit: 50 })).entries.map((e) => e.path).sort(), [
        "Notes/Architecture.md",
        "Notes/Sourdough.md",
        "cmd/server/main.go",
      ]);
    } finally {
      await backend.close();
    }
    await writeFile(path.join(pluginDir, "data.json"), JSON.stringify({ codeEnabled: false }));
    backend = await HeadlessBackend.open({ vaultDir: vault, modelsDir: null, embed: false });
    try {
      assert.equal((await backend.status()).index.notes, Object.keys(NOTES).length);
    } finally {
      await backend.close();
    }
  });
});
