// Model downloads through the real plugin (fake Obsidian, real worker and wasm) from a release
// served on 127.0.0.1 by a real HTTP server, with requestUrl over real HTTP. The model files are
// generated here (random bytes, a table made by scripts/model-table.mjs with small parts), so
// these tests need no real model: they check the download, the hashes, the faults and resume.
// tests/node/release.test.ts does the same with the release script's output and the real model.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";

import { sha256Hex } from "../../plugin/core/sha256.ts";
import {
  downloadModel,
  formatBytes,
  ModelDownloadError,
  verifyModel,
  type ModelFs,
  type ModelTable,
} from "../../plugin/core/model-download.ts";
import { nodeFetcher, nodeModelFs } from "../../plugin/node/model-download.ts";
import { modelTable, writeParts } from "../../scripts/model-table.mjs";
import { cleanupTemps, copyFixture, tempDir } from "./helpers.ts";
import { eventually, loadPlugin, PLUGIN_DIR, StrataPlugin, unloadPlugin, type AppT, type StrataPluginT } from "./plugin-env.ts";
import { serveRelease, type Fault, type ReleaseServer } from "./release-server.ts";

const VERSION = "9.8.7";
const ID = "all-MiniLM-L6-v2";
const PART = 64 * 1024;

let server: ReleaseServer;
let releaseDir: string;
let table: ModelTable;
const originalRelease = StrataPlugin.release;

before(async () => {
  const src = await tempDir("strata-genmodel-");
  await mkdir(path.join(src, ID));
  await writeFile(path.join(src, ID, "model.onnx"), randomBytes(5 * PART + 1234));
  await writeFile(path.join(src, ID, "tokenizer.json"), randomBytes(PART / 2));
  table = await modelTable({ version: VERSION, models: [{ id: ID, license: "Apache-2.0" }], modelsDir: src, partSize: PART });
  releaseDir = await tempDir("strata-genrelease-");
  await writeParts(table, src, releaseDir);
  server = await serveRelease(releaseDir, VERSION);
  StrataPlugin.release = () => ({ version: VERSION, repository: server.url, table });
});

after(async () => {
  StrataPlugin.release = originalRelease;
  await server?.close();
  await cleanupTemps();
});

/** The buttons of a settings row, by the row's name (the tab displayed afresh). */
function rowButtons(app: AppT, name: string): { desc: string; buttons: { text: string; click(): void }[] } {
  const tab = app.settingTabs[0];
  app.openSettingTab(tab);
  type El = { children: El[]; tagName: string; getText(): string; dispatch(t: string): void; classList: { contains(c: string): boolean } };
  const all: El[] = [];
  const walk = (e: El) => e.children.forEach((c) => (all.push(c), walk(c)));
  walk(tab.containerEl as unknown as El);
  const row = all.find((e) => e.classList.contains("setting-item") && walkName(e) === name);
  if (!row) throw new Error(`no setting named ${name}`);
  const inRow: El[] = [];
  const walk2 = (e: El) => e.children.forEach((c) => (inRow.push(c), walk2(c)));
  walk2(row);
  return {
    desc: inRow.find((e) => e.classList.contains("setting-item-description"))?.getText() ?? "",
    buttons: inRow.filter((e) => e.tagName === "button").map((b) => ({ text: b.getText(), click: () => b.dispatch("click") })),
  };
  function walkName(e: El): string | undefined {
    const stack = [...e.children];
    while (stack.length) {
      const c = stack.shift()!;
      if (c.classList.contains("setting-item-name")) return c.getText();
      stack.push(...c.children);
    }
    return undefined;
  }
}

/** A settings row's text input and buttons. */
function rowInputs(app: AppT, name: string) {
  const row = rowButtons(app, name);
  type El = { children: El[]; tagName: string; value: string; dispatch(t: string): void };
  const tab = app.settingTabs[0];
  const all: El[] = [];
  const walk = (e: El) => e.children.forEach((c) => (all.push(c), walk(c)));
  walk(tab.containerEl as unknown as El);
  // The import row's text input (its placeholder names the model).
  const inputs = all.filter((e) => e.tagName === "input");
  const input = inputs.find(
    (e) => (e as unknown as { getAttribute(k: string): string | null }).getAttribute("placeholder") === `Models/${ID}`,
  );
  if (!input) throw new Error(`no input in ${name}`);
  return { ...row, input };
}

/** Clicks Download (or Download again) and waits for the download to end; its error or null. */
async function clickDownload(app: AppT, plugin: StrataPluginT): Promise<string | null> {
  const row = rowButtons(app, "Download the model");
  const button = row.buttons.find((b) => b.text.startsWith("Download"));
  assert.ok(button, `a Download button: ${JSON.stringify(row)}`);
  button.click();
  assert.equal(plugin.installer.running, ID);
  await eventually(async () => plugin.installer.running === null, 20000, "the download to end");
  return plugin.installer.errors.get(ID) ?? null;
}

const lexical = async (p: StrataPluginT) =>
  (await p.search({ query: "sourdough starter", mode: "lexical" })).hits.map((h) => [h.path, h.sectionId, h.score]);

/** Files under the plugin's models folder (hidden ones included). */
async function modelsTree(vault: string): Promise<string[]> {
  const dir = path.join(vault, PLUGIN_DIR, "models");
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out.push(path.relative(dir, path.join(e.parentPath, e.name)));
  return out.sort();
}

describe("model download (generated model, local release server)", () => {
  test("the table: parts of at most the part size, sizes and hashes add up", () => {
    const m = table.models[0];
    const onnx = m.files[0];
    assert.equal(onnx.parts.length, 6);
    assert.ok(onnx.parts.every((p) => p.size <= PART));
    assert.equal(
      onnx.parts.reduce((s, p) => s + p.size, 0),
      onnx.size,
    );
    assert.equal(m.size, onnx.size + m.files[1].size);
    assert.match(onnx.sha256, /^[0-9a-f]{64}$/);
    assert.equal(onnx.parts[0].name, `${ID}--model.onnx.000`);
  });

  test("the first start without the model offers the download in one notice; the next start does not repeat it", async () => {
    const vault = await copyFixture();
    const size = formatBytes(table.models[0].size);
    const offer = `Strata: semantic search needs the embedding model all-MiniLM-L6-v2 (${size}, license Apache-2.0). Download it in Settings → Strata → Semantic search; lexical search works meanwhile.`;
    const first = await loadPlugin(vault, { settings: { embeddingModel: ID } });
    try {
      assert.deepEqual(first.plugin.notices, [offer]);
    } finally {
      await unloadPlugin(first.plugin);
    }
    const second = await loadPlugin(vault);
    try {
      assert.equal(second.plugin.modelState, "absent");
      assert.deepEqual(second.plugin.notices, []);
      assert.deepEqual(second.plugin.settings.offeredModels, [ID]);
      assert.deepEqual(
        rowButtons(second.app, "Download the model").buttons.map((b) => b.text),
        ["Download"],
      );
    } finally {
      await unloadPlugin(second.plugin);
    }
  });

  const faults: [string, (t: ModelTable) => Fault, RegExp][] = [
    [
      "a missing part (404)",
      (t) => ({ kind: "404", name: t.models[0].files[0].parts[2].name }),
      /part 3 of 7 \(all-MiniLM-L6-v2--model\.onnx\.002\): http:\/\/127\.0\.0\.1:\d+\/releases\/download\/9\.8\.7\/all-MiniLM-L6-v2--model\.onnx\.002 answered HTTP 404 \(not found\)/,
    ],
    [
      "a truncated part",
      (t) => ({ kind: "truncate", name: t.models[0].files[0].parts[1].name }),
      /part 2 of 7 .* came with 32768 bytes instead of 65536/,
    ],
    ["one flipped byte", (t) => ({ kind: "flip", name: t.models[0].files[1].parts[0].name }), /part 7 of 7 .* failed its SHA-256 check/],
    [
      "a stalled connection",
      (t) => ({ kind: "stall", name: t.models[0].files[0].parts[0].name }),
      /part 1 of 7 \(.*\): no complete answer from .* within 1 s/,
    ],
  ];
  for (const [what, fault, message] of faults) {
    test(`${what}: a clear message, no model folder, lexical search unchanged`, async () => {
      const vault = await copyFixture();
      const { app, plugin } = await loadPlugin(vault, { settings: { embeddingModel: ID } });
      try {
        assert.equal(plugin.modelState, "absent");
        assert.equal(plugin.missingModel, ID);
        plugin.installer.partTimeoutMs = 1000;
        const before = await lexical(plugin);
        server.fault = fault(table);
        const err = await clickDownload(app, plugin);
        assert.ok(err, "the download failed");
        assert.match(err, message);
        assert.match(
          err,
          /^The download of all-MiniLM-L6-v2 failed: .*Nothing was installed; lexical search works as before\. Download again to (retry|resume)/,
        );
        assert.equal(plugin.notices.at(-1), `Strata: ${err}`, "a notice says so too (the settings tab may be closed)");
        assert.ok(!existsSync(path.join(vault, PLUGIN_DIR, "models", ID)), "no model folder");
        assert.ok(
          (await modelsTree(vault)).every((f) => f.startsWith(`.${ID}.parts/`)),
          "only verified parts are kept",
        );
        assert.match(rowButtons(app, "Download the model").desc, message);
        assert.deepEqual(
          rowButtons(app, "Download the model").buttons.map((b) => b.text),
          ["Download again"],
        );
        assert.deepEqual(await lexical(plugin), before);
        assert.equal(plugin.modelState, "absent");
      } finally {
        server.fault = null;
        await unloadPlugin(plugin);
      }
    });
  }

  test("the server dies mid-download and comes back: after Obsidian restarts, Download resumes from the first missing part", async () => {
    const vault = await copyFixture();
    const first = await loadPlugin(vault, { settings: { embeddingModel: ID } });
    const before = await lexical(first.plugin);
    try {
      server.served.length = 0;
      server.fault = { kind: "die", after: 3 };
      const err = await clickDownload(first.app, first.plugin);
      assert.match(err ?? "", /part 4 of 7 .*: could not fetch .*model\.onnx\.003.* Download again to resume \(3 of 7 parts are kept\)/);
      assert.ok(!existsSync(path.join(vault, PLUGIN_DIR, "models", ID)));
      assert.deepEqual(await lexical(first.plugin), before);
    } finally {
      server.fault = null;
      await unloadPlugin(first.plugin);
    }
    // The server is back; Obsidian starts again.
    const { app, plugin } = await loadPlugin(vault, { settings: { embeddingModel: ID } });
    try {
      assert.equal(plugin.modelState, "absent");
      server.served.length = 0;
      assert.equal(await clickDownload(app, plugin), null);
      // Only the four missing parts were fetched again.
      assert.deepEqual(server.served, table.models[0].files.flatMap((f) => f.parts.map((p) => p.name)).slice(3));
      const v = await verifyModel({ table, id: ID, modelsDir: path.join(vault, PLUGIN_DIR, "models"), fs: nodeModelFs });
      assert.ok(v.ok, v.problems.join("; "));
      assert.deepEqual(await modelsTree(vault), [`${ID}/model.onnx`, `${ID}/tokenizer.json`]);
      // The files are random bytes, not a network: loading them fails, and says so; lexical search is as before.
      await eventually(async () => plugin.modelState === "error", 10000, "the model load");
      assert.deepEqual(await lexical(plugin), before);
    } finally {
      server.fault = null;
      await unloadPlugin(plugin);
    }
  });

  test("cancel stops the download and keeps the parts for a resume", async () => {
    const vault = await copyFixture();
    const { app, plugin } = await loadPlugin(vault, { settings: { embeddingModel: ID } });
    try {
      plugin.installer.partTimeoutMs = 30000;
      server.fault = { kind: "stall", name: table.models[0].files[0].parts[1].name };
      rowButtons(app, "Download the model")
        .buttons.find((b) => b.text === "Download")!
        .click();
      await eventually(async () => (plugin.installer.progress?.partsDone ?? 0) >= 1, 5000, "a part");
      const row = rowButtons(app, "Download the model");
      assert.match(row.desc, /^Downloading all-MiniLM-L6-v2: .* \(\d+%, part 1 of 7\)\.$/);
      row.buttons.find((b) => b.text === "Cancel")!.click();
      await eventually(async () => plugin.installer.running === null, 5000, "the cancel");
      assert.match(plugin.installer.errors.get(ID) ?? "", /failed: cancelled\. Nothing was installed/);
      assert.ok(!plugin.notices.some((n) => n.includes("cancelled")), "no notice for a cancel");
      assert.deepEqual(await modelsTree(vault), [`.${ID}.parts/${ID}--model.onnx.000`]);
    } finally {
      server.fault = null;
      await unloadPlugin(plugin);
    }
  });

  test("Import from folder: files that are not the release's are refused, the right ones installed (a folder in the vault)", async () => {
    const vault = await copyFixture();
    const { app, plugin } = await loadPlugin(vault, { settings: { embeddingModel: ID } });
    try {
      const before = await lexical(plugin);
      // The release's files, assembled from its parts, in a vault folder; and a copy with one byte changed.
      const good = path.join(vault, "Downloads", "model");
      const bad = path.join(vault, "Downloads", "bad");
      await mkdir(good, { recursive: true });
      await mkdir(bad, { recursive: true });
      for (const f of table.models[0].files) {
        const parts = await Promise.all(f.parts.map((p) => readFile(path.join(releaseDir, p.name))));
        const whole = Buffer.concat(parts);
        await writeFile(path.join(good, f.name), whole);
        if (f.name === "model.onnx") whole[7] ^= 1;
        await writeFile(path.join(bad, f.name), whole);
      }
      const importFrom = async (folder: string) => {
        const row = rowInputs(app, "Import from folder");
        row.input.value = folder;
        row.input.dispatch("input");
        row.buttons.find((b) => b.text === "Import")!.click();
        await eventually(async () => plugin.installer.running === null, 10000, "the import");
        return plugin.installer.errors.get(ID) ?? null;
      };
      assert.match(
        (await importFrom("Downloads/bad")) ?? "",
        /^Importing all-MiniLM-L6-v2 failed: model\.onnx in Downloads\/bad is not the all-MiniLM-L6-v2 of this release \(size or SHA-256 differs\)\. Nothing was installed\.$/,
      );
      assert.deepEqual(await modelsTree(vault), []);
      assert.equal(
        await importFrom("Downloads/missing"),
        "Importing all-MiniLM-L6-v2 failed: Downloads/missing has no model.onnx. Nothing was installed.",
      );
      assert.equal(await importFrom("Downloads/model"), null);
      assert.deepEqual(await modelsTree(vault), [`${ID}/model.onnx`, `${ID}/tokenizer.json`]);
      await eventually(async () => plugin.modelState === "error", 10000, "the model load (random bytes)");
      assert.deepEqual(await lexical(plugin), before);
    } finally {
      await unloadPlugin(plugin);
    }
  });

  test("a full disk: the message says so, the parts are removed to free the space, nothing is installed", async () => {
    const dir = await tempDir("strata-dl-");
    // Node's file system with a quota: writes past 150 kB fail as a full disk does (ENOSPC).
    let written = 0;
    const quota: ModelFs = {
      ...nodeModelFs,
      write: async (p, bytes) => {
        if (written + bytes.length > 150_000)
          throw Object.assign(new Error(`ENOSPC: no space left on device, write '${p}'`), { code: "ENOSPC" });
        written += bytes.length;
        await nodeModelFs.write(p, bytes);
      },
    };
    await assert.rejects(
      downloadModel({
        table,
        id: ID,
        baseUrl: `${server.url}/releases/download/${VERSION}`,
        modelsDir: dir,
        fs: quota,
        fetch: nodeFetcher,
      }),
      (err: ModelDownloadError) => {
        assert.equal(err.kind, "disk");
        assert.match(
          err.message,
          /^The download of all-MiniLM-L6-v2 failed: the disk is full \(writing all-MiniLM-L6-v2--model\.onnx\.002\); the downloaded parts were removed\. Nothing was installed; lexical search works as before\.$/,
        );
        return true;
      },
    );
    assert.deepEqual(await readdir(dir), []);
  });

  test("the shared module from Node (the CLI's fetch and file system): a wrong table entry is never installed", async () => {
    const dir = await tempDir("strata-dl-");
    const bad: ModelTable = structuredClone(table);
    bad.models[0].files[1].sha256 = sha256Hex(new Uint8Array([1, 2, 3]));
    await assert.rejects(
      downloadModel({
        table: bad,
        id: ID,
        baseUrl: `${server.url}/releases/download/${VERSION}`,
        modelsDir: dir,
        fs: nodeModelFs,
        fetch: nodeFetcher,
      }),
      /tokenizer\.json of all-MiniLM-L6-v2 failed its SHA-256 check once assembled/,
    );
    assert.ok(!existsSync(path.join(dir, ID)) && !existsSync(path.join(dir, `.${ID}.staging`)));
    // A download that is not a model's says what keeps working instead (the relaxed-SIMD embedder's).
    await assert.rejects(
      downloadModel({
        table: bad,
        id: ID,
        baseUrl: `${server.url}/releases/download/${VERSION}`,
        modelsDir: dir,
        fs: nodeModelFs,
        fetch: nodeFetcher,
        meanwhile: "the built-in embedder runs",
      }),
      /Nothing was installed; the built-in embedder runs\. Download again to resume \(7 of 7 parts are kept\)\.$/,
    );
    const ok = await downloadModel({
      table,
      id: ID,
      baseUrl: `${server.url}/releases/download/${VERSION}`,
      modelsDir: dir,
      fs: nodeModelFs,
      fetch: nodeFetcher,
    });
    assert.equal(ok.resumedParts, 7);
    assert.equal(ok.fetchedParts, 0);
    assert.ok((await verifyModel({ table, id: ID, modelsDir: dir, fs: nodeModelFs })).ok);
  });
});
