// Code searchable at plain-text speed, through the Node hosts and the real wasm: a bulk index
// (`deferCode`) indexes code files in line windows without loading the code wasm, searchable at
// once; the code pass (codePassAll) loads it and gives them their definitions, persisted; a file
// with definitions is chunked at once when it changes; `strata index` runs the pass to the end
// and reports both times.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import { codeHookInstalled } from "../../plugin/core/code-hook.ts";
import { codePassAll } from "../../plugin/core/code-pass.ts";
import { openIndex } from "../../plugin/core/index-store.ts";
import { reconcile } from "../../plugin/core/reconcile.ts";
import { FsIndexStore, NodeVault, wasmMemory } from "../../plugin/node/host.ts";
import { CODE_FILES, makeVault, NOTES } from "./code-vault.ts";
import { cleanupTemps, CONFIG, Core, indexDirOf, ROOT } from "./helpers.ts";

after(cleanupTemps);

const CODE = Object.keys(CODE_FILES).filter((p) => !p.startsWith("node_modules/")).length;
const CLI = path.join(ROOT, "dist", "strata.js");
const NO_MODEL_DIR = path.join(ROOT, "tests", "fixtures", "no-such-model");

describe("the code pass (Node hosts)", () => {
  test("a bulk index is searchable in line windows without the code wasm; the pass brings the definitions and a restart resumes it", async () => {
    // This file's first test: nothing has loaded the code wasm in this process yet.
    const vault = await makeVault();
    const store = new FsIndexStore(indexDirOf(vault));
    const { core } = await openIndex(Core, store, CONFIG);
    try {
      const sum = await reconcile(core, new NodeVault(vault), { store, deferCode: true });
      assert.equal(sum.added, Object.keys(NOTES).length + CODE);
      assert.equal(codeHookInstalled(), false, "no code file was chunked: the code wasm is not loaded");
      assert.equal(wasmMemory().code, 0);
      assert.equal(core.codePassProgress().left, CODE);
      // Searchable by the words of the code at once, in windows.
      const hit = core.search({ query: "leaking credentials to another host", k: 3, mode: "lexical" }).hits[0];
      assert.equal(hit?.path, "src/auth/session.py");
      assert.equal(hit?.code?.kind, "lines");
    } finally {
      core.free();
    }

    // Reopened (a restart): the pass goes on from the index, loads the code wasm, and ends.
    const { core: again } = await openIndex(Core, store, CONFIG);
    try {
      assert.equal(again.codePassProgress().left, CODE);
      const steps: number[] = [];
      const pass = await codePassAll(again, new NodeVault(vault), store, { maxFiles: 2, onProgress: (p) => steps.push(p.left) });
      assert.equal(pass.defined, CODE);
      assert.equal(pass.left, 0);
      assert.equal(pass.failure, null);
      assert.ok(steps.length >= CODE / 2 && steps.at(-1) === 0, `bounded steps: ${steps}`);
      assert.equal(codeHookInstalled(), true);
      const hit = again.search({ query: "leaking credentials to another host", k: 3, mode: "lexical" }).hits[0];
      assert.deepEqual([hit?.code?.kind, hit?.code?.name], ["method", "rebuild_auth"]);
    } finally {
      again.free();
    }
    const { core: third } = await openIndex(Core, store, CONFIG);
    try {
      assert.equal(third.codePassProgress().left, 0, "the pass persisted");
      // A file with definitions is chunked at once when it changes, even in a bulk index.
      const file = path.join(vault, "src/auth/session.py");
      await writeFile(file, CODE_FILES["src/auth/session.py"].replace("parse_proxy_environment", "read_proxy_settings"));
      assert.equal(third.codeChunkerWanted(["src/auth/session.py"], true), true);
      await reconcile(third, new NodeVault(vault), { store, deferCode: true });
      assert.equal(third.codePassProgress().left, 0);
      const hit = third.search({ query: "read_proxy_settings", k: 1, mode: "lexical" }).hits[0];
      assert.deepEqual([hit?.code?.kind, hit?.code?.name], ["function", "read_proxy_settings"]);
    } finally {
      third.free();
    }
  });

  test("strata index runs the pass to the end and reports the time to searchable and to every definition", async () => {
    const vault = await makeVault();
    const run = () => {
      const r = spawnSync(process.execPath, [CLI, "index", vault, "--json", "--no-embed"], {
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1", STRATA_MODEL_DIR: NO_MODEL_DIR, STRATA_MODELS: NO_MODEL_DIR },
        timeout: 300_000,
      });
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout) as {
        lexicalMs: number;
        warnings: unknown[];
        codePass: { defined: number; left: number; tookMs: number; definitionsMs: number };
      };
    };
    const first = run();
    assert.deepEqual([first.codePass.defined, first.codePass.left], [CODE, 0]);
    assert.ok(first.codePass.definitionsMs >= first.lexicalMs, JSON.stringify(first.codePass));
    assert.deepEqual(first.warnings, []);
    const r = spawnSync(
      process.execPath,
      [CLI, "search", vault, "sessions that follow redirects", "--json", "--mode", "lexical", "--kind", "class"],
      {
        encoding: "utf8",
        env: { ...process.env, STRATA_MODEL_DIR: NO_MODEL_DIR, STRATA_MODELS: NO_MODEL_DIR },
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const hit = (JSON.parse(r.stdout) as { hits: { code?: { name: string } }[] }).hits[0];
    assert.equal(hit?.code?.name, "SessionRedirectMixin");
    const second = run();
    assert.deepEqual([second.codePass.defined, second.codePass.left], [0, 0], "nothing left to define");
  });
});
